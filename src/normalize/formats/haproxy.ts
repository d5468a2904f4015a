import type {AccessFields, ParseOutcome} from '../../model'
import {splitTarget} from '../access-line'
import type {TextFormat} from './types'
import {isDigit, isMethodAt, reject, snippet} from '../text'

/*
 * HAProxy's `option httplog` lines (HAProxy configuration manual, 8.2.3 "HTTP log format"), with a
 * syslog header or bare (`log stdout format raw` in a container):
 *
 *   Feb  6 12:14:14 localhost haproxy[14389]: 10.0.1.2:33317 [06/Feb/2009:12:14:14.655] http-in \
 *     static/srv1 10/0/30/69/109 200 2750 - - ---- 1/1/1/1/0 0/0 {1wt.eu} {} "GET /index.html HTTP/1.1"
 *
 * that is `%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc %ac/%fc/%bc/%sc/%rc
 * %sq/%bq %hr %hs %{+Q}r`. The syslog header is anything up to the first `name[pid]: ` (RFC 3164
 * `Mmm dd hh:mm:ss host`, with or without a `<PRI>`), or a bare `<PRI>` (`format short`).
 *
 * Field choices:
 * - time: the accept date in brackets (`%tr`, when the request was received, milliseconds). It has
 *   no UTC offset: HAProxy writes the machine's local time, read here as UTC. The syslog header's
 *   time (no year, no milliseconds) is not used.
 * - bytes: `%B`, "the total number of bytes transmitted to the client when the log is emitted. This
 *   does include HTTP headers" (`bytes: 'response'`). A `+` before it (logasap) is dropped.
 * - upstream (the pod): the server of `backend/server`; `<NOSRV>` (no server was reached: a 503 from
 *   HAProxy, a redirect, a stats page) gives none. upstreamName (the app): the backend.
 * - client: `%ci` without the port; `-` (a unix socket, or a hidden address) gives none.
 * - requestTime: the last timer (`%Ta`, `%Tt` before 1.7) in seconds, when not -1.
 * - Captured headers `{…}` hold what `capture request header` names, in the order of the
 *   configuration: which one is the Host or the User-Agent cannot be told from the line, so none is
 *   read. The default format logs no user agent, referer or request id.
 * - A token between `backend/server` and the timers (a custom `log-format` adding the host, as in
 *   Filebeat's test log) is kept in `extra`, not guessed at.
 *
 * TCP logs (`option tcplog`: no request) and HAProxy's own messages (`Connect from …`, `Proxy …
 * started.`) are rejected as not access records. Scanners work on char codes, never throw.
 */

const SP = 32
const QUOTE = 34
const LBRACK = 91
const RBRACK = 93
const LBRACE = 123
const LT = 60

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
/** Epoch ms at 10000-01-01: anything later is no time. */
const MAX_MS = 253_402_300_800_000
/** How far into a line the syslog header may run before the `]: ` that ends it. */
const MAX_HEADER = 160

/** `dd/Mon/yyyy:HH:MM:SS[.mmm]` at s[a, b), read as UTC. */
function acceptDate(s: string, a: number, b: number): {time: number; resolutionMs: number} | undefined {
  const n = b - a
  if (n !== 20 && n !== 24) return undefined
  const num = (i: number, len: number): number => {
    let v = 0
    for (let k = 0; k < len; k++) {
      const c = s.charCodeAt(a + i + k)
      if (!isDigit(c)) return -1
      v = v * 10 + (c - 48)
    }
    return v
  }
  if (s[a + 2] !== '/' || s[a + 6] !== '/' || s[a + 11] !== ':' || s[a + 14] !== ':' || s[a + 17] !== ':') return undefined
  const day = num(0, 2)
  const month = MONTHS.indexOf(s.slice(a + 3, a + 6))
  const year = num(7, 4)
  const h = num(12, 2)
  const m = num(15, 2)
  const sec = num(18, 2)
  let ms = 0
  if (n === 24) {
    if (s[a + 20] !== '.') return undefined
    ms = num(21, 3)
  }
  if (day < 1 || day > 31 || month < 0 || year < 1970 || h > 23 || m > 59 || sec > 60 || ms < 0 || h < 0 || m < 0 || sec < 0) return undefined
  const time = Date.UTC(year, month, day, h, m, sec, ms)
  // Date.UTC rolls Feb 30 over into March: such a date is no date.
  if (new Date(time).getUTCDate() !== day || time >= MAX_MS) return undefined
  return {time, resolutionMs: n === 24 ? 1 : 1000}
}

/** Where the httplog body starts: 0 for a bare line, else just past the syslog header; -1 when neither. */
function bodyStart(line: string): number {
  if (isBodyAt(line, 0)) return 0
  // `<134>` alone (`log stdout format short`).
  if (line.charCodeAt(0) === LT) {
    const gt = line.indexOf('>')
    if (gt > 0 && gt <= 4 && isBodyAt(line, gt + 1)) return gt + 1
  }
  const limit = Math.min(line.length, MAX_HEADER)
  const tag = line.indexOf(']: ', 0)
  if (tag < 0 || tag > limit) return -1
  // `name[pid]`: digits back to the `[`.
  let k = tag - 1
  while (k > 0 && isDigit(line.charCodeAt(k))) k--
  if (k === tag - 1 || line.charCodeAt(k) !== LBRACK) return -1
  return isBodyAt(line, tag + 3) ? tag + 3 : -1
}

/** `CLIENT:PORT [dd/Mon/yyyy:` at s[i] (the client may be `-`, an IPv6 address, a name). */
function isBodyAt(s: string, i: number): boolean {
  const sp = s.indexOf(' [', i)
  if (sp < 0 || sp - i > 64 || sp - i < 3) return false
  const colon = s.lastIndexOf(':', sp)
  if (colon <= i || colon >= sp - 1) return false
  for (let k = colon + 1; k < sp; k++) if (!isDigit(s.charCodeAt(k))) return false
  for (let k = i; k < colon; k++) {
    const c = s.charCodeAt(k)
    if (c === SP || c === QUOTE || c === LBRACK || c === LT || c === 62) return false
  }
  const d = sp + 2
  return isDigit(s.charCodeAt(d)) && isDigit(s.charCodeAt(d + 1)) && s[d + 2] === '/' && s[d + 6] === '/' && s[d + 11] === ':'
}

/** The timers: `TR/Tw/Tc/Tr/Ta` (httplog; 4 before 1.3) or `Tw/Tc/Tt` (tcplog), signed integers, `+` allowed. */
function timers(s: string): number[] | undefined {
  const parts = s.split('/')
  if (parts.length < 3 || parts.length > 5) return undefined
  const out: number[] = []
  for (const p of parts) {
    const t = p.startsWith('+') ? p.slice(1) : p
    if (!/^-?\d{1,10}$/.test(t)) return undefined
    out.push(Number(t))
  }
  return out
}

function parseHaproxy(line: string): ParseOutcome {
  let end = line.length
  if (end > 0 && line.charCodeAt(end - 1) === 13) end--
  if (end === 0) return reject('unparsed-message', 'empty line')
  const body = bodyStart(line)
  if (body < 0) {
    return reject('unparsed-message', line.includes(']: ') ? 'an HAProxy message that is no request log (expected `CLIENT:PORT [DATE] FRONTEND BACKEND/SERVER …`)'
      : 'not an HAProxy httplog line: expected `CLIENT:PORT [dd/Mon/yyyy:HH:MM:SS.mmm] FRONTEND BACKEND/SERVER …`')
  }
  const open = line.indexOf(' [', body)
  const close = line.indexOf(']', open + 2)
  if (close < 0 || close >= end) return reject('unparsed-message', 'truncated line: the accept date is not closed')
  const t = acceptDate(line, open + 2, close)
  if (t === undefined) return reject('bad-time', `unreadable accept date ${snippet(line, open + 2, close)}`)
  const client = line.slice(body, line.lastIndexOf(':', open))

  // Tokens after the date, up to the request (which starts at the first `"`) or the end.
  const quote = line.indexOf('"', close)
  const tokenEnd = quote < 0 || quote > end ? end : quote
  const tokens = line.slice(close + 1, tokenEnd).split(' ').filter((x) => x !== '')
  const frontend = tokens[0]
  const backendServer = tokens[1]
  if (frontend === undefined || backendServer === undefined) return reject('unparsed-message', 'truncated line: no frontend and backend/server after the date')
  let ti = 2
  // A custom format may add fields before the timers: they are kept, not interpreted.
  while (ti < tokens.length && ti < 6 && timers(tokens[ti] as string) === undefined) ti++
  const times = ti < tokens.length ? timers(tokens[ti] as string) : undefined
  if (times === undefined) return reject('unparsed-message', 'no timers `TR/Tw/Tc/Tr/Ta` after backend/server: not an httplog line')
  // tcplog: `Tw/Tc/Tt bytes termination …`, three timers and no request.
  if (times.length === 3) return reject('unparsed-message', 'an HAProxy tcplog line (no HTTP request)')
  const rawStatus = tokens[ti + 1]
  const rawBytes = tokens[ti + 2]
  if (quote < 0) return reject(rawStatus === undefined ? 'missing-status' : 'missing-path', 'truncated line: no quoted request after the counters')
  if (rawStatus === undefined || rawStatus === '') return reject('missing-status', 'no status after the timers')
  if (!/^[1-9]\d\d$/.test(rawStatus)) return reject('bad-status', rawStatus === '-1' ? 'status -1: no response was sent (the connection was aborted)' : `status is not a 3-digit number: ${snippet(rawStatus)}`)
  if (rawBytes === undefined) return reject('missing-bytes', 'no byte count after the status')
  const bytesText = rawBytes.startsWith('+') ? rawBytes.slice(1) : rawBytes
  if (!/^\d{1,15}$/.test(bytesText)) return reject('bad-bytes', `bytes is not a number: ${snippet(rawBytes)}`)

  // The request: from the first quote to the last one (the request line may hold quotes itself).
  let qEnd = line.lastIndexOf('"', end - 1)
  if (qEnd <= quote) qEnd = end
  const request = line.slice(quote + 1, qEnd)
  if (request === '' || request === '<BADREQ>') return reject('missing-path', request === '' ? 'empty request: the client sent none (a timeout, 408)' : 'bad request (<BADREQ>): no path')
  const sp1 = request.indexOf(' ')
  if (sp1 <= 0 || !isMethodAt(request, 0, sp1)) return reject('missing-path', `request is not \`METHOD TARGET\`: ${snippet(request)}`)
  let sp2 = request.indexOf(' ', sp1 + 1)
  if (sp2 < 0) sp2 = request.length
  const target = splitTarget(request.slice(sp1 + 1, sp2))
  if (target === undefined) return reject('missing-path', `request target is not a path: ${snippet(request, sp1 + 1, sp2)}`)

  const event: AccessFields = {
    time: t.time,
    resolutionMs: t.resolutionMs,
    method: request.slice(0, sp1),
    path: target.path,
    status: Number(rawStatus),
    bytes: Number(bytesText),
    clientIp: client === '-' ? '' : client.startsWith('[') && client.endsWith(']') ? client.slice(1, -1) : client,
    userAgent: '',
  }
  const slash = backendServer.indexOf('/')
  const backend = slash < 0 ? backendServer : backendServer.slice(0, slash)
  const server = slash < 0 ? '' : backendServer.slice(slash + 1)
  if (backend !== '') event.upstreamName = backend
  if (server !== '' && server !== '<NOSRV>' && server !== '<STATS>' && server !== '<CACHE>') event.upstream = server
  if (target.host !== undefined) event.vhost = target.host
  const last = times[times.length - 1] as number
  if (last >= 0) event.requestTime = last / 1000
  if (ti > 2) event.extra = tokens.slice(2, ti)
  return {ok: true, event}
}

/**
 * An httplog or tcplog body (`CLIENT:PORT [dd/Mon/yyyy:`), bare or after a syslog header that ends
 * with `name[pid]: `. Reads at most the first 240 characters.
 */
function looksLikeHaproxy(line: string): boolean {
  const head = line.length > 240 ? line.slice(0, 240) : line
  const b = bodyStart(head)
  if (b < 0) return false
  // The date is followed by the frontend name: `] name `.
  const close = head.indexOf('] ', b)
  return close > 0 && head.charCodeAt(close + 2) !== SP && head.charCodeAt(close + 2) !== QUOTE && head.charCodeAt(close) === RBRACK && head.charCodeAt(close + 2) !== LBRACE
}

/**
 * HAProxy `option httplog` lines, bare or syslog-prefixed: bytes count headers, the server of
 * `backend/server` is the pod and the backend the app.
 */
export const haproxyLog: TextFormat = {
  id: 'haproxy',
  name: 'HAProxy HTTP log (option httplog)',
  bytes: 'response',
  looksLike: looksLikeHaproxy,
  parse: parseHaproxy,
}
