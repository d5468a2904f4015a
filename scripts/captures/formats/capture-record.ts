/**
 * One line of a real nginx JSON capture (fixtures/captures/<name>/nginx.jsonl.gz): every key is
 * present; a value nginx did not have is "".
 */
export interface CaptureRecord {
  /** `2026-11-30T07:18:26.070+00:00` */
  time_iso8601: string
  /** Epoch seconds with milliseconds: `1796023106.07`. */
  msec: number
  remote_addr: string
  remote_user: string
  request_id: string
  host: string
  request_method: string
  /** Path and query string, as requested. */
  request_uri: string
  server_protocol: string
  status: number
  body_bytes_sent: number
  /** Headers and body. */
  bytes_sent: number
  request_length: number | string
  /** Seconds. */
  request_time: number
  http_referer: string
  http_user_agent: string
  /** `127.30.0.10:46289`, or a list of the upstreams tried: `127.30.0.9:1, 127.30.0.10:46289`. */
  upstream_addr: string
  upstream_status: string
  upstream_response_length: string
  upstream_response_time: string
  /** `default-webapp-80` (ingress-nginx: namespace-service-port). */
  proxy_upstream_name: string
  cookie_session: string
}

/** The record's time in epoch ms. */
export function captureMs(r: CaptureRecord): number {
  return typeof r.msec === 'number' && Number.isFinite(r.msec) ? Math.round(r.msec * 1000) : Date.parse(r.time_iso8601)
}

/** Seconds (a number, or nginx's `0.001, 0.018` list: the last), or undefined. */
export function seconds(v: number | string): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined
  const last = v.split(/[,:]\s*/).pop()?.trim() ?? ''
  const n = Number(last)
  return last === '' || last === '-' || !Number.isFinite(n) ? undefined : n
}

/** `-` for a value nginx did not have, as most formats write it. */
export const orDash = (v: string): string => (v === '' ? '-' : v)
