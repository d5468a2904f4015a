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
