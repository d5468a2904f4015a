import type {AccessFields, ParseOutcome} from '../model'
import {answeringUpstream, parseIsoTime, parseNginxTime, splitTarget} from './access-line'
import {stripPort} from '../util/host-port'
import {firstClient, splitHops, withChain} from './forwarded'
import {reject, show} from './text'

/*
 * nginx `log_format … escape=json` lines, already JSON.parsed. Field names depend on the
 * operator's log_format, so each field is looked up under its usual names, first present wins.
 *
 * The names include those of the ingress-nginx `log-format-upstream` JSON that most clusters copy
 * (`"path": "$uri"`, `"method": "$request_method"`, `"vhost": "$host"`, `"x-forward-for":
 * "$proxy_add_x_forwarded_for"`, `"bytes_sent": $bytes_sent`, numbers unquoted). `$bytes_sent`
 * counts the response's headers too: when it is the only length logged the event is marked
 * `responseBytes`, so a shell's logged length is compared with a fallback's logged length.
 */

/** Time fields in order of preference. */
const TIME_KEYS = ['time_iso8601', 'msec', 'time_local', 'timestamp', 'time', '@timestamp'] as const
type TimeKey = (typeof TIME_KEYS)[number]

/** Epoch ms at 10000-01-01: anything later is a unit mix-up, not a time. */
const MAX_MS = 253_402_300_800_000
/** Numbers above this are epoch milliseconds, below it epoch seconds (1e12 s is year 33658). */
const MS_THRESHOLD = 1e12

const NUMERIC = /^\d+(\.\d+)?$/
const DIGITS = /^\d+$/



/** nginx logs `-` for an unset variable; an empty string carries nothing either. */
function present(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '' && v !== '-'
}

/** The first of keys holding a usable string (numbers are stringified; `-`/'' count as absent). */
function optString(obj: Record<string, unknown>, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = obj[k]
    if (!present(v)) continue
    if (typeof v === 'string') return v
    if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  }
  return undefined
}

function firstWord(s: string): string | undefined {
  const sp = s.indexOf(' ')
  const w = sp < 0 ? s : s.slice(0, sp)
  return w === '' || w === '-' ? undefined : w
}

function secondWord(s: string): string | undefined {
  const a = s.indexOf(' ')
  if (a < 0) return undefined
  let start = a + 1
  while (s.charCodeAt(start) === 32) start++
  const b = s.indexOf(' ', start)
  const w = b < 0 ? s.slice(start) : s.slice(start, b)
  return w === '' ? undefined : w
}

/**
 * Epoch seconds or milliseconds -> [ms, resolutionMs]. `seconds` forces seconds ($msec);
 * otherwise values above 1e12 are milliseconds. `fraction`: the source showed sub-second digits.
 */
function fromEpoch(x: number, seconds: boolean, fraction: boolean): [number, number] | undefined {
  if (!Number.isFinite(x) || x <= 0) return undefined
  let ms: number
  let res: number
  if (!seconds && x > MS_THRESHOLD) {
    ms = Math.round(x)
    res = 1
  } else {
    ms = Math.round(x * 1000)
    res = seconds || fraction ? 1 : 1000
  }
  return ms < MAX_MS ? [ms, res] : undefined
}

function parseTime(key: TimeKey, v: unknown): [number, number] | undefined {
  const seconds = key === 'msec'
  if (typeof v === 'number') return fromEpoch(v, seconds, !Number.isInteger(v))
  if (typeof v !== 'string') return undefined
  if (NUMERIC.test(v)) return fromEpoch(Number(v), seconds, v.includes('.'))
  if (seconds) return undefined
  // Configs put either variable under any name (`"time": "$time_local"` is common): try both.
  if (key !== 'time_local') {
    const iso = parseIsoTime(v)
    if (iso !== undefined) return [iso.time, iso.resolutionMs]
  }
  const local = parseNginxTime(v)
  if (local !== undefined) return [local, 1000]
  if (key === 'time_local') {
    const iso = parseIsoTime(v)
    if (iso !== undefined) return [iso.time, iso.resolutionMs]
  }
  return undefined
}

/** A value was logged: `-` still counts here (it means 0 bytes, or a status we then reject). */
function given(v: unknown): boolean {
  return v !== undefined && v !== null && v !== ''
}

/** True for obj[k] set to something other than null. */
function has(obj: Record<string, unknown>, k: string): boolean {
  const v = obj[k]
  return v !== undefined && v !== null
}

/**
 * Cheap format check: a status, a request (`request`, `request_uri`, `uri` or ingress-nginx's
 * `path`) and one of the time fields.
 */
export function looksLikeNginxJson(obj: Record<string, unknown>): boolean {
  if (typeof obj !== 'object' || obj === null || !has(obj, 'status')) return false
  if (!has(obj, 'request') && !has(obj, 'request_uri') && !has(obj, 'uri') && !has(obj, 'path')) return false
  for (const k of TIME_KEYS) if (has(obj, k)) return true
  return false
}

/**
 * X-Forwarded-For under the names configs give it: nginx's own variable names, and ingress-nginx's
 * copied `"x-forward-for": "$proxy_add_x_forwarded_for"` (also spelt `x_forward_for`).
 */
const XFF_KEYS = ['http_x_forwarded_for', 'x-forward-for', 'x_forward_for', 'x-forwarded-for', 'x_forwarded_for', 'proxy_add_x_forwarded_for'] as const

/**
 * ingress-nginx names an upstream `<namespace>-<service>-<port>` ($proxy_upstream_name); a log
 * that has `$namespace`, `$service_name` and `$service_port` instead names the same app. Without
 * the port the name would not match a log that has $proxy_upstream_name, so none is made.
 */
function ingressUpstreamName(obj: Record<string, unknown>): string | undefined {
  const ns = optString(obj, 'namespace')
  const svc = optString(obj, 'service_name')
  const port = optString(obj, 'service_port')
  return ns === undefined || svc === undefined || port === undefined ? undefined : `${ns}-${svc}-${port}`
}

/** A time in seconds logged as a number or a numeric string (the last of a retry list). */
function seconds(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined
  if (typeof v !== 'string') return undefined
  const last = v.split(/[,:]/).map((x) => x.trim()).filter((x) => x !== '' && x !== '-').pop()
  return last !== undefined && NUMERIC.test(last) ? Number(last) : undefined
}

/** Parses one escape=json access record. Never throws. */
export function parseNginxJson(obj: Record<string, unknown>): ParseOutcome {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return reject('not-an-object', 'record is not a JSON object')

  // Time: the first time field present decides; an unreadable one is not skipped over.
  let time: [number, number] | undefined
  let timeKey: TimeKey | undefined
  for (const k of TIME_KEYS) {
    if (!present(obj[k])) continue
    timeKey = k
    time = parseTime(k, obj[k])
    break
  }
  if (timeKey === undefined) return reject('missing-time', `no time field (${TIME_KEYS.join(', ')})`)
  if (time === undefined) return reject('bad-time', `unreadable ${timeKey} ${show(obj[timeKey])}`)

  // Path and method: the dedicated variables, else the words of "$request".
  const request = optString(obj, 'request')
  // `path` is ingress-nginx's `"path": "$uri"`; its `request_query` ($args) is not needed: event paths carry no query.
  const target = optString(obj, 'request_uri', 'uri', 'path') ?? (request === undefined ? undefined : secondWord(request))
  if (target === undefined) return reject('missing-path', 'no request_uri, uri, path or request target')
  const split = splitTarget(target)
  if (split === undefined) return reject('missing-path', `request target is not a path: ${show(target)}`)
  const method = optString(obj, 'request_method', 'method') ?? (request === undefined ? undefined : firstWord(request)) ?? ''

  const rawStatus = obj['status']
  if (!given(rawStatus)) return reject('missing-status', 'no status field')
  const status = typeof rawStatus === 'string' && /^\d{3}$/.test(rawStatus) ? Number(rawStatus) : rawStatus
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 999) {
    return reject('bad-status', `status is not a 3-digit number: ${show(rawStatus)}`)
  }

  // $body_bytes_sent (the body) wins; $bytes_sent alone counts the headers too (marked below).
  const body = given(obj['body_bytes_sent'])
  const rawBytes = body ? obj['body_bytes_sent'] : obj['bytes_sent']
  if (!given(rawBytes)) return reject('missing-bytes', 'no body_bytes_sent or bytes_sent field')
  let bytes: number
  if (rawBytes === '-') bytes = 0 // as in text logs
  else if (typeof rawBytes === 'string' && DIGITS.test(rawBytes)) bytes = Number(rawBytes)
  else if (typeof rawBytes === 'number') bytes = rawBytes
  else bytes = NaN
  if (!Number.isSafeInteger(bytes) || bytes < 0) return reject('bad-bytes', `bytes is not a number: ${show(rawBytes)}`)

  const peer = optString(obj, 'remote_addr', 'client_ip', 'realip_remote_addr')
  const xff = optString(obj, ...XFF_KEYS)
  // X-Forwarded-For is client-controlled, hence only a last resort; its first address is the client.
  const hops = xff === undefined ? [] : splitHops(xff)
  const clientIp = peer ?? firstClient(hops) ?? ''

  const event: AccessFields = {
    time: time[0],
    resolutionMs: time[1],
    method,
    path: split.path,
    status,
    bytes,
    clientIp,
    userAgent: optString(obj, 'http_user_agent') ?? '',
  }
  if (!body) event.responseBytes = true
  // Two independent real configs spell the variable `http_referrer`: the key is the operator's choice.
  const referer = optString(obj, 'http_referer', 'http_referrer', 'referer', 'referrer')
  if (referer !== undefined) event.referer = referer
  const requestId = optString(obj, 'request_id', 'req_id')
  if (requestId !== undefined) event.requestId = requestId
  const upstreamList = optString(obj, 'upstream_addr', 'upstream')
  const upstream = upstreamList === undefined ? undefined : answeringUpstream(upstreamList, optString(obj, 'upstream_status'))
  if (upstream !== undefined) event.upstream = upstream
  const contentType = optString(obj, 'sent_http_content_type', 'content_type', 'upstream_http_content_type')
  if (contentType !== undefined) event.contentType = contentType
  const host = optString(obj, 'host', 'http_host', 'vhost', 'server_name') ?? (split.host === undefined ? undefined : stripPort(split.host))
  if (host !== undefined) event.vhost = host
  const upstreamName = optString(obj, 'proxy_upstream_name', 'upstream_name') ?? ingressUpstreamName(obj)
  if (upstreamName !== undefined) event.upstreamName = upstreamName
  const version = optString(obj, 'version', 'app_version')
  if (version !== undefined) event.version = version
  const service = optString(obj, 'service')
  if (service !== undefined) event.service = service
  const requestTime = seconds(obj['request_time'] ?? obj['duration'])
  if (requestTime !== undefined) event.requestTime = requestTime
  const upstreamTime = seconds(obj['upstream_response_time'])
  if (upstreamTime !== undefined) event.upstreamTime = upstreamTime
  // The chain as nginx's realip would walk it: the header's hops, then the peer.
  return {ok: true, event: hops.length > 0 ? withChain(event, peer === undefined ? hops : [...hops, peer]) : event}
}
