/**
 * Two different questions about a path:
 * - `isAssetPath`: the analyzer's default asset patterns (design.md). Truth uses it to decide what
 *   counts as a failure.
 * - `podTreatsAsAsset`: what the simulated pod considers an asset in `missing: '404'` mode.
 */

const ASSET_PREFIXES = ['/_build/', '/assets/', '/static/', '/_next/static/', '/_app/immutable/']
const ASSET_EXTENSIONS = ['.js', '.mjs', '.cjs', '.css', '.map', '.wasm']

export function isAssetPath(path: string): boolean {
  if (ASSET_PREFIXES.some((p) => path.startsWith(p))) return true
  return ASSET_EXTENSIONS.some((e) => path.endsWith(e))
}

const POD_ASSET_PREFIXES = ['/_build/', '/assets/', '/static/']
const POD_ASSET_EXTENSIONS = ['.js', '.css', '.mjs', '.map']

export function podTreatsAsAsset(path: string): boolean {
  if (POD_ASSET_PREFIXES.some((p) => path.startsWith(p))) return true
  return POD_ASSET_EXTENSIONS.some((e) => path.endsWith(e))
}
