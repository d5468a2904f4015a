import type {AccessFields, ParseOutcome} from '../../model'
import {parseIsoTime, splitTarget} from '../access-line'
import {stripPort} from '../../util/host-port'
import type {JsonFormat} from './types'
import {isObject, reject, show} from '../text'

/*
 * Azure Front Door access logs: the `FrontdoorAccessLog` category of Front Door (classic) and the
 * `FrontDoorAccessLog` category of Front Door Standard/Premium, as resource logs are written to a
 * storage account or an event hub (one record, the request in `properties`):
 *
 *   {"category":"FrontdoorAccessLog","operationName":"Microsoft.Network/FrontDoor/AccessLog/Write",
 *    "properties":{"clientIp":"89.160.20.128","httpMethod":"POST","httpStatusCode":"200",
 *    "requestUri":"https://erp.testcloud.com:443/StockSetup/GetStockListByCir","responseBytes":"1205",
 *    "trackingReference":"0k1y5YQAAAAA…","userAgent":"Mozilla/5.0 …", …},"time":"2021-12-15T03:10:11.6479719Z"}
 *
 * and as rows of the Log Analytics `AzureDiagnostics` table (exported as JSON), whose columns are the
 * same properties flattened with a type suffix: `requestUri_s`, `httpStatusCode_s` or `_d`,
 * `responseBytes_s` or `_d`, `clientIp_s`, `userAgent_s`, with `Category` and `TimeGenerated`.
 *
 * Field choices:
 * - time: `time` (the resource log's time), else `TimeGenerated`.
 * - path: `requestUri`, the full URL with its port; the query is removed; vhost `hostName`
 *   (Standard/Premium), else the URL's host without its port.
 * - bytes: `responseBytes`. Microsoft's reference does not say whether the headers count; an
 *   edge's count of what it sent is read as the whole response (`bytes: 'response'`, the looser
 *   comparison of lengths).
 * - status `httpStatusCode` (a string in the records, a number in some exports), method
 *   `httpMethod`, client `clientIp` (`socketIp` is the address of the connection, a proxy's when
 *   there is one), user agent `userAgent`, referer `referer` (Standard/Premium), requestId
 *   `trackingReference` (the X-Azure-Ref the client got), requestTime `timeTaken` (seconds).
 * - No pod: `backendHostname`, `originName` and `originIp` name the origin (an App Service, a load
 *   balancer), not the instance that answered.
 */

const ACCESS_CATEGORY = /^front ?door ?access ?log$/i

function given(v: unknown): boolean {
  return v !== undefined && v !== null && v !== ''
}

/** A record's field: `properties.name` (any case), else an AzureDiagnostics column `name_s` / `name_d`. */
function field(obj: Record<string, unknown>, props: Record<string, unknown> | undefined, name: string): unknown {
  if (props !== undefined) {
    if (name in props) return props[name]
    const lower = name.toLowerCase()
    for (const k in props) if (k.length === name.length && k.toLowerCase() === lower) return props[k]
  }
  for (const suffix of ['_s', '_d']) {
    const v = obj[name + suffix]
    if (given(v)) return v
  }
  return undefined
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' && v !== '-' && v !== 'N/A' ? v : undefined
}

function category(obj: Record<string, unknown>): unknown {
  return obj['category'] ?? obj['Category']
}

/** A Front Door access record: its category, or the request's properties or columns without one. */
function looksLikeAzureFrontDoor(obj: Record<string, unknown>): boolean {
  if (!isObject(obj)) return false
  const c = category(obj)
  if (typeof c === 'string') return ACCESS_CATEGORY.test(c)
  const props = obj['properties']
  if (isObject(props)) return 'requestUri' in props && 'httpStatusCode' in props
  return 'requestUri_s' in obj && ('httpStatusCode_s' in obj || 'httpStatusCode_d' in obj)
}

/** A non-negative integer, or its digits as a string (`"1205"`, `1205`, `1205.0` from a `_d` column). */
function count(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,15}(\.0+)?$/.test(v) ? Number(v) : NaN
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined
}

function parseAzureFrontDoor(obj: Record<string, unknown>): ParseOutcome {
  if (!isObject(obj)) return reject('not-an-object', 'record is not a JSON object')
  const props = isObject(obj['properties']) ? obj['properties'] : undefined
  const rawTime = given(obj['time']) ? obj['time'] : given(obj['TimeGenerated']) ? obj['TimeGenerated'] : obj['timeGenerated']
  if (!given(rawTime)) return reject('missing-time', 'no time or TimeGenerated')
  const t = typeof rawTime === 'string' ? parseIsoTime(rawTime) : undefined
  if (t === undefined) return reject('bad-time', `unreadable time ${show(rawTime)}`)

  const uri = text(field(obj, props, 'requestUri'))
  if (uri === undefined) return reject('missing-path', 'no requestUri')
  const target = splitTarget(uri)
  if (target === undefined) return reject('missing-path', `requestUri is not a URL or path: ${show(uri)}`)

  const rawStatus = field(obj, props, 'httpStatusCode')
  if (!given(rawStatus)) return reject('missing-status', 'no httpStatusCode')
  const status = count(rawStatus)
  if (status === undefined || status < 100 || status > 999) return reject('bad-status', `httpStatusCode is not a 3-digit number: ${show(rawStatus)}`)

  const rawBytes = field(obj, props, 'responseBytes')
  if (!given(rawBytes)) return reject('missing-bytes', 'no responseBytes')
  const bytes = count(rawBytes)
  if (bytes === undefined) return reject('bad-bytes', `responseBytes is not a number: ${show(rawBytes)}`)

  const event: AccessFields = {
    time: t.time,
    resolutionMs: t.resolutionMs,
    method: text(field(obj, props, 'httpMethod')) ?? '',
    path: target.path,
    status,
    bytes,
    clientIp: text(field(obj, props, 'clientIp')) ?? '',
    userAgent: text(field(obj, props, 'userAgent')) ?? '',
  }
  const referer = text(field(obj, props, 'referer'))
  if (referer !== undefined) event.referer = referer
  const ref = text(field(obj, props, 'trackingReference'))
  if (ref !== undefined) event.requestId = ref
  const host = text(field(obj, props, 'hostName')) ?? (target.host === undefined ? undefined : stripPort(target.host))
  if (host !== undefined) event.vhost = host
  const taken = field(obj, props, 'timeTaken')
  const seconds = typeof taken === 'number' ? taken : typeof taken === 'string' && /^\d{1,9}(\.\d{1,9})?$/.test(taken) ? Number(taken) : undefined
  if (seconds !== undefined && Number.isFinite(seconds) && seconds >= 0) event.requestTime = seconds
  return {ok: true, event}
}

/** Azure Front Door access log records (resource logs, or AzureDiagnostics rows); no pod. */
export const azureFrontDoor: JsonFormat = {
  id: 'azure-frontdoor',
  name: 'Azure Front Door access log (FrontdoorAccessLog, AzureDiagnostics)',
  bytes: 'response',
  looksLike: looksLikeAzureFrontDoor,
  parse: parseAzureFrontDoor,
}
