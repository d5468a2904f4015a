/**
 * Writer: one request of a real nginx JSON capture rendered as Caddy v2 would have logged it (the
 * `http.log.access` record of modules/caddyhttp/server.go logRequest), for round-trip tests of
 * src/normalize/formats/caddy.ts. Choices where the capture has no counterpart:
 * - ts is the capture's msec: both log the time the response was done, in epoch seconds.
 * - size is body_bytes_sent, duration request_time (seconds), user_id remote_user; level is
 *   `error` from status 500 on, as Caddy logs it.
 * - remote_ip and client_ip are remote_addr (no trusted proxies in front); remote_port is "0"
 *   (the capture has no client port).
 * - Request headers as Caddy logs them (arrays under canonical names): User-Agent, Referer, and
 *   request_id as X-Request-Id (an upstream proxy's request id).
 * - Caddy's access records do not say which upstream answered; the writer appends it as the
 *   Caddy docs show (`log_append upstream_hostport {rp.upstream.hostport}`), from the last address
 *   of upstream_addr.
 */
import {lastUpstream} from '../../../src/normalize/access-line'
import type {CaptureRecord} from './capture-record'

export type {CaptureRecord} from './capture-record'

/** Caddy's JSON access record. */
export function toCaddyJson(r: CaptureRecord): string {
  const headers: Record<string, string[]> = {}
  if (r.http_user_agent !== '') headers['User-Agent'] = [r.http_user_agent]
  if (r.http_referer !== '') headers['Referer'] = [r.http_referer]
  if (r.request_id !== '') headers['X-Request-Id'] = [r.request_id]
  const upstream = lastUpstream(r.upstream_addr)
  const ts = typeof r.msec === 'number' && Number.isFinite(r.msec) ? r.msec : Date.parse(r.time_iso8601) / 1000
  const record: Record<string, unknown> = {
    level: r.status >= 500 ? 'error' : 'info',
    ts,
    logger: 'http.log.access.log0',
    msg: 'handled request',
    request: {
      remote_ip: r.remote_addr,
      remote_port: '0',
      client_ip: r.remote_addr,
      proto: r.server_protocol,
      method: r.request_method,
      host: r.host,
      uri: r.request_uri,
      headers,
    },
    bytes_read: 0,
    user_id: r.remote_user,
    duration: r.request_time,
    size: r.body_bytes_sent,
    status: r.status,
    resp_headers: {Server: ['Caddy']},
  }
  if (upstream !== undefined) record['upstream_hostport'] = upstream
  return JSON.stringify(record)
}
