import {createHash} from 'node:crypto'
import {Random} from './random'

/** SPA routes; each has a lazy chunk. */
export const ROUTES = ['products', 'account', 'cart'] as const
export type Route = (typeof ROUTES)[number]

export interface LabAsset {
  path: string
  body: Buffer
  contentType: string
}

/** One build of the lab's app: a shell and its content-hashed bundles. */
export interface LabBuild {
  /** 0 for the build the lab starts with. */
  index: number
  /** `2026.11.30-1`: what the deploys file calls it. */
  version: string
  /** `web-<hash>`: pods of this build are named after it, as Kubernetes does. */
  replicaSet: string
  shell: Buffer
  assets: ReadonlyMap<string, LabAsset>
  /** What the shell names, in its order. */
  entries: readonly string[]
  /** The lazy chunk of each route. */
  chunks: Readonly<Record<Route, string>>
}

const JS = 'text/javascript; charset=utf-8'
const CSS = 'text/css; charset=utf-8'
/** Shells are about 1.9–2.8 kB and every bundle is larger than 3 kB: no bundle ever has a shell's length. */
const SHELL_BASE = 1900
const SHELL_STEP = 41
const MIN_ASSET = 3200

/**
 * `count` builds with content-hashed bundle names (the hash is of the bundle's bytes) and shells of
 * one length, as real bundlers make them (hashes of one length), or of distinct lengths
 * (`distinctShellLengths`). The app bundle carries the route → chunk map, as a bundler's runtime
 * does, so a browser learns a chunk's URL only from the build it actually ran. Deterministic for a seed.
 */
export function makeLabBuilds(count: number, seed: number, date: string, distinctShellLengths = false): LabBuild[] {
  const rng = new Random(seed, 'builds')
  const builds: LabBuild[] = []
  let firstLength: number | undefined
  for (let index = 0; index < count; index++) {
    const version = `${date}-${index + 1}`
    const assets = new Map<string, LabAsset>()
    const add = (name: string, ext: 'js' | 'css', text: string): string => {
      const body = Buffer.from(padTo(text, rng.int(MIN_ASSET, MIN_ASSET * 4)))
      const path = `/_build/${name}.${createHash('sha256').update(body).digest('hex').slice(0, 8)}.${ext}`
      assets.set(path, {path, body, contentType: ext === 'js' ? JS : CSS})
      return path
    }
    const banner = (what: string): string => `/* skewscan lab ${what}, build ${version} */\n`
    const chunks = Object.fromEntries(ROUTES.map((r) => [r, add(`chunk-${r}`, 'js', `${banner(`chunk ${r}`)}export default function ${r}() { return ${JSON.stringify(r)} }\n`)])) as Record<Route, string>
    const vendor = add('vendor', 'js', `${banner('vendor')}export const h = (t, p, ...c) => ({t, p, c})\n`)
    const runtime = add('runtime', 'js', `${banner('runtime')}window.__build = ${JSON.stringify(version)}\n`)
    const css = add('app', 'css', `${banner('styles')}body { font-family: system-ui, sans-serif; margin: 0 }\n`)
    const app = add('app', 'js', `${banner('app')}import {h} from ${JSON.stringify(vendor)}\nconst chunks = /*chunks*/${JSON.stringify(chunks)}/*end*/\nexport const route = (name) => import(chunks[name])\n`)
    const entries = [css, vendor, app, runtime]
    const replicaSet = `web-${rng.int(0x10000000, 0xffffffff).toString(16).slice(0, 9)}`
    const length = SHELL_BASE + SHELL_STEP * index + rng.int(0, 20)
    firstLength ??= length
    builds.push({index, version, replicaSet, shell: shellHtml(version, css, vendor, app, runtime, distinctShellLengths ? length : firstLength), assets, entries, chunks})
  }
  return builds
}

function shellHtml(version: string, css: string, vendor: string, app: string, runtime: string, length: number): Buffer {
  const head = [
    '<!doctype html>', '<html lang="en">', '<head>', '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">', '<title>skewscan lab shop</title>',
    `<link rel="stylesheet" href="${css}">`, `<link rel="modulepreload" href="${vendor}">`,
    `<script type="module" src="${app}"></script>`, `<script src="${runtime}" defer></script>`,
    '</head>', '<body>', '<div id="root"></div>', `<!-- build ${version} `,
  ].join('\n')
  const tail = ' -->\n</body>\n</html>\n'
  const fill = Math.max(0, length - Buffer.byteLength(head) - Buffer.byteLength(tail))
  return Buffer.from(`${head}${'.'.repeat(fill)}${tail}`)
}

/** Pads a bundle with a comment to exactly `length` bytes (ASCII). */
function padTo(text: string, length: number): string {
  const fill = length - text.length - 6
  if (fill <= 0) return text
  const line = 'lorem ipsum dolor sit amet consectetur adipiscing elit '
  return `${text}/*\n${line.repeat(Math.ceil(fill / line.length)).slice(0, fill)}*/\n`
}

/** The route → chunk URL map inside an app bundle, or an empty map when the text is not one (a shell, say). */
export function chunkMap(appJs: string): Record<string, string> {
  const m = /\/\*chunks\*\/(\{[^}]*\})\/\*end\*\//.exec(appJs)
  if (!m?.[1]) return {}
  try {
    const parsed = JSON.parse(m[1]) as unknown
    if (parsed === null || typeof parsed !== 'object') return {}
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1].startsWith('/')))
  } catch {
    return {}
  }
}
