import {createHash} from 'node:crypto'

/**
 * A page's build fingerprint: its length and a short hash of the sorted, de-duplicated asset URLs.
 * Content-hashed bundle names change with every build, so the hash changes with the build even when
 * two shells happen to have the same length.
 */
export function buildFingerprint(shellBytes: number, assetUrls: readonly string[]): {fingerprint: string; shellBytes: number; assetsHash: string} {
  const list = [...new Set(assetUrls)].sort().join('\n')
  const assetsHash = createHash('sha256').update(list).digest('hex').slice(0, 8)
  return {fingerprint: `${shellBytes}:${assetsHash}`, shellBytes, assetsHash}
}
