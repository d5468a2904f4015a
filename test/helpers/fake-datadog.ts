/**
 * A Datadog-compatible HTTP server on 127.0.0.1:0 for tests: Logs search (cursor pages, the
 * trailing empty page), Logs aggregate (count total/timeseries, group by a facet), Events v2 search
 * and v1 list, key checks, X-RateLimit-* headers, and programmable faults per request. It serves
 * the traffic of a shipped fixture; the real client talks to it over HTTP.
 */
import {createHash} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {compileQuery, docOf, type SearchDoc} from './fake-datadog-query'

export type Endpoint = 'logs-search' | 'logs-aggregate' | 'events-search' | 'events-v1'

export type Fault =
  | {kind: 'status'; status: number; body?: string; contentType?: string; headers?: Record<string, string>; noRateHeaders?: boolean}
  /** Answers normally, but only after this long (longer than the client's timeout). */
  | {kind: 'slow'; ms: number}
  /** Sends the headers and half the body, then destroys the socket. */
  | {kind: 'cut'}
  /** Closes the connection without answering. */
  | {kind: 'hang-up'}
  | {kind: 'invalid-cursor'}

export interface FaultRule {
  endpoint: Endpoint | 'any'
  fault: Fault
  /** Matching requests to let through first. */
  after?: number
  /** How many matching requests get the fault (default 1; Infinity: all). */
  times?: number
  /** Only requests that carry a page cursor. */
  withCursor?: boolean
}

export const faults = {
  /** Without `resetSeconds`, the answer carries no X-RateLimit-* header at all (a proxy's 429). */
  rateLimited: (resetSeconds?: number): Fault => ({
    kind: 'status', status: 429, body: '{"errors":["Rate limit exceeded"]}',
    ...(resetSeconds === undefined ? {noRateHeaders: true} : {headers: {'x-ratelimit-reset': String(resetSeconds), 'x-ratelimit-remaining': '0'}}),
  }),
  status: (status: number): Fault => ({kind: 'status', status, body: JSON.stringify({errors: [`Internal error ${status}`]})}),
  htmlUnavailable: (): Fault => ({kind: 'status', status: 503, contentType: 'text/html', body: '<html><head><title>503 Service Temporarily Unavailable</title></head><body><center><h1>503 Service Temporarily Unavailable</h1></center></body></html>'}),
  forbidden: (body = '{"errors":["Forbidden"]}'): Fault => ({kind: 'status', status: 403, body}),
  unauthorized: (): Fault => ({kind: 'status', status: 401, body: '{"errors":["Unauthorized"]}'}),
  slow: (ms: number): Fault => ({kind: 'slow', ms}),
  cut: (): Fault => ({kind: 'cut'}),
  hangUp: (): Fault => ({kind: 'hang-up'}),
  invalidCursor: (): Fault => ({kind: 'invalid-cursor'}),
}

export interface RecordedRequest {
  endpoint: Endpoint | 'unknown'
  method: string
  url: string
  headers: Record<string, string | string[] | undefined>
  /** The parsed JSON body (POST), or undefined. */
  body: any
  raw: string
  status: number
  /** When it arrived (epoch ms). */
  at: number
}

export interface FakeDatadogOptions {
  /** Log items as Datadog returns them (API v2 wire shape). */
  logs: Record<string, unknown>[]
  /** Event items (Events API v2 wire shape). */
  events?: Record<string, unknown>[]
  apiKey: string
  appKey: string
  /** The server returns at most this many items a page, whatever the limit asked (short pages). */
  maxPageSize?: number
  /** Enforced rate limit per endpoint (default: generous, headers only). */
  rateLimit?: {limit: number; periodSeconds: number}
  /** Refuse the aggregate API (400 "not a facet"), as for an org without the facet. */
  noAggregate?: boolean
  /** Delay every search answer (to stretch a run for interruption tests). */
  searchDelayMs?: number
}

interface Indexed {
  item: Record<string, unknown>
  time: number
  doc: SearchDoc
}

export class FakeDatadog {
  readonly requests: RecordedRequest[] = []
  url = ''
  private readonly server: Server
  private readonly logs: Indexed[]
  private readonly events: Indexed[]
  private rules: (FaultRule & {left: number; skip: number})[] = []
  private readonly used = new Map<string, {count: number; windowStart: number}>()
  private readonly opts: FakeDatadogOptions

  private constructor(opts: FakeDatadogOptions) {
    this.opts = opts
    this.logs = index(opts.logs)
    this.events = index(opts.events ?? [])
    this.server = createServer((req, res) => void this.handle(req, res))
  }

  static async start(opts: FakeDatadogOptions): Promise<FakeDatadog> {
    const fake = new FakeDatadog(opts)
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve))
    fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`
    return fake
  }

  /** Loads a shipped fixture: its dd-events.ndjson logs and deploy-events-v2.json events. */
  static fixture(root: string, scenario: string): {logs: Record<string, unknown>[]; events: Record<string, unknown>[]} {
    const dir = join(root, 'fixtures', scenario)
    const logs = readFileSync(join(dir, 'dd-events.ndjson'), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l))
    const events = JSON.parse(readFileSync(join(dir, 'deploy-events-v2.json'), 'utf8')).data
    return {logs, events}
  }

  inject(rule: FaultRule): void {
    this.rules.push({...rule, left: rule.times ?? 1, skip: rule.after ?? 0})
  }

  clearFaults(): void {
    this.rules = []
  }

  /** The server's logs a query selects in [from, to), oldest first: what a pull must yield. */
  select(query: string, from: number, to: number): Record<string, unknown>[] {
    const m = compileQuery(query)
    return this.logs.filter((x) => x.time >= from && x.time < to && m(x.doc)).map((x) => x.item)
  }

  requestsTo(endpoint: Endpoint): RecordedRequest[] {
    return this.requests.filter((r) => r.endpoint === endpoint)
  }

  async close(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await new Promise<string>((resolve) => {
      let b = ''
      req.setEncoding('utf8')
      req.on('data', (c: string) => (b += c))
      req.on('end', () => resolve(b))
      req.on('error', () => resolve(b))
    })
    const url = new URL(req.url ?? '/', 'http://fake')
    const endpoint = endpointOf(req.method ?? '', url.pathname)
    let body: any
    try {
      body = raw === '' ? undefined : JSON.parse(raw)
    } catch {
      body = undefined
    }
    const rec: RecordedRequest = {endpoint, method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, raw, status: 0, at: Date.now()}
    this.requests.push(rec)
    const send = (status: number, payload: unknown, extra: Record<string, string> = {}, contentType = 'application/json', rateHeaders = true): void => {
      rec.status = status
      const text = typeof payload === 'string' ? payload : JSON.stringify(payload)
      res.writeHead(status, {'content-type': contentType, 'content-length': Buffer.byteLength(text), ...(rateHeaders ? this.rateHeaders(endpoint) : {}), ...extra})
      res.end(text)
    }
    if (endpoint === 'unknown') return send(404, {errors: ['Not found']})
    if (req.headers['dd-api-key'] !== this.opts.apiKey || req.headers['dd-application-key'] !== this.opts.appKey) {
      return send(403, {errors: ['Forbidden']})
    }
    const fault = this.faultFor(endpoint, body, url)
    if (fault?.kind === 'status') return send(fault.status, fault.body ?? '', fault.headers ?? {}, fault.contentType ?? 'application/json', !fault.noRateHeaders)
    if (fault?.kind === 'invalid-cursor') return send(400, {errors: ['Invalid cursor: the cursor is invalid or has expired (invalid cursor)']})
    if (fault?.kind === 'hang-up') {
      rec.status = -1
      req.socket.destroy()
      return
    }
    if (this.overLimit(endpoint)) return send(429, {errors: ['Rate limit exceeded']})
    let status: number
    let payload: unknown
    try {
      ;[status, payload] = this.answer(endpoint, body, url)
    } catch (error: unknown) {
      ;[status, payload] = [400, {errors: [error instanceof Error ? error.message : String(error)]}]
    }
    if (fault?.kind === 'slow') await sleep(fault.ms)
    else if (endpoint === 'logs-search' && this.opts.searchDelayMs) await sleep(this.opts.searchDelayMs)
    if (res.destroyed || req.socket.destroyed) {
      rec.status = -1
      return
    }
    if (fault?.kind === 'cut') {
      rec.status = -1
      const text = JSON.stringify(payload)
      res.writeHead(200, {'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...this.rateHeaders(endpoint)})
      res.write(text.slice(0, Math.floor(text.length / 2)))
      setTimeout(() => req.socket.destroy(), 10)
      return
    }
    send(status, payload)
  }

  private faultFor(endpoint: Endpoint, body: any, url: URL): Fault | undefined {
    const hasCursor = body?.page?.cursor !== undefined || url.searchParams.has('page[cursor]')
    for (const r of this.rules) {
      if (r.endpoint !== 'any' && r.endpoint !== endpoint) continue
      if (r.withCursor && !hasCursor) continue
      if (r.left <= 0) continue
      if (r.skip > 0) {
        r.skip--
        continue
      }
      r.left--
      return r.fault
    }
    return undefined
  }

  private window(endpoint: Endpoint): {count: number; windowStart: number} {
    const period = (this.opts.rateLimit?.periodSeconds ?? 3600) * 1000
    const now = Date.now()
    let w = this.used.get(endpoint)
    if (!w || now - w.windowStart >= period) this.used.set(endpoint, (w = {count: 0, windowStart: now}))
    return w
  }

  private overLimit(endpoint: Endpoint): boolean {
    const w = this.window(endpoint)
    w.count++
    return this.opts.rateLimit !== undefined && w.count > this.opts.rateLimit.limit
  }

  private rateHeaders(endpoint: Endpoint | 'unknown'): Record<string, string> {
    if (endpoint === 'unknown') return {}
    const limit = this.opts.rateLimit?.limit ?? 300
    const periodSeconds = this.opts.rateLimit?.periodSeconds ?? 3600
    const w = this.window(endpoint)
    return {
      'x-ratelimit-limit': String(limit), 'x-ratelimit-period': String(periodSeconds),
      'x-ratelimit-remaining': String(Math.max(0, limit - w.count)),
      'x-ratelimit-reset': String(Math.max(0, Math.ceil((w.windowStart + periodSeconds * 1000 - Date.now()) / 1000))),
      'x-ratelimit-name': endpoint === 'logs-search' ? 'logs_query' : endpoint === 'logs-aggregate' ? 'logs_aggregate' : 'events',
    }
  }

  private answer(endpoint: Endpoint, body: any, url: URL): [number, unknown] {
    switch (endpoint) {
      case 'logs-search': return this.search(this.logs, body, '/api/v2/logs/events')
      case 'events-search': return this.search(this.events, body, '/api/v2/events')
      case 'logs-aggregate': return this.aggregate(body)
      case 'events-v1': return this.eventsV1(url)
    }
  }

  private search(items: Indexed[], body: any, path: string): [number, unknown] {
    const filter = body?.filter ?? {}
    for (const k of ['from', 'to', 'query']) if (filter[k] !== undefined && typeof filter[k] !== 'string') return [400, {errors: [`filter.${k} must be a string`]}]
    if (filter.storage_tier !== undefined && !['indexes', 'online-archives', 'flex'].includes(filter.storage_tier)) return [400, {errors: ['invalid storage_tier']}]
    const limit = body?.page?.limit ?? 10
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return [400, {errors: ['page[limit] must be between 1 and 1000']}]
    const sort = body?.sort ?? '-timestamp'
    if (sort !== 'timestamp' && sort !== '-timestamp') return [400, {errors: ['invalid sort']}]
    const from = parseTime(filter.from ?? 'now-15m')
    const to = parseTime(filter.to ?? 'now')
    const query = filter.query ?? '*'
    const key = hash({query, from, to, sort, indexes: filter.indexes ?? null, tier: filter.storage_tier ?? null})
    let offset = 0
    const cursor = body?.page?.cursor
    if (cursor !== undefined) {
      const c = decodeCursor(cursor)
      if (!c || c.k !== key) return [400, {errors: ['Invalid cursor: the cursor is invalid or has expired (invalid cursor)']}]
      offset = c.o
    }
    const m = compileQuery(query)
    const hits = items.filter((x) => x.time >= from && x.time < to && m(x.doc))
    const sorted = sort === 'timestamp' ? hits : [...hits].reverse()
    const page = sorted.slice(offset, offset + Math.min(limit, this.opts.maxPageSize ?? 1000))
    // As the real API does: a non-empty page always carries a cursor, even the last one; the
    // request after it gets `{"data":[]}`.
    if (page.length === 0) return [200, {data: []}]
    const after = encodeCursor({o: offset + page.length, k: key})
    return [200, {data: page.map((x) => x.item), meta: {page: {after}}, links: {next: `${this.url}${path}?page%5Bcursor%5D=${after}&page%5Blimit%5D=${limit}`}}]
  }

  private aggregate(body: any): [number, unknown] {
    if (this.opts.noAggregate) return [400, {errors: ['@network.bytes_written is not a facet']}]
    const filter = body?.filter ?? {}
    const from = parseTime(filter.from)
    const to = parseTime(filter.to)
    const m = compileQuery(filter.query ?? '*')
    const hits = this.logs.filter((x) => x.time >= from && x.time < to && m(x.doc))
    const computes: any[] = body?.compute ?? [{aggregation: 'count', type: 'total'}]
    for (const c of computes) if (c.aggregation !== 'count') throw new Error(`unsupported aggregation ${c.aggregation}`)
    const computeAll = (xs: Indexed[]): Record<string, unknown> => Object.fromEntries(computes.map((c, k) => [`c${k}`, c.type === 'timeseries' ? timeseries(xs, intervalMs(c.interval)) : xs.length]))
    const groupBy: any[] | undefined = body?.group_by
    if (!groupBy || groupBy.length === 0) return [200, {data: {buckets: [{by: {}, computes: computeAll(hits)}]}, meta: {status: 'done'}}]
    const g = groupBy[0]
    const path = String(g.facet).replace(/^@/, '').split('.')
    const groups = new Map<string, Indexed[]>()
    for (const x of hits) {
      let v: any = x.doc.attributes
      for (const p of path) v = v?.[p]
      if (v === undefined) continue
      const k = JSON.stringify(v)
      groups.set(k, [...(groups.get(k) ?? []), x])
    }
    const buckets = [...groups].sort((a, b) => b[1].length - a[1].length).slice(0, g.limit ?? 10)
      .map(([k, xs]) => ({by: {[g.facet]: JSON.parse(k)}, computes: computeAll(xs)}))
    return [200, {data: {buckets}, meta: {status: 'done'}}]
  }

  private eventsV1(url: URL): [number, unknown] {
    const start = Number(url.searchParams.get('start'))
    const end = Number(url.searchParams.get('end'))
    if (!url.searchParams.has('start') || !url.searchParams.has('end') || !Number.isInteger(start) || !Number.isInteger(end)) {
      return [400, {errors: ['start and end (POSIX seconds) are required']}]
    }
    const sources = (url.searchParams.get('sources') ?? '').split(',').filter((s) => s !== '')
    const tags = (url.searchParams.get('tags') ?? '').split(',').filter((s) => s !== '')
    const page = Number(url.searchParams.get('page') ?? '0')
    // v1 matches events carrying any of the tags.
    const hits = this.events.filter((x) => x.time >= start * 1000 && x.time <= end * 1000)
      .filter((x) => sources.length === 0 || sources.some((s) => x.doc.tags.includes(`source:${s}`)))
      .filter((x) => tags.length === 0 || tags.some((t) => x.doc.tags.includes(t)))
    return [200, {events: hits.slice(page * 1000, (page + 1) * 1000).map((x) => toV1(x)), status: 'ok'}]
  }
}

function endpointOf(method: string, path: string): Endpoint | 'unknown' {
  if (method === 'POST' && path.endsWith('/api/v2/logs/events/search')) return 'logs-search'
  if (method === 'POST' && path.endsWith('/api/v2/logs/analytics/aggregate')) return 'logs-aggregate'
  if (method === 'POST' && path.endsWith('/api/v2/events/search')) return 'events-search'
  if (method === 'GET' && path.endsWith('/api/v1/events')) return 'events-v1'
  return 'unknown'
}

function index(items: Record<string, unknown>[]): Indexed[] {
  return items.map((item) => {
    const outer = (item.attributes ?? {}) as {timestamp?: string}
    return {item, time: Date.parse(String(outer.timestamp)), doc: docOf(item)}
  }).sort((a, b) => a.time - b.time || String(a.item.id).localeCompare(String(b.item.id)))
}

/** A v2 event item as the v1 list returns it. */
function toV1(x: Indexed): Record<string, unknown> {
  const outer = (x.item.attributes ?? {}) as Record<string, unknown>
  const inner = (outer.attributes ?? {}) as Record<string, unknown>
  const id = Number.parseInt(createHash('sha1').update(String(x.item.id)).digest('hex').slice(0, 12), 16)
  return {
    id, id_str: String(id), date_happened: Math.floor(x.time / 1000), title: inner.title, text: outer.message, tags: outer.tags,
    source_type_name: inner.source_type_name, alert_type: 'info', priority: 'normal', host: null, url: `/event/event?id=${id}`,
  }
}

function timeseries(xs: Indexed[], ms: number): {time: string; value: number}[] {
  const counts = new Map<number, number>()
  for (const x of xs) {
    const b = Math.floor(x.time / ms) * ms
    counts.set(b, (counts.get(b) ?? 0) + 1)
  }
  return [...counts].sort((a, b) => a[0] - b[0]).map(([t, value]) => ({time: new Date(t).toISOString(), value}))
}

function intervalMs(interval: unknown): number {
  const m = /^(\d+)(s|m|h|d)$/.exec(String(interval ?? '1m'))
  if (!m) throw new Error(`bad interval ${String(interval)}`)
  return Number(m[1]) * {s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000}[m[2] as 's' | 'm' | 'h' | 'd']
}

function parseTime(v: unknown): number {
  if (typeof v !== 'string') throw new Error('from/to must be strings')
  const math = /^now(?:-(\d+)([smhd]))?$/.exec(v)
  if (math) return Date.now() - (math[1] ? Number(math[1]) * intervalMs(`1${math[2]}`) : 0)
  if (/^\d+$/.test(v)) return Number(v)
  const t = Date.parse(v)
  if (Number.isNaN(t)) throw new Error(`bad time ${v}`)
  return t
}

function hash(v: unknown): string {
  return createHash('sha1').update(JSON.stringify(v)).digest('hex').slice(0, 16)
}

function encodeCursor(c: {o: number; k: string}): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url')
}

function decodeCursor(s: unknown): {o: number; k: string} | undefined {
  try {
    const c = JSON.parse(Buffer.from(String(s), 'base64url').toString('utf8'))
    return Number.isInteger(c.o) && typeof c.k === 'string' ? c : undefined
  } catch {
    return undefined
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
