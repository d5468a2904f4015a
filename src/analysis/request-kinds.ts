import type {AssetKind} from '../model/report'
import {looksHashed} from '../util/hashed-name'


/** The file extension of a path's last segment, lower case, with its dot; '' when it has none. */
export function extensionOf(path: string): string {
  const slash = path.lastIndexOf('/')
  const dot = path.lastIndexOf('.')
  return dot > slash + 1 ? path.slice(dot).toLowerCase() : ''
}

const SCRIPTS = new Set(['.js', '.mjs', '.cjs', '.wasm', '.jsx', '.ts', '.tsx'])
const STYLESHEETS = new Set(['.css'])

/** What an asset path names: a script (a failure crashes the page), a stylesheet (unstyled), anything else. */
export function assetKind(path: string): AssetKind {
  const ext = extensionOf(path)
  if (SCRIPTS.has(ext)) return 'script'
  if (STYLESHEETS.has(ext)) return 'stylesheet'
  return 'other'
}

/** Source maps are fetched by DevTools, never by the page: one answered with a shell breaks nothing. */
export function isSourceMap(path: string): boolean {
  return path.endsWith('.map')
}

/**
 * Whether a non-shell path can be a document route of the SPA (answered with the shell): a path
 * without an extension, or an `.html` page. `/favicon.ico`, `/robots.txt`, `/sitemap.xml` or
 * `/wp-login.php` or `/.env` answered with the shell's length are not page loads.
 */
export function isDocumentPath(path: string): boolean {
  // Dotfiles (`/.env`, `/.git/…`) are what scanners ask for, never pages.
  if (path.includes('/.')) return false
  const ext = extensionOf(path)
  return ext === '' || ext === '.html' || ext === '.htm'
}

// In util/: the Datadog pull tells scanners' guesses apart with it before it reads (sources/datadog/scanners.ts).
export {looksHashed}

/**
 * Whether a file name carries a bundler's content hash, as build identity needs it: a token of at
 * least 8 letters and digits holding a digit (webpack's hex, Rollup's base36) or a capital after its
 * first letter (Vite's base64: `index-DiwrgTda.js`), so a name shared by every build (`/main.js`,
 * `/assets/settings.js`) never names one.
 */
export function namesContent(path: string): boolean {
  if (looksHashed(path)) return true
  const name = path.slice(path.lastIndexOf('/') + 1)
  for (const token of name.split(/[.\-_~]/)) {
    if (token.length >= 8 && /^[A-Za-z0-9]+$/.test(token) && /[A-Z]/.test(token.slice(1)) && /[a-z]/.test(token)) return true
  }
  return false
}

/** The directory part of a path, with its trailing slash (`/_build/a.js` -> `/_build/`). */
export function directoryOf(path: string): string {
  return path.slice(0, path.lastIndexOf('/') + 1)
}
