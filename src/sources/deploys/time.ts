/** Turns the time values found in deploy files into epoch milliseconds (UTC). */

export type TimeOutcome = {ok: true; ms: number} | {ok: false; reason: 'missing-time' | 'bad-time'}

const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/i
const NUMERIC = /^\d+(?:\.\d+)?$/

export function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
}

export function parseTime(value: unknown): TimeOutcome {
  if (isAbsent(value)) return {ok: false, reason: 'missing-time'}
  const ms = toEpochMs(value)
  return ms === undefined ? {ok: false, reason: 'bad-time'} : {ok: true, ms}
}

/**
 * The first candidate that parses. Sources such as Kubernetes carry several timestamp fields, some
 * null or zero (`0001-01-01T00:00:00Z`), so a bad candidate only counts when no other one is usable.
 */
export function firstTime(candidates: readonly unknown[]): TimeOutcome {
  let outcome: TimeOutcome = {ok: false, reason: 'missing-time'}
  for (const candidate of candidates) {
    const parsed = parseTime(candidate)
    if (parsed.ok) return parsed
    if (parsed.reason === 'bad-time') outcome = parsed
  }
  return outcome
}

function toEpochMs(value: unknown): number | undefined {
  if (typeof value === 'number') return epochToMs(value)
  if (typeof value !== 'string') return undefined
  const text = value.trim()
  return NUMERIC.test(text) ? epochToMs(Number(text)) : parseIso(text)
}

/**
 * Epoch numbers carry no unit, so the magnitude decides: below 1e12 seconds, below 1e15
 * milliseconds, below 1e18 microseconds, else nanoseconds. Each unit's range starts in 2001, so any
 * realistic deploy date is read in its own unit.
 */
export function epochToMs(value: number): number | undefined {
  if (!Number.isFinite(value) || value <= 0) return undefined
  if (value >= 1e18) return Math.round(value / 1e6)
  if (value >= 1e15) return Math.round(value / 1e3)
  if (value >= 1e12) return Math.round(value)
  return Math.round(value * 1000)
}

/** Strict ISO-8601 (Date.parse accepts too much); a time without an offset is taken as UTC. */
export function parseIso(text: string): number | undefined {
  const match = ISO_8601.exec(text)
  if (!match) return undefined
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', zone] = match
  const fields = [Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second)] as const
  const ms = Date.UTC(...fields, Number(fraction.padEnd(3, '0').slice(0, 3)))
  if (!sameFields(ms, fields)) return undefined
  const offset = zoneOffsetMinutes(zone)
  return offset === undefined || ms - offset * 60_000 <= 0 ? undefined : ms - offset * 60_000
}

/** Date.UTC rolls 2024-02-30 over to March; a round trip catches such dates. */
function sameFields(ms: number, fields: readonly [number, number, number, number, number, number]): boolean {
  const date = new Date(ms)
  const actual = [
    date.getUTCFullYear(),
    date.getUTCMonth(),
    date.getUTCDate(),
    date.getUTCHours(),
    date.getUTCMinutes(),
    date.getUTCSeconds(),
  ]
  return actual.every((field, i) => field === fields[i])
}

function zoneOffsetMinutes(zone: string | undefined): number | undefined {
  if (zone === undefined || /^(Z|UTC|GMT)$/i.test(zone)) return 0
  const digits = zone.slice(1).replace(':', '')
  const hours = Number(digits.slice(0, 2))
  const minutes = Number(digits.slice(2) || '0')
  if (hours > 23 || minutes > 59) return undefined
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes)
}
