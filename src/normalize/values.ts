import {parseIsoTime, parseNginxTime} from './access-line'

/*
 * Values of a log whose layout the user described (`--field`, `--log-format`): times, counts and
 * statuses as they are logged, whatever the key.
 */

/** Epoch ms at 10000-01-01: anything later is a unit mix-up, not a time. */
const MAX_MS = 253_402_300_800_000
const NUMERIC = /^\d+(\.\d+)?$/

/**
 * A logged time -> [epoch ms, resolution ms]. Strings: RFC 3339 / ISO-8601 with a zone, nginx
 * `$time_local` (`30/Nov/2026:07:18:26 +0000`), or a number. Numbers are epoch time, the unit told
 * by magnitude: below 1e11 seconds (up to year 5138), below 1e14 milliseconds, below 1e17
 * microseconds, else nanoseconds. `seconds` forces seconds (nginx `$msec`, `1764487106.070`).
 */
export function readTime(v: unknown, seconds = false): [number, number] | undefined {
  if (typeof v === 'number') return fromEpoch(v, seconds, !Number.isInteger(v))
  if (typeof v !== 'string') return undefined
  const s = v.trim()
  if (NUMERIC.test(s)) return fromEpoch(Number(s), seconds, s.includes('.'))
  if (seconds) return undefined
  const iso = parseIsoTime(s)
  if (iso !== undefined) return [iso.time, iso.resolutionMs]
  const local = parseNginxTime(s)
  return local === undefined ? undefined : [local, 1000]
}

function fromEpoch(x: number, seconds: boolean, fraction: boolean): [number, number] | undefined {
  if (!Number.isFinite(x) || x <= 0) return undefined
  let ms: number
  let res = 1
  if (seconds || x < 1e11) {
    ms = x * 1000
    if (!fraction) res = 1000
  } else if (x < 1e14) {
    ms = x
  } else if (x < 1e17) {
    ms = x / 1000
  } else {
    ms = x / 1e6
  }
  ms = Math.floor(ms)
  return ms < MAX_MS ? [ms, res] : undefined
}

/** A 3-digit status logged as a number or a string, else undefined. */
export function readStatus(v: unknown): number | undefined {
  const n = typeof v === 'string' && /^\d{3}$/.test(v.trim()) ? Number(v.trim()) : v
  return typeof n === 'number' && Number.isInteger(n) && n >= 100 && n <= 999 ? n : undefined
}

/** A byte count logged as a number or a digit string; `-` is 0, as nginx writes it for no body. */
export function readCount(v: unknown): number | undefined {
  if (v === '-') return 0
  const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v.trim()) : v
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined
}

/** A duration in seconds logged as a number or a numeric string (the last of a retry list). */
export function readSeconds(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined
  if (typeof v !== 'string') return undefined
  const last = v.split(/[,:]/).map((x) => x.trim()).filter((x) => x !== '' && x !== '-').pop()
  return last !== undefined && NUMERIC.test(last) ? Number(last) : undefined
}

/** A usable logged string: numbers stringified; `-`, empty and anything else count as absent. */
export function readText(v: unknown): string | undefined {
  if (typeof v === 'string') return v === '' || v === '-' ? undefined : v
  if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  return undefined
}

const METHOD = /^[A-Za-z_-]{1,20}$/

/** `GET /x HTTP/1.1` (an nginx `$request`) -> method and target; undefined for anything else. */
export function requestLine(s: string): {method: string; target: string} | undefined {
  const a = s.indexOf(' ')
  if (a <= 0) return undefined
  const method = s.slice(0, a)
  if (!METHOD.test(method)) return undefined
  const rest = s.slice(a + 1)
  const b = rest.indexOf(' ')
  const target = b === -1 ? rest : rest.slice(0, b)
  return target === '' ? undefined : {method, target}
}
