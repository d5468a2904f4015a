/**
 * `host:port` -> `host`, the one way every log format and the analysis name a host or an address
 * (an app named by its virtual host must be the same app whichever proxy logged it):
 *
 * - a port is digits after the last colon, and may be empty (`host:` is `host`);
 * - a bracketed IPv6 address loses its brackets, with or without a port (`[::1]:443`, `[::1]` ->
 *   `::1`), so it reads as the bare address other logs and Datadog's facets give;
 * - a bare IPv6 address (more than one colon, no brackets) has no port to strip and is kept;
 * - anything else (`host:abc`, `:80`, `[::1`, `[::1]x`, '') is kept as it is, not guessed at.
 */
export function stripPort(hostport: string): string {
  const n = hostport.length
  if (n === 0) return hostport
  if (hostport.charCodeAt(0) === 91 /* [ */) {
    const close = hostport.indexOf(']')
    if (close < 2) return hostport
    if (close === n - 1 || (hostport.charCodeAt(close + 1) === 58 /* : */ && digitsFrom(hostport, close + 2))) return hostport.slice(1, close)
    return hostport
  }
  const colon = hostport.indexOf(':')
  if (colon <= 0 || hostport.indexOf(':', colon + 1) !== -1 || !digitsFrom(hostport, colon + 1)) return hostport
  return hostport.slice(0, colon)
}

/** Whether s holds only ASCII digits from `from` to its end (none at all counts). */
function digitsFrom(s: string, from: number): boolean {
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 48 || c > 57) return false
  }
  return true
}
