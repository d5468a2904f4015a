import {stripPort} from '../../util/host-port'
import type {AccessFields, ParseOutcome} from '../../model'
import {parseIsoTime, parseNginxTime, splitTarget} from '../access-line'
import type {JsonFormat, TextFormat} from './types'
import {isObject, reject, show} from '../text'

/*
 * Caddy v2 access logs: the JSON records of the `http.log.access` logger (`http.log.access.log0`
 * and so on for named logs), as modules/caddyhttp/server.go logRequest writes them:
 *
 *   {"level":"info","ts":1646861401.5241024,"logger":"http.log.access","msg":"handled request",
 *    "request":{"remote_ip":"127.0.0.1","remote_port":"41342","client_ip":"127.0.0.1",
 *    "proto":"HTTP/2.0","method":"GET","host":"localhost","uri":"/?q=1",
 *    "headers":{"User-Agent":["curl/7.82.0"],…}},
 *    "bytes_read":0,"user_id":"","duration":0.000929675,"size":10900,"status":200,
 *    "resp_headers":{…}}
 *
 * `ts` is when the record was written (the request's end), in epoch seconds with a fraction by
 * default; `time_format` can make it milliseconds, nanoseconds or an ISO/common-log string.
 * Caddy 2.0-2.4 logged `remote_addr` (`ip:port`) and `common_log` and no `remote_ip`/`client_ip`;
 * `client_ip` (2.7+) is the client behind trusted proxies. `size` is the body written
 * (ResponseRecorder.Size), so bytes are `body`. `status` is 0 when Caddy wrote no response itself
 * ("Go will write 200 to client", server.go): such records are rejected as bad-status rather than
 * guessed. Request headers are arrays of values under Go's canonical names.
 *
 * The upstream that answered is not in access records (only in reverse_proxy debug logs), unless
 * the operator appends it with `log_append` (Caddy docs, log_append: `log_append upstream_host
 * {rp.upstream.host}`): `upstream_hostport`, `upstream_host` or `upstream` is read when present.
 */

/** Epoch ms at 10000-01-01: anything later is a unit mix-up, not a time. */
const MAX_MS = 253_402_300_800_000
const UPSTREAM_KEYS = ['upstream_hostport', 'upstream_host', 'upstream'] as const
/** A Go duration string as `duration_format string` writes it: `1.5s`, `250ms`, `1m30s`. */
const GO_DURATION = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)$/
const DURATION_UNITS: Record<string, number> = {ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600}




function str(obj: Record<string, unknown>, key: string): string | undefined {
  const v = obj[key]
  return typeof v === 'string' && v !== '' && v !== '-' ? v : undefined
}

/** The first value of a request header (Caddy logs each as an array of strings). */
function header(headers: Record<string, unknown> | undefined, name: string): string | undefined {
  if (headers === undefined) return undefined
  let v = headers[name]
  if (v === undefined) {
    // Go canonicalizes header names; a hand-made or re-encoded record may not have.
    const lower = name.toLowerCase()
    for (const k in headers) {
      if (k.length === name.length && k.toLowerCase() === lower) {
        v = headers[k]
        break
      }
    }
  }
  const first = Array.isArray(v) ? v[0] : v
  return typeof first === 'string' && first !== '' ? first : undefined
}

/**
 * Epoch seconds (Caddy's default `unix_seconds_float`), milliseconds (`unix_milli_float`) or
 * nanoseconds (`unix_nano`) -> epoch ms. Seconds are cut to the millisecond from their decimal
 * digits as printed, so that a float's binary error cannot move the time by a millisecond.
 */
function epochMs(x: number): number | undefined {
  if (!Number.isFinite(x) || x <= 0) return undefined
  let ms: number
  if (x >= 1e17) ms = Math.floor(x / 1e6)
  else if (x >= 1e12) ms = Math.floor(x)
  else {
    const text = String(x)
    const dot = text.indexOf('.')
    if (text.includes('e')) ms = Math.floor(x * 1000)
    else if (dot < 0) ms = x * 1000
    else ms = Number(text.slice(0, dot)) * 1000 + Number((text.slice(dot + 1) + '00').slice(0, 3))
  }
  return ms < MAX_MS ? ms : undefined
}

/**
 * `ts` -> [ms, resolutionMs]. Caddy's numeric time formats all carry sub-second digits (a float
 * that happens to fall on a whole second prints without them), so a number has millisecond
 * resolution; strings have it when they show a fraction.
 */
function parseTs(v: unknown): [number, number] | undefined {
  if (typeof v === 'number') {
    const ms = epochMs(v)
    return ms === undefined ? undefined : [ms, 1]
  }
  if (typeof v !== 'string') return undefined
  if (/^\d+(\.\d+)?$/.test(v)) {
    const ms = epochMs(Number(v))
    return ms === undefined ? undefined : [ms, v.includes('.') || Number(v) >= 1e12 ? 1 : 1000]
  }
  const iso = parseIsoTime(v)
  if (iso !== undefined) return [iso.time, iso.resolutionMs]
  const clf = parseNginxTime(v)
  return clf === undefined ? undefined : [clf, 1000]
}

/** Caddy's `duration`: seconds by default, or a Go duration string with `duration_format string`. */
function seconds(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? v : undefined
  if (typeof v !== 'string') return undefined
  const m = GO_DURATION.exec(v)
  if (m === null) return undefined
  return Number(m[1]) * (DURATION_UNITS[m[2] as string] as number)
}

/**
 * Cheap format check: a `request` object and the access logger (`http.log.access…`), or, when the
 * encoder dropped the logger name, Caddy's `ts`, `status` and `size` keys.
 */
export function looksLikeCaddyJson(obj: Record<string, unknown>): boolean {
  if (typeof obj !== 'object' || obj === null || !isObject(obj['request'])) return false
  const logger = obj['logger']
  if (typeof logger === 'string') return logger.startsWith('http.log.access')
  return 'ts' in obj && 'status' in obj && 'size' in obj
}

/** Parses one Caddy access record. Never throws. */
export function parseCaddyJson(obj: Record<string, unknown>): ParseOutcome {
  if (!isObject(obj)) return reject('not-an-object', 'record is not a JSON object')
  const request = obj['request']
  if (!isObject(request)) {
    const what = typeof obj['logger'] === 'string' ? `logger ${show(obj['logger'])}` : `msg ${show(obj['msg'])}`
    return reject('unparsed-message', `not an access record (no request object; ${what})`)
  }

  if (obj['ts'] === undefined || obj['ts'] === null || obj['ts'] === '') return reject('missing-time', 'no ts field')
  const time = parseTs(obj['ts'])
  if (time === undefined) return reject('bad-time', `unreadable ts ${show(obj['ts'])}`)

  const uri = str(request, 'uri')
  if (uri === undefined) return reject('missing-path', 'no request.uri')
  const split = splitTarget(uri)
  if (split === undefined) return reject('missing-path', `request.uri is not a path: ${show(uri)}`)

  const rawStatus = obj['status']
  if (rawStatus === undefined || rawStatus === null || rawStatus === '') return reject('missing-status', 'no status field')
  if (rawStatus === 0) return reject('bad-status', 'status 0: Caddy wrote no response itself (Go then sends a bare 200)')
  if (typeof rawStatus !== 'number' || !Number.isInteger(rawStatus) || rawStatus < 100 || rawStatus > 999) {
    return reject('bad-status', `status is not a 3-digit number: ${show(rawStatus)}`)
  }

  const rawSize = obj['size']
  if (rawSize === undefined || rawSize === null || rawSize === '') return reject('missing-bytes', 'no size field')
  if (typeof rawSize !== 'number' || !Number.isSafeInteger(rawSize) || rawSize < 0) return reject('bad-bytes', `size is not a number: ${show(rawSize)}`)

  const remoteAddr = str(request, 'remote_addr')
  const clientIp = str(request, 'client_ip') ?? str(request, 'remote_ip') ?? (remoteAddr === undefined ? '' : stripPort(remoteAddr))
  const headers = isObject(request['headers']) ? request['headers'] : undefined

  const event: AccessFields = {
    time: time[0],
    resolutionMs: time[1],
    method: str(request, 'method') ?? '',
    path: split.path,
    status: rawStatus,
    bytes: rawSize,
    clientIp,
    userAgent: header(headers, 'User-Agent') ?? '',
  }
  const referer = header(headers, 'Referer')
  if (referer !== undefined && referer !== '-') event.referer = referer
  const requestId = header(headers, 'X-Request-Id')
  if (requestId !== undefined) event.requestId = requestId
  for (const k of UPSTREAM_KEYS) {
    const u = str(obj, k)
    if (u === undefined) continue
    event.upstream = u.indexOf('://') > 0 ? (splitTarget(u)?.host ?? u) : u
    break
  }
  const host = str(request, 'host')
  const vhost = host === undefined ? split.host : stripPort(host)
  if (vhost !== undefined) event.vhost = vhost
  const duration = seconds(obj['duration'])
  if (duration !== undefined) event.requestTime = duration
  return {ok: true, event}
}

export const caddyJson: JsonFormat = {
  id: 'caddy-json',
  name: 'Caddy access log (JSON, http.log.access)',
  bytes: 'body',
  looksLike: looksLikeCaddyJson,
  parse: parseCaddyJson,
}

/*
 * Caddy's console encoder: what `caddy run` prints on a terminal (logging.go
 * newDefaultProductionLogEncoder: zap's console encoder, the time as `2006/01/02 15:04:05.000` in
 * UTC, the level in capitals, coloured), and what `format console` writes (modules/logging/encoders.go:
 * `wall_milli` and a coloured level by default; `time_format` may make the time `wall`, `wall_nano`,
 * `iso8601`, `rfc3339`, a Unix number or `common_log`, `level_format` the level plain or lower case).
 * zap's console encoder writes time, level, logger name and message separated by tabs, then the
 * record's fields as one JSON object:
 *
 *   2020/05/26 20:44:49.126	INFO	http.log.access	handled request	{"request": {"method": "GET", …}, "size": 15129, "status": 200, …}
 *
 * The JSON object is the Caddy JSON record without level, ts, logger and msg: it is read by
 * parseCaddyJson with those put back. A wall-clock time has no zone: Caddy writes it in UTC unless
 * `time_local` is set, which no line shows.
 */

// zap's CapitalColorLevelEncoder wraps the level in an SGR colour code (ESC, built here: lint forbids it in a literal).
const SGR = '(?:\\u001b\\[[0-9;]*m)?'
const CONSOLE_LEVEL = new RegExp(`^${SGR}(?:DEBUG|INFO|WARN|ERROR|DPANIC|PANIC|FATAL|debug|info|warn|error|dpanic|panic|fatal)${SGR}$`)
const WALL = /^(\d{4})\/(\d\d)\/(\d\d) (\d\d:\d\d:\d\d(?:\.\d{1,9})?)$/

/** A console time as parseTs reads it: a wall clock in UTC as ISO, a Unix time as a number, others as written. */
function consoleTime(t: string): string | number {
  const wall = WALL.exec(t)
  if (wall !== null) return `${wall[1]}-${wall[2]}-${wall[3]}T${wall[4]}Z`
  return /^\d+(\.\d+)?$/.test(t) ? Number(t) : t
}

/** The tab-separated head of a console line (time, level, logger…) and where its JSON object starts (-1 when none). */
function consoleFields(line: string): {head: string[]; json: number} | undefined {
  const head: string[] = []
  let start = 0
  // time, level, logger, message: at most four fields before the JSON object.
  while (head.length < 5) {
    const tab = line.indexOf('\t', start)
    if (tab < 0 || tab - start > 1024) {
      head.push(line.slice(start, Math.min(line.length, start + 1024)))
      return head.length >= 3 ? {head, json: -1} : undefined
    }
    head.push(line.slice(start, tab))
    start = tab + 1
    if (line.charCodeAt(start) === 123 && head.length >= 3) return {head, json: start}
  }
  return undefined
}

/** Cheap shape check: a time Caddy writes, a tab, a zap level, a tab, then a logger or message. */
export function looksLikeCaddyConsole(line: string): boolean {
  // Bounded: the time is short, and most lines read here (nginx's) have no tab at all.
  const tab = line.slice(0, 41).indexOf('\t')
  if (tab < 8) return false
  const tab2 = line.indexOf('\t', tab + 1)
  if (tab2 < 0 || tab2 - tab > 24 || !CONSOLE_LEVEL.test(line.slice(tab + 1, tab2))) return false
  const t = consoleTime(line.slice(0, tab))
  return parseTs(t) !== undefined
}

/** Parses one console line: the JSON object read as a Caddy JSON record. Never throws. */
export function parseCaddyConsole(line: string): ParseOutcome {
  const f = consoleFields(line)
  if (f === undefined || !looksLikeCaddyConsole(line)) return reject('unparsed-message', 'not a Caddy console line: expected `TIME<tab>LEVEL<tab>LOGGER<tab>MESSAGE<tab>{…}`')
  // With four head fields the third is the logger; with three, zap had no logger name to write.
  const logger = f.head.length >= 4 ? f.head[2] : undefined
  if (f.json < 0) return reject('unparsed-message', `not an access record (no JSON fields; logger ${show(logger ?? '')})`)
  let fields: unknown
  try {
    fields = JSON.parse(line.slice(f.json))
  } catch {
    return reject('invalid-json', `the fields after the Caddy console head are not valid JSON (logger ${show(logger ?? '')})`)
  }
  if (!isObject(fields)) return reject('unparsed-message', 'the fields after the Caddy console head are not a JSON object')
  const record: Record<string, unknown> = {...fields, ts: consoleTime(f.head[0] as string), msg: f.head[f.head.length - 1]}
  if (logger !== undefined) record['logger'] = logger
  return parseCaddyJson(record)
}

export const caddyConsole: TextFormat = {
  id: 'caddy-console',
  name: 'Caddy access log (console encoder: caddy run on a terminal, format console)',
  bytes: 'body',
  looksLike: looksLikeCaddyConsole,
  parse: parseCaddyConsole,
}
