/**
 * Decides whether a path is an asset. Prefix patterns (`/_build/`) match the start of the path,
 * extension patterns (`.js`) its end, case-insensitively; anything else matches anywhere in the path.
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
        // Runs for every request: an ASCII extension is compared in place; anything else is
        // lower-cased as a string (some non-ASCII letters lower-case to ASCII ones).
        if (isAsciiFrom(path, dot)) {
          for (const e of extensions) if (equalsLowerAscii(path, dot, e)) return true
        } else {
          const ext = path.slice(dot).toLowerCase()
          for (const e of extensions) if (ext === e) return true
        }
      }
    }
    for (const p of others) if (path.includes(p)) return true
    return false
  }
}

function isAsciiFrom(s: string, from: number): boolean {
  for (let i = from; i < s.length; i++) if (s.charCodeAt(i) > 127) return false
  return true
}

/** s.slice(from).toLowerCase() === lower, for an ASCII tail of s. */
function equalsLowerAscii(s: string, from: number, lower: string): boolean {
  if (s.length - from !== lower.length) return false
  for (let i = 0; i < lower.length; i++) {
    let c = s.charCodeAt(from + i)
    if (c >= 65 && c <= 90) c += 32
    if (c !== lower.charCodeAt(i)) return false
  }
  return true
}
