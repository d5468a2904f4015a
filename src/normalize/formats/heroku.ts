import type {AccessFields, ParseOutcome} from '../../model'
import {parseIsoTime, splitTarget} from '../access-line'
import type {TextFormat} from './types'
import {isDigit, reject, snippet} from '../text'
import {firstClient, splitHops, withChain} from '../forwarded'

/*
 * The Heroku router's log lines (Heroku Dev Center, "HTTP Routing": router log format), as
 * `heroku logs` prints them:
 *
 *   2018-05-18T04:25:42.166638+00:00 heroku[router]: at=info method=GET path="/static/js/main.4d96b974.js"
 *     host=desolate-wave-93547.herokuapp.com request_id=52f4caad-… fwd="24.5.226.71" dyno=web.1
 *     connect=0ms service=7ms status=304 bytes=239 protocol=https
 *
 * and as a log drain receives them (logplex frames, RFC 5424 syslog):
 *
 *   267 <158>1 2020-01-08T22:33:57.353034+00:00 host heroku router - at=info method=GET path="/cart_link" …
 *
 * The message is logfmt: `key=value`, values with spaces or quotes in double quotes. `at=error`
 * lines (H12 timeouts, H13 closed connections…) are requests too, with the status the router sent.
 *
 * Field choices:
 * - time: the line's own RFC 3339 time (microseconds, cut to milliseconds): when the router logged
 *   the request, at its end.
 * - path: `path` is the path and query string: the query is removed.
 * - bytes: `bytes`, "Number of bytes transferred from the backend web process to the client". It
 *   counts the response headers (`bytes: 'response'`): a 304 has no body and is logged at 237 to
 *   239 bytes, and where the dyno's own nginx logged the same request beside it (`404 232`, body
 *   only) the router logged `bytes=400`.
 * - client: `fwd`, the X-Forwarded-For the router passes on: the first address that is not private
 *   (as for nginx forwarded-for lists), else the first.
 * - upstream (the pod): `dyno` (`web.1`), the dyno that served the request; none on errors before one
 *   was chosen (`dyno=`).
 * - vhost: `host`; requestId: `request_id` (the X-Request-ID the dyno sees too).
 * - requestTime: `connect` + `service` (milliseconds) in seconds.
 * The router logs no user agent and no referer: users are told apart by client address alone.
 *
 * Lines of other sources in the same output (`app[web.1]: …`, `heroku[web.1]: State changed …`)
 * are Heroku lines too, but not the router's: they are rejected, so that an app's own access lines
 * printed beside the router's do not count each request twice.
 */

const SP = 32
const QUOTE = 34
const BACKSLASH = 92
const LT = 60

/** The longest logfmt value read; longer ones are cut to it (a path is bounded later anyway). */
const MAX_VALUE = 16 * 1024

/** Where the RFC 3339 time at s[i] ends, or -1. */
function isoEnd(s: string, i: number): number {
  const c = (k: number): string => s[i + k] ?? ''
  if (!isDigit(s.charCodeAt(i)) || c(4) !== '-' || c(7) !== '-' || (c(10) !== 'T' && c(10) !== 't') || c(13) !== ':' || c(16) !== ':') return -1
  let k = i + 19
  if (s[k] === '.') {
    k++
    while (k < s.length && k < i + 40 && isDigit(s.charCodeAt(k))) k++
  }
  if (s[k] === 'Z' || s[k] === 'z') return k + 1
  if ((s[k] === '+' || s[k] === '-') && s[k + 3] === ':') return k + 6
  return -1
}

/**
 * The parts of a Heroku line: its time text, its source and dyno (`heroku`, `router`), and where the
 * message starts; undefined when the line is no Heroku line.
 */
function herokuHead(line: string): {time: string; source: string; dyno: string; message: number} | undefined {
  // `heroku logs`: TIME SOURCE[DYNO]: MESSAGE
  const t = isoEnd(line, 0)
  if (t > 0) {
    if (line.charCodeAt(t) !== SP) return undefined
    const open = line.indexOf('[', t + 1)
    if (open < 0 || open > t + 10) return undefined
    const source = line.slice(t + 1, open)
    if (source !== 'heroku' && source !== 'app') return undefined
    const close = line.indexOf(']: ', open)
    if (close < 0 || close - open > 64) return undefined
    return {time: line.slice(0, t), source, dyno: line.slice(open + 1, close), message: close + 3}
  }
  // A logplex frame: [LEN ]<PRI>1 TIME HOST SOURCE DYNO - MESSAGE
  let i = 0
  while (i < line.length && i < 8 && isDigit(line.charCodeAt(i))) i++
  if (i > 0) {
    if (line.charCodeAt(i) !== SP) return undefined
    i++
  }
  if (line.charCodeAt(i) !== LT) return undefined
  const gt = line.indexOf('>', i)
  if (gt < 0 || gt - i > 4 || line.charCodeAt(gt + 1) !== 49 || line.charCodeAt(gt + 2) !== SP) return undefined
  const ts = gt + 3
  const te = isoEnd(line, ts)
  if (te < 0 || line.charCodeAt(te) !== SP) return undefined
  const host = line.indexOf(' ', te + 1)
  if (host < 0 || host - te > 128) return undefined
  const src = line.indexOf(' ', host + 1)
  if (src < 0 || src - host > 16) return undefined
  const source = line.slice(host + 1, src)
  if (source !== 'heroku' && source !== 'app') return undefined
  const dyno = line.indexOf(' ', src + 1)
  if (dyno < 0 || dyno - src > 64 || line.charCodeAt(dyno + 1) !== 45 || line.charCodeAt(dyno + 2) !== SP) return undefined
  return {time: line.slice(ts, te), source, dyno: line.slice(src + 1, dyno), message: dyno + 3}
}

/** logfmt `key=value key="quoted value"` pairs from s[from, end). Keys without `=` get ''. */
function logfmt(s: string, from: number, end: number): Map<string, string> {
  const out = new Map<string, string>()
  let i = from
  while (i < end) {
    while (i < end && s.charCodeAt(i) === SP) i++
    const ks = i
    while (i < end && s.charCodeAt(i) !== SP && s.charCodeAt(i) !== 61) i++
    const key = s.slice(ks, i)
    if (s.charCodeAt(i) !== 61) {
      if (key !== '' && !out.has(key)) out.set(key, '')
      continue
    }
    i++
    let value: string
    if (s.charCodeAt(i) === QUOTE) {
      i++
      let v = ''
      let vs = i
      while (i < end && s.charCodeAt(i) !== QUOTE) {
        if (s.charCodeAt(i) === BACKSLASH && i + 1 < end) {
          v += s.slice(vs, i)
          vs = i + 1
          i += 2
          continue
        }
        i++
      }
      v += s.slice(vs, i)
      value = v
      i++
    } else {
      const vs = i
      while (i < end && s.charCodeAt(i) !== SP) i++
      value = s.slice(vs, i)
    }
    if (key !== '' && !out.has(key)) out.set(key, value.length > MAX_VALUE ? value.slice(0, MAX_VALUE) : value)
  }
  return out
}

/** `12ms` -> 12; `` or anything else -> undefined. */
function millis(v: string | undefined): number | undefined {
  if (v === undefined || !v.endsWith('ms')) return undefined
  const n = v.slice(0, -2)
  return /^\d{1,9}$/.test(n) ? Number(n) : undefined
}

/** The client of an X-Forwarded-For list: the first address that is not private, else the first (hops that are no address skipped). */
function forwardedClient(fwd: string): string {
  return firstClient(splitHops(fwd), true) ?? ''
}

function parseHeroku(line: string): ParseOutcome {
  let end = line.length
  if (end > 0 && line.charCodeAt(end - 1) === 13) end--
  if (end === 0) return reject('unparsed-message', 'empty line')
  const head = herokuHead(line)
  if (head === undefined) return reject('unparsed-message', 'not a Heroku router line: expected `TIME heroku[router]: at=info method=… path=…`')
  if (head.source !== 'heroku' || head.dyno !== 'router') {
    return reject('unparsed-message', `a Heroku ${snippet(`${head.source}[${head.dyno}]`)} line, not the router's: only router lines are read`)
  }
  const f = logfmt(line, head.message, end)
  const at = f.get('at')
  if (at !== 'info' && at !== 'error') return reject('unparsed-message', `a router line without at=info or at=error: ${snippet(line, head.message, end)}`)

  const t = parseIsoTime(head.time)
  if (t === undefined) return reject('bad-time', `unreadable time ${snippet(head.time)}`)

  const rawPath = f.get('path')
  if (rawPath === undefined || rawPath === '') return reject('missing-path', `no path= (${at === 'error' ? `error ${snippet(f.get('code') ?? '?')}` : 'at=info'})`)
  const target = splitTarget(rawPath)
  if (target === undefined) return reject('missing-path', `path is not a path: ${snippet(rawPath)}`)

  const rawStatus = f.get('status')
  if (rawStatus === undefined || rawStatus === '') return reject('missing-status', 'no status=')
  if (!/^[1-9]\d\d$/.test(rawStatus)) return reject('bad-status', `status is not a 3-digit number: ${snippet(rawStatus)}`)

  const rawBytes = f.get('bytes')
  if (rawBytes === undefined || rawBytes === '') return reject('missing-bytes', 'no bytes=')
  if (!/^\d{1,15}$/.test(rawBytes)) return reject('bad-bytes', `bytes is not a number: ${snippet(rawBytes)}`)

  const event: AccessFields = {
    time: t.time,
    resolutionMs: t.resolutionMs,
    method: f.get('method') ?? '',
    path: target.path,
    status: Number(rawStatus),
    bytes: Number(rawBytes),
    clientIp: forwardedClient(f.get('fwd') ?? ''),
    userAgent: '',
  }
  const host = f.get('host')
  if (host !== undefined && host !== '') event.vhost = host
  else if (target.host !== undefined) event.vhost = target.host
  const requestId = f.get('request_id')
  if (requestId !== undefined && requestId !== '') event.requestId = requestId
  const dyno = f.get('dyno')
  if (dyno !== undefined && dyno !== '') event.upstream = dyno
  const connect = millis(f.get('connect'))
  const service = millis(f.get('service'))
  if (service !== undefined) event.requestTime = ((connect ?? 0) + service) / 1000
  // The router appends the address it got the request from: the chain ends with it.
  return {ok: true, event: withChain(event, splitHops(f.get('fwd') ?? ''))}
}

/**
 * A line of `heroku logs` output (`TIME heroku[router]: …`, `TIME app[web.1]: …`) or of a logplex
 * drain (`LEN <PRI>1 TIME HOST heroku router - …`). Other sources' lines are claimed too, so that
 * they are rejected as Heroku lines rather than read as something else.
 */
export function looksLikeHeroku(line: string): boolean {
  const c = line.charCodeAt(0)
  return (isDigit(c) || c === LT) && herokuHead(line.length > 400 ? line.slice(0, 400) : line) !== undefined
}

/**
 * Heroku router log lines (logfmt after `heroku[router]:`): bytes count headers, the dyno is the
 * pod, no user agent or referer is logged.
 */
export const herokuRouter: TextFormat = {
  id: 'heroku-router',
  name: 'Heroku router log (heroku logs, logplex drains)',
  bytes: 'response',
  looksLike: looksLikeHeroku,
  parse: parseHeroku,
}
