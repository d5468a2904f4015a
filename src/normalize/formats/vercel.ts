import type {AccessFields, ParseOutcome} from '../../model'
import {splitTarget} from '../access-line'
import type {JsonFormat} from './types'
import {isObject, reject, show} from '../text'

/*
 * Vercel log drains (Vercel docs, Drains › Log Drains reference), JSON or NDJSON delivery: one
 * object per log entry. Entries of a request carry its `proxy` object:
 *
 *   {"id":"1573817250283254651097202070","deploymentId":"dpl_233NRGRjVZX1caZrXWtz5g1TAksD",
 *    "source":"lambda","host":"my-app-abc123.vercel.app","timestamp":1573817250283,
 *    "requestId":"643af4e3-…","message":"API request processed", …,
 *    "proxy":{"timestamp":1573817250172,"method":"GET","host":"my-app.vercel.app",
 *             "path":"/api/users?page=1","userAgent":["Mozilla/5.0..."],"referer":"https://my-app.vercel.app",
 *             "region":"sfo1","statusCode":200,"clientIp":"120.75.16.101","scheme":"https","vercelCache":"MISS"}}
 *
 * Such an entry has `timestamp` and `message` like a Datadog log: normalize/datadog leaves it here.
 *
 * Field choices:
 * - time: `proxy.timestamp` (epoch ms: the request reached Vercel's proxy), else `timestamp` (when
 *   the entry was logged). Every entry a function logs for one request repeats its proxy object and
 *   `requestId`: all of them have the request's time, path, status and id, so the analysis keeps
 *   one and counts the others as duplicates.
 * - version: `deploymentId`. A Vercel deployment is one build of the project, so builds are known
 *   by it rather than guessed from what is served.
 * - status: `proxy.statusCode`; -1 (a revalidation in the background) and 0 are rejected.
 * - bytes: `proxy.responseByteSize` when present; Vercel does not say whether it counts headers,
 *   so it is read as a whole response (`bytes: 'response'`, the looser comparison). Most entries
 *   carry none: bytes are then 0, and no shell length can be seen (0 is never one).
 * - path `proxy.path` (query removed), method `proxy.method`, client `proxy.clientIp`, user agent
 *   the values of `proxy.userAgent` (an array of the header's values) joined by a space, referer
 *   `proxy.referer`, vhost `proxy.host`, requestId `requestId` (else `proxy.vercelId`), service the
 *   project (`projectName`, else `projectId`).
 * - No pod: Vercel's functions and edge cache are not pods; the deployment id says which build
 *   answered.
 * Entries without a proxy object (build output, a function's stdout outside a request) are
 * rejected as not access records.
 */

const SOURCES = new Set(['build', 'edge', 'lambda', 'static', 'external', 'firewall', 'redirect', 'middleware'])

/** Epoch ms at 10000-01-01. */
const MAX_MS = 253_402_300_800_000

function str(obj: Record<string, unknown>, key: string): string | undefined {
  const v = obj[key]
  return typeof v === 'string' && v !== '' ? v : undefined
}

/**
 * A Vercel drain entry: a `deploymentId` with a Vercel `source`, or a `proxy` object with a
 * `statusCode` or `path` beside a `projectId` or `deploymentId`.
 */
export function looksLikeVercel(obj: Record<string, unknown>): boolean {
  if (!isObject(obj)) return false
  const source = obj['source']
  if (typeof obj['deploymentId'] === 'string' && typeof source === 'string' && SOURCES.has(source)) return true
  const proxy = obj['proxy']
  return isObject(proxy) && ('statusCode' in proxy || 'path' in proxy) && ('projectId' in obj || 'deploymentId' in obj)
}

function msTime(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,16}$/.test(v) ? Number(v) : NaN
  if (!Number.isFinite(n) || n <= 0) return undefined
  const ms = Math.floor(n < 1e11 ? n * 1000 : n)
  return ms < MAX_MS ? ms : undefined
}

function parseVercel(obj: Record<string, unknown>): ParseOutcome {
  if (!isObject(obj)) return reject('not-an-object', 'record is not a JSON object')
  const proxy = obj['proxy']
  if (!isObject(proxy)) {
    const source = typeof obj['source'] === 'string' ? obj['source'] : 'unknown'
    return reject('unparsed-message', `a Vercel ${show(source)} log entry without a proxy object: no request`)
  }
  const rawTime = proxy['timestamp'] ?? obj['timestamp']
  if (rawTime === undefined || rawTime === null || rawTime === '') return reject('missing-time', 'no proxy.timestamp or timestamp')
  const time = msTime(rawTime)
  if (time === undefined) return reject('bad-time', `unreadable proxy.timestamp ${show(rawTime)}`)

  const rawPath = str(proxy, 'path')
  if (rawPath === undefined) return reject('missing-path', 'no proxy.path')
  const target = splitTarget(rawPath)
  if (target === undefined) return reject('missing-path', `proxy.path is not a path: ${show(rawPath)}`)

  const rawStatus = proxy['statusCode']
  if (rawStatus === undefined || rawStatus === null || rawStatus === '') return reject('missing-status', 'no proxy.statusCode')
  if (rawStatus === -1) return reject('bad-status', 'proxy.statusCode -1: a revalidation in the background, no response to a client')
  if (typeof rawStatus !== 'number' || !Number.isInteger(rawStatus) || rawStatus < 100 || rawStatus > 999) {
    return reject('bad-status', `proxy.statusCode is not a 3-digit number: ${show(rawStatus)}`)
  }

  const rawBytes = proxy['responseByteSize']
  let bytes = 0
  if (rawBytes !== undefined && rawBytes !== null) {
    if (typeof rawBytes !== 'number' || !Number.isSafeInteger(rawBytes) || rawBytes < 0) return reject('bad-bytes', `proxy.responseByteSize is not a number: ${show(rawBytes)}`)
    bytes = rawBytes
  }

  const ua = proxy['userAgent']
  const userAgent = Array.isArray(ua) ? ua.filter((x): x is string => typeof x === 'string').join(' ') : typeof ua === 'string' ? ua : ''
  const event: AccessFields = {
    time,
    resolutionMs: 1,
    method: str(proxy, 'method') ?? '',
    path: target.path,
    status: rawStatus,
    bytes,
    clientIp: str(proxy, 'clientIp') ?? '',
    userAgent,
  }
  const referer = str(proxy, 'referer')
  if (referer !== undefined && referer !== '-') event.referer = referer
  const requestId = str(obj, 'requestId') ?? str(proxy, 'vercelId')
  if (requestId !== undefined) event.requestId = requestId
  const host = str(proxy, 'host') ?? target.host ?? str(obj, 'host')
  if (host !== undefined) event.vhost = host
  const version = str(obj, 'deploymentId')
  if (version !== undefined) event.version = version
  const project = str(obj, 'projectName') ?? str(obj, 'projectId')
  if (project !== undefined) event.service = project
  return {ok: true, event}
}

/** Vercel log drain entries with a `proxy` object; the deployment id is the version. */
export const vercelDrain: JsonFormat = {
  id: 'vercel',
  name: 'Vercel log drain (JSON / NDJSON, proxy entries)',
  bytes: 'response',
  looksLike: looksLikeVercel,
  parse: parseVercel,
}
