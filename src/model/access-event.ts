/** Where a record came from: the file (or `-` for stdin) and its 1-based line (or CSV row / JSON item). */
export interface RecordLocation {
  file: string
  line: number
}

/**
 * One HTTP request as logged, whatever the input format was.
 * Optional fields are absent (not empty strings) when the log did not carry them. Readers bound
 * every text field to 2048 characters (a longer one keeps its start and end around a digest of the
 * whole: normalize/fields.ts boundFields), so no field costs more than that wherever it is kept.
 */
export interface AccessEvent {
  /** Epoch milliseconds, UTC. */
  time: number
  /** 1 when the source logs milliseconds; 1000 for second-resolution timestamps ($time_local). */
  resolutionMs: number
  method: string
  /** Request path without the query string, as logged (not URL-decoded). */
  path: string
  status: number
  /** Body bytes sent to the client ($body_bytes_sent, network.bytes_written), or the whole response when responseBytes. */
  bytes: number
  /**
   * The format counts the response's headers in `bytes` (AWS ALB `sent_bytes`, CloudFront
   * `sc-bytes`, Google Cloud `responseSize`): one shell is then logged at several lengths, its
   * body plus each header block it was sent with.
   */
  responseBytes?: true
  /**
   * The record carried no byte count (a Datadog event without `network.bytes_written`, an export
   * without that column): `bytes` is 0 for want of a value, not a body-less response.
   */
  bytesNotLogged?: true
  clientIp: string
  userAgent: string
  referer?: string
  /** An explicit session key (cookie, user id, session attribute) resolved by the --session-key option. */
  session?: string
  userId?: string
  requestId?: string
  /** The upstream (pod) that answered: `ip:port` of the last upstream tried. */
  upstream?: string
  /** The ingress upstream the request was routed to (`$proxy_upstream_name`: `namespace-service-port`). */
  upstreamName?: string
  /** The request's Host (the virtual host), when logged. */
  vhost?: string
  /** The app, when `--app-key` names the attribute that holds it. */
  app?: string
  /** An explicit build/version tag carried by the log. */
  version?: string
  contentType?: string
  service?: string
  /** The machine that logged it (Datadog's `host`: for ingress logs, the controller pod). */
  host?: string
  /** Seconds the proxy took ($request_time), when logged. Shown by `parse`; the analysis does not use it. */
  requestTime?: number
  /** Seconds the upstream took ($upstream_response_time, the last try), when logged. */
  upstreamTime?: number
  /** Unquoted fields of a custom format that skewscan does not know, as logged (`parse` shows them). */
  extra?: string[]
  /** Datadog event id, used to drop duplicates when pages overlap. */
  id?: string
  location: RecordLocation
}
