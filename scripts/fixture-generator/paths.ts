/**
 * Questions about a path, as the product defines them (design.md) and as the simulated pods see them:
 * - `isAssetPath`: the analyzer's default asset patterns. Truth uses it to decide what counts as a failure.
 * - `isShellPath`, `isDocumentPath`: what can be a page load (`/`, `/index.html`; routes without an
 *   extension or ending in `.html`). `/favicon.ico`, `/robots.txt`, `/wp-login.php` never are.
 * - `assetKind`: what a failed asset does to its page (a script crashes it, a stylesheet unstyles it).
 * - `podTreatsAsAsset`: what the simulated pod considers an asset in `missing: '404'` mode.
 */

const ASSET_PREFIXES = ['/_build/', '/assets/', '/static/', '/_next/static/', '/_app/immutable/']
const ASSET_EXTENSIONS = ['.js', '.mjs', '.cjs', '.css', '.map', '.wasm']

export function isAssetPath(path: string): boolean {
  if (ASSET_PREFIXES.some((p) => path.startsWith(p))) return true
  return ASSET_EXTENSIONS.some((e) => path.endsWith(e))
}

export const SHELL_PATHS: ReadonlySet<string> = new Set(['/', '/index.html'])

export const isShellPath = (path: string): boolean => SHELL_PATHS.has(path)

/** The extension of the path's last segment (lower case, with its dot), '' when it has none. */
export function extensionOf(path: string): string {
  const slash = path.lastIndexOf('/')
  const dot = path.lastIndexOf('.')
  return dot > slash + 1 ? path.slice(dot).toLowerCase() : ''
}

export function isDocumentPath(path: string): boolean {
  const ext = extensionOf(path)
  return ext === '' || ext === '.html' || ext === '.htm'
}

export const isSourceMap = (path: string): boolean => path.endsWith('.map')

const SCRIPTS = new Set(['.js', '.mjs', '.cjs', '.wasm'])

export function assetKind(path: string): 'script' | 'stylesheet' | 'other' {
  const ext = extensionOf(path)
  if (SCRIPTS.has(ext)) return 'script'
  return ext === '.css' ? 'stylesheet' : 'other'
}

export const directoryOf = (path: string): string => path.slice(0, path.lastIndexOf('/') + 1)

const POD_ASSET_PREFIXES = ['/_build/', '/assets/', '/static/']
const POD_ASSET_EXTENSIONS = ['.js', '.css', '.mjs', '.map']

export function podTreatsAsAsset(path: string): boolean {
  if (POD_ASSET_PREFIXES.some((p) => path.startsWith(p))) return true
  return POD_ASSET_EXTENSIONS.some((e) => path.endsWith(e))
}
