/**
 * `--from`/`--to`/`--since` into one absolute range, resolved once against an injected clock so
 * every slice, every retry and the report agree on what "now-2h" meant.
 */
import {utc} from '@date-fns/utc'
import {addMonths} from 'date-fns/addMonths'
import {addYears} from 'date-fns/addYears'
import {startOfDay} from 'date-fns/startOfDay'
import {startOfHour} from 'date-fns/startOfHour'
import {startOfISOWeek} from 'date-fns/startOfISOWeek'
import {startOfMinute} from 'date-fns/startOfMinute'
import {startOfMonth} from 'date-fns/startOfMonth'
import {startOfSecond} from 'date-fns/startOfSecond'
import {startOfYear} from 'date-fns/startOfYear'
import {parseIsoTime} from '../normalize/access-line'
import {ConfigError} from '../errors/config-error'
import type {TimeRange} from '../model/time-range'
import {parseDuration} from '../util/parse-duration'

export type {TimeRange} from '../model/time-range'

/** Units of fixed length (UTC has no daylight saving: a day is always 24 h). */
const FIXED_MS: Record<string, number> = {s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000}

const ACCEPTED = 'ISO-8601 (2026-11-29T14:00:00Z; no zone means UTC), epoch milliseconds (1795960800000), or date math (now, now-2h, now-90m, now-1M; rounded down in UTC with /: now/d is today 00:00, now-1d/d yesterday 00:00, now/w this Monday)'

/** `now`, steps (`-2h`, `+1M`, several in a row) and an optional rounding (`/d`), as Grafana and Elasticsearch write it. */
const DATE_MATH = /^now((?:[+-]\d+[smhdwMy])*)(?:\/([smhdwMy]))?$/

/** Date math from `now`: fixed units by their length, months and years by the calendar, then rounded down, all in UTC. */
function dateMath(steps: string, round: string | undefined, now: number): number {
  let t = now
  for (const [, sign, n, unit] of steps.matchAll(/([+-])(\d+)([smhdwMy])/g)) {
    const k = sign === '-' ? -Number(n) : Number(n)
    const fixed = FIXED_MS[unit as string]
    // Months and years of the calendar (now-1M on 31 March is 28 or 29 February), from date-fns in UTC.
    t = fixed !== undefined ? t + k * fixed : +(unit === 'M' ? addMonths(t, k, {in: utc}) : addYears(t, k, {in: utc}))
  }
  return round === undefined ? t : +START_OF[round as keyof typeof START_OF](t, {in: utc})
}

/** Rounding down to the start of a unit, in UTC (a week starts on Monday, as ISO 8601 has it). */
const START_OF = {s: startOfSecond, m: startOfMinute, h: startOfHour, d: startOfDay, w: startOfISOWeek, M: startOfMonth, y: startOfYear}

/** One time expression as epoch ms. */
export function parseTimeExpression(flag: string, value: string, now: number): number {
  const v = value.trim()
  const math = DATE_MATH.exec(v)
  if (math) return dateMath(math[1] ?? '', math[2], now)
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
