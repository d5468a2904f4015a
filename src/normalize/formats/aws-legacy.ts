import type {AccessFields, ParseOutcome} from '../../model'
import {parseIsoTime, parseNginxTime, splitTarget} from '../access-line'
import {stripPort} from '../../util/host-port'
import type {TextFormat} from './types'
import {countAt, isAlpha, isDigit, isHex, reject, snippet, splitQuotedFields, statusAt} from '../text'

/*
 * The other two AWS access logs an SPA meets: Amazon S3 server access logs (the app served from a
 * bucket, often through its website endpoint) and Classic Load Balancer (ELB) access logs. Both
 * are space-separated with some fields in double quotes, and both count the body alone in their
 * byte field (`bytes: 'body'`), unlike ALB and CloudFront (formats/aws.ts):
 * - S3 `bytes_sent`: "The number of response bytes sent excluding HTTP protocol overhead, or - if
 *   zero." (Amazon S3 server access log format,
 *   https://docs.aws.amazon.com/AmazonS3/latest/userguide/LogFormat.html). `-` is read as 0.
 * - Classic ELB `sent_bytes`: "The size of the response, in bytes, sent to the client (requester).
 *   [HTTP listener] The value includes the response body but not the headers." (Access logs for
 *   your Classic Load Balancer,
 *   https://docs.aws.amazon.com/elasticloadbalancing/latest/classic/access-log-collection.html).
 *
 * Scanners work on char codes and indexOf, without regexes (linear on hostile input), read a
 * bounded number of fields, never throw, and keep no state between calls.
 */

const SP = 32
const DASH = 45
const DOT = 46
const SLASH = 47
const COLON = 58
const LBRACK = 91
const RBRACK = 93

/** The bucket owner and the bucket name are short; a longer head is not an S3 line. */
const MAX_HEAD_TOKEN = 256
/** `[06/Feb/2019:00:00:38 +0000]` is 28 chars. */
const MAX_TIME_FIELD = 40
/** looksLike reads no further than this. */
const LOOKS_LIKE_SPAN = 256

/** The line's end without a trailing CR. */
function lineEnd(line: string): number {
  const end = line.length
  return end > 0 && line.charCodeAt(end - 1) === 13 ? end - 1 : end
}

/** A request line's parts: `METHOD TARGET [PROTOCOL]`. */
interface RequestLine {
  method: string
  target: string
  /** The protocol (`HTTP/1.1`, or `-` when ELB could not read the request); '' when absent. */
  protocol: string
}

/**
 * Splits a request line. The target runs from the first space to the last one when the last word
 * is a protocol (`HTTP/…` or `-`), else to the end: S3 logs the GET half of a copy without one
 * (`"GET /bucket/key?x-foo=bar"`). Undefined when there is no space or no method.
 */
function requestLine(s: string, a: number, b: number): RequestLine | undefined {
  const m = s.indexOf(' ', a)
  if (m < 0 || m >= b || m === a) return undefined
  let te = s.lastIndexOf(' ', b - 1)
  let protocol = ''
  if (te > m) {
    const p = s.slice(te + 1, b)
    if (p.startsWith('HTTP/') || p === '-') protocol = p
    else te = b
  } else {
    te = b
  }
  return {method: s.slice(a, m), target: s.slice(m + 1, te), protocol}
}

/** `YYYY-MM-DDTHH:MM:SS` at i (the start of every Classic ELB line). */
function isoStampAt(s: string, i: number): boolean {
  for (let k = 0; k < 19; k++) {
    const c = s.charCodeAt(i + k)
    const want = k === 4 || k === 7 ? DASH : k === 10 ? 84 : k === 13 || k === 16 ? COLON : -1
    if (want === -1 ? !isDigit(c) : c !== want) return false
  }
  return true
}

// ---------------------------------------------------------------------------------------------
// Amazon S3 server access log

/** Fields after `[time]`, counted from remote_ip (0). */
const S_REMOTE_IP = 0
const S_REQUEST_ID = 2
const S_OPERATION = 3
const S_REQUEST_URI = 5
const S_STATUS = 6
const S_BYTES_SENT = 8
const S_REFERER = 12
const S_USER_AGENT = 13
const S_HOST_HEADER = 19
/** A record has at least the fields through the user agent (the oldest logs end at version_id). */
const S_MIN_FIELDS = S_USER_AGENT + 1

/** `DD/Mon/YYYY:` at i: how every S3 time starts. */
function s3DateAt(s: string, i: number): boolean {
  return (
    isDigit(s.charCodeAt(i)) &&
    isDigit(s.charCodeAt(i + 1)) &&
    s.charCodeAt(i + 2) === SLASH &&
    isAlpha(s.charCodeAt(i + 3)) &&
    isAlpha(s.charCodeAt(i + 4)) &&
    isAlpha(s.charCodeAt(i + 5)) &&
    s.charCodeAt(i + 6) === SLASH &&
    isDigit(s.charCodeAt(i + 7)) &&
    isDigit(s.charCodeAt(i + 8)) &&
    isDigit(s.charCodeAt(i + 9)) &&
    isDigit(s.charCodeAt(i + 10)) &&
    s.charCodeAt(i + 11) === COLON
  )
}

/** A bucket name's chars (legacy names allow upper case and `_`). */
function isBucketChar(c: number): boolean {
  return isAlpha(c) || isDigit(c) || c === DASH || c === DOT || c === 95
}

function parseS3(line: string): ParseOutcome {
  const end = lineEnd(line)
  if (end === 0) return reject('unparsed-message', 'empty line')
  const sp1 = line.indexOf(' ')
  const sp2 = sp1 < 0 ? -1 : line.indexOf(' ', sp1 + 1)
  if (sp1 <= 0 || sp2 < 0 || sp2 > MAX_HEAD_TOKEN * 2 || sp2 === sp1 + 1 || line.charCodeAt(sp2 + 1) !== LBRACK) {
    return reject('unparsed-message', 'not an S3 access line: no bucket owner and bucket before a [time] field')
  }
  const ta = sp2 + 2
  const close = line.indexOf(']', ta)
  if (close < 0 || close > end || close - ta > MAX_TIME_FIELD) return reject('unparsed-message', 'truncated line: the [time] field is not closed')
  const timeText = line.slice(ta, close)
  const time = parseNginxTime(timeText)
  if (time === undefined) return reject('bad-time', `unreadable time ${snippet(timeText)}`)
  if (close + 1 < end && line.charCodeAt(close + 1) !== SP) return reject('unparsed-message', 'no space after the [time] field')

  const starts: number[] = []
  const ends: number[] = []
  const n = splitQuotedFields(line, close + 2, end, S_HOST_HEADER + 1, starts, ends)
  if (n < 0) return reject('unparsed-message', 'truncated line: a quoted field is not closed')
  if (n < S_MIN_FIELDS) {
    return reject('unparsed-message', `truncated line: ${n} fields after the time, an S3 record has at least ${S_MIN_FIELDS}`)
  }
  const a = (k: number): number => starts[k] ?? 0
  const b = (k: number): number => ends[k] ?? 0
  const field = (k: number): string => line.slice(a(k), b(k))

  // Lifecycle (S3.EXPIRE.OBJECT…) and batch-delete records have no request line: request_uri `-`.
  const uri = field(S_REQUEST_URI)
  if (uri === '-' || uri === '') {
    return reject('missing-path', `${snippet(field(S_OPERATION))} has no request line (request_uri -): a lifecycle or batch-delete entry`)
  }
  const req = requestLine(line, a(S_REQUEST_URI), b(S_REQUEST_URI))
  if (req === undefined || req.method === '-') return reject('missing-path', `request_uri is not "METHOD URI HTTP/x": ${snippet(uri)}`)
  const target = splitTarget(req.target)
  if (target === undefined) return reject('missing-path', `request URI is not a path or URL: ${snippet(req.target)}`)

  const status = statusAt(line, a(S_STATUS), b(S_STATUS))
  if (status < 0) {
    const text = field(S_STATUS)
    return reject('bad-status', text === '-' ? 'no HTTP status logged (http_status -)' : `http_status is not a 3-digit number: ${snippet(text)}`)
  }
  const sentText = field(S_BYTES_SENT)
  const bytes = sentText === '-' ? 0 : countAt(line, a(S_BYTES_SENT), b(S_BYTES_SENT))
  if (bytes < 0) return reject('bad-bytes', `bytes_sent is not a number: ${snippet(sentText)}`)

  const ip = field(S_REMOTE_IP)
  const event: AccessFields = {
    time,
    resolutionMs: 1000,
    method: req.method,
    path: target.path,
    status,
    bytes,
    clientIp: ip === '-' ? '' : ip,
    userAgent: '',
  }
  const ua = field(S_USER_AGENT)
  if (ua !== '-') event.userAgent = ua
  const referer = field(S_REFERER)
  if (referer !== '-' && referer !== '') event.referer = referer
  const requestId = field(S_REQUEST_ID)
  if (requestId !== '-' && requestId !== '') event.requestId = requestId
  // host_header (the endpoint or custom domain the client asked for); older logs end before it.
  const host = n > S_HOST_HEADER ? field(S_HOST_HEADER) : '-'
  if (host !== '-' && host !== '') event.vhost = stripPort(host)
  else if (target.host !== undefined) event.vhost = stripPort(target.host)
  return {ok: true, event}
}

/**
 * A canonical user id (64 hex chars) as the bucket owner, a bucket name, then `[DD/Mon/YYYY:`.
 * An nginx line never starts that way (not even with a `$host` prefix: a host is not 64 hex
 * chars followed by one word and the time). Reads at most the first LOOKS_LIKE_SPAN chars.
 */
function looksLikeS3(line: string): boolean {
  for (let k = 0; k < 64; k++) if (!isHex(line.charCodeAt(k))) return false
  if (line.charCodeAt(64) !== SP) return false
  let i = 65
  while (i < LOOKS_LIKE_SPAN && isBucketChar(line.charCodeAt(i))) i++
  if (i === 65 || i >= LOOKS_LIKE_SPAN || line.charCodeAt(i) !== SP || line.charCodeAt(i + 1) !== LBRACK) return false
  return s3DateAt(line, i + 2)
}

/**
 * Amazon S3 server access log (`bucket_owner bucket [time] remote_ip requester request_id operation
 * key "request_uri" http_status error_code bytes_sent object_size total_time turn_around_time
 * "referer" "user_agent" version_id host_id …`, any number of trailing fields). Time to the
 * second; method and path from request_uri (the path as logged: with the bucket for path-style
 * requests); bytes `bytes_sent` (the body; `-` is 0); clientIp remote_ip ('' when `-`); requestId
 * the S3 request id; vhost host_header (else the request URL's host). No upstream. Records without
 * a request line (lifecycle expirations, batch deletes) reject as `missing-path`.
 */
export const s3AccessLog: TextFormat = {
  id: 'aws-s3',
  name: 'Amazon S3 server access log',
  bytes: 'body',
  looksLike: looksLikeS3,
  parse: parseS3,
}

// ---------------------------------------------------------------------------------------------
// Classic Load Balancer

const E_TIME = 0
const E_CLIENT = 2
const E_BACKEND = 3
const E_ELB_STATUS = 7
const E_SENT = 10
const E_REQUEST = 11
const E_USER_AGENT = 12
/** Fields the parser reads: through the user agent; ssl_cipher and ssl_protocol are not used. */
const E_LAST_FIELD = E_USER_AGENT

function parseElbClassic(line: string): ParseOutcome {
  const end = lineEnd(line)
  if (end === 0) return reject('unparsed-message', 'empty line')
  if (!isoStampAt(line, 0)) return reject('unparsed-message', `not a Classic Load Balancer line: ${snippet(line, 0, Math.min(end, 20))} is not an ISO time`)
  const starts: number[] = []
  const ends: number[] = []
  const n = splitQuotedFields(line, 0, end, E_LAST_FIELD + 1, starts, ends)
  if (n < 0) return reject('unparsed-message', 'truncated line: a quoted field is not closed')
  if (n <= E_REQUEST) return reject('unparsed-message', `truncated line: ${n} fields, the request is field ${E_REQUEST + 1}`)
  const a = (k: number): number => starts[k] ?? 0
  const b = (k: number): number => ends[k] ?? 0
  const field = (k: number): string => line.slice(a(k), b(k))

  const timeText = field(E_TIME)
  const t = parseIsoTime(timeText)
  if (t === undefined) return reject('bad-time', `unreadable time ${snippet(timeText)}`)

  // "METHOD scheme://host:port/path PROTOCOL"; a TCP or SSL listener logs "- - - ".
  const ra = a(E_REQUEST)
  const rb = b(E_REQUEST)
  const req = requestLine(line, ra, rb)
  if (req === undefined || req.method === '-') {
    const tcp = line.startsWith('- - -', ra)
    return reject('missing-path', tcp ? 'TCP/SSL listener line (request "- - - "): no HTTP request' : `no request line: ${snippet(line, ra, rb)}`)
  }
  if (req.protocol === '-') return reject('missing-path', `the load balancer could not read the request: ${snippet(line, ra, rb)}`)
  const target = splitTarget(req.target)
  if (target === undefined) return reject('missing-path', `request URL is not a URL or path: ${snippet(req.target)}`)

  const status = statusAt(line, a(E_ELB_STATUS), b(E_ELB_STATUS))
  if (status < 0) {
    const text = field(E_ELB_STATUS)
    return reject('bad-status', text === '-' ? 'no response sent (elb_status_code -)' : `elb_status_code is not a 3-digit number: ${snippet(text)}`)
  }
  const bytes = countAt(line, a(E_SENT), b(E_SENT))
  if (bytes < 0) return reject('bad-bytes', `sent_bytes is not a number: ${snippet(line, a(E_SENT), b(E_SENT))}`)

  const event: AccessFields = {
    time: t.time,
    resolutionMs: t.resolutionMs,
    method: req.method,
    path: target.path,
    status,
    bytes,
    clientIp: stripPort(field(E_CLIENT)),
    userAgent: '',
  }
  if (n > E_USER_AGENT) {
    const ua = field(E_USER_AGENT)
    if (ua !== '-') event.userAgent = ua
  }
  const upstream = field(E_BACKEND)
  if (upstream !== '-' && upstream !== '') event.upstream = upstream
  if (target.host !== undefined) event.vhost = stripPort(target.host)
  return {ok: true, event}
}

/** `ip:port` or `[v6]:port` at s[a, b): address chars, a colon, 1-5 digits. */
function isAddrPort(s: string, a: number, b: number): boolean {
  let c = b - 1
  while (c > a && isDigit(s.charCodeAt(c))) c--
  if (c === b - 1 || b - 1 - c > 5 || c <= a || s.charCodeAt(c) !== COLON) return false
  for (let i = a; i < c; i++) {
    const x = s.charCodeAt(i)
    if (!(isHex(x) || x === DOT || x === COLON || x === LBRACK || x === RBRACK)) return false
  }
  return true
}

/**
 * An ISO time, the load balancer's name, the client's `ip:port`, the backend's `ip:port` or `-`,
 * and a processing time (`0.000073` or `-1`). ALB lines start with their request type, ALB
 * connection logs have the client's port apart, kubectl/CRI time prefixes are followed by a
 * stream name or an IP without a port. Reads at most the first LOOKS_LIKE_SPAN chars.
 */
function looksLikeElbClassic(line: string): boolean {
  if (!isoStampAt(line, 0)) return false
  const head = line.length > LOOKS_LIKE_SPAN ? line.slice(0, LOOKS_LIKE_SPAN) : line
  const bounds: number[] = []
  let i = 0
  while (bounds.length < 10) {
    const e = head.indexOf(' ', i)
    if (e < 0 || e === i) return false
    bounds.push(i, e)
    i = e + 1
  }
  const [, t1 = 0, n0 = 0, n1 = 0, c0 = 0, c1 = 0, b0 = 0, b1 = 0, p0 = 0, p1 = 0] = bounds
  if (t1 > 40 || n1 - n0 > 64) return false
  for (let k = 19; k < t1; k++) {
    const c = head.charCodeAt(k)
    if (!(isDigit(c) || c === DOT || c === 90 || c === 43 || c === DASH || c === COLON)) return false
  }
  if (!isAddrPort(head, c0, c1)) return false
  if (!(b1 - b0 === 1 && head.charCodeAt(b0) === DASH) && !isAddrPort(head, b0, b1)) return false
  for (let k = p0; k < p1; k++) {
    const c = head.charCodeAt(k)
    if (!(isDigit(c) || c === DOT || (c === DASH && k === p0))) return false
  }
  return true
}

/**
 * AWS Classic Load Balancer access log (`timestamp elb client:port backend:port
 * request_processing_time backend_processing_time response_processing_time elb_status_code
 * backend_status_code received_bytes sent_bytes "request" "user_agent" ssl_cipher ssl_protocol`;
 * logs from before 2015 end after the request). Time to the microsecond (read to the
 * millisecond); status `elb_status_code`; bytes `sent_bytes` (the body, for HTTP listeners);
 * clientIp without its port; upstream the `backend:port` that answered; vhost the request URL's
 * host without its port. TCP/SSL listener lines (`"- - - "`) and requests the load balancer could
 * not read (`"GET http://host:80- -"`) reject as `missing-path`.
 */
export const elbClassicLog: TextFormat = {
  id: 'aws-elb-classic',
  name: 'AWS Classic Load Balancer (ELB) access log',
  bytes: 'body',
  looksLike: looksLikeElbClassic,
  parse: parseElbClassic,
}
