/**
 * Writers: one request of a real nginx JSON capture rendered as an Amazon S3 server access log
 * (the SPA served from a bucket's website endpoint) and as an AWS Classic Load Balancer would have
 * logged it, for round-trip tests of src/normalize/formats/aws-legacy.ts.
 *
 * Both formats count the body alone in their byte field, so the byte count is nginx's
 * `body_bytes_sent`, not `bytes_sent`.
 *
 * S3 (`toS3`):
 * - the bucket is named after the site (website hosting with a custom domain needs a bucket named
 *   like the domain): bucket and host_header are the capture's host.
 * - time from msec, to the second (`[30/Nov/2026:07:18:26 +0000]`, S3's resolution).
 * - operation `WEBSITE.GET.OBJECT` / `WEBSITE.HEAD.OBJECT` (else `REST.<METHOD>.OBJECT`), key the
 *   path without its leading slash (`index.html` for `/`), request_uri as requested (in HTTP/1.1:
 *   website endpoints do not speak HTTP/2).
 * - bytes_sent `-` when nginx sent no body (S3 writes `-` for zero); error_code `NoSuchKey` for a
 *   404, `AccessDenied` for a 403.
 * - request_id is the first 16 hex digits of nginx's request_id, upper-cased (s3RequestId): S3
 *   ids are 16 chars. The capture's statuses are kept as they are (S3 documents nothing for a
 *   client that left, nginx's 499).
 * - A request nginx could not read (no method) has request_uri `-`: missing-path.
 * - No upstream: S3 does not log which server answered. Website endpoints are HTTP only: no
 *   signature, cipher, auth type or TLS version.
 *
 * Classic ELB (`toElbClassic`):
 * - time from msec, to the microsecond as ELB writes it (`…26.070000Z`): millisecond resolution.
 * - the request URL is `http://HOST:80/URI` (`https…:443` and a cipher for HTTP/2 requests:
 *   Classic ELB speaks HTTP/1.1 to clients, so their protocol is logged `HTTP/1.1`).
 * - client `remote_addr:PORT`, the port derived from request_id (the capture has none).
 * - backend:port is the last address of upstream_addr (the one that answered), `-` when none,
 *   with the processing times `-1` then, as ELB logs a request it could not dispatch.
 * - sent_bytes is body_bytes_sent (HTTP listener: the body without the headers); received_bytes
 *   0 (nginx logs no request body size apart from the headers).
 * - The capture's status is kept (ELB documents nothing for nginx's 499, a client gone).
 * - A request nginx could not read (no method) is written `"- http://HOST:80- -"`: missing-path.
 * - ELB does not log the Referer or a request id.
 */
import {lastUpstream} from '../../../src/normalize/access-line'
import {type CaptureRecord, captureMs, orDash, seconds} from './capture-record'

export type {CaptureRecord} from './capture-record'

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** A fixed canonical user id for the bucket owner (64 hex digits). */
const OWNER = '5a1e0c0ffee4d3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a2918f0e1d2c3b4a5'

function lastOf(list: string): string | undefined {
  const v = list.split(/[,:]\s+/).pop()?.trim()
  return v === undefined || v === '' || v === '-' ? undefined : v
}

function clientPort(r: CaptureRecord): number {
  const h = parseInt(r.request_id.slice(0, 4), 16)
  return 1024 + (Number.isFinite(h) ? h % 60000 : 0)
}

const pad2 = (n: number): string => String(n).padStart(2, '0')

/** `[30/Nov/2026:07:18:26 +0000]`: S3's time, to the second. */
function s3Time(ms: number): string {
  const d = new Date(ms)
  const date = `${pad2(d.getUTCDate())}/${MONTHS[d.getUTCMonth()] ?? 'Jan'}/${d.getUTCFullYear()}`
  return `[${date}:${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())} +0000]`
}

/** The time toS3 writes for a record, as the parser reads it back: epoch ms cut to the second. */
export function s3EpochMs(r: CaptureRecord): number {
  return Math.floor(captureMs(r) / 1000) * 1000
}

/** The S3 request id toS3 writes for a record (what the parser reads back as requestId), or undefined. */
export function s3RequestId(r: CaptureRecord): string | undefined {
  return /^[0-9a-f]{16,}$/i.test(r.request_id) ? r.request_id.slice(0, 16).toUpperCase() : undefined
}

/** S3's extended request id (x-amz-id-2): 76 chars of base64, here derived from the request id. */
function hostId(r: CaptureRecord): string {
  const hex = /^[0-9a-f]+$/i.test(r.request_id) ? r.request_id : '0'
  return Buffer.from(hex.repeat(Math.ceil(112 / hex.length)).slice(0, 112), 'hex').toString('base64')
}

function s3ErrorCode(status: number): string {
  return status === 404 ? 'NoSuchKey' : status === 403 ? 'AccessDenied' : status >= 500 ? 'InternalError' : '-'
}

/** Seconds as S3's whole milliseconds, `-` when unknown. */
const millis = (s: number | undefined): string => (s === undefined ? '-' : String(Math.round(s * 1000)))

export function toS3(r: CaptureRecord): string {
  const host = r.host === '' ? 'webapp.example.com' : r.host
  const q = r.request_uri.indexOf('?')
  const path = q < 0 ? r.request_uri : r.request_uri.slice(0, q)
  const method = r.request_method
  const operation = method === 'GET' || method === 'HEAD' ? `WEBSITE.${method}.OBJECT` : method === '' ? 'WEBSITE.GET.OBJECT' : `REST.${method}.OBJECT`
  const key = path === '' || path === '/' ? 'index.html' : path.endsWith('/') ? `${path.slice(1)}index.html` : path.slice(1)
  // Website endpoints speak HTTP/1.x only (an HTTP/2 client reaches them through CloudFront, which asks in HTTP/1.1).
  const request = method === '' ? '"-"' : `"${method} ${r.request_uri} ${r.server_protocol === 'HTTP/1.0' ? 'HTTP/1.0' : 'HTTP/1.1'}"`
  const body = r.body_bytes_sent
  const fields = [
    OWNER,
    host,
    s3Time(captureMs(r)),
    orDash(r.remote_addr),
    '-',
    s3RequestId(r) ?? '-',
    operation,
    key,
    request,
    String(r.status),
    s3ErrorCode(r.status),
    body > 0 ? String(body) : '-',
    r.status === 200 && body > 0 ? String(body) : '-',
    millis(seconds(r.request_time) ?? 0),
    millis(seconds(r.upstream_response_time)),
    `"${orDash(r.http_referer)}"`,
    `"${orDash(r.http_user_agent)}"`,
    '-',
    hostId(r),
    '-',
    '-',
    '-',
    host,
    '-',
    '-',
    '-',
  ]
  return fields.join(' ')
}

/** `2026-11-30T07:18:26.070000Z`: ELB's microsecond ISO time. */
function elbTime(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z')
}

const micro = (s: number): string => s.toFixed(6)

export function toElbClassic(r: CaptureRecord): string {
  const h2 = r.server_protocol === 'HTTP/2.0'
  const host = r.host === '' ? 'localhost' : r.host
  const origin = h2 ? `https://${host}:443` : `http://${host}:80`
  const backend = lastUpstream(r.upstream_addr) ?? '-'
  const dispatched = backend !== '-'
  const upstreamTime = seconds(r.upstream_response_time)
  const protocol = r.server_protocol === '' || h2 ? 'HTTP/1.1' : r.server_protocol
  const request = r.request_method === '' ? `- ${origin}- -` : `${r.request_method} ${origin}${r.request_uri} ${protocol}`
  const fields = [
    elbTime(captureMs(r)),
    'skewscan-lab',
    `${r.remote_addr}:${clientPort(r)}`,
    backend,
    dispatched ? '0.000041' : '-1',
    dispatched ? micro(upstreamTime ?? 0) : '-1',
    dispatched ? '0.000022' : '-1',
    String(r.status),
    dispatched ? (lastOf(r.upstream_status) ?? '-') : '-',
    '0',
    String(r.body_bytes_sent),
    `"${request}"`,
    `"${orDash(r.http_user_agent)}"`,
    h2 ? 'ECDHE-RSA-AES128-GCM-SHA256' : '-',
    h2 ? 'TLSv1.2' : '-',
  ]
  return fields.join(' ')
}
