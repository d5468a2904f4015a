/**
 * Datadog shapes of the ingress access logs: Logs API v2 items (parsed by the nginx-ingress-controller
 * pipeline), search-response pages, the legacy v1 list, and events no pipeline parsed.
 */
import {isoMs} from '../time'
import type {SimRequest} from '../types'
import {DEFAULT_CONTEXT} from './context'
import type {WriterContext} from './context'
import {ingressLine, requestUri, upstreamFields} from './nginx'

function statusCategory(code: number): string {
  if (code < 300) return 'OK'
  if (code < 400) return 'notice'
  if (code < 500) return 'warning'
  return 'error'
}

function logStatus(code: number): 'ok' | 'notice' | 'warn' | 'error' {
  if (code < 300) return 'ok'
  if (code < 400) return 'notice'
  if (code < 500) return 'warn'
  return 'error'
}

/** The tags the agent puts on the ingress controller's logs: the controller's own (its namespace and Deployment), never an app's. */
export function ddTags(ctx: WriterContext): string[] {
  return ['source:nginx-ingress-controller', `env:${ctx.env}`, 'kube_namespace:ingress-nginx', 'kube_deployment:ingress-nginx-controller']
}

function queryObject(query: string): Record<string, string> | undefined {
  if (!query) return undefined
  const out: Record<string, string> = {}
  for (const part of query.split('&')) {
    const i = part.indexOf('=')
    if (i < 0) out[part] = ''
    else out[part.slice(0, i)] = part.slice(i + 1)
  }
  return out
}

/**
 * The inner `attributes` the pipeline extracts from the line. Like the real pipeline, the
 * destination and `bytes_read` come from the FIRST upstream of a retried list. The app is only in
 * `proxy.name` (the upstream) and `http.url_details.host`: the log's `service` is the controller's.
 */
export function ddInnerAttributes(r: SimRequest): Record<string, unknown> {
  const u = upstreamFields(r)
  const firstAddr = (u.addr.split(',')[0] as string).trim()
  const colon = firstAddr.lastIndexOf(':')
  const firstLength = Number((u.length.split(',')[0] as string).trim())
  const query = queryObject(r.query)
  return {
    http: {
      method: r.method,
      url: requestUri(r),
      url_details: query ? {host: r.vhost, path: r.path, queryString: query} : {host: r.vhost, path: r.path},
      status_code: r.status,
      referer: r.referer,
      useragent: r.userAgent,
      request_id: r.requestId,
      version: '1.1',
      status_category: statusCategory(r.status),
    },
    network: {
      client: {ip: r.clientIp},
      bytes_written: r.bytes,
      bytes_read: firstLength,
      destination: {ip: firstAddr.slice(0, colon), port: Number(firstAddr.slice(colon + 1))},
    },
    proxy: {name: r.upstreamName},
    // $time_local has one-second resolution, whatever the simulation's resolution.
    date_access: r.time - (r.time % 1000),
    duration: r.requestTimeMs * 1_000_000,
  }
}

export interface DdEvent {
  id: string
  type: 'log'
  attributes: {
    timestamp: string
    host: string
    service: string
    status: string
    message: string
    tags: string[]
    attributes?: Record<string, unknown>
  }
}

/** One Logs API v2 item, as the nginx-ingress-controller pipeline leaves it. */
export function ddEvent(r: SimRequest, ctx: WriterContext = DEFAULT_CONTEXT): DdEvent {
  return {
    id: r.eventId,
    type: 'log',
    attributes: {
      timestamp: isoMs(r.time),
      host: ctx.host,
      service: ctx.service,
      status: logStatus(r.status),
      message: ingressLine(r, ctx),
      tags: ddTags(ctx),
      attributes: ddInnerAttributes(r),
    },
  }
}

export const ddEventLine = (r: SimRequest, ctx: WriterContext = DEFAULT_CONTEXT): string => JSON.stringify(ddEvent(r, ctx))

/**
 * An event no pipeline parsed: only the raw line. Its timestamp is the intake time, a few hundred
 * milliseconds after the logged second (as in Datadog's own recordings), so the line's time is the truth.
 */
export function ddUnparsedEvent(r: SimRequest, ctx: WriterContext = DEFAULT_CONTEXT): DdEvent {
  const delay = 1 + (parseInt(r.requestId.slice(0, 4), 16) % 999)
  return {
    id: r.eventId,
    type: 'log',
    attributes: {
      timestamp: isoMs(r.time + delay),
      host: ctx.host,
      service: ctx.service,
      status: 'info',
      message: ingressLine(r, ctx),
      tags: ['source:nginx-ingress-controller', 'datadog.pipelines:false'],
    },
  }
}

export const ddUnparsedLine = (r: SimRequest, ctx: WriterContext = DEFAULT_CONTEXT): string =>
  JSON.stringify(ddUnparsedEvent(r, ctx))

/** One item of the legacy `POST /api/v1/logs-queries/list` response. */
export function ddV1Log(r: SimRequest, ctx: WriterContext = DEFAULT_CONTEXT): Record<string, unknown> {
  return {
    id: r.eventId,
    content: {
      timestamp: isoMs(r.time),
      host: ctx.host,
      service: ctx.service,
      message: ingressLine(r, ctx),
      tags: ddTags(ctx),
      attributes: ddInnerAttributes(r),
    },
  }
}

/** A `{"logs":[…],"nextLogId":null,"status":"done"}` document, one log per line. */
export function ddV1Document(logs: Iterable<Record<string, unknown>>): string {
  const items: string[] = []
  for (const l of logs) items.push(JSON.stringify(l))
  return `{"logs":[\n${items.join(',\n')}\n],"nextLogId":null,"status":"done"}\n`
}

export interface PageOptions {
  pageSize: number
  query: string
  from: string
  to: string
}

function cursorFor(last: DdEvent): string {
  return Buffer.from(JSON.stringify({after: [last.attributes.timestamp, last.id]})).toString('base64url')
}

/**
 * Logs API v2 search responses for events already in the order to page them (newest first for
 * `sort=-timestamp`). Every non-empty page carries a cursor, as the real API does even on a short last
 * page; the document after the last page is `{"data":[]}`. One document after another, each event of
 * a page on a line of its own (as saved pages usually look: `{"data":[\n{…},\n{…}\n],"meta":…}`).
 */
export function ddPagesDocuments(events: DdEvent[], opt: PageOptions): string[] {
  const docs: string[] = []
  for (let i = 0; i < events.length; i += opt.pageSize) {
    const data = events.slice(i, i + opt.pageSize)
    const cursor = cursorFor(data[data.length - 1] as DdEvent)
    const next =
      'https://api.datadoghq.com/api/v2/logs/events?' +
      `filter%5Bfrom%5D=${encodeURIComponent(opt.from)}&filter%5Bquery%5D=${encodeURIComponent(opt.query)}` +
      `&filter%5Bto%5D=${encodeURIComponent(opt.to)}&page%5Bcursor%5D=${cursor}&page%5Blimit%5D=${opt.pageSize}&sort=-timestamp`
    const tail = JSON.stringify({meta: {page: {after: cursor}}, links: {next}}).slice(1)
    docs.push(`{"data":[\n${data.map((e) => JSON.stringify(e)).join(',\n')}\n],${tail}`)
  }
  docs.push('{"data":[]}')
  return docs
}
