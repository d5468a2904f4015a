import type {AccessRecord} from './balancer'

/** Where the log says it came from: the ingress controller's host, the service, the upstream name. */
export interface LogContext {
  service: string
  host: string
  env: string
  /** $proxy_upstream_name: `<namespace>-<service>-<port>`. */
  upstreamName: string
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const two = (n: number): string => String(n).padStart(2, '0')

/** nginx's $time_local in UTC: `30/Nov/2026:10:00:05 +0000` (whole seconds). */
export function timeLocal(ms: number): string {
  const d = new Date(ms)
  return `${two(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`
}

/** nginx's default log escaping: `"`, `\`, control and non-ASCII bytes as `\xHH`. */
export function nginxEscape(s: string): string {
  let out = ''
  for (const byte of Buffer.from(s, 'utf8')) {
    out += byte === 0x22 || byte === 0x5c || byte < 0x20 || byte > 0x7e ? `\\x${byte.toString(16).toUpperCase().padStart(2, '0')}` : String.fromCharCode(byte)
  }
  return out
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3)

/** $upstream_addr, $upstream_response_length, $upstream_response_time and $upstream_status: comma lists after retries. */
function upstreamFields(r: AccessRecord): {addr: string; length: string; time: string; status: string} {
  if (r.upstreams.length === 0) return {addr: '-', length: '-', time: '-', status: '-'}
  return {
    addr: r.upstreams.map((u) => u.address).join(', '),
    length: r.upstreams.map((u) => String(u.bytes)).join(', '),
    time: r.upstreams.map((u) => seconds(u.ms)).join(', '),
    status: r.upstreams.map((u) => String(u.status)).join(', '),
  }
}

/** ingress-nginx's default `log-format-upstream` line. */
export function ingressLine(r: AccessRecord, ctx: LogContext): string {
  const u = upstreamFields(r)
  const q = (v: string | undefined): string => (v === undefined || v === '' ? '-' : nginxEscape(v))
  return `${r.clientIp} - - [${timeLocal(r.time)}] "${nginxEscape(`${r.method} ${r.uri} HTTP/1.1`)}" ${r.status} ${r.bytes} ` +
    `"${q(r.referer)}" "${q(r.userAgent)}" ${r.requestLength} ${seconds(r.ms)} [${ctx.upstreamName}] [] ` +
    `${u.addr} ${u.length} ${u.time} ${u.status} ${r.requestId}`
}

function statusCategory(code: number): string {
  return code < 300 ? 'OK' : code < 400 ? 'notice' : code < 500 ? 'warning' : 'error'
}

function logStatus(code: number): string {
  return code < 300 ? 'ok' : code < 400 ? 'notice' : code < 500 ? 'warn' : 'error'
}

/**
 * One Datadog Logs API v2 item, as the nginx-ingress-controller pipeline leaves it (the wire shape of
 * fixtures/*\/dd-events.ndjson), with a millisecond timestamp. As in the real pipeline, the
 * destination is the first upstream tried; the answering pod is the last one in the message.
 */
export function datadogEvent(r: AccessRecord, ctx: LogContext): Record<string, unknown> {
  const q = r.uri.indexOf('?')
  const path = q === -1 ? r.uri : r.uri.slice(0, q)
  const query = q === -1 ? undefined : Object.fromEntries(new URLSearchParams(r.uri.slice(q + 1)))
  const first = r.upstreams[0]
  const colon = first ? first.address.lastIndexOf(':') : -1
  return {
    id: Buffer.from(r.requestId, 'hex').toString('base64').replace(/=+$/, ''),
    type: 'log',
    attributes: {
      timestamp: new Date(r.time).toISOString(), host: ctx.host, service: ctx.service, status: logStatus(r.status),
      message: ingressLine(r, ctx),
      tags: ['source:nginx-ingress-controller', `service:${ctx.service}`, `env:${ctx.env}`],
      attributes: {
        http: {
          method: r.method, url: r.uri, url_details: query ? {path, queryString: query} : {path}, status_code: r.status,
          referer: r.referer ?? '-', useragent: r.userAgent ?? '-', request_id: r.requestId, version: '1.1', status_category: statusCategory(r.status),
        },
        network: {
          client: {ip: r.clientIp}, bytes_written: r.bytes, bytes_read: first?.bytes ?? 0,
          ...(first ? {destination: {ip: first.address.slice(0, colon), port: Number(first.address.slice(colon + 1))}} : {}),
        },
        proxy: {name: ctx.upstreamName},
        date_access: r.time - (r.time % 1000),
        duration: r.ms * 1_000_000,
      },
    },
  }
}
