import {stripPort} from '../../util/host-port'
import type {AccessFields, ParseOutcome} from '../../model'
import {parseIsoTime, splitTarget} from '../access-line'
import type {JsonFormat} from './types'
import {isObject, reject, show} from '../text'

/*
 * Google Cloud external HTTP(S) load balancer logs as exported from Cloud Logging: one LogEntry
 * per record, the request in `httpRequest` (https://cloud.google.com/logging/docs/reference/v2/rest/v2/LogEntry#HttpRequest).
 *
 * The same `httpRequest` schema is written by every Google source that logs requests: the global
 * and regional external Application Load Balancers (resource types `http_load_balancer`,
 * `http_external_regional_lb_rule`), GKE Ingress (which provisions that load balancer) and Cloud
 * Run request logs. All are accepted: nothing here depends on `jsonPayload` or `resource`.
 *
 * Field choices:
 * - bytes: `responseSize`, "The size of the HTTP response message sent back to the client, in
 *   bytes, including the response headers and the response body" (hence `bytes: 'response'`).
 *   JSON int64 values arrive as strings; proto3 JSON omits zero values, so an absent responseSize
 *   is 0.
 * - upstream: `serverIp`, the backend the load balancer sent the request to, as logged (with its
 *   port when the source logs one). Absent for responses served from Cloud CDN's cache.
 * - requestId: the trace id, the last segment of `trace` (`projects/P/traces/ID`): the load balancer
 *   passes it to the backend in X-Cloud-Trace-Context, so it matches the backend's own logs.
 *   `insertId` is not used: it identifies the log entry, not the request. No trace, no requestId.
 * - time: `timestamp` (RFC 3339, up to nanoseconds, cut to milliseconds). `receiveTimestamp` is
 *   when Cloud Logging received the entry and is never used in its place.
 * - clientIp: `remoteIp` without the port some sources append (`1.2.3.4:9989`, `[::1]:443`).
 */





/** A non-empty string, or undefined. */
function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined
}

const DIGITS = /^\d{1,15}$/

/** True for an object with an `httpRequest` object that names a URL or a method. */
function looksLikeGcp(obj: Record<string, unknown>): boolean {
  if (!isObject(obj)) return false
  const req = obj['httpRequest']
  return isObject(req) && (typeof req['requestUrl'] === 'string' || typeof req['requestMethod'] === 'string')
}

function parseGcp(obj: Record<string, unknown>): ParseOutcome {
  if (!isObject(obj)) return reject('not-an-object', 'record is not a JSON object')
  const req = obj['httpRequest']
  if (!isObject(req)) return reject('unknown-format', 'a Cloud Logging entry without an httpRequest object')

  const ts = obj['timestamp']
  if (ts === undefined || ts === null || ts === '') return reject('missing-time', 'no timestamp')
  const time = typeof ts === 'string' ? parseIsoTime(ts) : undefined
  if (time === undefined) return reject('bad-time', `unreadable timestamp ${show(ts)}`)

  const url = req['requestUrl']
  if (url === undefined || url === null || url === '') return reject('missing-path', 'no httpRequest.requestUrl')
  const target = typeof url === 'string' ? splitTarget(url) : undefined
  if (target === undefined) return reject('missing-path', `requestUrl is not a URL or path: ${show(url)}`)

  const rawStatus = req['status']
  if (rawStatus === undefined || rawStatus === null || rawStatus === '') return reject('missing-status', 'no httpRequest.status')
  const status = typeof rawStatus === 'string' && /^\d{3}$/.test(rawStatus) ? Number(rawStatus) : rawStatus
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 999) {
    return reject('bad-status', `status is not a 3-digit number: ${show(rawStatus)}`)
  }

  const rawSize = req['responseSize']
  let bytes: number
  if (rawSize === undefined || rawSize === null) bytes = 0
  else if (typeof rawSize === 'string' && DIGITS.test(rawSize)) bytes = Number(rawSize)
  else if (typeof rawSize === 'number' && Number.isSafeInteger(rawSize) && rawSize >= 0) bytes = rawSize
  else return reject('bad-bytes', `responseSize is not a number: ${show(rawSize)}`)

  const remoteIp = str(req['remoteIp'])
  const event: AccessFields = {
    time: time.time,
    resolutionMs: time.resolutionMs,
    method: str(req['requestMethod']) ?? '',
    path: target.path,
    status,
    bytes,
    clientIp: remoteIp === undefined ? '' : stripPort(remoteIp),
    userAgent: str(req['userAgent']) ?? '',
  }
  const referer = str(req['referer'])
  if (referer !== undefined && referer !== '-') event.referer = referer
  const trace = str(obj['trace'])
  if (trace !== undefined) {
    const id = trace.slice(trace.lastIndexOf('/') + 1)
    if (id !== '') event.requestId = id
  }
  const serverIp = str(req['serverIp'])
  if (serverIp !== undefined) event.upstream = serverIp
  if (target.host !== undefined) event.vhost = stripPort(target.host)
  return {ok: true, event}
}

/**
 * Google Cloud external HTTP(S) load balancer log entry (Cloud Logging JSON, `httpRequest`), and
 * the same schema from GKE Ingress and Cloud Run request logs.
 */
export const gcpHttpLoadBalancer: JsonFormat = {
  id: 'gcp-lb',
  name: 'Google Cloud HTTP(S) load balancer log (Cloud Logging)',
  bytes: 'response',
  looksLike: looksLikeGcp,
  parse: parseGcp,
}
