/** Timestamp formats used by the writers. All UTC. */
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

const pad = (n: number, width = 2): string => String(n).padStart(width, '0')

/** nginx `$time_local` in UTC: `29/Nov/2026:14:02:10 +0000` (always whole seconds). */
export function timeLocal(ms: number): string {
  const d = new Date(ms)
  return `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(
    d.getUTCMinutes(),
  )}:${pad(d.getUTCSeconds())} +0000`
}

/** ISO-8601 with milliseconds and `Z`: `2026-11-29T14:02:10.000Z`. */
export function isoMs(ms: number): string {
  return new Date(ms).toISOString()
}

/** ISO-8601 without milliseconds and `Z`: `2026-11-29T14:02:10Z` (Kubernetes, Datadog events). */
export function isoSeconds(ms: number): string {
  return new Date(ms - (ms % 1000)).toISOString().replace('.000Z', 'Z')
}

/** nginx `$time_iso8601`: `2026-11-29T14:02:10+00:00`; with milliseconds when `withMs`. */
export function timeIso8601(ms: number, withMs: boolean): string {
  const iso = new Date(ms).toISOString()
  return (withMs ? iso.slice(0, 23) : iso.slice(0, 19)) + '+00:00'
}

/** Go's `time.Time.String()` for UTC, as the Datadog agent prints it: `2026-11-29 14:10:00 +0000 UTC`. */
export function goTime(ms: number): string {
  return `${new Date(ms - (ms % 1000)).toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`
}
