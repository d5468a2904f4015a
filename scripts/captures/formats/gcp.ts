/**
 * Writer: one request of a real nginx JSON capture rendered as a Google Cloud external HTTP(S)
 * load balancer would have logged it (a Cloud Logging LogEntry, one JSON line), for round-trip
 * tests of src/normalize/formats/gcp.ts.
 *
 * - timestamp from msec, to the microsecond as Cloud Logging writes it: millisecond resolution.
 * - responseSize is nginx's `bytes_sent` (GCP counts headers and body), as a string (JSON int64).
 * - serverIp is the last address of upstream_addr (the backend that answered), omitted when none.
 * - trace is `projects/skewscan-lab/traces/<request_id>` (a 32-hex trace id, what the parser reads
 *   back as requestId); insertId is derived from request_id too.
 * - Empty values (user agent, referer) are omitted, as Cloud Logging omits unset fields.
 * - nginx's 499 (the client closed the connection) is GCP's `client_disconnected_before_any_response`
 *   with no status: the parser rejects it (missing-status), as it would the real entry.
 * - A request nginx could not read (no method) has neither requestMethod nor requestUrl: missing-path.
 */
import {lastUpstream} from '../../../src/normalize/access-line'
import {type CaptureRecord, captureMs} from './capture-record'

export type {CaptureRecord} from './capture-record'

function micros(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z')
}

/** The trace id toGcp writes (what the parser reads back as requestId), or undefined. */
export function gcpTraceId(r: CaptureRecord): string | undefined {
  return r.request_id === '' ? undefined : r.request_id
}

export function toGcp(r: CaptureRecord): string {
  const ms = captureMs(r)
  const gone = r.status === 499
  const httpRequest: Record<string, unknown> = {}
  if (r.request_method !== '') {
    httpRequest['requestMethod'] = r.request_method
    httpRequest['requestUrl'] = `http://${r.host === '' ? '0.0.0.0' : r.host}${r.request_uri}`
  }
  httpRequest['requestSize'] = String(r.request_length === '' ? 0 : r.request_length)
  if (!gone) {
    httpRequest['status'] = r.status
    httpRequest['responseSize'] = String(r.bytes_sent)
  }
  if (r.http_user_agent !== '') httpRequest['userAgent'] = r.http_user_agent
  httpRequest['remoteIp'] = r.remote_addr
  const server = lastUpstream(r.upstream_addr)
  if (server !== undefined && !gone) httpRequest['serverIp'] = server
  if (r.http_referer !== '') httpRequest['referer'] = r.http_referer
  httpRequest['latency'] = `${(typeof r.request_time === 'number' ? r.request_time : 0).toFixed(6)}s`
  if (r.server_protocol !== '') httpRequest['protocol'] = r.server_protocol
  const entry: Record<string, unknown> = {
    insertId: r.request_id === '' ? 'skewscan0000' : r.request_id.slice(0, 14),
    jsonPayload: {
      '@type': 'type.googleapis.com/google.cloud.loadbalancing.type.LoadBalancerLogEntry',
      statusDetails: gone ? 'client_disconnected_before_any_response' : 'response_sent_by_backend',
      backendTargetProjectNumber: 'projects/123456789012',
    },
    httpRequest,
    resource: {
      type: 'http_load_balancer',
      labels: {
        project_id: 'skewscan-lab',
        zone: 'global',
        url_map_name: 'k8s2-um-skewscan-lab',
        forwarding_rule_name: 'k8s2-fr-skewscan-lab',
        target_proxy_name: 'k8s2-tp-skewscan-lab',
        backend_service_name: r.proxy_upstream_name === '' ? '' : `k8s1-${r.proxy_upstream_name}`,
      },
    },
    timestamp: micros(ms),
    severity: r.status >= 500 ? 'WARNING' : 'INFO',
    logName: 'projects/skewscan-lab/logs/requests',
    receiveTimestamp: micros(ms + 480),
  }
  const trace = gcpTraceId(r)
  if (trace !== undefined) {
    entry['trace'] = `projects/skewscan-lab/traces/${trace}`
    entry['spanId'] = trace.slice(0, 16)
  }
  return JSON.stringify(entry)
}
