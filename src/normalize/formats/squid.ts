import type {AccessFields, ParseOutcome} from '../../model'
import {splitTarget} from '../access-line'
import {stripPort} from '../../util/host-port'
import type {TextFormat} from './types'
import {countAt, isAddressAt, isDigit, isMethodAt, reject, snippet} from '../text'

/*
 * Squid's native access.log (`logformat squid`, the default), as Squid (src/log/FormatSquidNative.cc)
 * prints it: `%9ld.%03d %6ld %s %s/%03d %d %s %s %s %s%s/%s %s`, that is
 *
 *   time.ms elapsed client code/status bytes method URL user hierarchy/peer type
 *
 * `1286536308.779    180 192.168.0.224 TCP_MISS/200 411 GET http://www.example.com/ - HIER_DIRECT/1.2.3.4 text/html`
 *
 * Fields are separated by runs of spaces (the time and the elapsed ms are padded). Squid logs
 * when the reply is done; the time has milliseconds. The elapsed time becomes requestTime.
 *
 * Bytes are what Squid wrote to the client, headers included (`bytes: 'response'`): the source
 * prints `al->http.clientReplySz.messageTotal()`, and src/MessageSizes.h defines messageTotal() as
 * `header + payloadData`, the header block being the "size of message header block (if any)
 * including message Request-Line or Start-Line" (squid-cache/squid). Elastic's sample bears it
 * out: its 304s, which have no body, are logged at 213 to 215 bytes.
 *
 * Squid is a forward proxy in most logs and a reverse proxy (accelerator) in front of an app in
 * the logs skewscan wants; either way the URL is absolute (`http://host/path?q`), so the path
 * drops the query and the vhost is the URL's host without its port. A CONNECT (`host:443`) has no
 * path: rejected `missing-path`, as are Squid's own `error:…` pseudo-URLs. upstream is the peer of
 * `HIER_DIRECT/10.0.0.5` (Squid logs the address, no port) when it is an address; a peer logged by
 * name (`FIRST_UP_PARENT/backend`, or `DIRECT/host` when log_ip_on_direct is off) and `NONE/-`
 * (a cache hit, a denial) give none. The native format logs no user agent, referer or request id.
 *
 * Scanners work on char codes without regexes (linear on hostile input) and never throw.
 */

const TAB = 9
const SP = 32
const DOT = 46

/** Fields read: through hierarchy/peer. The content type (the tenth) is not needed. */
const FIELDS = 9
const F_TIME = 0
const F_ELAPSED = 1
const F_CLIENT = 2
const F_CODE = 3
const F_BYTES = 4
const F_METHOD = 5
const F_URL = 6
const F_HIER = 8

/** Epoch seconds with a fraction (`1286536308.779`) at s[a, b): ms and resolution, or undefined. */
function epochAt(s: string, a: number, b: number): {time: number; resolutionMs: number} | undefined {
  let i = a
  let secs = 0
  while (i < b && isDigit(s.charCodeAt(i))) secs = secs * 10 + (s.charCodeAt(i++) - 48)
  const intDigits = i - a
  if (intDigits === 0 || intDigits > 11) return undefined
  if (i === b) return secs > 0 ? {time: secs * 1000, resolutionMs: 1000} : undefined
  if (s.charCodeAt(i) !== DOT) return undefined
  i++
  const fa = i
  let ms = 0
  let scale = 100
  while (i < b && isDigit(s.charCodeAt(i))) {
    // Digits beyond milliseconds are dropped.
    if (scale >= 1) ms += (s.charCodeAt(i) - 48) * scale
    scale /= 10
    i++
  }
  if (i !== b || i === fa || i - fa > 9) return undefined
  const time = secs * 1000 + Math.floor(ms)
  return time > 0 ? {time, resolutionMs: 1} : undefined
}

/** A Squid result code (`TCP_MISS`, `TCP_MISS_ABORTED`, `NONE_NONE`) at s[a, b). */
function isResultCode(s: string, a: number, b: number): boolean {
  if (b <= a || b - a > 40) return false
  for (let i = a; i < b; i++) {
    const c = s.charCodeAt(i)
    if (!((c >= 65 && c <= 90) || c === 95 || isDigit(c))) return false
  }
  return true
}

/** Splits the first `max` space-separated fields of s[0, end); returns how many there were. */
function splitFields(s: string, end: number, max: number, starts: number[], ends: number[]): number {
  let i = 0
  while (i < end && starts.length < max) {
    let c = s.charCodeAt(i)
    while (i < end && (c === SP || c === TAB)) c = s.charCodeAt(++i)
    if (i >= end) break
    const a = i
    while (i < end && c !== SP && c !== TAB) c = s.charCodeAt(++i)
    starts.push(a)
    ends.push(i)
  }
  return starts.length
}

function parseSquid(line: string): ParseOutcome {
  let end = line.length
  if (end > 0 && line.charCodeAt(end - 1) === 13) end--
  if (end === 0) return reject('unparsed-message', 'empty line')
  const starts: number[] = []
  const ends: number[] = []
  const n = splitFields(line, end, FIELDS, starts, ends)
  const a = (k: number): number => starts[k] ?? 0
  const b = (k: number): number => ends[k] ?? 0

  const t = n > F_TIME ? epochAt(line, a(F_TIME), b(F_TIME)) : undefined
  const elapsed = n > F_ELAPSED ? countAt(line, a(F_ELAPSED), b(F_ELAPSED)) : -1
  const slash = n > F_CODE ? line.indexOf('/', a(F_CODE)) : -1
  if (t === undefined || elapsed < 0 || slash < 0 || slash >= b(F_CODE) || !isResultCode(line, a(F_CODE), slash)) {
    return reject('unparsed-message', 'not a native Squid line: expected `TIME.MS ELAPSED CLIENT CODE/STATUS BYTES METHOD URL …`')
  }
  if (n < FIELDS) return reject('unparsed-message', `truncated line: ${n} fields, a native Squid line has 10`)

  // CODE/STATUS; a few builds log CODE/STATUS/… (the status is the part after the first slash).
  let se = line.indexOf('/', slash + 1)
  if (se < 0 || se > b(F_CODE)) se = b(F_CODE)
  const statusText = line.slice(slash + 1, se)
  const sx = statusText.charCodeAt(0)
  if (statusText.length !== 3 || !isDigit(sx) || !isDigit(statusText.charCodeAt(1)) || !isDigit(statusText.charCodeAt(2)) || sx === 48) {
    return reject('bad-status', statusText === '000' ? 'status 000: no reply was sent to the client' : `status is not a 3-digit number: ${snippet(statusText)}`)
  }
  const status = Number(statusText)

  const bytes = countAt(line, a(F_BYTES), b(F_BYTES))
  if (bytes < 0) return reject('bad-bytes', `bytes is not a number: ${snippet(line, a(F_BYTES), b(F_BYTES))}`)

  const ma = a(F_METHOD)
  const mb = b(F_METHOD)
  if (!isMethodAt(line, ma, mb)) return reject('unparsed-message', `method is not an HTTP method: ${snippet(line, ma, mb)}`)
  const method = line.slice(ma, mb)
  const url = line.slice(a(F_URL), b(F_URL))
  const target = splitTarget(url)
  if (target === undefined) {
    return reject('missing-path', method === 'CONNECT' ? `CONNECT tunnel to ${snippet(url)}: no path` : `URL is not a URL or path: ${snippet(url)}`)
  }

  const event: AccessFields = {
    time: t.time,
    resolutionMs: t.resolutionMs,
    method,
    path: target.path,
    status,
    bytes,
    clientIp: line.slice(a(F_CLIENT), b(F_CLIENT)),
    userAgent: '',
  }
  const hs = line.indexOf('/', a(F_HIER))
  if (hs >= 0 && hs < b(F_HIER) && isAddressAt(line, hs + 1, b(F_HIER))) event.upstream = line.slice(hs + 1, b(F_HIER))
  if (target.host !== undefined) event.vhost = stripPort(target.host)
  event.requestTime = elapsed / 1000
  return {ok: true, event}
}

/**
 * Epoch seconds with milliseconds, the elapsed ms, a client and `CODE/ddd ` (`TCP_MISS/200 `):
 * what no nginx, W3C, ALB or CloudFront line starts with. Reads at most the first 200 chars.
 */
function looksLikeSquid(line: string): boolean {
  const head = line.length > 200 ? line.slice(0, 200) : line
  const starts: number[] = []
  const ends: number[] = []
  if (splitFields(head, head.length, 5, starts, ends) < 5) return false
  const a = (k: number): number => starts[k] ?? 0
  const b = (k: number): number => ends[k] ?? 0
  const t = a(0)
  // time.ms: 9 to 11 digits, a dot, 3 digits.
  const dot = head.indexOf('.', t)
  if (dot < 0 || dot - t < 9 || dot - t > 11 || b(0) - dot !== 4 || epochAt(head, t, b(0)) === undefined) return false
  if (countAt(head, a(1), b(1)) < 0) return false
  const slash = head.indexOf('/', a(3))
  if (slash < 0 || slash >= b(3) || !isResultCode(head, a(3), slash)) return false
  for (let k = 1; k <= 3; k++) if (!isDigit(head.charCodeAt(slash + k))) return false
  return countAt(head, a(4), b(4)) >= 0
}

/**
 * Squid native access.log (`time.ms elapsed client code/status bytes method URL user
 * hierarchy/peer type`). bytes are the reply's headers and body; upstream the peer address of
 * `HIER_…/addr`; vhost the URL's host. CONNECT lines reject `missing-path`.
 */
export const squidLog: TextFormat = {
  id: 'squid',
  name: 'Squid native access.log',
  bytes: 'response',
  looksLike: looksLikeSquid,
  parse: parseSquid,
}
