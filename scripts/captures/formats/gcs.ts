/**
 * Writer: one request of a real nginx JSON capture rendered as a Google Cloud Storage usage-log
 * row (CSV, every cell quoted, after GCS_HEADER), as a website bucket serving the SPA under its own
 * domain would have logged it, for round-trip tests of src/normalize/formats/gcs.ts. Choices:
 * - time_micros from msec (the time the request completed; the capture has milliseconds).
 * - cs_uri is request_uri as requested; cs_host host; cs_object the path without its leading `/`,
 *   percent-decoded (`index.html` for a path ending in `/`, the bucket's main page suffix);
 *   cs_bucket `webapp-lab`; cs_operation `GET_Object` (`HEAD_Object`, …, after the method).
 * - sc_bytes is nginx's `body_bytes_sent` (GCS's sc_bytes counts the body only); cs_bytes 0 (the
 *   capture has the request's length with headers, not its body); time_taken_micros request_time.
 * - s_request_id is request_id; c_ip_type 1 for IPv4, 2 for IPv6; c_ip_region empty.
 * - The user agent is written as sent: the `,gzip(gfe)` Google's front end appends to some is not
 *   added. nginx's 499 has no documented GCS counterpart and is written as it is.
 * - A request nginx could not read (no method) is written with empty cs_method and cs_uri:
 *   missing-path.
 * - GCS logs no upstream (the bucket is the origin).
 */
import {type CaptureRecord, captureMs, seconds} from './capture-record'

export type {CaptureRecord} from './capture-record'

const COLUMNS = ['time_micros', 'c_ip', 'c_ip_type', 'c_ip_region', 'cs_method', 'cs_uri', 'sc_status', 'cs_bytes', 'sc_bytes', 'time_taken_micros', 'cs_host', 'cs_referer', 'cs_user_agent', 's_request_id', 'cs_operation', 'cs_bucket', 'cs_object'] as const

const quote = (v: string): string => `"${v.replace(/"/g, '""')}"`

/** The header line of a usage-log object. */
export const GCS_HEADER = COLUMNS.map(quote).join(',')

function objectName(uri: string): string {
  const q = uri.indexOf('?')
  let path = (q < 0 ? uri : uri.slice(0, q)).replace(/^\/+/, '')
  if (path === '' || path.endsWith('/')) path += 'index.html'
  try {
    return decodeURIComponent(path)
  } catch {
    return path
  }
}

export function toGcsRow(r: CaptureRecord): string {
  const unread = r.request_method === ''
  const cells: Record<(typeof COLUMNS)[number], string> = {
    time_micros: String(captureMs(r) * 1000),
    c_ip: r.remote_addr,
    c_ip_type: r.remote_addr.includes(':') ? '2' : '1',
    c_ip_region: '',
    cs_method: r.request_method,
    cs_uri: unread ? '' : r.request_uri,
    sc_status: String(r.status),
    cs_bytes: '0',
    sc_bytes: String(r.body_bytes_sent),
    time_taken_micros: String(Math.round((seconds(r.request_time) ?? 0) * 1e6)),
    cs_host: r.host,
    cs_referer: r.http_referer,
    cs_user_agent: r.http_user_agent,
    s_request_id: r.request_id,
    cs_operation: unread ? '' : `${r.request_method}_Object`,
    cs_bucket: 'webapp-lab',
    cs_object: unread ? '' : objectName(r.request_uri),
  }
  return COLUMNS.map((c) => quote(cells[c])).join(',')
}
