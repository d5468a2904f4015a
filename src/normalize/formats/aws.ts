import type {AccessFields, ParseOutcome} from '../../model'
import {parseIsoTime, splitTarget} from '../access-line'
import type {TextFormat} from './types'
import {bytesToString, countAt, hexVal, isDigit, reject, snippet, splitQuotedFields, statusAt} from '../text'

/*
 * AWS access logs: Application Load Balancer (space-separated, some fields quoted) and CloudFront
 * standard logs (tab-separated W3C with `#Version:` / `#Fields:` headers).
 *
 * Both count headers in their byte field (`bytes: 'response'`):
 * - ALB `sent_bytes`: "The size of the response, in bytes, sent to the client (requester). For
 *   HTTP requests, this includes the headers." (Access logs for your Application Load Balancer,
 *   https://docs.aws.amazon.com/elasticloadbalancing/latest/application/load-balancer-access-logs.html)
 * - CloudFront `sc-bytes`: "The total number of bytes that the server sent to the viewer in response
 *   to the request, including headers." (Standard logging reference,
 *   https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/standard-logs-reference.html)
 *
 * Classic Load Balancer lines (no `type` first field) are rejected, not parsed: their `sent_bytes`
 * counts the body only ("For HTTP requests, this is the size of the body"), so mixing them into a
 * format declared `response` would give the same shell two different fingerprints.
 *
 * Scanners work on char codes without regexes (linear on hostile input) and never throw. No state
 * outlives a call: the CloudFront field order lives in each parser built by `cloudfrontWithFields`.
 */

const TAB = 9
const SP = 32
const HASH = 35
const PERCENT = 37
const DASH = 45
const COLON = 58
const LBRACK = 91

const MAX_SNIPPET = 40
/** looksLike reads no further than this. */
const LOOKS_LIKE_SPAN = 256

/** `host:port` or `[v6]:port` -> the host; a bare host is returned as is. */
function hostOnly(hostPort: string): string {
  if (hostPort.charCodeAt(0) === LBRACK) {
    const close = hostPort.indexOf(']')
    return close < 0 ? hostPort : hostPort.slice(0, close + 1)
  }
  const colon = hostPort.indexOf(':')
  // Several colons without brackets: an IPv6 address, not host:port.
  return colon < 0 || hostPort.indexOf(':', colon + 1) >= 0 ? hostPort : hostPort.slice(0, colon)
}

// ---------------------------------------------------------------------------------------------
// Application Load Balancer

const ALB_TYPES = new Set(['http', 'https', 'h2', 'grpcs', 'ws', 'wss'])

/** Fields the parser reads: through trace_id (index 17); the rest of the line is never scanned. */
const ALB_LAST_FIELD = 17
const F_TIME = 1
const F_CLIENT = 3
const F_TARGET = 4
const F_ELB_STATUS = 8
const F_SENT = 11
const F_REQUEST = 12
const F_USER_AGENT = 13
const F_TRACE = 17

/** `YYYY-MM-DDTHH:MM:SS` at i (the start of every ALB, Classic ELB and connection-log time). */
function isoStampAt(s: string, i: number): boolean {
  for (let k = 0; k < 19; k++) {
    const c = s.charCodeAt(i + k)
    const want = k === 4 || k === 7 ? DASH : k === 10 ? 84 : k === 13 || k === 16 ? COLON : -1
    if (want === -1 ? !isDigit(c) : c !== want) return false
  }
  return true
}

/** The end of the request type (`h2` … `grpcs`): the space at 2 to 5, or -1. Reads 6 chars at most. */
function typeEnd(s: string): number {
  for (let k = 2; k <= 5; k++) if (s.charCodeAt(k) === SP) return k
  return -1
}

function firstToken(s: string): string {
  const head = s.slice(0, MAX_SNIPPET)
  const sp = head.indexOf(' ')
  return sp < 0 ? head : head.slice(0, sp)
}

/** `ip:port` -> ip; `[v6]:port` -> v6. ALB always logs the client with its port. */
function albClientIp(s: string, a: number, b: number): string {
  if (s.charCodeAt(a) === LBRACK) {
    const close = s.indexOf(']', a)
    if (close > a && close < b) return s.slice(a + 1, close)
  }
  let c = b - 1
  while (c > a && isDigit(s.charCodeAt(c))) c--
  return c > a && c < b - 1 && s.charCodeAt(c) === COLON ? s.slice(a, c) : s.slice(a, b)
}

function parseAlb(line: string): ParseOutcome {
  let end = line.length
  if (end > 0 && line.charCodeAt(end - 1) === 13) end--
  if (end === 0) return reject('unparsed-message', 'empty line')
  const sp = typeEnd(line)
  const type = sp > 0 ? line.slice(0, sp) : ''
  if (!ALB_TYPES.has(type)) {
    if (isoStampAt(line, 0)) {
      return reject('unparsed-message', 'starts with a time, not a request type: a Classic Load Balancer or ALB connection log line')
    }
    return reject('unparsed-message', `not an ALB access line: type ${snippet(firstToken(line))} (Network Load Balancer or other log?)`)
  }
  const starts: number[] = []
  const ends: number[] = []
  const n = splitQuotedFields(line, 0, end, ALB_LAST_FIELD + 1, starts, ends)
  if (n < 0) return reject('unparsed-message', 'truncated line: a quoted field is not closed')
  const a = (k: number): number => starts[k] ?? 0
  const b = (k: number): number => ends[k] ?? 0
  if (n <= F_REQUEST) return reject('unparsed-message', `truncated line: ${n} fields, the request is field ${F_REQUEST + 1}`)

  const timeText = line.slice(a(F_TIME), b(F_TIME))
  const t = parseIsoTime(timeText)
  if (t === undefined) return reject('bad-time', `unreadable time ${snippet(timeText)}`)

  const status = statusAt(line, a(F_ELB_STATUS), b(F_ELB_STATUS))
  if (status < 0) {
    const text = line.slice(a(F_ELB_STATUS), b(F_ELB_STATUS))
    return reject('bad-status', text === '-' ? 'no response sent (elb_status_code -)' : `elb_status_code is not a 3-digit number: ${snippet(text)}`)
  }
  const bytes = countAt(line, a(F_SENT), b(F_SENT))
  if (bytes < 0) return reject('bad-bytes', `sent_bytes is not a number: ${snippet(line, a(F_SENT), b(F_SENT))}`)

  // "METHOD URL PROTOCOL"; the URL may hold spaces (classification_reason SpaceInUri).
  const ra = a(F_REQUEST)
  const rb = b(F_REQUEST)
  const m = line.indexOf(' ', ra)
  if (m < 0 || m >= rb || m === ra || (m === ra + 1 && line.charCodeAt(ra) === DASH)) {
    return reject('missing-path', `no request line: ${snippet(line, ra, rb)}`)
  }
  let ue = line.lastIndexOf(' ', rb - 1)
  if (ue <= m) ue = rb
  const url = line.slice(m + 1, ue)
  const target = splitTarget(url)
  if (target === undefined) return reject('missing-path', `request URL is not a URL or path: ${snippet(url)}`)

  const event: AccessFields = {
    time: t.time,
    resolutionMs: t.resolutionMs,
    method: line.slice(ra, m),
    path: target.path,
    status,
    bytes,
    clientIp: albClientIp(line, a(F_CLIENT), b(F_CLIENT)),
    userAgent: '',
  }
  if (n > F_USER_AGENT) {
    const ua = line.slice(a(F_USER_AGENT), b(F_USER_AGENT))
    if (ua !== '-') event.userAgent = ua
  }
  if (n > F_TRACE) {
    const trace = line.slice(a(F_TRACE), b(F_TRACE))
    if (trace !== '-' && trace !== '') event.requestId = trace
  }
  const upstream = line.slice(a(F_TARGET), b(F_TARGET))
  if (upstream !== '-' && upstream !== '') event.upstream = upstream
  if (target.host !== undefined) event.vhost = hostOnly(target.host)
  return {ok: true, event}
}

/**
 * A request type (`http`, `https`, `h2`, `grpcs`, `ws`, `wss`), a space and an ISO time: what no
 * nginx, CloudFront or JSON line starts with. Reads at most the first 30 chars.
 */
function looksLikeAlb(line: string): boolean {
  const sp = typeEnd(line)
  if (sp < 0) return false
  return ALB_TYPES.has(line.slice(0, sp)) && isoStampAt(line, sp + 1)
}

/**
 * AWS Application Load Balancer access log (`type time elb client:port target:port … "request"
 * "user_agent" … "trace_id" …`, any number of trailing fields). status is `elb_status_code` (what
 * the client got), bytes `sent_bytes` (headers included), upstream the `target:port` that answered,
 * requestId the X-Amzn-Trace-Id (`Root=1-…`), vhost the request URL's host without its port.
 */
export const albLog: TextFormat = {
  id: 'aws-alb',
  name: 'AWS Application Load Balancer access log',
  bytes: 'response',
  looksLike: looksLikeAlb,
  parse: parseAlb,
}

// ---------------------------------------------------------------------------------------------
// CloudFront

/**
 * Decodes a CloudFront-encoded value (user agent, referer). CloudFront percent-encodes them
 * (`Mozilla/5.0%20(…)`); older logs, among them AWS's own example log file, encode a space, a
 * quote and a backslash twice (`%2520`, `%2522`, `%255C`): those three are undone first, as
 * node-cloudfront-log-parser does, then the value is percent-decoded once. Malformed escapes stay
 * as they are.
 */
function decodeCf(s: string): string {
  if (s.indexOf('%') < 0) return s
  let out = ''
  let last = 0
  let i = 0
  while (i < s.length) {
    if (s.charCodeAt(i) !== PERCENT) {
      i++
      continue
    }
    // %25 followed by 20, 22 or 5C: a doubly encoded space, quote or backslash.
    if (s.charCodeAt(i + 1) === 50 && s.charCodeAt(i + 2) === 53) {
      const hi = s.charCodeAt(i + 3)
      const lo = s.charCodeAt(i + 4) | 32
      const rep = hi === 50 && lo === 48 ? ' ' : hi === 50 && lo === 50 ? '"' : hi === 53 && lo === 99 ? '\\' : undefined
      if (rep !== undefined) {
        out += s.slice(last, i) + rep
        i += 5
        last = i
        continue
      }
    }
    const hi = hexVal(s.charCodeAt(i + 1))
    const lo = hexVal(s.charCodeAt(i + 2))
    if (hi < 0 || lo < 0) {
      i++
      continue
    }
    // Collect consecutive escapes so multi-byte UTF-8 sequences decode together.
    out += s.slice(last, i)
    const bytes = [hi * 16 + lo]
    i += 3
    while (s.charCodeAt(i) === PERCENT) {
      const h2 = hexVal(s.charCodeAt(i + 1))
      const l2 = hexVal(s.charCodeAt(i + 2))
      // `%25` (an ASCII `%`, never inside a UTF-8 sequence) is left to the outer loop, which
      // recognises the doubly encoded forms.
      if (h2 < 0 || l2 < 0 || (h2 === 2 && l2 === 5)) break
      bytes.push(h2 * 16 + l2)
      i += 3
    }
    out += bytesToString(bytes)
    last = i
  }
  return out + s.slice(last)
}

/** Column of each field the parser reads; -1 when the log does not carry it. */
interface CfColumns {
  date: number
  time: number
  /** Real-time logs: epoch seconds with milliseconds, in place of date and time. */
  timestamp: number
  bytes: number
  clientIp: number
  method: number
  host: number
  uriStem: number
  status: number
  referer: number
  userAgent: number
  requestId: number
  hostHeader: number
}

/** The standard (v1.0) order; fields 16 on are not read. */
const STANDARD_COLUMNS: CfColumns = {
  date: 0,
  time: 1,
  timestamp: -1,
  bytes: 3,
  clientIp: 4,
  method: 5,
  host: 6,
  uriStem: 7,
  status: 8,
  referer: 9,
  userAgent: 10,
  requestId: 14,
  hostHeader: 15,
}

/** Standard-log names and their real-time-log spellings. */
const FIELD_NAMES: Record<string, keyof CfColumns> = {
  date: 'date',
  time: 'time',
  timestamp: 'timestamp',
  'sc-bytes': 'bytes',
  'c-ip': 'clientIp',
  'cs-method': 'method',
  'cs(host)': 'host',
  'cs-host': 'host',
  'cs-uri-stem': 'uriStem',
  'sc-status': 'status',
  'cs(referer)': 'referer',
  'cs-referer': 'referer',
  'cs(user-agent)': 'userAgent',
  'cs-user-agent': 'userAgent',
  'x-edge-request-id': 'requestId',
  'x-host-header': 'hostHeader',
}

/** Columns a record must have to be parsed: through the last required one. */
function requiredFields(c: CfColumns): number {
  const timeCol = c.timestamp >= 0 ? c.timestamp : Math.max(c.date, c.time)
  return Math.max(timeCol, c.bytes, c.clientIp, c.method, c.uriStem, c.status) + 1
}

/** The header lines of the format: `#Version: 1.0` and `#Fields: …` (space- or tab-separated). */
function isHeader(line: string, word: string): boolean {
  if (!line.startsWith(word)) return false
  const c = line.charCodeAt(word.length)
  return c === SP || c === TAB
}

/** `YYYY-MM-DD` at a and `HH:MM:SS` at b: the standard log's date and time columns. */
function cfDateTime(line: string, da: number, de: number, ta: number, te: number): number | undefined {
  if (de - da !== 10 || te - ta !== 8) return undefined
  const t = parseIsoTime(`${line.slice(da, de)}T${line.slice(ta, te)}Z`)
  return t?.time
}

/** Real-time logs' `timestamp`: epoch seconds with milliseconds (`1607374321.541`). */
function cfEpoch(text: string): {time: number; resolutionMs: number} | undefined {
  const dot = text.indexOf('.')
  const secText = dot < 0 ? text : text.slice(0, dot)
  const frac = dot < 0 ? '' : text.slice(dot + 1)
  if (secText.length === 0 || secText.length > 11 || frac.length > 9) return undefined
  for (let i = 0; i < text.length; i++) if (i !== dot && !isDigit(text.charCodeAt(i))) return undefined
  const ms = Number(secText) * 1000 + (frac === '' ? 0 : Math.floor(Number(`0.${frac}`) * 1000 + 1e-6))
  return ms > 0 ? {time: ms, resolutionMs: frac === '' ? 1000 : 1} : undefined
}

/**
 * A standard log record has 23 to 33 fields; one with fewer than 15 (through x-edge-request-id)
 * is a truncated line or not CloudFront's.
 */
const STANDARD_MIN_FIELDS = 15

function makeCloudfrontParser(cols: CfColumns, minFields: number): (line: string) => ParseOutcome {
  const needed = Math.max(minFields, requiredFields(cols))
  const last = Math.max(...Object.values(cols))
  return (line: string): ParseOutcome => {
    let end = line.length
    if (end > 0 && line.charCodeAt(end - 1) === 13) end--
    if (end === 0) return reject('unparsed-message', 'empty line')
    if (line.charCodeAt(0) === HASH) {
      if (isHeader(line, '#Version:')) return reject('header-line', '#Version: header line')
      if (isHeader(line, '#Fields:')) return reject('header-line', '#Fields: header line')
      return reject('header-line', `comment line ${snippet(line, 0, end)}`)
    }
    // Field bounds, up to the last column read: the rest of the line is never scanned.
    const starts: number[] = []
    const ends: number[] = []
    let i = 0
    while (starts.length <= last) {
      let e = line.indexOf('\t', i)
      if (e < 0 || e > end) e = end
      starts.push(i)
      ends.push(e)
      if (e >= end) break
      i = e + 1
    }
    const n = starts.length
    const a = (k: number): number => starts[k] ?? 0
    const b = (k: number): number => ends[k] ?? 0
    if (n < needed) {
      return reject('unparsed-message', `${n} tab-separated field${n === 1 ? '' : 's'}, a CloudFront record has at least ${needed}`)
    }
    const field = (col: number): string | undefined => (col >= 0 && col < n ? line.slice(a(col), b(col)) : undefined)

    let time: number | undefined
    let resolutionMs = 1000
    if (cols.timestamp >= 0) {
      const t = cfEpoch(field(cols.timestamp) as string)
      time = t?.time
      if (t !== undefined) resolutionMs = t.resolutionMs
    } else {
      time = cfDateTime(line, a(cols.date), b(cols.date), a(cols.time), b(cols.time))
    }
    if (time === undefined) {
      const text = cols.timestamp >= 0 ? (field(cols.timestamp) as string) : `${field(cols.date)} ${field(cols.time)}`
      return reject('bad-time', `unreadable date and time ${snippet(text)}`)
    }

    const status = statusAt(line, a(cols.status), b(cols.status))
    if (status < 0) {
      const text = field(cols.status) as string
      return reject('bad-status', text === '000' ? 'sc-status 000: the viewer closed the connection before a response' : `sc-status is not a 3-digit number: ${snippet(text)}`)
    }
    const bytes = countAt(line, a(cols.bytes), b(cols.bytes))
    if (bytes < 0) return reject('bad-bytes', `sc-bytes is not a number: ${snippet(line, a(cols.bytes), b(cols.bytes))}`)

    const stem = field(cols.uriStem) as string
    const target = splitTarget(stem)
    if (target === undefined) return reject('missing-path', `cs-uri-stem is not a path: ${snippet(stem)}`)

    const method = field(cols.method) as string
    const event: AccessFields = {
      time,
      resolutionMs,
      method: method === '-' ? '' : method,
      path: target.path,
      status,
      bytes,
      clientIp: field(cols.clientIp) as string,
      userAgent: '',
    }
    const ua = field(cols.userAgent)
    if (ua !== undefined && ua !== '-' && ua !== '') event.userAgent = decodeCf(ua)
    const referer = field(cols.referer)
    if (referer !== undefined && referer !== '-' && referer !== '') event.referer = decodeCf(referer)
    const requestId = field(cols.requestId)
    if (requestId !== undefined && requestId !== '-' && requestId !== '') event.requestId = requestId
    // x-host-header: the Host the viewer sent (an alternate domain name); cs(Host) is the
    // distribution's own cloudfront.net name.
    const hostHeader = field(cols.hostHeader)
    const host = hostHeader !== undefined && hostHeader !== '-' && hostHeader !== '' ? hostHeader : field(cols.host)
    if (host !== undefined && host !== '-' && host !== '') event.vhost = hostOnly(host)
    return {ok: true, event}
  }
}

/**
 * `#Version: 1.0`, a `#Fields:` line naming CloudFront's `x-edge-` fields, or a record starting
 * `YYYY-MM-DD<TAB>HH:MM:SS<TAB>`. A CloudFront file opens with its two header lines, so both are
 * claimed; other W3C logs (IIS) open with `#Software:` and their records are space-separated.
 */
function looksLikeCloudfront(line: string): boolean {
  if (line.charCodeAt(0) === HASH) {
    if (isHeader(line, '#Version:')) return line.slice(10, 13) === '1.0'
    if (!isHeader(line, '#Fields:')) return false
    const head = line.slice(0, LOOKS_LIKE_SPAN)
    return head.includes('x-edge-location') || head.includes('x-edge-request-id')
  }
  for (let k = 0; k < 20; k++) {
    const c = line.charCodeAt(k)
    const want = k === 4 || k === 7 ? DASH : k === 10 || k === 19 ? TAB : k === 13 || k === 16 ? COLON : -1
    if (want === -1 ? !isDigit(c) : c !== want) return false
  }
  return true
}

const CLOUDFRONT_INFO = {id: 'aws-cloudfront', name: 'Amazon CloudFront standard access log', bytes: 'response'} as const

/**
 * Amazon CloudFront standard access log (v1.0, tab-separated, in the standard field order).
 * Time is date + time (UTC, to the second), bytes `sc-bytes` (headers included), vhost
 * `x-host-header` (the Host the viewer asked for) else `cs(Host)`, requestId `x-edge-request-id`.
 * User agent and referer are URL-decoded; the path (`cs-uri-stem`) is kept as logged. No upstream:
 * the origin that answered is not logged. `#Version:` / `#Fields:` lines reject as `header-line`;
 * for a log whose `#Fields:` line lists another order, use `cloudfrontWithFields`.
 */
export const cloudfrontLog: TextFormat = {
  ...CLOUDFRONT_INFO,
  looksLike: looksLikeCloudfront,
  parse: makeCloudfrontParser(STANDARD_COLUMNS, STANDARD_MIN_FIELDS),
}

/**
 * A CloudFront parser for the column order of a `#Fields:` line (a customised or real-time log:
 * `timestamp c-ip … cs-user-agent …`). Undefined when the line is not a `#Fields:` line or lacks a
 * field a record needs (a time, `c-ip`, `cs-method`, `cs-uri-stem`, `sc-status`, `sc-bytes`). The
 * order is captured in the returned parser: parsers for different files never share state.
 */
export function cloudfrontWithFields(fieldsLine: string): TextFormat | undefined {
  if (!isHeader(fieldsLine, '#Fields:')) return undefined
  const cols: CfColumns = {date: -1, time: -1, timestamp: -1, bytes: -1, clientIp: -1, method: -1, host: -1, uriStem: -1, status: -1, referer: -1, userAgent: -1, requestId: -1, hostHeader: -1}
  const names = fieldsLine.slice('#Fields:'.length).split(/[ \t]+/).filter((w) => w !== '')
  names.forEach((name, col) => {
    const key = FIELD_NAMES[name.toLowerCase()]
    if (key !== undefined && cols[key] < 0) cols[key] = col
  })
  const hasTime = cols.timestamp >= 0 || (cols.date >= 0 && cols.time >= 0)
  if (!hasTime || cols.clientIp < 0 || cols.method < 0 || cols.uriStem < 0 || cols.status < 0 || cols.bytes < 0) return undefined
  return {...CLOUDFRONT_INFO, looksLike: looksLikeCloudfront, parse: makeCloudfrontParser(cols, 0)}
}
