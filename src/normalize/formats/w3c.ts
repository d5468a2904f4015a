import type {AccessFields, ParseOutcome} from '../../model'
import {parseIsoTime, splitTarget} from '../access-line'
import {stripPort} from '../../util/host-port'
import type {TextFormat} from './types'
import {countAt, isAddressAt, isDigit, isMethodAt, reject, snippet, statusAt} from '../text'

/*
 * W3C extended log format as IIS writes it (and Azure App Service, whose web server logs are IIS
 * logs): `#Software:`, `#Version:`, `#Date:` and `#Fields:` header lines, then one record a line,
 * its fields separated by a space in the order the last `#Fields:` line gives. IIS writes `-` for
 * an empty field and replaces the spaces of a value with `+` (`Mozilla/5.0+(Windows+NT+10.0)`);
 * a `+` the value had is written as it is, so `+` cannot be told from a space (`compatible;
 * +http://…` is logged `compatible;++http://…`). The user agent is read back with every `+` a
 * space, as Filebeat's IIS pipeline does; the referer and the URI stem are kept as logged.
 * Times are UTC (the docs: "The time, in coordinated universal time (UTC)"), to the second.
 *
 * Bytes (`sc-bytes`, "Bytes Sent: The number of bytes that the server sent", W3C Extended Log
 * File Format, IIS docs, https://learn.microsoft.com/en-us/previous-versions/windows/it-pro/windows-server-2003/cc786596(v=ws.10)):
 * all the bytes the server sent for the request, status line and headers included, so every W3C
 * parser declares `bytes: 'response'`. The docs say "sent", not "body", but do not spell out the
 * headers, and no sample here settles it (lnav's real IIS 8.5 log has no 304; its `/` page comes
 * at 960, 979 and 984 bytes, which a varying header block or a dynamic page would both explain).
 *
 * IIS's default field set has no `sc-bytes` (it must be ticked in IIS Manager; Azure App Service
 * logs it). A log without it gives every record bytes 0: it cannot show a shell's length, so
 * skewscan learns no build from it (a shell's build is learned from a length above 0). The kind
 * stays `response` for it too: one format, one kind, and a 0 is no length of either kind.
 *
 * No upstream (IIS is the origin) and no request id (IIS logs none). Scanners work on char codes
 * without regexes (linear on hostile input) and never throw. No state outlives a call: the field
 * order lives in each parser `w3cWithFields` builds.
 */

const TAB = 9
const SP = 32
const HASH = 35
const DASH = 45
const SLASH = 47
const COLON = 58

/** looksLike reads no further than this. */
const LOOKS_LIKE_SPAN = 1024

/** The header lines of the format: `#Fields: …`, `#Version: 1.0` (space- or tab-separated). */
function isHeader(line: string, word: string): boolean {
  if (!line.startsWith(word)) return false
  const c = line.charCodeAt(word.length)
  return c === SP || c === TAB
}

/** Column of each field the parser reads; -1 when the log does not carry it. */
interface W3cColumns {
  /** Fields a record has: every name of the #Fields line. */
  count: number
  date: number
  time: number
  method: number
  uriStem: number
  status: number
  bytes: number
  clientIp: number
  userAgent: number
  referer: number
  host: number
  timeTaken: number
}

type Column = Exclude<keyof W3cColumns, 'count'>

/** W3C field names (lower-cased) and what they give. */
const FIELD_NAMES: Record<string, Column> = {
  date: 'date',
  time: 'time',
  'cs-method': 'method',
  'cs-uri-stem': 'uriStem',
  'sc-status': 'status',
  'sc-bytes': 'bytes',
  'c-ip': 'clientIp',
  'cs(user-agent)': 'userAgent',
  'cs(referer)': 'referer',
  'cs(referrer)': 'referer',
  'cs-host': 'host',
  'cs(host)': 'host',
  'time-taken': 'timeTaken',
}

/** The field names of a `#Fields:` line, or undefined when it is not one. */
function fieldNames(fieldsLine: string): string[] | undefined {
  let line = fieldsLine
  if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1)
  if (!isHeader(line, '#Fields:')) return undefined
  return line.slice('#Fields:'.length).split(/[ \t]+/).filter((w) => w !== '')
}

function columnsOf(names: readonly string[]): W3cColumns {
  const cols: W3cColumns = {count: names.length, date: -1, time: -1, method: -1, uriStem: -1, status: -1, bytes: -1, clientIp: -1, userAgent: -1, referer: -1, host: -1, timeTaken: -1}
  names.forEach((name, col) => {
    const key = FIELD_NAMES[name.toLowerCase()]
    if (key !== undefined && cols[key] < 0) cols[key] = col
  })
  return cols
}

/** IIS's default field set (IIS 7 to 10), in its order. */
const IIS_DEFAULT_FIELDS = 'date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken'

/** `-` (IIS's empty field) or nothing. */
function isEmptyField(s: string, a: number, b: number): boolean {
  return b === a || (b === a + 1 && s.charCodeAt(a) === DASH)
}

/** `+` back to a space (IIS's encoding of spaces). */
function unplus(s: string): string {
  return s.indexOf('+') < 0 ? s : s.replace(/\+/g, ' ')
}

/** `::1%0` -> `::1`: an IPv6 zone names an interface of the server, not part of the client's address. */
function withoutZone(ip: string): string {
  const p = ip.indexOf('%')
  return p > 0 && ip.indexOf(':') >= 0 ? ip.slice(0, p) : ip
}

function headerReject(line: string, end: number): ParseOutcome {
  for (const word of ['#Fields:', '#Version:', '#Software:', '#Date:', '#Start-Date:', '#End-Date:', '#Remark:']) {
    if (isHeader(line, word)) return reject('header-line', `${word} header line`)
  }
  return reject('header-line', `comment line ${snippet(line, 0, end)}`)
}

function makeParser(cols: W3cColumns): (line: string) => ParseOutcome {
  const count = cols.count
  return (line: string): ParseOutcome => {
    let end = line.length
    if (end > 0 && line.charCodeAt(end - 1) === 13) end--
    if (end === 0) return reject('unparsed-message', 'empty line')
    if (line.charCodeAt(0) === HASH) return headerReject(line, end)
    // Field bounds, one more than the record should have (to tell a longer record): the rest of
    // the line is never scanned.
    const starts: number[] = []
    const ends: number[] = []
    let i = 0
    while (i < end && starts.length <= count) {
      let c = line.charCodeAt(i)
      while (i < end && (c === SP || c === TAB)) c = line.charCodeAt(++i)
      if (i >= end) break
      const a = i
      while (i < end && c !== SP && c !== TAB) c = line.charCodeAt(++i)
      starts.push(a)
      ends.push(i)
    }
    const n = starts.length
    if (n !== count) {
      return reject('unparsed-message', `${n > count ? `more than ${count}` : n} space-separated fields where the #Fields line names ${count}`)
    }
    const a = (k: number): number => starts[k] ?? 0
    const b = (k: number): number => ends[k] ?? 0
    const field = (k: number): string => line.slice(a(k), b(k))

    const dateText = field(cols.date)
    const timeText = field(cols.time)
    const t = dateText.length === 10 && timeText.length >= 8 ? parseIsoTime(`${dateText}T${timeText}Z`) : undefined
    if (t === undefined) return reject('bad-time', `unreadable date and time ${snippet(`${dateText} ${timeText}`)}`)

    const ma = a(cols.method)
    const mb = b(cols.method)
    if (isEmptyField(line, ma, mb)) return reject('missing-path', 'no request (cs-method -)')
    if (!isMethodAt(line, ma, mb)) return reject('unparsed-message', `cs-method is not an HTTP method: ${snippet(line, ma, mb)}`)

    // The stem is the path: IIS logs the query apart (cs-uri-query), so a `?` or `#` in the stem
    // is part of the path as requested. An absolute URL (a proxy request) gives its path and host.
    const stem = field(cols.uriStem)
    let path: string
    let urlHost: string | undefined
    if (stem.charCodeAt(0) === SLASH) {
      path = stem
    } else {
      const target = stem === '-' ? undefined : splitTarget(stem)
      if (target === undefined) return reject('missing-path', `cs-uri-stem is not a path: ${snippet(stem)}`)
      path = target.path
      urlHost = target.host
    }

    const status = statusAt(line, a(cols.status), b(cols.status))
    if (status < 0) return reject('bad-status', `sc-status is not a 3-digit number: ${snippet(line, a(cols.status), b(cols.status))}`)

    // Without sc-bytes the log carries no length: 0 (see the file comment).
    let bytes = 0
    if (cols.bytes >= 0) {
      bytes = countAt(line, a(cols.bytes), b(cols.bytes))
      if (bytes < 0) return reject('bad-bytes', `sc-bytes is not a number: ${snippet(line, a(cols.bytes), b(cols.bytes))}`)
    }

    const event: AccessFields = {
      time: t.time,
      resolutionMs: t.resolutionMs,
      method: line.slice(ma, mb),
      path,
      status,
      bytes,
      clientIp: withoutZone(field(cols.clientIp)),
      userAgent: '',
    }
    if (cols.userAgent >= 0 && !isEmptyField(line, a(cols.userAgent), b(cols.userAgent))) event.userAgent = unplus(field(cols.userAgent))
    if (cols.referer >= 0 && !isEmptyField(line, a(cols.referer), b(cols.referer))) event.referer = field(cols.referer)
    const host = cols.host >= 0 && !isEmptyField(line, a(cols.host), b(cols.host)) ? field(cols.host) : urlHost
    if (host !== undefined) event.vhost = stripPort(host)
    if (cols.timeTaken >= 0) {
      const ms = countAt(line, a(cols.timeTaken), b(cols.timeTaken))
      if (ms >= 0) event.requestTime = ms / 1000
    }
    return {ok: true, event}
  }
}

/** `YYYY-MM-DD HH:MM:SS ` at 0: a record's date and time, space-separated. */
function dateTimeAtStart(s: string): boolean {
  for (let k = 0; k < 20; k++) {
    const c = s.charCodeAt(k)
    const want = k === 4 || k === 7 ? DASH : k === 10 || k === 19 ? SP : k === 13 || k === 16 ? COLON : -1
    if (want === -1 ? !isDigit(c) : c !== want) return false
  }
  return true
}

/**
 * `#Software: Microsoft Internet Information Services …` (or `… HTTP Server API …`, HTTP.sys's
 * own W3C log), a `#Fields:` line naming W3C fields (date, time, cs-method, cs-uri-stem) and no
 * CloudFront `x-edge-` field, or a record in IIS's default order: date, time, s-ip (an address),
 * an upper-case method and a `/path`. `#Version:` and `#Date:` lines are no evidence (CloudFront
 * writes them too). Reads at most the first 1024 chars.
 */
function looksLikeW3c(line: string): boolean {
  if (line.charCodeAt(0) === HASH) {
    if (isHeader(line, '#Software:')) {
      const sw = line.slice(11, 80)
      return sw.startsWith('Microsoft Internet Information Services') || sw.startsWith('Microsoft HTTP Server API')
    }
    if (!isHeader(line, '#Fields:')) return false
    const head = line.slice(0, LOOKS_LIKE_SPAN).toLowerCase()
    if (head.includes('x-edge-')) return false
    const names = new Set(head.slice(8).split(/[ \t]+/))
    return names.has('date') && names.has('time') && names.has('cs-method') && names.has('cs-uri-stem')
  }
  if (!dateTimeAtStart(line)) return false
  const ipEnd = line.indexOf(' ', 20)
  if (ipEnd < 0 || ipEnd > 90 || !isAddressAt(line, 20, ipEnd)) return false
  let m = ipEnd + 1
  const ms = m
  while (m - ms <= 20) {
    const c = line.charCodeAt(m)
    if (!(c >= 65 && c <= 90)) break
    m++
  }
  return m > ms && line.charCodeAt(m) === SP && line.charCodeAt(m + 1) === SLASH
}

const W3C_INFO = {id: 'w3c', name: 'W3C extended log (IIS, Azure App Service)', bytes: 'response'} as const

/**
 * W3C extended log in IIS's default field order (`date time s-ip cs-method cs-uri-stem
 * cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus
 * sc-win32-status time-taken`): for lines read before any `#Fields:` line. That order has no
 * sc-bytes, so bytes are 0. A record of another number of fields is rejected, never read in
 * the wrong order; a file's own `#Fields:` line gives its parser through `w3cWithFields`.
 */
export const w3cLog: TextFormat = {
  ...W3C_INFO,
  looksLike: looksLikeW3c,
  parse: makeParser(columnsOf(IIS_DEFAULT_FIELDS.split(' '))),
}

/**
 * A W3C parser for the field order of a `#Fields:` line. Undefined when the line is not a
 * `#Fields:` line, names a CloudFront `x-edge-` field (CloudFront logs are `cloudfrontWithFields`'
 * and encode their values otherwise), or lacks a field a record needs: date and time, c-ip,
 * cs-method, cs-uri-stem, sc-status. sc-bytes is read when the line names it; without it bytes
 * are 0, and the log cannot show a shell's length (see the file comment). A record must have as
 * many fields as the line names. The order is captured in the returned parser: parsers for
 * different files never share state.
 */
export function w3cWithFields(fieldsLine: string): TextFormat | undefined {
  const names = fieldNames(fieldsLine)
  if (names === undefined || names.length === 0) return undefined
  if (names.some((n) => n.toLowerCase().startsWith('x-edge-'))) return undefined
  const cols = columnsOf(names)
  if (cols.date < 0 || cols.time < 0 || cols.clientIp < 0 || cols.method < 0 || cols.uriStem < 0 || cols.status < 0) return undefined
  return {...W3C_INFO, looksLike: looksLikeW3c, parse: makeParser(cols)}
}
