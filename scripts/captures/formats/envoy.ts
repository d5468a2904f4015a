/**
 * Writers: one request of a real nginx JSON capture rendered as Envoy, Istio and Istio's JSON
 * encoding would have logged it, for round-trip tests of src/normalize/formats/envoy.ts.
 *
 * The proxy sits behind nothing, so X-Forwarded-For is the client (remote_addr), as Envoy logs it
 * at the edge once it has appended the downstream address. Choices where the capture has no
 * counterpart:
 * - %START_TIME% from msec (milliseconds, UTC, `Z`).
 * - %BYTES_SENT% from body_bytes_sent (Envoy's is the response body); %BYTES_RECEIVED% 0 (the capture
 *   has request_length, headers included, not the request body).
 * - %UPSTREAM_HOST% is the last address of upstream_addr (the one that answered).
 * - nginx's 499 (client closed the connection) is what Envoy logs as status 0 with the DC flag:
 *   written so, hence rejected (bad-status) by the parser, as a real Envoy line would be.
 * - A request nginx could not read (no method) is written `"- - PROTOCOL" 400 DPE`: missing-path.
 * - HTTP/2.0 and HTTP/3.0 are written HTTP/2 and HTTP/3, as Envoy names them.
 * - Istio: %UPSTREAM_CLUSTER% is `outbound|PORT||SERVICE.NAMESPACE.svc.cluster.local` built from
 *   proxy_upstream_name (`namespace-service-port`); %DOWNSTREAM_REMOTE_ADDRESS% is remote_addr with
 *   port 0 (the capture has no client port); local addresses, SNI and route name are `-`.
 * None of the three formats logs the Referer.
 */
import {lastUpstream} from '../../../src/normalize/access-line'
import {type CaptureRecord, orDash} from './capture-record'

export type {CaptureRecord} from './capture-record'

function startTime(r: CaptureRecord): string {
  const ms = typeof r.msec === 'number' && Number.isFinite(r.msec) ? Math.round(r.msec * 1000) : Date.parse(r.time_iso8601)
  return new Date(ms).toISOString()
}

function protocol(p: string): string {
  if (p === 'HTTP/2.0') return 'HTTP/2'
  if (p === 'HTTP/3.0') return 'HTTP/3'
  return orDash(p)
}

/** Seconds (a number, or nginx's `0.018` / `0.001, 0.018` lists: the last) -> whole milliseconds, or undefined. */
function millis(v: number | string): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? Math.round(v * 1000) : undefined
  const last = v.split(/[,:]/).pop()?.trim() ?? ''
  if (last === '' || last === '-') return undefined
  const n = Number(last)
  return Number.isFinite(n) ? Math.round(n * 1000) : undefined
}

interface Rendered {
  time: string
  method: string
  path: string
  protocol: string
  status: number
  flags: string
  details: string
  bytes: number
  duration: number
  serviceTime: string
  xff: string
  userAgent: string
  requestId: string
  authority: string
  upstream: string
  cluster: string
  downstreamRemote: string
}

function render(r: CaptureRecord): Rendered {
  const unread = r.request_method === ''
  const disconnected = r.status === 499
  const upstream = lastUpstream(r.upstream_addr) ?? ''
  const service = millis(r.upstream_response_time)
  let flags = '-'
  let details = upstream === '' ? 'direct_response' : 'via_upstream'
  if (unread) {
    flags = 'DPE'
    details = 'http1.codec_error'
  } else if (disconnected) {
    flags = 'DC'
    details = 'downstream_remote_disconnect'
  } else if (upstream === '' && r.status === 404) {
    flags = 'NR'
    details = 'route_not_found'
  } else if (upstream === '' && r.status === 503) {
    flags = 'UH'
    details = 'no_healthy_upstream'
  }
  const m = /^([^-]+)-(.+)-(\d+)$/.exec(r.proxy_upstream_name)
  const cluster = m ? `outbound|${m[3]}||${m[2]}.${m[1]}.svc.cluster.local` : orDash(r.proxy_upstream_name)
  const ip = r.remote_addr
  return {
    time: startTime(r),
    method: unread ? '-' : r.request_method,
    path: unread ? '-' : orDash(r.request_uri),
    protocol: protocol(r.server_protocol),
    status: unread ? 400 : disconnected ? 0 : r.status,
    flags,
    details,
    bytes: disconnected ? 0 : Number(r.body_bytes_sent) || 0,
    duration: millis(r.request_time) ?? 0,
    serviceTime: service === undefined || upstream === '' ? '-' : String(service),
    xff: orDash(ip),
    userAgent: orDash(r.http_user_agent),
    requestId: orDash(r.request_id),
    authority: orDash(r.host),
    upstream: orDash(upstream),
    cluster,
    downstreamRemote: ip === '' ? '-' : ip.includes(':') ? `[${ip}]:0` : `${ip}:0`,
  }
}

/** Envoy's default format. */
export function toEnvoy(r: CaptureRecord): string {
  const e = render(r)
  return (
    `[${e.time}] "${e.method} ${e.path} ${e.protocol}" ${e.status} ${e.flags} 0 ${e.bytes} ${e.duration} ${e.serviceTime} ` +
    `"${e.xff}" "${e.userAgent}" "${e.requestId}" "${e.authority}" "${e.upstream}"`
  )
}

/** Istio's default text format (1.9+). */
export function toIstio(r: CaptureRecord): string {
  const e = render(r)
  return (
    `[${e.time}] "${e.method} ${e.path} ${e.protocol}" ${e.status} ${e.flags} ${e.details} - "-" 0 ${e.bytes} ${e.duration} ${e.serviceTime} ` +
    `"${e.xff}" "${e.userAgent}" "${e.requestId}" "${e.authority}" "${e.upstream}" ` +
    `${e.cluster} - - ${e.downstreamRemote} - -`
  )
}

/** Istio's JSON encoding (meshConfig.accessLogEncoding: JSON): typed values, null when unset. */
export function toEnvoyJson(r: CaptureRecord): string {
  const e = render(r)
  const v = (s: string): string | null => (s === '-' ? null : s)
  return JSON.stringify({
    authority: v(e.authority),
    bytes_received: 0,
    bytes_sent: e.bytes,
    connection_termination_details: null,
    downstream_local_address: null,
    downstream_remote_address: v(e.downstreamRemote),
    duration: e.duration,
    method: v(e.method),
    path: v(e.path),
    protocol: v(e.protocol),
    request_id: v(e.requestId),
    requested_server_name: null,
    response_code: e.status,
    response_code_details: e.details,
    response_flags: e.flags,
    route_name: null,
    start_time: e.time,
    upstream_cluster: v(e.cluster),
    upstream_host: v(e.upstream),
    upstream_local_address: null,
    upstream_service_time: v(e.serviceTime),
    upstream_transport_failure_reason: null,
    user_agent: v(e.userAgent),
    x_forwarded_for: v(e.xff),
  })
}
