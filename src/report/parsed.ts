import type {ParsedRecord} from '../model/parse-outcome'
import {type Column, fitTable} from './fit-table'
import {inertJson, terminalSafe, truncate} from './sanitize'

/** One `parse` NDJSON line: every field as read (null when the log did not carry it), or the rejection. */
export function parsedJsonLine(r: ParsedRecord): string {
  if ('rejection' in r) return `${inertJson(JSON.stringify({file: r.file, line: r.line, rejected: r.rejection.reason, detail: r.rejection.detail ?? null}))}\n`
  const e = r.event
  return `${inertJson(JSON.stringify({
    file: r.file, line: r.line, time: new Date(e.time).toISOString(), app: r.app,
    method: e.method, path: e.path, status: e.status, bytes: e.bytes, bytesCount: r.bytesCount,
    client: e.clientIp || null, userAgent: e.userAgent || null, referer: e.referer ?? null,
    upstream: e.upstream ?? null, upstreamName: e.upstreamName ?? null, requestId: e.requestId ?? null, vhost: e.vhost ?? null,
    session: e.session ?? null, requestTime: e.requestTime ?? null, upstreamTime: e.upstreamTime ?? null, extra: e.extra ?? null,
  }))}\n`
}

const cell = (s: string | undefined | null, max = 200): string => (s ? truncate(terminalSafe(s), max) : '-')

/** `parse --format table`: a quick look, one row per record, rejected ones with their reason. */
export function parsedTable(rows: readonly ParsedRecord[], width: number | undefined): string {
  const col = (head: string, f: (r: ParsedRecord) => string | number, extra: Partial<Column> = {}): Column => ({head, cells: rows.map(f), ...extra})
  const ev = <T>(f: (r: Extract<ParsedRecord, {event: unknown}>) => T, otherwise: T) => (r: ParsedRecord): T => ('event' in r ? f(r) : otherwise)
  const columns: Column[] = [
    // One file: the line alone; several: which file too.
    new Set(rows.map((r) => r.file)).size > 1 ? col('FILE:LINE', (r) => `${cell(r.file, 60)}:${r.line}`, {shrink: true}) : col('LINE', (r) => r.line, {align: 'right'}),
    col('TIME', ev((r) => new Date(r.event.time).toISOString().replace('T', ' ').replace('Z', ''), 'rejected')),
    col('APP', ev((r) => cell(r.app), ''), {drop: 3, shrink: true}),
    col('METHOD', ev((r) => cell(r.event.method, 12), ''), {drop: 5}),
    col('PATH', (r) => ('event' in r ? cell(r.event.path) : `${r.rejection.reason}: ${cell(r.rejection.detail)}`), {shrink: true}),
    col('STATUS', ev<string | number>((r) => r.event.status, ''), {align: 'right'}),
    col('BYTES', ev((r) => `${r.event.bytes}${r.bytesCount === 'response' ? '*' : ''}`, ''), {align: 'right'}),
    col('CLIENT', ev((r) => cell(r.event.clientIp, 45), ''), {drop: 4}),
    col('UPSTREAM', ev((r) => cell(r.event.upstream, 60), ''), {drop: 2}),
    col('USER AGENT', ev((r) => cell(r.event.userAgent), ''), {drop: 1, shrink: true}),
  ]
  const fitted = fitTable(columns, width)
  const notes: string[] = []
  if (rows.some((r) => 'event' in r && r.bytesCount === 'response')) notes.push('* the format counts the response headers with the body')
  if (fitted.dropped.length > 0) notes.push(`Left out to fit: ${fitted.dropped.join(', ')} (--wide shows them)`)
  return `${fitted.text}\n${notes.map((n) => `${n}\n`).join('')}`
}
