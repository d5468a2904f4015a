import type {AccessFields, ParseOutcome} from '../../model'
import {parseIsoTime, splitTarget} from '../access-line'
import {stripPort} from '../../util/host-port'
import type {JsonFormat, TextFormat} from './types'
import {isAlpha, isDigit, reject, show, snippet} from '../text'
import {firstClient, splitHops, withChain} from '../forwarded'

/*
 * Envoy and Istio access logs.
 *
 * Text: Envoy's default format
 *   [%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE%
 *   %RESPONSE_FLAGS% %BYTES_RECEIVED% %BYTES_SENT% %DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)%
 *   "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" "%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%"
 * and Istio's (1.9+), which puts %RESPONSE_CODE_DETAILS% %CONNECTION_TERMINATION_DETAILS%
 * "%UPSTREAM_TRANSPORT_FAILURE_REASON%" between the flags and the byte counts and appends
 * %UPSTREAM_CLUSTER% %UPSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_REMOTE_ADDRESS%
 * %REQUESTED_SERVER_NAME% %ROUTE_NAME%. Istio 1.5-1.8 had `"%DYNAMIC_METADATA(istio.mixer:status)%"
 * "%UPSTREAM_TRANSPORT_FAILURE_REASON%"` there instead: the byte counts are found as the first two
 * numbers after the flags, at most three fields later. Ambassador/Emissary prefix the line with `ACCESS `.
 *
 * Envoy escapes nothing: a field's closing quote is the one followed by a space (or the end).
 * %BYTES_SENT% is the response body ("Body bytes sent", Envoy's command-operator docs), so bytes
 * are `body` as with nginx's $body_bytes_sent.
 *
 * JSON: `json_format` / `typed_json_format` dictionaries have whatever keys the operator chose; the
 * usual ones are read: Istio's JSON encoding (`start_time`, `path`, `response_code`, `bytes_sent`,
 * `x_forwarded_for`, `user_agent`, `request_id`, `authority`, `upstream_host`, `upstream_cluster`,
 * `downstream_remote_address`…) and Envoy Gateway's default (`x-envoy-origin-path`, `user-agent`,
 * `x-forwarded-for`, `x-request-id`, `:authority`). Typed JSON writes numbers and `null`; plain
 * json_format and Envoy Gateway's text-rendered JSON write strings and `-`.
 */

const TAB = 9
const CR = 13
const SP = 32
const QUOTE = 34
const COMMA = 44
const DASH = 45
const COLON = 58
const LBRACK = 91
const RBRACK = 93

/** `[2016-04-15T20:17:00.310Z]` is 24 chars inside the brackets; a custom %START_TIME(…)% a few more. */
const MAX_TIME_FIELD = 64
/** Longest method token accepted (WebDAV's VERSION-CONTROL is 15). */
const MAX_METHOD = 32
/** Largest byte count we accept: beyond this the number is not exact in a double. */
const MAX_BYTES_DIGITS = 15
/** How far looksLike searches for the end of the request field. */
const LOOKS_LIKE_SPAN = 8192
const ACCESS_PREFIX = 'ACCESS '



function isMethodChar(c: number): boolean {
  return isAlpha(c) || c === DASH || c === 95 // _
}




/** Index of the quote closing a field whose content starts at i (the quote followed by a space or the end), or -1. */
function findClose(s: string, i: number, end: number): number {
  for (let q = s.indexOf('"', i); q !== -1 && q < end; q = s.indexOf('"', q + 1)) {
    if (q + 1 === end || s.charCodeAt(q + 1) === SP) return q
  }
  return -1
}

/** End of the token starting at i: the next space, or end. */
function tokenEnd(s: string, i: number, end: number): number {
  if (i >= end) return end
  const sp = s.indexOf(' ', i)
  return sp === -1 || sp > end ? end : sp
}

function allDigits(s: string, a: number, b: number): boolean {
  if (a >= b) return false
  for (let i = a; i < b; i++) if (!isDigit(s.charCodeAt(i))) return false
  return true
}

/** Exactly one `-`: Envoy's "not set". */
function isDash(s: string, a: number, b: number): boolean {
  return b === a + 1 && s.charCodeAt(a) === DASH
}

/**
 * The client address of an `ip:port` / `[ipv6]:port` downstream address (port dropped), or
 * undefined for `-`, internal listeners (`envoy://…`) and pipes.
 */
function addressIp(a: string): string | undefined {
  if (a === '' || a === '-' || a.includes('://') || a.charCodeAt(0) === 47) return undefined // / (unix socket)
  if (a.charCodeAt(0) === LBRACK) {
    const close = a.indexOf(']')
    return close > 1 ? a.slice(1, close) : undefined
  }
  const colon = a.indexOf(':')
  if (colon < 0) return a
  // A bare IPv6 address has several colons and no port to drop.
  if (a.indexOf(':', colon + 1) >= 0) return a
  return colon > 0 ? a.slice(0, colon) : undefined
}

/**
 * The client of an X-Forwarded-For value and the downstream address (the client, as far as the
 * header can be trusted: its first address, `unknown` or `_hidden` hops skipped; else the
 * downstream), and the chain for --trusted-proxies.
 */
function forwardedClient(xff: string | undefined, downstream: string | undefined): {clientIp: string; chain: string[]} {
  const hops = xff === undefined ? [] : splitHops(xff)
  const peer = downstream === undefined ? undefined : addressIp(downstream)
  // `[v6]` and `[v6]:port`, `v4:port` entries name the address alone (hopAddress).
  return {clientIp: firstClient(hops) ?? peer ?? '', chain: hops.length === 0 ? [] : peer === undefined ? hops : [...hops, peer]}
}

/** %UPSTREAM_HOST% as `ip:port`: `tcp://` dropped; other schemes (Envoy internal listeners) are not pods. */
function upstreamAddress(h: string): string | undefined {
  if (h === '' || h === '-') return undefined
  let v = h
  if (v.startsWith('tcp://') || v.startsWith('udp://')) v = v.slice(6)
  return v === '' || v.includes('://') ? undefined : v
}

// ---------------------------------------------------------------------------------------------
// Text

/** Start of the `[` opening the time (0, or after `ACCESS `), or -1. */
function timeOpen(s: string): number {
  if (s.charCodeAt(0) === LBRACK) return 0
  return s.startsWith(ACCESS_PREFIX) && s.charCodeAt(ACCESS_PREFIX.length) === LBRACK ? ACCESS_PREFIX.length : -1
}

/** `YYYY-MM-DDTHH:MM:SS` at i (only the separators and leading digits: the full check is parseIsoTime's). */
function isoShapeAt(s: string, i: number): boolean {
  return (
    isDigit(s.charCodeAt(i)) && isDigit(s.charCodeAt(i + 3)) && s.charCodeAt(i + 4) === DASH && s.charCodeAt(i + 7) === DASH &&
    (s.charCodeAt(i + 10) | 32) === 116 && s.charCodeAt(i + 13) === COLON && s.charCodeAt(i + 16) === COLON
  )
}

/** `]` closing the time whose content starts at i, within MAX_TIME_FIELD chars, or -1. */
function timeClose(s: string, i: number, end: number): number {
  const limit = Math.min(end, i + MAX_TIME_FIELD)
  for (let j = i; j < limit; j++) if (s.charCodeAt(j) === RBRACK) return j
  return -1
}

/** %RESPONSE_FLAGS%: `-`, or comma-separated upper-case short flags (`UH`, `UF,URX`, `UAEX`). */
function isFlags(s: string, a: number, b: number): boolean {
  if (isDash(s, a, b)) return true
  if (a >= b || b - a > 64) return false
  for (let i = a; i < b; i++) {
    const c = s.charCodeAt(i)
    if (!((c >= 65 && c <= 90) || c === COMMA)) return false
  }
  return true
}

/** findClose and tokenEnd confined to [i, end): looksLike must not scan past its window. */
function closeWithin(s: string, i: number, end: number): number {
  for (let j = i; j < end; j++) if (s.charCodeAt(j) === QUOTE && (j + 1 === s.length || s.charCodeAt(j + 1) === SP)) return j
  return -1
}

function tokenEndWithin(s: string, i: number, end: number): number {
  let j = i
  while (j < end && s.charCodeAt(j) !== SP) j++
  return j
}

/**
 * Cheap, bounded shape check: `[ISO time] "METHOD …" STATUS FLAGS `. The flags are what tell it
 * from an nginx line with `[$time_iso8601]` (`… 200 5 "-"`). Looks at most LOOKS_LIKE_SPAN chars.
 */
export function looksLikeEnvoyLine(line: string): boolean {
  const open = timeOpen(line)
  if (open < 0 || !isoShapeAt(line, open + 1)) return false
  const end = Math.min(line.length, open + LOOKS_LIKE_SPAN)
  const close = timeClose(line, open + 1, end)
  if (close < 0 || line.charCodeAt(close + 1) !== SP || line.charCodeAt(close + 2) !== QUOTE) return false
  let i = close + 3
  const methodLimit = Math.min(end, i + MAX_METHOD)
  const methodStart = i
  while (i < methodLimit && isMethodChar(line.charCodeAt(i))) i++
  if (i === methodStart || line.charCodeAt(i) !== SP) return false
  const reqClose = closeWithin(line, i, end)
  if (reqClose < 0) return false
  const statusStart = reqClose + 2
  const statusEnd = tokenEndWithin(line, statusStart, Math.min(end, statusStart + 4))
  if (statusEnd - statusStart > 3 || !allDigits(line, statusStart, statusEnd) || line.charCodeAt(statusEnd) !== SP) return false
  const flagsEnd = tokenEndWithin(line, statusEnd + 1, Math.min(end, statusEnd + 66))
  return isFlags(line, statusEnd + 1, flagsEnd) && line.charCodeAt(flagsEnd) === SP
}

/** Set by readQuoted: the field's content range. */
let qStart = 0
let qEnd = 0

/** Reads ` "…"` at p (a space, then a quoted field); returns the index after the closing quote, or -1. */
function readQuoted(s: string, p: number, end: number): number {
  if (s.charCodeAt(p) !== SP || s.charCodeAt(p + 1) !== QUOTE) return -1
  const close = findClose(s, p + 2, end)
  if (close < 0) return -1
  qStart = p + 2
  qEnd = close
  return close + 1
}

/** The content of [a, b), or undefined when it is `-` or empty. */
function valueOf(s: string, a: number, b: number): string | undefined {
  return a >= b || isDash(s, a, b) ? undefined : s.slice(a, b)
}

const QUOTED_NAMES = ['X-Forwarded-For', 'User-Agent', 'X-Request-Id', ':authority', 'upstream host'] as const

/** Parses one Envoy or Istio default-format access line. Never throws. */
export function parseEnvoyLine(line: string): ParseOutcome {
  let end = line.length
  if (end > 0 && line.charCodeAt(end - 1) === CR) end--
  // Trailing blanks (copied logs keep them; Envoy writes none).
  while (end > 0 && (line.charCodeAt(end - 1) === SP || line.charCodeAt(end - 1) === TAB)) end--
  if (end === 0) return reject('unparsed-message', 'empty line')

  const open = timeOpen(line)
  if (open < 0) return reject('unparsed-message', 'not an Envoy access line: expected `[START_TIME] "METHOD PATH PROTOCOL" STATUS …`')
  const close = timeClose(line, open + 1, end)
  if (close < 0) return reject('unparsed-message', 'not an Envoy access line: the [START_TIME] field is not closed')
  const iso = parseIsoTime(line.slice(open + 1, close))
  if (iso === undefined) return reject('bad-time', `unreadable START_TIME ${snippet(line, open + 1, close)}`)

  // "METHOD PATH PROTOCOL"
  if (line.charCodeAt(close + 1) !== SP || line.charCodeAt(close + 2) !== QUOTE) {
    return reject('unparsed-message', 'not an Envoy access line: no quoted request after the time')
  }
  const ra = close + 3
  const reqClose = findClose(line, ra, end)
  if (reqClose < 0) return reject('unparsed-message', 'truncated line: the request field is not closed')
  let sp1 = line.indexOf(' ', ra)
  if (sp1 < 0 || sp1 >= reqClose) sp1 = reqClose
  let sp2 = line.lastIndexOf(' ', reqClose - 1)
  if (sp2 < sp1) sp2 = sp1
  const methodDash = isDash(line, ra, sp1)
  const pathStart = Math.min(sp1 + 1, reqClose)
  // Envoy always logs three words; with two, the second is the path.
  const pathEnd = sp2 > sp1 ? sp2 : reqClose
  const pathDash = isDash(line, pathStart, pathEnd)
  if (methodDash && pathDash && isDash(line, sp2 + 1, reqClose)) {
    return reject('missing-path', 'TCP connection ("- - -"), not an HTTP request')
  }
  if (pathDash || pathStart >= pathEnd) {
    return reject('missing-path', 'no request path ("-"): Envoy could not read the request (e.g. a protocol error)')
  }
  let methodOk = sp1 > ra && sp1 - ra <= MAX_METHOD
  for (let i = ra; methodOk && i < sp1; i++) methodOk = isMethodChar(line.charCodeAt(i))
  if (!methodOk) return reject('missing-path', `request is not "METHOD PATH PROTOCOL": ${snippet(line, ra, reqClose)}`)
  const split = splitTarget(line.slice(pathStart, pathEnd))
  if (split === undefined) return reject('missing-path', `request path is not a path: ${snippet(line, pathStart, pathEnd)}`)
  const method = methodDash ? '' : line.slice(ra, sp1)

  // %RESPONSE_CODE%
  let p = reqClose + 1
  if (line.charCodeAt(p) !== SP || p + 1 >= end) return reject('missing-status', 'truncated line: nothing after the request')
  const statusEnd = tokenEnd(line, p + 1, end)
  if (statusEnd - (p + 1) > 3 || !allDigits(line, p + 1, statusEnd)) {
    return reject('bad-status', `status is not a number: ${snippet(line, p + 1, statusEnd)}`)
  }
  let status = 0
  for (let k = p + 1; k < statusEnd; k++) status = status * 10 + (line.charCodeAt(k) - 48)
  if (status === 0) return reject('bad-status', 'status 0: Envoy sent no response (client disconnected or stream reset)')
  if (status < 100) return reject('bad-status', `status is not a 3-digit number: ${snippet(line, p + 1, statusEnd)}`)

  // %RESPONSE_FLAGS%, then (Istio) up to three fields, then %BYTES_RECEIVED% %BYTES_SENT%.
  p = statusEnd
  if (line.charCodeAt(p) !== SP || p + 1 >= end) return reject('missing-bytes', 'truncated line: nothing after the status')
  p = tokenEnd(line, p + 1, end)
  let bs = -1
  let bsEnd = -1
  for (let extra = 0; ; extra++) {
    if (line.charCodeAt(p) !== SP || p + 1 >= end) return reject('missing-bytes', 'truncated line: no BYTES_RECEIVED BYTES_SENT after the status')
    const a = p + 1
    const aEnd = tokenEnd(line, a, end)
    if (allDigits(line, a, aEnd) && line.charCodeAt(aEnd) === SP) {
      const bEnd = tokenEnd(line, aEnd + 1, end)
      if (allDigits(line, aEnd + 1, bEnd)) {
        bs = aEnd + 1
        bsEnd = bEnd
        break
      }
    }
    if (extra === 3) return reject('unparsed-message', 'unknown Envoy format: no BYTES_RECEIVED BYTES_SENT within 3 fields of the flags')
    if (line.charCodeAt(a) === QUOTE) {
      const q = findClose(line, a + 1, end)
      if (q < 0) return reject('unparsed-message', 'truncated line: a quoted field after the flags is not closed')
      p = q + 1
    } else {
      p = aEnd
    }
  }
  if (bsEnd - bs > MAX_BYTES_DIGITS) return reject('bad-bytes', `BYTES_SENT is too large: ${snippet(line, bs, bsEnd)}`)
  let bytes = 0
  for (let k = bs; k < bsEnd; k++) bytes = bytes * 10 + (line.charCodeAt(k) - 48)

  // %DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)%
  p = bsEnd
  for (let k = 0; k < 2; k++) {
    if (line.charCodeAt(p) !== SP || p + 1 >= end) return reject('unparsed-message', 'truncated line: it ends after the byte counts')
    p = tokenEnd(line, p + 1, end)
  }

  // "X-FORWARDED-FOR" "USER-AGENT" "X-REQUEST-ID" ":AUTHORITY" "UPSTREAM_HOST"
  const quoted: (string | undefined)[] = []
  for (const name of QUOTED_NAMES) {
    const next = readQuoted(line, p, end)
    if (next < 0) return reject('unparsed-message', `truncated line: no quoted ${name} field`)
    quoted.push(valueOf(line, qStart, qEnd))
    p = next
  }
  const [xff, ua, requestId, authority, upstreamHost] = quoted

  // Istio: %UPSTREAM_CLUSTER% %UPSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_REMOTE_ADDRESS% …
  let cluster: string | undefined
  let downstream: string | undefined
  for (let field = 0; field < 4 && line.charCodeAt(p) === SP && p + 1 < end; field++) {
    const e = tokenEnd(line, p + 1, end)
    if (field === 0) cluster = valueOf(line, p + 1, e)
    else if (field === 3) downstream = valueOf(line, p + 1, e)
    p = e
  }

  const {clientIp, chain} = forwardedClient(xff, downstream)
  const event: AccessFields = withChain({time: iso.time, resolutionMs: iso.resolutionMs, method, path: split.path, status, bytes, clientIp, userAgent: ua ?? ''}, chain)
  if (requestId !== undefined) event.requestId = requestId
  const upstream = upstreamHost === undefined ? undefined : upstreamAddress(upstreamHost)
  if (upstream !== undefined) event.upstream = upstream
  if (cluster !== undefined) event.upstreamName = cluster
  // The Host as nginx's $host gives it: without a port.
  const vhost = authority ?? split.host
  if (vhost !== undefined) event.vhost = stripPort(vhost)
  return {ok: true, event}
}

// ---------------------------------------------------------------------------------------------
// JSON

const TIME_KEYS = ['start_time', '@timestamp', 'timestamp'] as const
const PATH_KEYS = ['path', 'x-envoy-origin-path', 'x-envoy-original-path', ':path'] as const
const METHOD_KEYS = ['method', ':method'] as const
const XFF_KEYS = ['x_forwarded_for', 'x-forwarded-for', 'forwarded_for'] as const
const UA_KEYS = ['user_agent', 'user-agent'] as const
const REQUEST_ID_KEYS = ['request_id', 'x-request-id', 'x_request_id'] as const
const AUTHORITY_KEYS = ['authority', ':authority'] as const
const REFERER_KEYS = ['referer', 'referrer'] as const

/** Epoch ms at 10000-01-01: anything later is a unit mix-up, not a time. */
const MAX_MS = 253_402_300_800_000
/** Numbers above this are epoch milliseconds, below it epoch seconds. */
const MS_THRESHOLD = 1e12

function has(obj: Record<string, unknown>, k: string): boolean {
  const v = obj[k]
  return v !== undefined && v !== null
}

/** Envoy's "not set": `null` (typed JSON), `-` (json_format), or nothing. */
function present(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '' && v !== '-'
}

/** The first of keys holding a usable string (numbers stringified; `-`, '' and null count as absent). */
function optString(obj: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const k of keys) {
    const v = obj[k]
    if (!present(v)) continue
    if (typeof v === 'string') return v
    if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  }
  return undefined
}

function firstKey(obj: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const k of keys) if (has(obj, k)) return k
  return undefined
}

/** A non-negative integer from a number or a string of digits, else undefined. */
function integer(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? v : undefined
  if (typeof v !== 'string' || v.length > MAX_BYTES_DIGITS || !allDigits(v, 0, v.length)) return undefined
  return Number(v)
}

/** %START_TIME% (ISO) or %START_TIME(%s.%3f)% (epoch seconds, string or number) -> [ms, resolutionMs]. */
function jsonTime(v: unknown): [number, number] | undefined {
  if (typeof v === 'string') {
    const iso = parseIsoTime(v)
    if (iso !== undefined) return [iso.time, iso.resolutionMs]
    let dot = -1
    for (let i = 0; i < v.length; i++) {
      const c = v.charCodeAt(i)
      if (c === 46 && dot < 0 && i > 0) dot = i
      else if (!isDigit(c)) return undefined
    }
    if (v.length === 0 || dot === v.length - 1) return undefined
    return epoch(Number(v), dot >= 0)
  }
  if (typeof v === 'number') return epoch(v, !Number.isInteger(v))
  return undefined
}

function epoch(x: number, fraction: boolean): [number, number] | undefined {
  if (!Number.isFinite(x) || x <= 0) return undefined
  const ms = x > MS_THRESHOLD ? Math.round(x) : Math.round(x * 1000)
  const res = x > MS_THRESHOLD || fraction ? 1 : 1000
  return ms < MAX_MS ? [ms, res] : undefined
}

/** Cheap check for an Envoy JSON access record: response_code, a start time, a method and a path key. */
export function looksLikeEnvoyJson(obj: Record<string, unknown>): boolean {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj) || !('response_code' in obj)) return false
  return firstKey(obj, TIME_KEYS) !== undefined && PATH_KEYS.some((k) => k in obj) && METHOD_KEYS.some((k) => k in obj)
}

/** Parses one Envoy / Istio JSON access record. Never throws. */
export function parseEnvoyJson(obj: Record<string, unknown>): ParseOutcome {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return reject('not-an-object', 'record is not a JSON object')

  let timeKey: string | undefined
  for (const k of TIME_KEYS) {
    if (present(obj[k])) {
      timeKey = k
      break
    }
  }
  if (timeKey === undefined) return reject('missing-time', `no time field (${TIME_KEYS.join(', ')})`)
  const time = jsonTime(obj[timeKey])
  if (time === undefined) return reject('bad-time', `unreadable ${timeKey} ${show(obj[timeKey])}`)

  const method = optString(obj, METHOD_KEYS)
  const target = optString(obj, PATH_KEYS)
  if (target === undefined) {
    if (method === undefined && !present(obj['protocol'])) return reject('missing-path', 'TCP connection (no method, path or protocol), not an HTTP request')
    return reject('missing-path', 'no request path ("-"): Envoy could not read the request (e.g. a protocol error)')
  }
  const split = splitTarget(target)
  if (split === undefined) return reject('missing-path', `request path is not a path: ${show(target)}`)

  const rawStatus = obj['response_code']
  if (!present(rawStatus)) return reject('missing-status', 'no response_code')
  const status = integer(rawStatus)
  if (status === 0) return reject('bad-status', 'response_code 0: Envoy sent no response (client disconnected or stream reset)')
  if (status === undefined || status < 100 || status > 999) return reject('bad-status', `response_code is not a 3-digit number: ${show(rawStatus)}`)

  const rawBytes = obj['bytes_sent']
  if (rawBytes === undefined || rawBytes === null || rawBytes === '') return reject('missing-bytes', 'no bytes_sent')
  const bytes = rawBytes === '-' ? 0 : integer(rawBytes)
  if (bytes === undefined) return reject('bad-bytes', `bytes_sent is not a number: ${show(rawBytes)}`)

  const xff = optString(obj, XFF_KEYS)
  const downstream = optString(obj, ['downstream_remote_address'])
  const {clientIp, chain} = forwardedClient(xff, downstream)

  const event: AccessFields = {
    time: time[0],
    resolutionMs: time[1],
    method: method ?? '',
    path: split.path,
    status,
    bytes,
    clientIp,
    userAgent: optString(obj, UA_KEYS) ?? '',
  }
  const referer = optString(obj, REFERER_KEYS)
  if (referer !== undefined) event.referer = referer
  const requestId = optString(obj, REQUEST_ID_KEYS)
  if (requestId !== undefined) event.requestId = requestId
  const upstreamHost = optString(obj, ['upstream_host'])
  const upstream = upstreamHost === undefined ? undefined : upstreamAddress(upstreamHost)
  if (upstream !== undefined) event.upstream = upstream
  const cluster = optString(obj, ['upstream_cluster'])
  if (cluster !== undefined) event.upstreamName = cluster
  const vhost = optString(obj, AUTHORITY_KEYS) ?? split.host
  if (vhost !== undefined) event.vhost = stripPort(vhost)
  return {ok: true, event: withChain(event, chain)}
}

export const envoyText: TextFormat = {
  id: 'envoy',
  name: 'Envoy / Istio access log (default text formats)',
  bytes: 'body',
  looksLike: looksLikeEnvoyLine,
  parse: parseEnvoyLine,
}

export const envoyJson: JsonFormat = {
  id: 'envoy-json',
  name: 'Envoy / Istio JSON access log (json_format, Istio accessLogEncoding: JSON)',
  bytes: 'body',
  looksLike: looksLikeEnvoyJson,
  parse: parseEnvoyJson,
}
