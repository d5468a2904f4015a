import {stripPort} from '../util/host-port'
import type {AccessFields, ParseOutcome} from '../model'
import {firstClient, isPlaceholderHop, withChain} from './forwarded'
import {bytesToString, hexVal, isAlpha, isDigit, reject, snippet} from './text'

/*
 * One raw access-log line (nginx `combined`/`common`, Apache/Rack common-style, ingress-nginx
 * `log-format-upstream` in all its versions) -> AccessFields.
 *
 * Hand-written scanner over char codes: it has to sustain several hundred thousand lines per
 * second, must stay linear on hostile input (no backtracking regexes) and must never throw.
 * The position of the fields found so far is kept in module-level scratch variables rather than
 * in per-line objects; everything here is synchronous, so sharing them is safe.
 */

const TAB = 9
const CR = 13
const SP = 32
const QUOTE = 34
const HASH = 35
const PLUS = 43
const COMMA = 44
const DASH = 45
const DOT = 46
const SLASH = 47
const COLON = 58
const QUESTION = 63
const AT = 64
const LBRACK = 91
const BSLASH = 92
const RBRACK = 93
const STAR = 42

/** The remote address and the user are short; bounding them keeps junk lines cheap to reject. */
const MAX_HEAD_TOKEN = 256
/** `[$time_local]` is 26 chars, an ISO time with a fraction and offset about 35. */
const MAX_TIME_FIELD = 64
/** Largest byte count we accept: beyond this the number is not exact in a double. */
const MAX_BYTES_DIGITS = 15



// ---------------------------------------------------------------------------------------------
// Time

/** Month lookup keyed by the three lower-cased letters packed into one number (no slicing). */
const MONTHS = new Map<number, number>()
;['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'].forEach((m, i) => {
  MONTHS.set((m.charCodeAt(0) << 16) | (m.charCodeAt(1) << 8) | m.charCodeAt(2), i)
})

function monthAt(s: string, i: number): number {
  // `| 32` lower-cases ASCII letters; non-letters then simply miss the map.
  const key = ((s.charCodeAt(i) | 32) << 16) | ((s.charCodeAt(i + 1) | 32) << 8) | (s.charCodeAt(i + 2) | 32)
  return MONTHS.get(key) ?? -1
}

/** Two ASCII digits at i, or -1. */
function d2(s: string, i: number): number {
  const a = s.charCodeAt(i)
  const b = s.charCodeAt(i + 1)
  return isDigit(a) && isDigit(b) ? (a - 48) * 10 + (b - 48) : -1
}

function d4(s: string, i: number): number {
  const hi = d2(s, i)
  const lo = d2(s, i + 2)
  return hi < 0 || lo < 0 ? -1 : hi * 100 + lo
}

function daysInMonth(year: number, month: number): number {
  if (month === 1) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28
  return month === 3 || month === 5 || month === 8 || month === 10 ? 30 : 31
}

/** Epoch ms from calendar fields, or undefined when a field is out of range. */
function utcMs(year: number, month: number, day: number, h: number, m: number, sec: number, ms: number): number | undefined {
  // 1970+: Date.UTC maps years 0-99 to 19xx, and earlier dates are not access logs anyway.
  if (year < 1970 || month < 0 || month > 11 || day < 1 || day > daysInMonth(year, month)) return undefined
  // 60 allows a leap second (Date.UTC rolls it into the next minute).
  if (h < 0 || h > 23 || m < 0 || m > 59 || sec < 0 || sec > 60) return undefined
  return Date.UTC(year, month, day, h, m, sec, ms)
}

/**
 * The zone at [a, b): `Z`, `UTC`, `GMT`, `+HHMM`, `-HHMM`, `+HH:MM`, `+HH` -> offset in minutes
 * east of UTC, or NaN. No zone at all is rejected by the callers: guessing the machine's zone
 * would make the result depend on where the CLI runs.
 */
function zoneAt(s: string, a: number, b: number): number {
  const n = b - a
  const c = s.charCodeAt(a)
  if (n === 1) return c === 90 || c === 122 ? 0 : NaN // Z z
  if (c !== PLUS && c !== DASH) {
    if (n !== 3) return NaN
    const z = s.slice(a, b)
    return z === 'UTC' || z === 'GMT' ? 0 : NaN
  }
  const hh = d2(s, a + 1)
  let mm: number
  if (n === 3) mm = 0
  else if (n === 5) mm = d2(s, a + 3)
  else if (n === 6 && s.charCodeAt(a + 3) === COLON) mm = d2(s, a + 4)
  else return NaN
  if (hh < 0 || hh > 23 || mm < 0 || mm > 59) return NaN
  const off = hh * 60 + mm
  return c === DASH ? -off : off
}

function nginxTimeAt(s: string, a: number, b: number): number | undefined {
  // DD/Mon/YYYY:HH:MM:SS ZONE, the zone being at least one char.
  if (b - a < 22) return undefined
  if (s.charCodeAt(a + 2) !== SLASH || s.charCodeAt(a + 6) !== SLASH || s.charCodeAt(a + 11) !== COLON) return undefined
  if (s.charCodeAt(a + 14) !== COLON || s.charCodeAt(a + 17) !== COLON || s.charCodeAt(a + 20) !== SP) return undefined
  const day = d2(s, a)
  const month = monthAt(s, a + 3)
  const year = d4(s, a + 7)
  const h = d2(s, a + 12)
  const m = d2(s, a + 15)
  const sec = d2(s, a + 18)
  const zone = zoneAt(s, a + 21, b)
  if (Number.isNaN(zone)) return undefined
  const t = utcMs(year, month, day, h, m, sec, 0)
  return t === undefined ? undefined : t - zone * 60_000
}

/**
 * Parses nginx `$time_local` (`21/Mar/2022:16:05:33 +0000`); also accepts `UTC`/`GMT`/`Z` and
 * `+HH:MM` as the zone (Rack and some proxies write those). Returns epoch ms, or undefined.
 */
export function parseNginxTime(s: string): number | undefined {
  return nginxTimeAt(s, 0, s.length)
}

/** Set by isoTimeAt: whether the time had a fractional second (millisecond resolution). */
let isoFraction = false

function isoTimeAt(s: string, a: number, b: number): number | undefined {
  // YYYY-MM-DD[T ]HH:MM[:SS[.fff…]]ZONE
  if (b - a < 17) return undefined
  if (s.charCodeAt(a + 4) !== DASH || s.charCodeAt(a + 7) !== DASH || s.charCodeAt(a + 13) !== COLON) return undefined
  const sep = s.charCodeAt(a + 10)
  if (sep !== 84 && sep !== 116 && sep !== SP) return undefined // T t space
  const year = d4(s, a)
  const month = d2(s, a + 5) - 1
  const day = d2(s, a + 8)
  const h = d2(s, a + 11)
  const m = d2(s, a + 14)
  let sec = 0
  let ms = 0
  let i = a + 16
  isoFraction = false
  if (s.charCodeAt(i) === COLON) {
    sec = d2(s, i + 1)
    i += 3
    const f = s.charCodeAt(i)
    if (f === DOT || f === COMMA) {
      i++
      const start = i
      let scale = 100
      while (i < b && isDigit(s.charCodeAt(i))) {
        // Digits beyond milliseconds are dropped (truncated, not rounded, like most loggers).
        if (scale >= 1) ms += (s.charCodeAt(i) - 48) * scale
        scale /= 10
        i++
      }
      if (i === start) return undefined
      isoFraction = true
    }
  }
  if (i >= b) return undefined
  const zone = zoneAt(s, i, b)
  if (Number.isNaN(zone)) return undefined
  const t = utcMs(year, month, day, h, m, sec, Math.floor(ms))
  return t === undefined ? undefined : t - zone * 60_000
}

/**
 * Parses an ISO-8601 date-time that carries a zone (`2022-03-21T16:05:33+00:00`,
 * `2022-04-11T16:29:47.402Z`). resolutionMs is 1 when it has a fractional second, else 1000.
 */
export function parseIsoTime(s: string): {time: number; resolutionMs: number} | undefined {
  const time = isoTimeAt(s, 0, s.length)
  return time === undefined ? undefined : {time, resolutionMs: isoFraction ? 1 : 1000}
}

// ---------------------------------------------------------------------------------------------
// Request target

/** Set by scanTarget: the path and (for absolute-form targets) host ranges; host -1 when none. */
let tPathStart = 0
let tPathEnd = 0
let tHostStart = -1
let tHostEnd = -1

function pathEnd(s: string, i: number, b: number): number {
  while (i < b) {
    const c = s.charCodeAt(i)
    if (c === QUESTION || c === HASH) break
    i++
  }
  return i
}

/**
 * Finds the path (and host) of a request target at [a, b): origin-form `/x?y`, `*`, or
 * absolute-form `http://host/x?y`. tPathStart === tPathEnd means an absolute target without a
 * path, i.e. `/`. Returns false for anything else (authority-form CONNECT targets included).
 */
function scanTarget(s: string, a: number, b: number): boolean {
  tHostStart = tHostEnd = -1
  if (a >= b) return false
  const c0 = s.charCodeAt(a)
  if (c0 === SLASH) {
    tPathStart = a
    tPathEnd = pathEnd(s, a, b)
    return true
  }
  if (c0 === STAR && b === a + 1) {
    tPathStart = a
    tPathEnd = b
    return true
  }
  if (!isAlpha(c0)) return false
  let i = a + 1
  for (; i < b; i++) {
    const c = s.charCodeAt(i)
    if (!(isAlpha(c) || isDigit(c) || c === PLUS || c === DASH || c === DOT)) break
  }
  if (s.charCodeAt(i) !== COLON || s.charCodeAt(i + 1) !== SLASH || s.charCodeAt(i + 2) !== SLASH || i + 3 > b) return false
  let h = i + 3
  let e = h
  for (; e < b; e++) {
    const c = s.charCodeAt(e)
    if (c === SLASH || c === QUESTION || c === HASH) break
    if (c === AT) h = e + 1 // drop userinfo
  }
  if (e === h) return false
  tHostStart = h
  tHostEnd = e
  tPathStart = e
  tPathEnd = s.charCodeAt(e) === SLASH ? pathEnd(s, e, b) : e
  return true
}

/**
 * Splits a request target into its path (query string and fragment removed, not URL-decoded) and,
 * for an absolute-form target, its host and port (stripPort gives the host alone). Undefined when it is not a path or absolute URL.
 */
export function splitTarget(target: string): {path: string; host?: string} | undefined {
  if (!scanTarget(target, 0, target.length)) return undefined
  const path = tPathEnd > tPathStart ? target.slice(tPathStart, tPathEnd) : '/'
  return tHostStart < 0 ? {path} : {path, host: target.slice(tHostStart, tHostEnd)}
}

// ---------------------------------------------------------------------------------------------
// Upstream lists

/**
 * The last address in an `$upstream_addr` list that is not `-`. nginx separates retries with
 * `, ` and internal redirects (X-Accel-Redirect, error_page) with ` : `.
 */
function lastUpstreamIn(s: string, a: number, b: number): string | undefined {
  let e = b
  while (e > a) {
    const c = s.charCodeAt(e - 1)
    if (c === SP || c === COMMA || c === TAB) {
      e--
      continue
    }
    let st = e - 1
    while (st > a) {
      const p = s.charCodeAt(st - 1)
      if (p === SP || p === COMMA || p === TAB) break
      st--
    }
    if (!(e - st === 1 && (c === DASH || c === COLON))) return s.slice(st, e)
    e = st
  }
  return undefined
}

/** The upstream that answered: the last address of an `$upstream_addr` value that is not `-`. */
export function lastUpstream(list: string): string | undefined {
  return lastUpstreamIn(list, 0, list.length)
}

/** The entries of an nginx upstream list: retries separated by `, `, internal redirects by ` : `. */
function listItems(list: string): string[] {
  return list.split(/\s*,\s*|\s+:\s+/).map((x) => x.trim()).filter((x) => x !== '')
}

/**
 * The upstream that answered, from `$upstream_addr` and `$upstream_status`: their entries pair up
 * by position (nginx docs, ngx_http_upstream_module), and the answer is the last entry with a
 * status. `172.17.0.6:8080, 172.17.0.7:8080` with `200, -` was answered by 172.17.0.6:8080. When
 * the lists do not pair up, the last address that is not `-`.
 */
export function answeringUpstream(addrList: string, statusList: string | undefined): string | undefined {
  if (statusList !== undefined) {
    const addrs = listItems(addrList)
    const statuses = listItems(statusList)
    if (addrs.length === statuses.length && addrs.length > 1) {
      for (let i = addrs.length - 1; i >= 0; i--) {
        const a = addrs[i] as string
        if (/^\d{3}$/.test(statuses[i] as string) && a !== '-') return a
      }
    }
  }
  return lastUpstream(addrList)
}

/** Whether s[a, b) is a list of upstream tries (`, `) or redirects (` : `) rather than one. */
function isList(s: string, a: number, b: number): boolean {
  for (let i = a; i < b; i++) {
    const c = s.charCodeAt(i)
    if (c === COMMA || c === SP) return true
  }
  return false
}

/**
 * A number of seconds at s[a, b) (`0.013`, `2`), or undefined for `-` or anything else: read from
 * the char codes, as every ingress line carries two of them (no slice, no string-to-number).
 */
function seconds(s: string, a: number, b: number): number | undefined {
  let whole = 0
  let i = a
  for (; i < b && isDigit(s.charCodeAt(i)); i++) whole = whole * 10 + (s.charCodeAt(i) - 48)
  if (i === a || i - a > MAX_BYTES_DIGITS) return undefined
  if (i === b) return whole
  if (s.charCodeAt(i) !== DOT) return undefined
  let fraction = 0
  let scale = 1
  const start = ++i
  for (; i < b && isDigit(s.charCodeAt(i)) && i - start < 9; i++) {
    fraction = fraction * 10 + (s.charCodeAt(i) - 48)
    scale *= 10
  }
  return i === b && i > start ? whole + fraction / scale : undefined
}

/** The last number of an `$upstream_response_time` list, in seconds. */
function lastSeconds(list: string): number | undefined {
  const items = listItems(list)
  for (let i = items.length - 1; i >= 0; i--) {
    const v = Number(items[i])
    if (items[i] !== '-' && Number.isFinite(v)) return v
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------
// Quoted fields

/** Set by findClose: whether the field contained a backslash escape. */
let qEscaped = false
/** The line being parsed when it holds no backslash at all (most do not), else undefined. */
let noBackslashLine: string | undefined

/**
 * Index of the quote closing a field whose content starts at i, or -1. A backslash escapes the
 * next char (`\"` in escape=json, `\x22` in nginx's default escaping). With escape=none a raw `"`
 * may appear inside a field, so a quote only closes the field when a space or the end follows.
 */
function findClose(s: string, i: number, end: number): number {
  qEscaped = false
  if (s === noBackslashLine) {
    // Nothing is escaped: jump from quote to quote with the native search.
    for (let q = s.indexOf('"', i); q !== -1 && q < end; q = s.indexOf('"', q + 1)) {
      if (q + 1 === end || s.charCodeAt(q + 1) === SP) return q
    }
    return -1
  }
  while (i < end) {
    const c = s.charCodeAt(i)
    if (c === BSLASH) {
      qEscaped = true
      i += 2
      continue
    }
    if (c === QUOTE && (i + 1 === end || s.charCodeAt(i + 1) === SP)) return i
    i++
  }
  return -1
}




/**
 * Decodes nginx escapes in s[a, b): `\xNN` (default escaping) and the JSON escapes of
 * escape=json (`\"`, `\\`, `\/`, `\n`, `\uXXXX`…). Unknown escapes are kept verbatim.
 */
function decodeEscapes(s: string, a: number, b: number): string {
  let out = ''
  let last = a
  let bytes: number[] | undefined
  let i = a
  while (i < b) {
    if (s.charCodeAt(i) !== BSLASH) {
      i++
      continue
    }
    const e = s.charCodeAt(i + 1)
    if (e === 120 && i + 3 < b) {
      // \xNN: collect consecutive ones so multi-byte UTF-8 sequences decode together.
      const hi = hexVal(s.charCodeAt(i + 2))
      const lo = hexVal(s.charCodeAt(i + 3))
      if (hi >= 0 && lo >= 0) {
        out += s.slice(last, i)
        bytes ??= []
        bytes.length = 0
        bytes.push(hi * 16 + lo)
        i += 4
        while (i + 3 < b && s.charCodeAt(i) === BSLASH && s.charCodeAt(i + 1) === 120) {
          const h2 = hexVal(s.charCodeAt(i + 2))
          const l2 = hexVal(s.charCodeAt(i + 3))
          if (h2 < 0 || l2 < 0) break
          bytes.push(h2 * 16 + l2)
          i += 4
        }
        out += bytesToString(bytes)
        last = i
        continue
      }
    }
    let rep: string | undefined
    let len = 2
    switch (e) {
      case QUOTE: rep = '"'; break
      case BSLASH: rep = '\\'; break
      case SLASH: rep = '/'; break
      case 98: rep = '\b'; break
      case 102: rep = '\f'; break
      case 110: rep = '\n'; break
      case 114: rep = '\r'; break
      case 116: rep = '\t'; break
      case 117: {
        // \uXXXX
        let v = 0
        for (let k = 2; k < 6; k++) {
          const h = i + k < b ? hexVal(s.charCodeAt(i + k)) : -1
          if (h < 0) {
            v = -1
            break
          }
          v = v * 16 + h
        }
        if (v >= 0) {
          rep = String.fromCharCode(v)
          len = 6
        }
        break
      }
    }
    if (rep === undefined) {
      i += 2
      continue
    }
    out += s.slice(last, i) + rep
    i += len
    last = i
  }
  return out + s.slice(last, b)
}

/** The content of a quoted field (its escapes decoded when findClose saw any). */
function fieldText(s: string, a: number, b: number): string {
  return qEscaped ? decodeEscapes(s, a, b) : s.slice(a, b)
}

// ---------------------------------------------------------------------------------------------
// The line

/** Set by scanHead. */
let hAddrEnd = 0
let hRealStart = -1
let hRealEnd = -1
let hTimeStart = 0
let hTimeEnd = 0
/** Set by the general head scan: the client picked from an address list, and a `$host` prefix. */
let hClient: string | undefined
/** The address list of a general head (an X-Forwarded-For chain, then the peer), for --trusted-proxies. */
let hChain: string[] | undefined
let hVhost: string | undefined

/** How far into a line the general head scan looks for the `[time]`. */
const HEAD_LIMIT = 2048

/** End of the token starting at i (next space or end), or -1 when longer than MAX_HEAD_TOKEN. */
function headToken(s: string, i: number, end: number): number {
  const limit = Math.min(end, i + MAX_HEAD_TOKEN)
  for (let j = i; j < limit; j++) if (s.charCodeAt(j) === SP) return j
  return limit === end ? end : -1
}

/** `]` closing a bracket whose content starts at i, within max chars, or -1. */
function closeBracket(s: string, i: number, end: number, max: number): number {
  const limit = Math.min(end, i + max)
  for (let j = i; j < limit; j++) if (s.charCodeAt(j) === RBRACK) return j
  return -1
}

/**
 * Matches `ADDR - [REAL_IP] - USER [TIME] "` (the bracketed real-IP segment being optional) and
 * returns the index of the quote opening the request, or -1. Lines that do not fit this common
 * shape go to scanHeadGeneral. Bounded: at most a few thousand chars are looked at, however long
 * the line.
 */
function scanHead(s: string, end: number): number {
  hRealStart = hRealEnd = -1
  hClient = hVhost = hChain = undefined
  const c0 = s.charCodeAt(0)
  if (!(c0 > SP) || c0 === LBRACK || c0 === 123) return -1
  const fast = scanHeadCommon(s, end)
  return fast >= 0 ? fast : scanHeadGeneral(s, end)
}

function scanHeadCommon(s: string, end: number): number {
  const addrEnd = headToken(s, 0, end)
  if (addrEnd < 0 || s.charCodeAt(0) === QUOTE || s.charCodeAt(addrEnd + 1) !== DASH || s.charCodeAt(addrEnd + 2) !== SP) return -1
  hAddrEnd = addrEnd
  let p = addrEnd + 3
  if (s.charCodeAt(p) === LBRACK) {
    // Legacy ingress-nginx: `- [$the_real_ip] - $remote_user`.
    const close = closeBracket(s, p + 1, end, MAX_HEAD_TOKEN)
    if (close < 0 || s.charCodeAt(close + 1) !== SP) return -1
    if (s.charCodeAt(close + 2) === QUOTE && close - p - 1 <= MAX_TIME_FIELD) {
      // `ADDR - [TIME] "…`: a format without $remote_user.
      hTimeStart = p + 1
      hTimeEnd = close
      return close + 2
    }
    if (s.charCodeAt(close + 2) !== DASH || s.charCodeAt(close + 3) !== SP) return -1
    hRealStart = p + 1
    hRealEnd = close
    p = close + 4
  }
  const userEnd = headToken(s, p, end)
  if (userEnd < 0 || userEnd === p || s.charCodeAt(userEnd + 1) !== LBRACK) return -1
  const timeStart = userEnd + 2
  const timeEnd = closeBracket(s, timeStart, end, MAX_TIME_FIELD)
  if (timeEnd < 0 || s.charCodeAt(timeEnd + 1) !== SP || s.charCodeAt(timeEnd + 2) !== QUOTE) return -1
  hTimeStart = timeStart
  hTimeEnd = timeEnd
  return timeEnd + 2
}

/**
 * The heads real configurations write besides the common one, read as Filebeat's nginx module
 * reads them: an optional `$host[:port]` prefix (nginx "vcombined"), then the client as an
 * address list (`$http_x_forwarded_for` logged in place of or before `$remote_addr`, plain or in
 * quotes: `10.0.0.2, 10.0.0.1, 127.0.0.1`, `"10.5.102.222, 199.96.1.1" 10.2.1.185`), then
 * ` - `, a user that may hold spaces, and `[TIME] "`. The client is the first address of the list
 * that is not private IPv4 (10/8, 172.16/12, 192.168/16, 127/8), else the first.
 */
function scanHeadGeneral(s: string, end: number): number {
  const limit = Math.min(end, HEAD_LIMIT)
  let bracket = -1
  for (let from = 0; ;) {
    const b = s.indexOf(' [', from)
    if (b < 0 || b >= limit) return -1
    const close = closeBracket(s, b + 2, end, MAX_HEAD_TOKEN)
    if (close < 0) return -1
    if (close - b - 2 <= MAX_TIME_FIELD && s.charCodeAt(close + 1) === SP && s.charCodeAt(close + 2) === QUOTE) {
      bracket = b
      hTimeStart = b + 2
      hTimeEnd = close
      break
    }
    from = close + 1
  }
  // Three plain words before the time are Common Log Format's `%h %l %u` (an ident that is not `-`:
  // `127.0.0.1 bob frank [`, `127.0.0.1 192.168.0.1 - [`): the client is the first.
  if (s.charCodeAt(0) !== QUOTE) {
    const head = s.slice(0, bracket)
    const words = head.split(' ')
    if (words.length === 3 && words.every((w) => w !== '' && !w.endsWith(',') && w.indexOf('"') === -1)) {
      hClient = words[0]
      hAddrEnd = 0
      return hTimeEnd + 2
    }
  }
  // The ` - ` that ends the addresses (the user, possibly `-` or empty, follows it).
  let dash = -1
  for (let i = 0; i < bracket; i++) {
    if (s.charCodeAt(i) === SP && s.charCodeAt(i + 1) === DASH && (i + 2 === bracket || s.charCodeAt(i + 2) === SP)) {
      dash = i
      break
    }
  }
  if (dash <= 0) return -1
  const rest = dash + 3
  if (s.charCodeAt(rest) === LBRACK) {
    const close = closeBracket(s, rest + 1, bracket, MAX_HEAD_TOKEN)
    if (close > 0 && s.charCodeAt(close + 1) === SP && s.charCodeAt(close + 2) === DASH) {
      hRealStart = rest + 1
      hRealEnd = close
    }
  }
  // A first token that is not quoted, not part of a comma list and not alone is the `$host` prefix.
  let a = 0
  const firstEnd = s.indexOf(' ', 0)
  if (s.charCodeAt(0) !== QUOTE && firstEnd > 0 && firstEnd < dash && s.charCodeAt(firstEnd - 1) !== COMMA) {
    const host = s.slice(0, firstEnd)
    if (host.indexOf('"') === -1) {
      hVhost = stripPort(host)
      a = firstEnd + 1
    }
  }
  const items: string[] = []
  let start = -1
  for (let i = a; i <= dash; i++) {
    const c = i === dash ? SP : s.charCodeAt(i)
    const sep = c === SP || c === COMMA || c === QUOTE || c === TAB
    if (!sep && start < 0) start = i
    else if (sep && start >= 0) {
      if (i - start > MAX_HEAD_TOKEN) return -1
      items.push(s.slice(start, i))
      start = -1
    }
  }
  if (items.length === 0) return -1
  // Hops that are no address (`unknown`, `-`, `_hidden`) are never the client; a name is kept when
  // nothing else is there.
  hClient = firstClient(items, true) ?? items.find((x) => !isPlaceholderHop(x)) ?? ''
  if (items.length > 1) hChain = items
  hAddrEnd = 0
  return hTimeEnd + 2
}

/** Cheap shape check for format detection: `IP - user [time] "…`. */
export function looksLikeAccessLine(line: string): boolean {
  return scanHead(line, line.length) >= 0
}

function isIpAt(s: string, a: number, b: number): boolean {
  if (b - a < 2) return false
  let colons = 0
  let dots = 0
  let groupDigits = 0
  let groupValue = 0
  for (let i = a; i < b; i++) {
    const c = s.charCodeAt(i)
    if (c === COLON) colons++
    else if (c === DOT) {
      if (groupDigits === 0 || groupValue > 255) return false
      dots++
      groupDigits = groupValue = 0
      continue
    } else if (hexVal(c) < 0) return false
    if (isDigit(c)) {
      groupDigits++
      groupValue = groupValue * 10 + (c - 48)
    } else {
      groupDigits = groupValue = 0
    }
  }
  if (colons >= 2) return true
  return colons === 0 && dots === 3 && groupDigits > 0 && groupDigits <= 3 && groupValue <= 255
}



/**
 * The last time field read and what it gave. Lines of one second repeat it (a busy log has hundreds
 * per second), and reading a date costs more than comparing the text.
 */
let lastTimeText = ''
let lastTime = 0
let lastResolution = 1000

/** Set by scanTail. */
let tailUpstream: string | undefined
let tailUpstreamName: string | undefined
let tailRequestId: string | undefined
let tailRequestTime: number | undefined
let tailUpstreamTime: number | undefined

/** End of the whitespace-free token at i. */
function tokenEnd(s: string, i: number, end: number): number {
  if (i >= end) return i
  const sp = s.indexOf(' ', i)
  return sp === -1 || sp > end ? end : sp
}

/** End of a comma- or ` : `-separated upstream list field starting at i. */
function listEnd(s: string, i: number, end: number): number {
  let e = tokenEnd(s, i, end)
  for (;;) {
    if (e < end && s.charCodeAt(e - 1) === COMMA && e > i) {
      e = tokenEnd(s, e + 1, end)
    } else if (s.charCodeAt(e) === SP && s.charCodeAt(e + 1) === COLON && s.charCodeAt(e + 2) === SP) {
      e = tokenEnd(s, e + 3, end)
    } else {
      return e
    }
  }
}

function allOf(s: string, a: number, b: number, number: boolean): boolean {
  if (a >= b) return false
  for (let i = a; i < b; i++) {
    const c = s.charCodeAt(i)
    if (!(isDigit(c) || (number && (c === DOT || c === DASH)))) return false
  }
  return true
}

/**
 * What follows the user agent. ingress-nginx appends `$request_length $request_time
 * [$proxy_upstream_name] [$proxy_alternative_upstream_name] $upstream_addr
 * $upstream_response_length $upstream_response_time $upstream_status $req_id`; older controllers
 * lack the alternative upstream and sometimes $req_id. Anything else (x-forwarded-for, timings of
 * custom formats) is ignored.
 */
function scanTail(s: string, p: number, end: number): void {
  tailUpstream = tailUpstreamName = tailRequestId = undefined
  if (s.charCodeAt(p) !== SP) return
  const lenEnd = tokenEnd(s, p + 1, end)
  if (!allOf(s, p + 1, lenEnd, false) || s.charCodeAt(lenEnd) !== SP) return
  const timeEnd = tokenEnd(s, lenEnd + 1, end)
  if (!allOf(s, lenEnd + 1, timeEnd, true) || s.charCodeAt(timeEnd) !== SP || s.charCodeAt(timeEnd + 1) !== LBRACK) return
  tailRequestTime = seconds(s, lenEnd + 1, timeEnd)
  let close = closeBracket(s, timeEnd + 2, end, MAX_HEAD_TOKEN)
  if (close < 0) return
  // $proxy_upstream_name: the app's upstream (`namespace-service-port`); empty or `-` when none.
  if (close > timeEnd + 2 && !(close === timeEnd + 3 && s.charCodeAt(timeEnd + 2) === DASH)) tailUpstreamName = s.slice(timeEnd + 2, close)
  p = close + 1
  if (s.charCodeAt(p) === SP && s.charCodeAt(p + 1) === LBRACK) {
    // The alternative upstream, unless this bracket is an IPv6 `[::1]:80` upstream address
    // of a controller that does not log the alternative.
    close = closeBracket(s, p + 2, end, MAX_HEAD_TOKEN)
    if (close >= 0 && (close + 1 === end || s.charCodeAt(close + 1) === SP)) p = close + 1
  }
  // $upstream_addr, then the length, time and status lists.
  let addrStart = 0
  let addrEnd = 0
  for (let field = 0; field < 4; field++) {
    if (s.charCodeAt(p) !== SP || p + 1 >= end) {
      if (field > 0) tailUpstream = lastUpstreamIn(s, addrStart, addrEnd)
      return
    }
    const e = listEnd(s, p + 1, end)
    if (field === 0) {
      addrStart = p + 1
      addrEnd = e
    } else if (field === 2) {
      // One try (no list): the number as it is, without taking a list apart.
      tailUpstreamTime = isList(s, p + 1, e) ? lastSeconds(s.slice(p + 1, e)) : seconds(s, p + 1, e)
    } else if (field === 3) {
      tailUpstream = isList(s, addrStart, addrEnd) ? answeringUpstream(s.slice(addrStart, addrEnd), s.slice(p + 1, e)) : lastUpstreamIn(s, addrStart, addrEnd)
    }
    p = e
  }
  if (s.charCodeAt(p) !== SP || p + 1 >= end) return
  const idEnd = tokenEnd(s, p + 1, end)
  if (idEnd > p + 1 && !(idEnd === p + 2 && s.charCodeAt(p + 1) === DASH)) tailRequestId = s.slice(p + 1, idEnd)
}

/** One `$upstream_addr` entry: `ip:port`, `[v6]:port` or a unix socket. */
const UPSTREAM_ADDR = /^(?:\d{1,3}(?:\.\d{1,3}){3}:\d{1,5}|\[[0-9A-Fa-f:.]+\]:\d{1,5}|unix:\S+)$/

/**
 * The upstream that answered, when the line ends with one quoted `$upstream_addr` after the user
 * agent, as nginx-proxy's `vhost` log format does (nginx.tmpl: `… "$http_user_agent"
 * "$upstream_addr"`). Only addresses with a port are taken: a quoted `$http_x_forwarded_for` in
 * the same place (the nginx image's `main` format) holds none, and nginx logs the upstream group's
 * name (`"example.com"`) when no server of it could be tried.
 */
function quotedUpstream(s: string, p: number, end: number): string | undefined {
  if (s.charCodeAt(p) !== SP || s.charCodeAt(p + 1) !== QUOTE || s.charCodeAt(end - 1) !== QUOTE || end - p > 512) return undefined
  const value = s.slice(p + 2, end - 1)
  if (value.indexOf('"') !== -1 || value === '-') return undefined
  const items = listItems(value)
  if (items.length === 0 || !items.every((x) => x === '-' || UPSTREAM_ADDR.test(x))) return undefined
  return lastUpstream(value)
}

/** At most this many unquoted extra fields are read after the bytes. */
const MAX_EXTRA = 8
const SECONDS = /^\d+\.\d+$/

/**
 * Extra unquoted fields after the bytes: the first two decimal numbers are the request time and the
 * upstream time (`$request_time $upstream_response_time`, the order custom formats use); the
 * others are kept as logged.
 */
function readExtras(event: AccessFields, extra: string[]): void {
  const rest: string[] = []
  for (const x of extra) {
    if (SECONDS.test(x) && event.requestTime === undefined) event.requestTime = Number(x)
    else if (SECONDS.test(x) && event.upstreamTime === undefined) event.upstreamTime = Number(x)
    else rest.push(x)
  }
  if (rest.length > 0) event.extra = rest
}

function isTokenChar(c: number): boolean {
  return isAlpha(c) || c === DASH || c === 95 // _
}

/**
 * Parses one access-log line (without its newline). Never throws: lines that are not access
 * lines, or whose fields do not parse, come back as `{ok: false, reason, detail}`.
 */
export function parseAccessLine(line: string): ParseOutcome {
  let end = line.length
  if (end > 0 && line.charCodeAt(end - 1) === CR) end--
  if (end === 0) return reject('unparsed-message', 'empty line')
  const open = scanHead(line, end)
  const chain = hChain
  if (open < 0) return reject('unparsed-message', 'not an access line: expected `ADDR - USER [TIME] "REQUEST" STATUS BYTES`')
  noBackslashLine = line.indexOf('\\') === -1 ? line : undefined

  let time: number | undefined
  let resolutionMs = 1000
  if (hTimeEnd - hTimeStart === lastTimeText.length && line.startsWith(lastTimeText, hTimeStart)) {
    time = lastTime
    resolutionMs = lastResolution
  } else {
    time = nginxTimeAt(line, hTimeStart, hTimeEnd)
    if (time === undefined) {
      // Custom formats often log `[$time_iso8601]` in place of `[$time_local]`.
      time = isoTimeAt(line, hTimeStart, hTimeEnd)
      if (time === undefined) return reject('bad-time', `unreadable time ${snippet(line, hTimeStart, hTimeEnd)}`)
      if (isoFraction) resolutionMs = 1
    }
    // A copy, not a slice: the cache would otherwise keep the whole line alive.
    lastTimeText = (' ' + line.slice(hTimeStart, hTimeEnd)).slice(1)
    lastTime = time
    lastResolution = resolutionMs
  }
  const clientIp =
    hRealStart >= 0 && isIpAt(line, hRealStart, hRealEnd) ? line.slice(hRealStart, hRealEnd) : hClient ?? line.slice(0, hAddrEnd)
  const prefixHost = hVhost

  // "$request": METHOD TARGET [PROTOCOL]
  const reqClose = findClose(line, open + 1, end)
  if (reqClose < 0) return reject('unparsed-message', 'truncated line: the request field is not closed')
  let rs = line
  let ra = open + 1
  let rb = reqClose
  if (qEscaped) {
    rs = decodeEscapes(line, ra, rb)
    ra = 0
    rb = rs.length
  }
  let i = ra
  if (isAlpha(rs.charCodeAt(i))) while (i < rb && isTokenChar(rs.charCodeAt(i))) i++
  if (i === ra || rs.charCodeAt(i) !== SP) return reject('missing-path', `request is not "METHOD TARGET": ${snippet(rs, ra, rb)}`)
  const method = rs.slice(ra, i)
  while (rs.charCodeAt(i) === SP) i++
  // The target runs to the protocol: a raw space inside it (escape=none, `GET /a[ ]b HTTP/1.1`) is part of it.
  let targetEnd = tokenEnd(rs, i, rb)
  if (targetEnd < rb) {
    const lastSp = rs.lastIndexOf(' ', rb - 1)
    if (lastSp > targetEnd && rs.startsWith('HTTP/', lastSp + 1)) {
      targetEnd = lastSp
      while (rs.charCodeAt(targetEnd - 1) === SP) targetEnd--
    }
  }
  if (!scanTarget(rs, i, targetEnd)) return reject('missing-path', `request target is not a path: ${snippet(rs, i, targetEnd)}`)
  const path = tPathEnd > tPathStart ? rs.slice(tPathStart, tPathEnd) : '/'
  // The Host as nginx's $host gives it: without a port.
  const host = tHostStart >= 0 ? stripPort(rs.slice(tHostStart, tHostEnd)) : undefined

  // $status
  let p = reqClose + 2
  if (p >= end) return reject('missing-status', 'truncated line: nothing after the request')
  let statusEnd = tokenEnd(line, p, end)
  let timeBeforeStatus: number | undefined
  if (statusEnd - p !== 3 && statusEnd < end && SECONDS.test(line.slice(p, statusEnd))) {
    // Custom formats that log `$request_time` between the request and the status.
    const next = tokenEnd(line, statusEnd + 1, end)
    if (next - statusEnd - 1 === 3) {
      timeBeforeStatus = Number(line.slice(p, statusEnd))
      p = statusEnd + 1
      statusEnd = next
    }
  }
  if (statusEnd - p !== 3 || !allOf(line, p, statusEnd, false) || line.charCodeAt(p) === 48) {
    return reject('bad-status', `status is not a 3-digit number: ${snippet(line, p, statusEnd)}`)
  }
  const status = (line.charCodeAt(p) - 48) * 100 + (line.charCodeAt(p + 1) - 48) * 10 + (line.charCodeAt(p + 2) - 48)

  // $body_bytes_sent
  p = statusEnd + 1
  if (p >= end) return reject('missing-bytes', 'truncated line: nothing after the status')
  const bytesEnd = tokenEnd(line, p, end)
  let bytes = 0
  if (!(bytesEnd === p + 1 && line.charCodeAt(p) === DASH)) {
    if (bytesEnd - p > MAX_BYTES_DIGITS || !allOf(line, p, bytesEnd, false)) {
      return reject('bad-bytes', `bytes is not a number: ${snippet(line, p, bytesEnd)}`)
    }
    for (let k = p; k < bytesEnd; k++) bytes = bytes * 10 + (line.charCodeAt(k) - 48)
  }

  // combined: "$http_referer" "$http_user_agent", then ingress-nginx fields or extras.
  let referer: string | undefined
  let userAgent = ''
  tailUpstream = tailUpstreamName = tailRequestId = undefined
  tailRequestTime = tailUpstreamTime = undefined
  p = bytesEnd
  // Unquoted fields a custom format logs after the bytes (`$request_time`, `$upstream_response_time`, others).
  let extra: string[] | undefined
  while (line.charCodeAt(p) === SP && p + 1 < end && line.charCodeAt(p + 1) !== QUOTE && (extra === undefined || extra.length < MAX_EXTRA)) {
    const e = tokenEnd(line, p + 1, end)
    if (e === p + 1) break
    ;(extra ??= []).push(line.slice(p + 1, e))
    p = e
  }
  if (line.charCodeAt(p + 1) === QUOTE && line.charCodeAt(p) === SP) {
    const refClose = findClose(line, p + 2, end)
    if (refClose < 0) return reject('unparsed-message', 'truncated line: the referer field is not closed')
    const ref = fieldText(line, p + 2, refClose)
    if (ref !== '-' && ref !== '') referer = ref
    p = refClose + 1
    if (line.charCodeAt(p + 1) === QUOTE && line.charCodeAt(p) === SP) {
      const uaClose = findClose(line, p + 2, end)
      if (uaClose < 0) return reject('unparsed-message', 'truncated line: the user-agent field is not closed')
      const ua = fieldText(line, p + 2, uaClose)
      if (ua !== '-') userAgent = ua
      scanTail(line, uaClose + 1, end)
      // nginx-proxy's `vhost` format: `$host $remote_addr … "$http_user_agent" "$upstream_addr"`.
      if (prefixHost !== undefined && tailUpstream === undefined) tailUpstream = quotedUpstream(line, uaClose + 1, end)
    }
  }

  const event: AccessFields = {time, resolutionMs, method, path, status, bytes, clientIp, userAgent}
  if (referer !== undefined) event.referer = referer
  if (tailRequestId !== undefined) event.requestId = tailRequestId
  if (tailUpstream !== undefined) event.upstream = tailUpstream
  if (tailUpstreamName !== undefined) event.upstreamName = tailUpstreamName
  const vhost = host ?? prefixHost
  if (vhost !== undefined) event.vhost = vhost
  if (timeBeforeStatus !== undefined) event.requestTime = timeBeforeStatus
  if (extra !== undefined) readExtras(event, extra)
  if (tailRequestTime !== undefined) event.requestTime = tailRequestTime
  if (tailUpstreamTime !== undefined) event.upstreamTime = tailUpstreamTime
  return {ok: true, event: chain === undefined ? event : withChain(event, chain)}
}
