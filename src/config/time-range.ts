/**
 * `--from`/`--to`/`--since` into one absolute range, resolved once against an injected clock so
 * every slice, every retry and the report agree on what "now-2h" meant.
 */
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
    if (fixed !== undefined) {
      t += k * fixed
      continue
    }
    // Months and years of the calendar (now-1M on 31 March is 28 or 29 February), from date-fns in UTC.
    const {addMonths, addYears, inUtc} = calendar()
    t = +(unit === 'M' ? addMonths(t, k, {in: inUtc}) : addYears(t, k, {in: inUtc}))
  }
  if (round === undefined) return t
  const c = calendar()
  return +c.startOf[round as keyof Calendar['startOf']](t, {in: c.inUtc})
}

/**
 * date-fns, with UTC as the context of its calendar arithmetic, loaded on the first date math that
 * needs it: a run with no `now-1M` or `/d` (every offline one) never loads it. Loading it took 60 ms
 * of a start of about 300, most of it `@date-fns/utc`'s full UTCDate formatting `Intl` objects it
 * builds as it loads; the arithmetic needs only its getters and setters (UTCDateMini).
 */
/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use (start-up time), as app/analyze.ts loads the deploy parser */
function calendar(): Calendar {
  if (loaded) return loaded
  const {UTCDateMini} = require('@date-fns/utc/date/mini') as typeof import('@date-fns/utc/date/mini')
  loaded = {
    inUtc: (value) => new UTCDateMini(+new Date(value)),
    addMonths: (require('date-fns/addMonths') as typeof import('date-fns/addMonths')).addMonths,
    addYears: (require('date-fns/addYears') as typeof import('date-fns/addYears')).addYears,
    // Rounding down to the start of a unit, in UTC (a week starts on Monday, as ISO 8601 has it).
    startOf: {
      s: (require('date-fns/startOfSecond') as typeof import('date-fns/startOfSecond')).startOfSecond,
      m: (require('date-fns/startOfMinute') as typeof import('date-fns/startOfMinute')).startOfMinute,
      h: (require('date-fns/startOfHour') as typeof import('date-fns/startOfHour')).startOfHour,
      d: (require('date-fns/startOfDay') as typeof import('date-fns/startOfDay')).startOfDay,
      w: (require('date-fns/startOfISOWeek') as typeof import('date-fns/startOfISOWeek')).startOfISOWeek,
      M: (require('date-fns/startOfMonth') as typeof import('date-fns/startOfMonth')).startOfMonth,
      y: (require('date-fns/startOfYear') as typeof import('date-fns/startOfYear')).startOfYear,
    },
  }
  return loaded
}
/* eslint-enable @typescript-eslint/no-require-imports */

type Rounding = (t: number, o: {in: (value: Date | number | string) => Date}) => Date

interface Calendar {
  inUtc: (value: Date | number | string) => Date
  addMonths: (t: number, k: number, o: {in: (value: Date | number | string) => Date}) => Date
  addYears: (t: number, k: number, o: {in: (value: Date | number | string) => Date}) => Date
  startOf: Record<'s' | 'm' | 'h' | 'd' | 'w' | 'M' | 'y', Rounding>
}

let loaded: Calendar | undefined

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
