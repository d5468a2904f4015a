/** Datadog Log Explorer CSV exports (list view): with facet columns, and with the raw message only. */
import {isoMs} from '../time'
import type {SimRequest} from '../types'
import {DEFAULT_CONTEXT} from './context'
import type {WriterContext} from './context'
import {ddInnerAttributes} from './datadog'
import {ingressLine} from './nginx'

/** RFC 4180 quoting: quote a cell holding `"`, `,`, CR or LF, doubling its quotes. */
export function csvCell(value: string | number): string {
  const s = String(value)
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

export const csvRow = (cells: (string | number)[]): string => cells.map(csvCell).join(',')

export const EXPLORER_HEADER = [
  'Date',
  'Host',
  'Service',
  '@http.method',
  '@http.url_details.path',
  '@http.status_code',
  '@network.bytes_written',
  '@network.client.ip',
  '@http.useragent',
  '@http.referer',
  '@network.destination.ip',
  '@network.destination.port',
  '@http.request_id',
  '@http.url_details.host',
  '@proxy.name',
  'Content',
]

/** Facet cells are JSON-encoded strings (`"ingress-nginx"` with its quotes); numbers are bare. */
export function explorerCsvRow(r: SimRequest, ctx: WriterContext = DEFAULT_CONTEXT): string {
  const attrs = ddInnerAttributes(r) as {network: {destination: {ip: string; port: number}}}
  const j = JSON.stringify
  return csvRow([
    isoMs(r.time),
    j(ctx.host),
    j(ctx.service),
    j(r.method),
    j(r.path),
    r.status,
    r.bytes,
    j(r.clientIp),
    j(r.userAgent),
    j(r.referer),
    j(attrs.network.destination.ip),
    attrs.network.destination.port,
    j(r.requestId),
    j(r.vhost),
    j(r.upstreamName),
    ingressLine(r, ctx),
  ])
}

export const EXPLORER_RAW_HEADER = ['Date', 'Host', 'Service', 'Message']

/** The minimal export: host and service as plain text, the raw line as the message. */
export function explorerRawCsvRow(r: SimRequest, ctx: WriterContext = DEFAULT_CONTEXT): string {
  return csvRow([isoMs(r.time), ctx.host, ctx.service, ingressLine(r, ctx)])
}
