/**
 * Decides whether a path is an asset. Prefix patterns (`/_build/`) match the start of the path,
 * extension patterns (`.js`) its end; anything else matches anywhere in the path.
 */
export function assetMatcher(patterns: readonly string[]): (path: string) => boolean {
  const prefixes = patterns.filter((p) => p.startsWith('/'))
  const extensions = patterns.filter((p) => p.startsWith('.')).map((p) => p.toLowerCase())
  const others = patterns.filter((p) => !p.startsWith('/') && !p.startsWith('.'))
  return (path) => {
    for (const p of prefixes) if (path.startsWith(p)) return true
    if (extensions.length > 0) {
      const dot = path.lastIndexOf('.')
      if (dot > path.lastIndexOf('/')) {
        const ext = path.slice(dot).toLowerCase()
        for (const e of extensions) if (ext === e) return true
      }
    }
    for (const p of others) if (path.includes(p)) return true
    return false
  }
}
