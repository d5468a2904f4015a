import {stripPort} from '../../util/host-port'
import type {AccessFields, ParseOutcome} from '../../model'
import {parseIsoTime, parseNginxTime, splitTarget} from '../access-line'
import type {JsonFormat, TextFormat} from './types'
import {isDigit, reject, show, snippet} from '../text'
import {firstClient, isPlaceholderHop, splitHops, withChain} from '../forwarded'

/*
 * Traefik access logs (Traefik v1, v2 and v3).
 *
 * CLF, Traefik's default (pkg/middlewares/accesslog/logger_formatters.go, CommonLogFormatter):
 *   <ClientHost> - <ClientUsername> [<StartUTC>] "<RequestMethod> <RequestPath> <RequestProtocol>"
 *   <DownstreamStatus> <DownstreamContentSize> "<Referer>" "<User-Agent>" <RequestCount>
 *   "<RouterName>" "<ServiceURL>" <Duration>ms
 * An absent value is `-` (bare for the status, size and count, `"-"` for the quoted fields; Traefik
 * v1 wrote a bare `-` referer and service URL too). Quoted values have `"` escaped as `\"` and
 * nothing else escaped. The time is the request's start, to the second. The size is
 * DownstreamContentSize, "the number of bytes in the response entity returned to the client"
 * (Traefik docs, access logs): the body, so bytes are `body`.
 *
 * JSON (`accessLog.format: json`): one object per line with the fields of logdata.go
 * (`ClientHost`, `RequestMethod`, `RequestPath` with its query, `RequestHost`, `DownstreamStatus`,
 * `DownstreamContentSize`, `ServiceAddr`, `ServiceURL`, `ServiceName`, `RouterName`, `StartUTC`,
 * `Duration` in nanoseconds…) and the request headers kept by `fields.headers` as
 * `request_<Header-Name>`. Traefik v1 named the service `Backend*` and the router `Frontend*`;
 * v2 wrote ServiceURL as a url.URL object (`{"Scheme":"http","Host":"10.0.0.1:80",…}`), v3 as a
 * string.
 */

const CR = 13
const SP = 32
const QUOTE = 34
const DASH = 45
const BSLASH = 92

/** The client and user tokens are short; bounding them keeps junk lines cheap to reject. */
const MAX_HEAD_TOKEN = 256
/** `[02/Jan/2006:15:04:05 -0700]` is 26 chars. */
const MAX_TIME_FIELD = 64
/** The head (client, user, time and the request's opening quote) fits in this many chars. */
const HEAD_LIMIT = 2 * MAX_HEAD_TOKEN + MAX_TIME_FIELD + 16
/** Largest byte count or duration we accept: beyond this a number is not exact in a double. */
const MAX_DIGITS = 15
/** How far from the end looksLike scans for the `<count> "router" "url" <n>ms` tail. */
const LOOKS_LIKE_TAIL = 32





/** All of s[a, b) are ASCII digits (and there is at least one). */
function allDigits(s: string, a: number, b: number): boolean {
  if (b <= a) return false
  for (let i = a; i < b; i++) if (!isDigit(s.charCodeAt(i))) return false
  return true
}

/** The first address of a `a, b` list (an X-Forwarded-For chain): the client's (`unknown`, `_hidden` hops skipped). */
function firstOfList(s: string): string {
  const hops = splitHops(s)
  return firstClient(hops) ?? hops.find((h) => !isPlaceholderHop(h)) ?? ''
}

/** The host (with its port) of a service URL `http://10.0.0.1:80/x`, or undefined (`/`, `-`, ''). */
function urlHost(url: string): string | undefined {
  const split = url.indexOf('://') > 0 ? splitTarget(url) : undefined
  return split?.host === undefined || split.host === '' ? undefined : split.host
}

// ---------------------------------------------------------------------------------------------
// CLF

/** Set by scanTail: where the tail starts (the space before the count) and its fields. */
let tStart = -1
let tRouter: string | undefined
let tUrl: string | undefined
let tMillis = 0

/**
 * The index of the `"` opening a quoted field that closes at s[close], scanning back no further
 * than `limit`: Traefik's router names and service URLs hold no quotes, so it is the previous `"`,
 * and it must follow a space. -1 when there is none.
 */
function openingQuote(s: string, close: number, limit: number): number {
  const q = s.lastIndexOf('"', close - 1)
  return q > limit && s.charCodeAt(q - 1) === SP ? q : -1
}

/**
 * Reads the tail ` <RequestCount> "<RouterName>" "<ServiceURL>" <Duration>ms` backwards from
 * `end`, not past `limit`. Sets tStart and the fields; false when the line does not end so.
 */
function scanTail(s: string, limit: number, end: number): boolean {
  tStart = -1
  tRouter = tUrl = undefined
  // <Duration>ms
  if (s.charCodeAt(end - 1) !== 115 || s.charCodeAt(end - 2) !== 109) return false // s m
  let d = end - 2
  while (d > limit && isDigit(s.charCodeAt(d - 1))) d--
  if (d === end - 2 || end - 2 - d > MAX_DIGITS || s.charCodeAt(d - 1) !== SP) return false
  tMillis = Number(s.slice(d, end - 2))
  // "<ServiceURL>" or -
  let p = d - 2
  if (s.charCodeAt(p) === DASH && s.charCodeAt(p - 1) === SP) p -= 1
  else if (s.charCodeAt(p) === QUOTE) {
    const q = openingQuote(s, p, limit)
    if (q < 0) return false
    const url = s.slice(q + 1, p)
    if (url !== '-' && url !== '') tUrl = url
    p = q - 1
  } else return false
  // "<RouterName>" or -
  p -= 1
  if (s.charCodeAt(p) === DASH && s.charCodeAt(p - 1) === SP) p -= 1
  else if (s.charCodeAt(p) === QUOTE) {
    const q = openingQuote(s, p, limit)
    if (q < 0) return false
    const router = s.slice(q + 1, p)
    if (router !== '-' && router !== '') tRouter = router
    p = q - 1
  } else return false
  // <RequestCount>: digits or -
  let c = p
  while (c > limit && s.charCodeAt(c - 1) !== SP) c--
  if (c === p || c - 1 <= limit) return false
  if (!(p - c === 1 && s.charCodeAt(c) === DASH) && !allDigits(s, c, p)) return false
  tStart = c - 1
  return true
}

/**
 * Index of the quote closing a quoted field whose content starts at i, or -1: the first `"` that is
 * not escaped (`\"`) and is followed by a space or `end`.
 */
function closeQuote(s: string, i: number, end: number): number {
  while (i < end) {
    const c = s.charCodeAt(i)
    if (c === BSLASH && s.charCodeAt(i + 1) === QUOTE) {
      i += 2
      continue
    }
    if (c === QUOTE && (i + 1 === end || s.charCodeAt(i + 1) === SP)) return i
    i++
  }
  return -1
}

/** The text of a quoted field: Traefik escapes `"` as `\"` and nothing else. */
function unquote(s: string, a: number, b: number): string {
  const v = s.slice(a, b)
  return v.indexOf('\\"') < 0 ? v : v.replaceAll('\\"', '"')
}

/** Set by scanHead. */
let hClientEnd = 0
let hTimeStart = 0
let hTimeEnd = 0

/** The first index of `sub` in s[from, from + span + sub.length), or -1: a search that stays short on a long line. */
function findWithin(s: string, sub: string, from: number, span: number): number {
  const i = s.indexOf(sub, from)
  return i >= 0 && i - from <= span ? i : -1
}

/** `CLIENT - USER [TIME] "`: the index of the quote opening the request, or -1. Looks at a bounded prefix. */
function scanHead(s: string, end: number): number {
  const c0 = s.charCodeAt(0)
  if (!(c0 > SP) || c0 === QUOTE || c0 === 91 || c0 === 123) return -1 // [ {
  const head = s.length > HEAD_LIMIT ? s.slice(0, HEAD_LIMIT) : s
  const sp = findWithin(head, ' ', 1, MAX_HEAD_TOKEN)
  if (sp < 0 || head.charCodeAt(sp + 1) !== DASH || head.charCodeAt(sp + 2) !== SP) return -1
  hClientEnd = sp
  const lb = findWithin(head, ' [', sp + 3, MAX_HEAD_TOKEN)
  if (lb < 0) return -1
  const rb = findWithin(head, ']', lb + 2, MAX_TIME_FIELD)
  if (rb < 0 || rb + 2 >= end || head.charCodeAt(rb + 1) !== SP || head.charCodeAt(rb + 2) !== QUOTE) return -1
  hTimeStart = lb + 2
  hTimeEnd = rb
  return rb + 2
}

/**
 * Cheap shape check: `CLIENT - USER [TIME] "` and a line that ends `"…" <n>ms` or `- <n>ms`, the
 * tail nginx's `combined` does not have. Looks at a bounded prefix and suffix only.
 */
export function looksLikeTraefikClf(line: string): boolean {
  let end = line.length
  if (end > 0 && line.charCodeAt(end - 1) === CR) end--
  if (end < 20 || line.charCodeAt(end - 1) !== 115 || line.charCodeAt(end - 2) !== 109) return false
  let d = end - 2
  const stop = Math.max(0, end - LOOKS_LIKE_TAIL)
  while (d > stop && isDigit(line.charCodeAt(d - 1))) d--
  if (d === end - 2 || line.charCodeAt(d - 1) !== SP) return false
  const before = line.charCodeAt(d - 2)
  if (before !== QUOTE && before !== DASH) return false
  return scanHead(line, end) >= 0
}

/** Parses one Traefik CLF line (without its newline). Never throws. */
export function parseTraefikClf(line: string): ParseOutcome {
  let end = line.length
  if (end > 0 && line.charCodeAt(end - 1) === CR) end--
  if (end === 0) return reject('unparsed-message', 'empty line')
  const open = scanHead(line, end)
  if (open < 0) return reject('unparsed-message', 'not a Traefik access line: expected `CLIENT - USER [TIME] "REQUEST" STATUS SIZE …`')

  if (hTimeEnd - hTimeStart === 1 && line.charCodeAt(hTimeStart) === DASH) return reject('missing-time', 'no time (Traefik logged `[-]`)')
  const timeText = line.slice(hTimeStart, hTimeEnd)
  let time = parseNginxTime(timeText)
  let resolutionMs = 1000
  if (time === undefined) {
    const iso = parseIsoTime(timeText)
    if (iso === undefined) return reject('bad-time', `unreadable time ${snippet(line, hTimeStart, hTimeEnd)}`)
    time = iso.time
    resolutionMs = iso.resolutionMs
  }
  const client = line.slice(0, hClientEnd)
  const clientIp = client === '-' ? '' : firstOfList(client)

  // "METHOD PATH PROTOCOL": Traefik writes the path escaped (url.URL.String()), so it holds no
  // space or quote, and the first `" ` closes the field.
  let close = -1
  for (let q = line.indexOf('"', open + 1); q !== -1 && q < end; q = line.indexOf('"', q + 1)) {
    if (q + 1 === end || line.charCodeAt(q + 1) === SP) {
      close = q
      break
    }
  }
  if (close < 0) return reject('unparsed-message', 'truncated line: the request field is not closed')
  const m = line.indexOf(' ', open + 1)
  if (m < 0 || m >= close || m === open + 1) return reject('missing-path', `request is not "METHOD PATH": ${snippet(line, open + 1, close)}`)
  const method = line.slice(open + 1, m)
  let t = m + 1
  while (t < close && line.charCodeAt(t) === SP) t++
  let tEnd = line.indexOf(' ', t)
  if (tEnd < 0 || tEnd > close) tEnd = close
  const target = line.slice(t, tEnd)
  const split = splitTarget(target)
  if (split === undefined) return reject('missing-path', `request target is not a path: ${snippet(line, t, tEnd)}`)

  // <DownstreamStatus>
  let p = close + 2
  if (p >= end) return reject('missing-status', 'truncated line: nothing after the request')
  let e = line.indexOf(' ', p)
  if (e < 0 || e > end) e = end
  if (e === p + 1 && line.charCodeAt(p) === DASH) return reject('missing-status', 'no status (Traefik logged `-`: no response was written)')
  if (e - p !== 3 || !allDigits(line, p, e) || line.charCodeAt(p) === 48) return reject('bad-status', `status is not a 3-digit number: ${snippet(line, p, e)}`)
  const status = Number(line.slice(p, e))

  // <DownstreamContentSize>
  p = e + 1
  if (p >= end) return reject('missing-bytes', 'truncated line: nothing after the status')
  e = line.indexOf(' ', p)
  if (e < 0 || e > end) e = end
  let bytes = 0
  if (!(e === p + 1 && line.charCodeAt(p) === DASH)) {
    if (e - p > MAX_DIGITS || !allDigits(line, p, e)) return reject('bad-bytes', `size is not a number: ${snippet(line, p, e)}`)
    bytes = Number(line.slice(p, e))
  }

  const event: AccessFields = {time, resolutionMs, method, path: split.path, status, bytes, clientIp, userAgent: ''}
  if (split.host !== undefined) event.vhost = split.host

  // "<Referer>" "<User-Agent>" and the Traefik tail, read from the end so that an unescaped quote
  // in the user agent (older versions) cannot shift it. Nothing after the size is a common-format
  // line; the two quoted fields alone, Traefik's genericCLF (nginx's combined).
  if (e < end) {
    const hasTail = scanTail(line, e, end)
    const midEnd = hasTail ? tStart : end
    p = e + 1
    let refEnd: number
    if (line.charCodeAt(p) === QUOTE) {
      const rc = closeQuote(line, p + 1, midEnd)
      if (rc < 0) return reject('unparsed-message', 'truncated line: the referer field is not closed')
      const ref = unquote(line, p + 1, rc)
      if (ref !== '-' && ref !== '') event.referer = ref
      refEnd = rc + 1
    } else {
      // Traefik v1 wrote an absent referer as a bare `-`.
      refEnd = line.indexOf(' ', p)
      if (refEnd < 0 || refEnd > midEnd) refEnd = midEnd
      const ref = line.slice(p, refEnd)
      if (ref !== '-' && ref !== '') event.referer = ref
    }
    p = refEnd + 1
    if (p >= midEnd || line.charCodeAt(refEnd) !== SP) return reject('unparsed-message', 'truncated line: no user agent after the referer')
    let ua: string
    if (line.charCodeAt(p) === QUOTE) {
      if (hasTail) {
        if (midEnd - 1 <= p || line.charCodeAt(midEnd - 1) !== QUOTE) return reject('unparsed-message', 'the user agent field is not closed before the Traefik tail')
        ua = unquote(line, p + 1, midEnd - 1)
      } else {
        const uc = closeQuote(line, p + 1, end)
        if (uc < 0) return reject('unparsed-message', 'truncated line: the user-agent field is not closed')
        if (uc + 1 !== end) return reject('unparsed-message', `not a Traefik tail after the user agent: ${snippet(line, uc + 1, end)}`)
        ua = unquote(line, p + 1, uc)
      }
    } else {
      const ue = line.indexOf(' ', p)
      if ((ue < 0 ? end : ue) !== midEnd) return reject('unparsed-message', `not a Traefik tail after the user agent: ${snippet(line, p, end)}`)
      ua = line.slice(p, midEnd)
    }
    if (ua !== '-') event.userAgent = ua
    if (hasTail) {
      if (tUrl !== undefined) {
        const host = urlHost(tUrl)
        if (host !== undefined) event.upstream = host
      }
      if (tRouter !== undefined) event.upstreamName = tRouter
      event.requestTime = tMillis / 1000
    }
  }
  return {ok: true, event: client === '-' ? event : withChain(event, splitHops(client))}
}

export const traefikClf: TextFormat = {
  id: 'traefik-clf',
  name: 'Traefik access log (common log format)',
  bytes: 'body',
  looksLike: looksLikeTraefikClf,
  parse: parseTraefikClf,
}

// ---------------------------------------------------------------------------------------------
// JSON

const DIGITS = /^\d+$/

/** Traefik logs `-` for an unset value; an empty string carries nothing either. */
function str(obj: Record<string, unknown>, key: string): string | undefined {
  const v = obj[key]
  return typeof v === 'string' && v !== '' && v !== '-' ? v : undefined
}

/** A non-negative integer field (a number, or digits in a string). */
function int(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? v : undefined
  if (typeof v === 'string' && DIGITS.test(v) && v.length <= MAX_DIGITS) return Number(v)
  return undefined
}

function given(v: unknown): boolean {
  return v !== undefined && v !== null && v !== ''
}

/** ServiceURL / BackendURL: a URL string (v3) or a url.URL object (v1, v2). */
function serviceUrlHost(v: unknown): string | undefined {
  if (typeof v === 'string') return urlHost(v)
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const host = (v as Record<string, unknown>)['Host']
    return typeof host === 'string' && host !== '' ? host : undefined
  }
  return undefined
}

/** Time fields in order of preference: the request's start with nanoseconds, then the log time (seconds). */
const TIME_KEYS = ['StartUTC', 'StartLocal', 'time'] as const

/** Cheap format check: Traefik's status and request keys. */
export function looksLikeTraefikJson(obj: Record<string, unknown>): boolean {
  if (typeof obj !== 'object' || obj === null) return false
  if (!('DownstreamStatus' in obj) && !('OriginStatus' in obj)) return false
  return 'RequestPath' in obj || 'RequestMethod' in obj || 'RequestLine' in obj
}

/** Parses one Traefik JSON access record. Never throws. */
export function parseTraefikJson(obj: Record<string, unknown>): ParseOutcome {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return reject('not-an-object', 'record is not a JSON object')

  let timeKey: string | undefined
  for (const k of TIME_KEYS) {
    if (given(obj[k])) {
      timeKey = k
      break
    }
  }
  if (timeKey === undefined) return reject('missing-time', 'no StartUTC, StartLocal or time field')
  const rawTime = obj[timeKey]
  const iso = typeof rawTime === 'string' ? parseIsoTime(rawTime) : undefined
  if (iso === undefined) return reject('bad-time', `unreadable ${timeKey} ${show(rawTime)}`)

  const requestLine = str(obj, 'RequestLine')
  const rlSpace = requestLine === undefined ? -1 : requestLine.indexOf(' ')
  let target = str(obj, 'RequestPath')
  if (target === undefined && requestLine !== undefined && rlSpace > 0) {
    const rest = requestLine.slice(rlSpace + 1)
    const sp = rest.indexOf(' ')
    target = sp < 0 ? rest : rest.slice(0, sp)
  }
  if (target === undefined) return reject('missing-path', 'no RequestPath or RequestLine')
  const split = splitTarget(target)
  if (split === undefined) return reject('missing-path', `request target is not a path: ${show(target)}`)
  const method = str(obj, 'RequestMethod') ?? (rlSpace > 0 ? (requestLine as string).slice(0, rlSpace) : '')

  const rawStatus = obj['DownstreamStatus']
  if (!given(rawStatus)) return reject('missing-status', 'no DownstreamStatus field')
  const status = int(rawStatus)
  if (status === undefined || status < 100 || status > 999) return reject('bad-status', `DownstreamStatus is not a 3-digit number: ${show(rawStatus)}`)

  const rawBytes = obj['DownstreamContentSize']
  if (!given(rawBytes)) return reject('missing-bytes', 'no DownstreamContentSize field')
  const bytes = int(rawBytes)
  if (bytes === undefined) return reject('bad-bytes', `DownstreamContentSize is not a number: ${show(rawBytes)}`)

  const host = str(obj, 'ClientHost')
  const addr = str(obj, 'ClientAddr')
  const clientIp = host !== undefined ? firstOfList(host) : addr !== undefined ? stripPort(addr) : ''

  const event: AccessFields = {
    time: iso.time,
    resolutionMs: iso.resolutionMs,
    method,
    path: split.path,
    status,
    bytes,
    clientIp,
    userAgent: str(obj, 'request_User-Agent') ?? '',
  }
  const referer = str(obj, 'request_Referer')
  if (referer !== undefined) event.referer = referer
  const requestId = str(obj, 'request_X-Request-Id')
  if (requestId !== undefined) event.requestId = requestId
  const upstream = str(obj, 'ServiceAddr') ?? serviceUrlHost(obj['ServiceURL']) ?? str(obj, 'BackendAddr') ?? serviceUrlHost(obj['BackendURL'])
  if (upstream !== undefined) event.upstream = upstream
  const upstreamName = str(obj, 'ServiceName') ?? str(obj, 'BackendName') ?? str(obj, 'RouterName') ?? str(obj, 'FrontendName')
  if (upstreamName !== undefined) event.upstreamName = upstreamName
  const requestHost = str(obj, 'RequestHost')
  const requestAddr = str(obj, 'RequestAddr')
  const vhost = requestHost ?? (requestAddr === undefined ? undefined : stripPort(requestAddr)) ?? split.host
  if (vhost !== undefined) event.vhost = vhost
  const duration = obj['Duration']
  if (typeof duration === 'number' && Number.isFinite(duration) && duration >= 0) event.requestTime = duration / 1e9
  const origin = obj['OriginDuration']
  if (typeof origin === 'number' && Number.isFinite(origin) && origin > 0) event.upstreamTime = origin / 1e9
  return {ok: true, event: host === undefined ? event : withChain(event, splitHops(host))}
}

export const traefikJson: JsonFormat = {
  id: 'traefik-json',
  name: 'Traefik access log (JSON)',
  bytes: 'body',
  looksLike: looksLikeTraefikJson,
  parse: parseTraefikJson,
}
