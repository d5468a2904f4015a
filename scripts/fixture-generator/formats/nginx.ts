/** Raw nginx access lines: ingress-nginx's default `log-format-upstream`, combined, and a JSON log_format. */
import {timeIso8601, timeLocal} from '../time'
import type {SimRequest} from '../types'
import {DEFAULT_CONTEXT} from './context'
import type {WriterContext} from './context'

export const requestUri = (r: SimRequest): string => (r.query ? `${r.path}?${r.query}` : r.path)

const seconds = (ms: number): string => (ms / 1000).toFixed(3)

/** The upstream fields as ingress-nginx logs them: comma lists when a first attempt was retried. */
export function upstreamFields(r: SimRequest): {addr: string; length: string; time: string; status: string} {
  if (r.retriedFrom) {
    return {
      addr: `${r.retriedFrom}, ${r.upstream}`,
      length: `0, ${r.bytes}`,
      time: `0.000, ${seconds(r.upstreamTimeMs)}`,
      status: `502, ${r.status}`,
    }
  }
  return {addr: r.upstream, length: String(r.bytes), time: seconds(r.upstreamTimeMs), status: String(r.status)}
}

/**
 * `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer"
 * "$http_user_agent" $request_length $request_time [$proxy_upstream_name] [$proxy_alternative_upstream_name]
 * $upstream_addr $upstream_response_length $upstream_response_time $upstream_status $req_id`
 */
export function ingressLine(r: SimRequest, _ctx: WriterContext = DEFAULT_CONTEXT): string {
  const u = upstreamFields(r)
  return (
    `${r.clientIp} - - [${timeLocal(r.time)}] "${r.method} ${requestUri(r)} HTTP/1.1" ${r.status} ${r.bytes} ` +
    `"${r.referer}" "${r.userAgent}" ${r.requestLength} ${seconds(r.requestTimeMs)} [${r.upstreamName}] [] ` +
    `${u.addr} ${u.length} ${u.time} ${u.status} ${r.requestId}`
  )
}

/** nginx `combined`: `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"`. */
export function combinedLine(r: SimRequest): string {
  return `${r.clientIp} - - [${timeLocal(r.time)}] "${r.method} ${requestUri(r)} HTTP/1.1" ${r.status} ${r.bytes} "${r.referer}" "${r.userAgent}"`
}

/**
 * A `log_format ... escape=json` line as ingress-nginx writes one with a JSON `log-format-upstream`:
 * the Host and the upstream name (`$proxy_upstream_name`) beside the request. nginx writes an absent
 * header as an empty string in JSON mode (not `-`), so a request without referer has `"http_referer":""`.
 */
export function nginxJsonLine(r: SimRequest, ctx: WriterContext = DEFAULT_CONTEXT): string {
  return JSON.stringify({
    time_iso8601: timeIso8601(r.time, ctx.withMs),
    remote_addr: r.clientIp,
    host: r.vhost,
    request_method: r.method,
    request_uri: requestUri(r),
    status: r.status,
    body_bytes_sent: r.bytes,
    http_referer: r.referer === '-' ? '' : r.referer,
    http_user_agent: r.userAgent,
    upstream_addr: upstreamFields(r).addr,
    proxy_upstream_name: r.upstreamName,
    request_id: r.requestId,
  })
}
