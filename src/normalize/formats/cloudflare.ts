import type {AccessFields, ParseOutcome} from '../../model'
import {parseIsoTime, splitTarget} from '../access-line'
import type {JsonFormat} from './types'
import {isObject, reject, show} from '../text'

/*
 * Cloudflare Logpush and Logpull records of the `http_requests` dataset (Cloudflare docs, Logs ›
 * Log fields › HTTP requests): one JSON object per request, with the fields the job selected.
 *
 *   {"ClientIP":"175.16.199.0","ClientRequestHost":"xyz.example.com","ClientRequestMethod":"POST",
 *    "ClientRequestURI":"/s/example/api/telemetry/v2/clusters/_stats","EdgeResponseBodyBytes":980397,
 *    "EdgeResponseBytes":981308,"EdgeResponseStatus":200,"EdgeStartTimestamp":"2022-05-25T13:25:26Z",
 *    "RayID":"710e98d9367f357d", …}
 *
 * Field choices:
 * - time: `EdgeStartTimestamp` (the edge received the request), else `EdgeEndTimestamp`, in any of
 *   the job's `timestamp_format`s: `unixnano` (the default: an integer, or its digits as a string),
 *   `unix` (seconds) or `rfc3339` (`2022-05-25T13:25:26Z`, with or without a fraction). A unit is
 *   told by the number's size: seconds (10 digits) have second resolution; milli-, micro- and
 *   nanoseconds are cut to milliseconds.
 * - path: `ClientRequestURI` ("URI requested by the client": path and query; the query is
 *   removed), else `ClientRequestPath`.
 * - bytes: `EdgeResponseBodyBytes` ("Size of the HTTP response body returned to clients") when the
 *   job logs it; else `EdgeResponseBytes` ("Number of bytes returned by the edge to the client"),
 *   which counts the headers too: such records are marked `responseBytes` (the published sample
 *   logs 981308 for a body of 980397).
 * - status: `EdgeResponseStatus` (what the client got, from the cache or the origin).
 * - client `ClientIP`, user agent `ClientRequestUserAgent`, referer `ClientRequestReferer`,
 *   vhost `ClientRequestHost`, requestId `RayID`, contentType `EdgeResponseContentType`.
 * - No pod: `OriginIP` is the origin's address as Cloudflare saw it (a load balancer or an ingress
 *   in front of the pods, or nothing for a cache hit), not the pod that answered; it is not used.
 */

/** The keys of http_requests records that no other format uses. */
const CF_KEYS = ['ClientRequestURI', 'ClientRequestPath', 'ClientRequestHost', 'ClientRequestMethod', 'EdgeResponseStatus',
  'EdgeStartTimestamp', 'EdgeEndTimestamp', 'RayID', 'EdgeResponseBytes', 'EdgeResponseBodyBytes'] as const

/** Epoch ms at 10000-01-01: anything later is no time. */
const MAX_MS = 253_402_300_800_000

function str(obj: Record<string, unknown>, key: string): string | undefined {
  const v = obj[key]
  return typeof v === 'string' && v !== '' ? v : undefined
}

/** Epoch ms of a number of `digits` digits: seconds up to 11, ms up to 14, µs up to 17, else ns. */
function epochMs(v: number, digits: number): {time: number; resolutionMs: number} | undefined {
  if (!Number.isFinite(v) || v <= 0) return undefined
  let time: number
  let resolutionMs = 1
  if (digits <= 11) {
    time = Math.round(v * 1000)
    if (Number.isInteger(v)) resolutionMs = 1000
  } else if (digits <= 14) time = Math.floor(v)
  else if (digits <= 17) time = Math.floor(v / 1000)
  else time = Math.floor(v / 1e6)
  return time > 0 && time < MAX_MS ? {time, resolutionMs} : undefined
}

/** A timestamp in any Logpush `timestamp_format`. */
export function cloudflareTime(v: unknown): {time: number; resolutionMs: number} | undefined {
  if (typeof v === 'number') {
    const digits = Math.abs(v) >= 1 ? Math.floor(Math.log10(Math.abs(v))) + 1 : 1
    return epochMs(v, digits)
  }
  if (typeof v !== 'string' || v === '') return undefined
  if (/^\d{1,20}$/.test(v)) {
    // Nanoseconds as text are exact: cut to ms on the digits, not through a double.
    if (v.length > 17) {
      const time = Number(v.slice(0, -6))
      return time > 0 && time < MAX_MS ? {time, resolutionMs: 1} : undefined
    }
    return epochMs(Number(v), v.length)
  }
  if (/^\d{1,11}\.\d{1,9}$/.test(v)) return epochMs(Number(v), v.indexOf('.'))
  return parseIsoTime(v)
}

/** A byte count: a non-negative safe integer, or its digits as a string. */
function count(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? v : undefined
  if (typeof v === 'string' && /^\d{1,15}$/.test(v)) return Number(v)
  return undefined
}

const given = (v: unknown): boolean => v !== undefined && v !== null && v !== ''

/** Two of the dataset's own keys (a job may select few fields, but never just one of these). */
function looksLikeCloudflare(obj: Record<string, unknown>): boolean {
  if (!isObject(obj)) return false
  let n = 0
  for (const k of CF_KEYS) if (k in obj && ++n >= 2) return true
  return false
}

function parseCloudflare(obj: Record<string, unknown>): ParseOutcome {
  if (!isObject(obj)) return reject('not-an-object', 'record is not a JSON object')
  const rawTime = given(obj['EdgeStartTimestamp']) ? obj['EdgeStartTimestamp'] : obj['EdgeEndTimestamp']
  if (!given(rawTime)) return reject('missing-time', 'no EdgeStartTimestamp or EdgeEndTimestamp')
  const t = cloudflareTime(rawTime)
  if (t === undefined) return reject('bad-time', `unreadable EdgeStartTimestamp ${show(rawTime)}`)

  const uri = str(obj, 'ClientRequestURI') ?? str(obj, 'ClientRequestPath')
  if (uri === undefined) return reject('missing-path', 'no ClientRequestURI or ClientRequestPath')
  const target = splitTarget(uri)
  if (target === undefined) return reject('missing-path', `ClientRequestURI is not a path: ${show(uri)}`)

  const rawStatus = obj['EdgeResponseStatus']
  if (!given(rawStatus)) return reject('missing-status', 'no EdgeResponseStatus')
  const status = typeof rawStatus === 'string' && /^\d{3}$/.test(rawStatus) ? Number(rawStatus) : rawStatus
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 999) {
    return reject('bad-status', `EdgeResponseStatus is not a 3-digit number: ${show(rawStatus)}`)
  }

  const body = obj['EdgeResponseBodyBytes']
  const whole = obj['EdgeResponseBytes']
  let bytes: number | undefined
  let withHeaders = false
  if (given(body)) {
    bytes = count(body)
    if (bytes === undefined) return reject('bad-bytes', `EdgeResponseBodyBytes is not a number: ${show(body)}`)
  } else if (given(whole)) {
    bytes = count(whole)
    if (bytes === undefined) return reject('bad-bytes', `EdgeResponseBytes is not a number: ${show(whole)}`)
    withHeaders = true
  } else return reject('missing-bytes', 'no EdgeResponseBodyBytes or EdgeResponseBytes')

  const event: AccessFields = {
    time: t.time,
    resolutionMs: t.resolutionMs,
    method: str(obj, 'ClientRequestMethod') ?? '',
    path: target.path,
    status,
    bytes,
    clientIp: str(obj, 'ClientIP') ?? '',
    userAgent: str(obj, 'ClientRequestUserAgent') ?? '',
  }
  if (withHeaders) event.responseBytes = true
  const referer = str(obj, 'ClientRequestReferer')
  if (referer !== undefined && referer !== '-') event.referer = referer
  const ray = str(obj, 'RayID')
  if (ray !== undefined) event.requestId = ray
  const host = str(obj, 'ClientRequestHost') ?? target.host
  if (host !== undefined) event.vhost = host
  const contentType = str(obj, 'EdgeResponseContentType')
  if (contentType !== undefined) event.contentType = contentType
  return {ok: true, event}
}

/**
 * Cloudflare Logpush / Logpull `http_requests` records. Bytes are the body
 * (`EdgeResponseBodyBytes`) when logged, else the whole response (`EdgeResponseBytes`, records
 * marked `responseBytes`); no pod.
 */
export const cloudflareHttp: JsonFormat = {
  id: 'cloudflare',
  name: 'Cloudflare Logpush / Logpull http_requests (JSON)',
  bytes: 'body',
  looksLike: looksLikeCloudflare,
  parse: parseCloudflare,
}
