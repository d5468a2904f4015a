/**
 * Writers: one request of a real nginx JSON capture rendered as an AWS Application Load Balancer
 * and as CloudFront (standard log v1.0) would have logged it, for round-trip tests of
 * src/normalize/formats/aws.ts.
 *
 * Both formats count the response headers in their byte field, so the byte count is nginx's
 * `bytes_sent` (headers and body as nginx really sent them), not `body_bytes_sent`.
 *
 * ALB (`toAlb`):
 * - time from msec, to the microsecond as ALB writes it (`…26.070000Z`): millisecond resolution.
 * - type `h2` for HTTP/2.0, else `http`; the request URL is `http://HOST:80/URI` (`https…:443` for h2).
 * - client `remote_addr:PORT`, the port derived from request_id (the capture has none).
 * - target:port is the last address of upstream_addr (the one that answered), `-` when none.
 * - trace_id is `Root=1-<epoch seconds, 8 hex>-<first 24 hex of request_id>` (albTraceId): ALB
 *   makes its own X-Amzn-Trace-Id, it cannot carry nginx's request_id whole.
 * - nginx's 499 (the client closed the connection) is what ALB logs as 460 with target status `-`.
 * - A request nginx could not read (no method) is written `"- http://HOST:80- -"`: missing-path.
 * - ALB does not log the Referer.
 *
 * CloudFront (`toCloudfront`):
 * - date and time from msec, to the second (CloudFront's resolution).
 * - user agent and referer percent-encoded as CloudFront does (space %20); cs-uri-stem and
 *   cs-uri-query split from request_uri as requested.
 * - x-edge-request-id is request_id; x-host-header is host; cs(Host) a cloudfront.net name.
 * - 499 is CloudFront's sc-status 000 (rejected as bad-status, as a real line would be).
 * - No upstream: CloudFront does not log which origin server answered.
 */
import {lastUpstream} from '../../../src/normalize/access-line'
import {type CaptureRecord, captureMs, orDash, seconds} from './capture-record'

export type {CaptureRecord} from './capture-record'

/** `2026-11-30T07:18:26.070000Z`: ALB's microsecond ISO time. */
function albTime(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z')
}

function lastOf(list: string): string | undefined {
  const v = list.split(/[,:]\s+/).pop()?.trim()
  return v === undefined || v === '' || v === '-' ? undefined : v
}

function clientPort(r: CaptureRecord): number {
  const h = parseInt(r.request_id.slice(0, 4), 16)
  return 1024 + (Number.isFinite(h) ? h % 60000 : 0)
}

/** The X-Amzn-Trace-Id toAlb writes for a record (what the parser reads back as requestId), or undefined. */
export function albTraceId(r: CaptureRecord): string | undefined {
  if (!/^[0-9a-f]{24,}$/i.test(r.request_id)) return undefined
  const secs = Math.floor(captureMs(r) / 1000).toString(16).padStart(8, '0')
  return `Root=1-${secs}-${r.request_id.slice(0, 24).toLowerCase()}`
}

/** The status ALB logs for the request (nginx's 499, a client gone, is ALB's 460). */
export function albStatus(r: CaptureRecord): number {
  return r.status === 499 ? 460 : r.status
}

export function toAlb(r: CaptureRecord): string {
  const ms = captureMs(r)
  const h2 = r.server_protocol === 'HTTP/2.0'
  const host = r.host === '' ? 'localhost' : r.host
  const origin = h2 ? `https://${host}:443` : `http://${host}:80`
  const target = lastUpstream(r.upstream_addr) ?? '-'
  const status = albStatus(r)
  // A 460 (client gone) still names the target the request was routed to, as ALB logs it.
  const routed = target !== '-'
  const answered = routed && status !== 460
  const upstreamTime = seconds(r.upstream_response_time)
  const requestTime = seconds(r.request_time) ?? 0
  const request = r.request_method === '' ? `- ${origin}- -` : `${r.request_method} ${origin}${r.request_uri} ${r.server_protocol}`
  const targetStatus = answered ? (lastOf(r.upstream_status) ?? '-') : '-'
  const tg = `arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/${orDash(r.proxy_upstream_name)}/73e2d6bc24d8a067`
  const fields = [
    h2 ? 'h2' : 'http',
    albTime(ms),
    'app/skewscan-lab/50dc6c495c0c9188',
    `${r.remote_addr}:${clientPort(r)}`,
    target,
    answered ? '0.000' : '-1',
    answered && upstreamTime !== undefined ? upstreamTime.toFixed(3) : '-1',
    answered ? '0.000' : '-1',
    String(status),
    targetStatus,
    String(r.request_length === '' ? 0 : r.request_length),
    String(r.bytes_sent),
    `"${request}"`,
    `"${orDash(r.http_user_agent)}"`,
    h2 ? 'ECDHE-RSA-AES128-GCM-SHA256' : '-',
    h2 ? 'TLSv1.2' : '-',
    routed ? tg : '-',
    `"${albTraceId(r) ?? '-'}"`,
    h2 ? `"${host}"` : '"-"',
    h2 ? '"arn:aws:acm:eu-west-1:123456789012:certificate/12345678-1234-1234-1234-123456789012"' : '"-"',
    routed ? '0' : '-',
    albTime(ms - Math.round(requestTime * 1000)),
    routed ? '"forward"' : '"-"',
    '"-"',
    '"-"',
    `"${target}"`,
    `"${targetStatus}"`,
    '"-"',
    '"-"',
    `TID_${r.request_id === '' ? '0'.repeat(32) : r.request_id}`,
  ]
  return fields.join(' ')
}

/** Percent-encodes as CloudFront does in cs(User-Agent) and cs(Referer): controls, space, non-ASCII, `%`, `"`, `\`. */
function cfEncode(v: string): string {
  let out = ''
  for (const ch of v) {
    const c = ch.codePointAt(0) as number
    if (c > 0x20 && c < 0x7f && ch !== '%' && ch !== '"' && ch !== '\\') {
      out += ch
      continue
    }
    for (const b of Buffer.from(ch, 'utf8')) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/** The sc-status CloudFront logs (nginx's 499 is `000`: no response reached the viewer). */
export function cloudfrontStatus(r: CaptureRecord): string {
  return r.status === 499 ? '000' : String(r.status)
}

export function toCloudfront(r: CaptureRecord): string {
  const iso = new Date(captureMs(r)).toISOString()
  const q = r.request_uri.indexOf('?')
  const stem = r.request_method === '' ? '-' : q < 0 ? r.request_uri : r.request_uri.slice(0, q)
  const query = q < 0 || r.request_method === '' ? '-' : orDash(r.request_uri.slice(q + 1))
  const requestTime = (seconds(r.request_time) ?? 0).toFixed(3)
  const fields = [
    iso.slice(0, 10),
    iso.slice(11, 19),
    'FRA56-P1',
    String(r.bytes_sent),
    r.remote_addr,
    orDash(r.request_method),
    'd111111abcdef8.cloudfront.net',
    stem,
    cloudfrontStatus(r),
    r.http_referer === '' ? '-' : cfEncode(r.http_referer),
    r.http_user_agent === '' ? '-' : cfEncode(r.http_user_agent),
    query,
    '-',
    'Miss',
    orDash(r.request_id),
    orDash(r.host),
    'https',
    String(r.request_length === '' ? 0 : r.request_length),
    requestTime,
    '-',
    'TLSv1.3',
    'TLS_AES_128_GCM_SHA256',
    'Miss',
    orDash(r.server_protocol),
    '-',
    '-',
    String(clientPort(r)),
    requestTime,
    'Miss',
    '-',
    String(r.body_bytes_sent),
    '-',
    '-',
  ]
  return fields.join('\t')
}
