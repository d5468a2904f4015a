/*
 * Container log wrappers around an access line: what a container's log file holds, and what
 * `kubectl logs` users copy.
 *
 * - Docker's json-file driver: `{"log":"<line>\n","stream":"stdout","time":"2026-11-30T07:18:26.070Z"}`
 *   (https://docs.docker.com/engine/logging/drivers/json-file/).
 * - The CRI format containerd and CRI-O write under /var/log/containers:
 *   `2026-11-30T07:18:26.070123456Z stdout F <line>` (F: a full line, P: a part of a line the
 *   runtime split, at 16 KB by default).
 * - `kubectl logs --timestamps`: `2026-11-30T07:18:26.070123456Z <line>`.
 *
 * The record's time is the access line's own: the wrapper's is when the runtime read it.
 */

/** What a wrapper holds: the line, and whether the runtime marked it as a part of a longer line. */
export interface Wrapped {
  line: string
  partial: boolean
  /** `stdout` or `stderr`: the parts of a split line come on one stream. */
  stream?: string
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57

/** An RFC 3339 time at the start of s (`2026-11-30T07:18:26[.fff…](Z|±hh:mm)`), its end, or -1. */
function rfc3339End(s: string): number {
  if (s.length < 21 || !isDigit(s.charCodeAt(0)) || s[4] !== '-' || s[7] !== '-' || (s[10] !== 'T' && s[10] !== 't') || s[13] !== ':' || s[16] !== ':') return -1
  let i = 19
  if (s[i] === '.') {
    i++
    while (i < s.length && i < 40 && isDigit(s.charCodeAt(i))) i++
  }
  if (s[i] === 'Z' || s[i] === 'z') return i + 1
  if ((s[i] === '+' || s[i] === '-') && s[i + 3] === ':') return i + 6
  return -1
}

/** The line inside a CRI record or a `kubectl logs --timestamps` line, or undefined when s is neither. */
export function unwrapCri(s: string): Wrapped | undefined {
  const t = rfc3339End(s)
  if (t < 0 || s.charCodeAt(t) !== 32) return undefined
  const rest = s.slice(t + 1)
  for (const stream of ['stdout ', 'stderr ']) {
    if (!rest.startsWith(stream)) continue
    const tag = rest.charCodeAt(stream.length)
    // The tag field is `F` or `P`, possibly with more tags after a colon in future versions.
    if ((tag === 70 || tag === 80) && (rest.charCodeAt(stream.length + 1) === 32 || rest.charCodeAt(stream.length + 1) === 58)) {
      const sp = rest.indexOf(' ', stream.length)
      return {line: sp < 0 ? '' : rest.slice(sp + 1), partial: tag === 80, stream: stream.trim()}
    }
  }
  return {line: rest, partial: false}
}

/** The line inside a Docker json-file record, or undefined when the object is not one. */
export function unwrapDocker(obj: Record<string, unknown>): Wrapped | undefined {
  const log = obj['log']
  if (typeof log !== 'string' || typeof obj['stream'] !== 'string' || !('time' in obj)) return undefined
  // Every full line ends with its newline; a line the daemon split (over 16 KB) does not.
  const stream = obj['stream'] as string
  if (log.endsWith('\n')) return {line: log.slice(0, log.endsWith('\r\n') ? -2 : -1), partial: false, stream}
  return {line: log, partial: true, stream}
}
