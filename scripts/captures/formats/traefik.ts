/**
 * Writers: one request of a real nginx JSON capture rendered as Traefik would have logged it, in
 * its CLF and JSON access-log formats, for round-trip tests of src/normalize/formats/traefik.ts.
 *
 * Traefik's layout is pkg/middlewares/accesslog (logger_formatters.go for CLF, logdata.go for the
 * JSON keys, sorted as Go's encoding/json sorts a map's). Choices where the capture has no
 * counterpart:
 * - StartUTC is the capture's msec (its time), not msec minus request_time: Traefik logs the
 *   request's start, nginx its end, but the round trip keeps one time for every format. JSON
 *   writes it with nanosecond digits (`.070000000Z`), CLF to the second (Go's layout truncates).
 * - DownstreamContentSize is body_bytes_sent; Duration is request_time (CLF: whole ms; JSON: ns).
 * - The service is the last address of upstream_addr (the one that answered): ServiceURL
 *   `http://ADDR`, ServiceAddr `ADDR`; RetryAttempts is the number of other addresses tried.
 *   Origin* come from the last entries of the upstream_* lists.
 * - ServiceName and RouterName are proxy_upstream_name (`namespace-service-port`) with the
 *   Kubernetes provider's `@kubernetes` suffix (Traefik's real router names also hold the host).
 * - JSON request headers, as `fields.headers.defaultMode: keep` logs them: User-Agent, Referer and
 *   request_id as the X-Request-Id header (an upstream proxy's request id). CLF has no request id.
 * - ClientAddr/ClientPort are left out (the capture has no client port); RequestCount is the
 *   optional second argument (1).
 */
import {lastUpstream} from '../../../src/normalize/access-line'
import {type CaptureRecord, captureMs, orDash} from './capture-record'

export type {CaptureRecord} from './capture-record'

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

const pad2 = (n: number): string => String(n).padStart(2, '0')

/** `02/Jan/2006:15:04:05 -0700` in UTC. */
function clfTime(ms: number): string {
  const d = new Date(ms)
  return `${pad2(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())} +0000`
}

/** RFC 3339 with nanosecond digits, as Go's RFC3339Nano prints a time that has them. */
function isoNano(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000000Z')
}

/** Traefik's toLogEntry(…, quote): `"-"` for an empty value, `"` escaped as `\"`, nothing else. */
function quoted(v: string): string {
  return v === '' ? '"-"' : `"${v.replaceAll('"', '\\"')}"`
}

/** The entries of an nginx upstream list (`a, b` retries, `a : b` internal redirects). */
function items(list: string): string[] {
  return list.split(/\s*,\s*|\s+:\s+/).map((x) => x.trim()).filter((x) => x !== '' && x !== '-')
}

function lastNumber(list: string): number | undefined {
  const last = items(list).pop()
  const n = last === undefined ? NaN : Number(last)
  return Number.isFinite(n) ? n : undefined
}

function serviceName(r: CaptureRecord): string {
  return r.proxy_upstream_name === '' ? '' : `${r.proxy_upstream_name}@kubernetes`
}

/** Traefik's default CLF access line. */
export function toTraefikClf(r: CaptureRecord, requestCount = 1): string {
  const upstream = lastUpstream(r.upstream_addr) ?? ''
  return (
    `${orDash(r.remote_addr)} - ${orDash(r.remote_user)} [${clfTime(captureMs(r))}] ` +
    `"${orDash(r.request_method)} ${orDash(r.request_uri)} ${orDash(r.server_protocol)}" ${r.status} ${r.body_bytes_sent} ` +
    `${quoted(r.http_referer)} ${quoted(r.http_user_agent)} ${requestCount} ${quoted(serviceName(r))} ` +
    `${quoted(upstream === '' ? '' : `http://${upstream}`)} ${Math.round(r.request_time * 1000)}ms`
  )
}

/** Traefik's JSON access line (`accessLog.format: json`, request headers kept). */
export function toTraefikJson(r: CaptureRecord, requestCount = 1): string {
  const ms = captureMs(r)
  const upstream = lastUpstream(r.upstream_addr) ?? ''
  const duration = Math.round(r.request_time * 1e9)
  const o: Record<string, unknown> = {
    ClientHost: r.remote_addr,
    ClientUsername: orDash(r.remote_user),
    DownstreamContentSize: r.body_bytes_sent,
    DownstreamStatus: r.status,
    Duration: duration,
    Overhead: duration,
    RequestAddr: r.host,
    RequestContentSize: 0,
    RequestCount: requestCount,
    RequestHost: r.host,
    RequestMethod: r.request_method,
    RequestPath: r.request_uri,
    RequestPort: '-',
    RequestProtocol: r.server_protocol,
    RequestScheme: 'http',
    RetryAttempts: Math.max(0, items(r.upstream_addr).length - 1),
    StartLocal: isoNano(ms),
    StartUTC: isoNano(ms),
    entryPointName: 'web',
    level: 'info',
    msg: '',
    time: new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
  }
  if (upstream !== '') {
    o['ServiceAddr'] = upstream
    o['ServiceURL'] = `http://${upstream}`
    const originTime = lastNumber(r.upstream_response_time)
    if (originTime !== undefined) {
      o['OriginDuration'] = Math.round(originTime * 1e9)
      o['Overhead'] = Math.max(0, duration - Math.round(originTime * 1e9))
    }
    const originSize = lastNumber(r.upstream_response_length)
    if (originSize !== undefined) o['OriginContentSize'] = originSize
    const originStatus = lastNumber(r.upstream_status)
    if (originStatus !== undefined) o['OriginStatus'] = originStatus
  }
  const name = serviceName(r)
  if (name !== '') o['RouterName'] = o['ServiceName'] = name
  if (r.http_user_agent !== '') o['request_User-Agent'] = r.http_user_agent
  if (r.http_referer !== '') o['request_Referer'] = r.http_referer
  if (r.request_id !== '') o['request_X-Request-Id'] = r.request_id
  const sorted: Record<string, unknown> = {}
  for (const k of Object.keys(o).sort()) sorted[k] = o[k]
  return JSON.stringify(sorted)
}
