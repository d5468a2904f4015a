/**
 * `--from`/`--to`/`--since` into one absolute range, resolved once against an injected clock so
 * every slice, every retry and the report agree on what "now-2h" meant.
 */
import {parseIsoTime} from '../normalize/access-line'
import {ConfigError} from '../errors/config-error'
import type {TimeRange} from '../model/time-range'
import {parseDuration} from '../util/parse-duration'

export type {TimeRange} from '../model/time-range'

const MATH_UNITS: Record<string, number> = {s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000}

const ACCEPTED = 'ISO-8601 (2026-11-29T14:00:00Z; no zone means UTC), epoch milliseconds (1795960800000), or date math (now, now-2h, now-90m, now-1d)'

/** One time expression as epoch ms. */
export function parseTimeExpression(flag: string, value: string, now: number): number {
  const v = value.trim()
  const math = /^now(?:([+-])(\d+)([smhdw]))?$/.exec(v)
  if (math) {
    const [, sign, n, unit] = math
    if (sign === undefined) return now
    const delta = Number(n) * (MATH_UNITS[unit ?? ''] ?? 0)
    return sign === '-' ? now - delta : now + delta
  }
  if (/^\d+$/.test(v)) {
    // Ten digits is epoch seconds (Datadog's v1 API, `date +%s`): say so rather than read 1970.
    if (v.length <= 11) throw new ConfigError(`--${flag}: "${value}" looks like epoch seconds; give epoch milliseconds (${v}000) or an ISO-8601 time`)
    return Number(v)
  }
  const iso = parseIsoTime(withZone(v))
  if (iso === undefined) throw new ConfigError(`--${flag}: "${value}" is not a time. Use ${ACCEPTED}.`)
  return iso.time
}

/** Date-only and zone-less ISO times are read as UTC, as Datadog reads them. */
function withZone(v: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return `${v}T00:00:00Z`
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/i.test(v)) return `${v}Z`
  return v
}

/**
 * `--since 2h` is `--from now-2h --to now`. `--to` defaults to now. The range must not be empty and
 * must not start in the future.
 */
export function resolveTimeRange(flags: {from?: string; to?: string; since?: string}, now: number): TimeRange {
  if (flags.since !== undefined && (flags.from !== undefined || flags.to !== undefined)) {
    throw new ConfigError('--since cannot be combined with --from/--to (it means --from now-<since> --to now)')
  }
  if (flags.since !== undefined) {
    const d = parseDuration('since', flags.since)
    if (d <= 0) throw new ConfigError(`--since: "${flags.since}" must be longer than zero`)
    return {from: now - d, to: now}
  }
  if (flags.from === undefined) throw new ConfigError('--from (or --since) is needed to read from Datadog')
  const from = parseTimeExpression('from', flags.from, now)
  const to = flags.to === undefined ? now : parseTimeExpression('to', flags.to, now)
  if (from >= now) throw new ConfigError(`--from ${new Date(from).toISOString()} is in the future (now is ${new Date(now).toISOString()})`)
  if (to <= from) throw new ConfigError(`--to ${new Date(to).toISOString()} must be after --from ${new Date(from).toISOString()}`)
  return {from, to}
}
