/**
 * A Datadog-compatible HTTP server on 127.0.0.1:0 for tests: Logs search (cursor pages, the
 * trailing empty page), Logs aggregate (count, cardinality and the measure aggregations, total and
 * timeseries computes, nested group-bys with limits, sorts and `missing`, cursor paging of the
 * outer group, facets refused with a 400: see "Logs aggregate" below), Events v2 search and v1
 * list, RUM events search and aggregate (the same search and aggregate over RUM items, given in the
 * RUM search API's wire shape), key checks, X-RateLimit-* headers, and programmable faults per request (on any endpoint).
 * It serves the traffic of a shipped fixture or of a built day (datadog-day.ts); the real client
 * talks to it over HTTP. Time ranges are found by binary search and a cursor's hits are kept, so a
 * day of 100k+ events pages as fast as a fixture.
 */
import {createHash} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {compileQuery, docOf, type Matcher, type SearchDoc} from './fake-datadog-query'

/** Where a page cursor points, for a request of this key; undefined for a cursor of another request (or none that decodes). */
function offsetOf(cursor: unknown, key: string): number | undefined {
  if (cursor === undefined) return 0
  const c = decodeCursor(cursor)
  return c && c.k === key ? c.o : undefined
}

const INVALID_CURSOR: [number, unknown] = [400, {errors: ['Invalid cursor: the cursor is invalid or has expired (invalid cursor)']}]

export type Endpoint = 'logs-search' | 'logs-aggregate' | 'events-search' | 'events-v1' | 'rum-search' | 'rum-aggregate'

export type Fault =
  | {kind: 'status'; status: number; body?: string; contentType?: string; headers?: Record<string, string>; noRateHeaders?: boolean}
  /** Answers normally, but only after this long (longer than the client's timeout). */
  | {kind: 'slow'; ms: number}
  /** Sends the headers and half the body, then destroys the socket. */
  | {kind: 'cut'}
  /** Closes the connection without answering. */
  | {kind: 'hang-up'}
  | {kind: 'invalid-cursor'}
  /** A search page whose `meta.page.after` is the cursor it was asked with: a cursor that never moves. */
  | {kind: 'stuck-cursor'}
  /** A search page that starts this many events before the cursor's place (pages that overlap), with a new cursor each time. */
  | {kind: 'overlap'; events: number}
  /** A 200 `Content-Encoding: gzip` answer that inflates to `inflatedBytes` (an empty page padded with spaces), from about a thousandth of that on the wire. */
  | {kind: 'gzip-bomb'; inflatedBytes: number}

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
  /** A 200 whose body is no page (`{"errors":[...]}`, `{}`, `{"data":null}`). */
  okWithout: (body: string): Fault => ({kind: 'status', status: 200, body}),
  stuckCursor: (): Fault => ({kind: 'stuck-cursor'}),
  overlap: (events: number): Fault => ({kind: 'overlap', events}),
  gzipBomb: (inflatedBytes: number): Fault => ({kind: 'gzip-bomb', inflatedBytes}),
}

/**
 * A real gzip bomb: gzip members of 1 MiB of spaces each (about 1 kB on the wire), between a
 * member that opens an empty page and one that closes it; gunzip reads the members as one stream.
 */
function gzipBomb(inflatedBytes: number): Buffer {
  const block = gzipSync(Buffer.alloc(1024 * 1024, 0x20), {level: 9})
  const members = Math.max(1, Math.ceil(inflatedBytes / (1024 * 1024)))
  return Buffer.concat([gzipSync('{"data":['), ...Array.from({length: members}, () => block), gzipSync(']}')])
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
  /** RUM event items (RUM events search API wire shape: `{id, type: 'rum', attributes: {timestamp, attributes: {type, session, view, …}}}`). */
  rum?: Record<string, unknown>[]
  /** Refuse the RUM aggregate API (400), as for an org or key that may not use it. */
  noRumAggregate?: boolean
  apiKey: string
  appKey: string
  /** The server returns at most this many items a page, whatever the limit asked (short pages). */
  maxPageSize?: number
  /** Enforced rate limit per endpoint (default: generous, headers only). */
  rateLimit?: {limit: number; periodSeconds: number}
  /** Refuse the aggregate API (400 "not a facet"), as for an org without the facet. */
  noAggregate?: boolean
  /**
   * Facets the aggregate API refuses with a 400 `<facet> is not a facet` (in a group-by, a compute's
   * metric or a sort's metric), as for attributes the org never declared facets; others work.
   */
  refusedFacets?: readonly string[]
  /** At most this many values of the outer group-by per aggregate answer, whatever the limit (then `meta.page.after`). */
  maxGroupValues?: number
  /** Timeseries list every bucket of the range, empty ones as 0 (default: only buckets that hold events). */
  timeseriesZeros?: boolean
  /** Delay every search answer (to stretch a run for interruption tests). */
  searchDelayMs?: number
}

export interface Indexed {
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
  private readonly rum: Indexed[]
  private rules: (FaultRule & {left: number; skip: number})[] = []
  /** The hits of recent search cursors (a query over a range, in order), so paging does not re-filter. */
  private readonly hitCache = new Map<string, Indexed[]>()
  private readonly matchers = new Map<string, Matcher>()
  private readonly recentHits = new Map<string, Indexed[]>()
  private readonly used = new Map<string, {count: number; windowStart: number}>()
  private readonly opts: FakeDatadogOptions

  private constructor(opts: FakeDatadogOptions) {
    this.opts = opts
    this.logs = index(opts.logs)
    this.events = index(opts.events ?? [])
    this.rum = index(opts.rum ?? [])
    this.server = createServer((req, res) => void this.handle(req, res))
  }

  /** Search answers held (see holdSearches). */
  private gate: {when: (searches: RecordedRequest[]) => boolean; reached: () => void; open: Promise<void>; release: () => void} | undefined

  /**
   * From the first search request for which `when` (given the searches so far, this one included)
   * holds, search answers wait until `release()` (or at most `maxMs`): a client is interrupted at
   * a known point of its pull, whatever the machine's speed. `reached` settles when the first is held.
   */
  holdSearches(when: (searches: RecordedRequest[]) => boolean, maxMs = 60_000): {reached: Promise<void>; release: () => void} {
    let reached = (): void => {}
    const hit = new Promise<void>((resolve) => (reached = resolve))
    let release = (): void => {}
    const open = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, maxMs)
      timer.unref()
      release = () => {
        clearTimeout(timer)
        this.gate = undefined
        resolve()
      }
    })
    this.gate = {when, reached, open, release}
    return {reached: hit, release}
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

  /**
   * The faults a day's live pull is held through: a 429 with its reset, a 503 and a cut body on the
   * 3rd, 6th and 12th search, a 500 on the first aggregate (each retried: at least 4 retries).
   */
  injectUsualFaults(): void {
    this.inject({endpoint: 'logs-search', fault: faults.rateLimited(1), after: 3})
    this.inject({endpoint: 'logs-search', fault: faults.status(503), after: 6})
    this.inject({endpoint: 'logs-search', fault: faults.cut(), after: 12})
    this.inject({endpoint: 'logs-aggregate', fault: faults.status(500), after: 1})
  }

  inject(rule: FaultRule): void {
    this.rules.push({...rule, left: rule.times ?? 1, skip: rule.after ?? 0})
  }

  clearFaults(): void {
    this.rules = []
  }

  /** The server's logs a query selects in [from, to), oldest first: what a pull must yield. */
  select(query: string, from: number, to: number): Record<string, unknown>[] {
    return this.hits(this.logs, query, from, to).map((x) => x.item)
  }

  /** The server's RUM events a query selects in [from, to), oldest first. */
  selectRum(query: string, from: number, to: number): Record<string, unknown>[] {
    return this.hits(this.rum, query, from, to).map((x) => x.item)
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
    if (fault?.kind === 'gzip-bomb') {
      rec.status = 200
      const bomb = gzipBomb(fault.inflatedBytes)
      res.writeHead(200, {'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bomb.length, ...this.rateHeaders(endpoint)})
      // The client may hang up once it has read enough: that is the point.
      res.on('error', () => undefined)
      res.end(bomb)
      return
    }
    if (fault?.kind === 'hang-up') {
      rec.status = -1
      req.socket.destroy()
      return
    }
    if (this.overLimit(endpoint)) return send(429, {errors: ['Rate limit exceeded']})
    let status: number
    let payload: unknown
    try {
      ;[status, payload] = this.answer(endpoint, body, url, fault)
    } catch (error: unknown) {
      ;[status, payload] = [400, {errors: [error instanceof Error ? error.message : String(error)]}]
    }
    if (fault?.kind === 'slow') await sleep(fault.ms)
    else if (endpoint === 'logs-search' && this.opts.searchDelayMs) await sleep(this.opts.searchDelayMs)
    const gate = endpoint === 'logs-search' ? this.gate : undefined
    if (gate?.when(this.requestsTo('logs-search'))) {
      gate.reached()
      await gate.open
    }
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
      'x-ratelimit-name': RATE_LIMIT_NAMES[endpoint],
    }
  }

  private answer(endpoint: Endpoint, body: any, url: URL, fault?: Fault): [number, unknown] {
    switch (endpoint) {
      case 'logs-search': return this.search(this.logs, body, '/api/v2/logs/events', fault)
      case 'events-search': return this.search(this.events, body, '/api/v2/events')
      case 'logs-aggregate': return this.opts.noAggregate ? [400, {errors: ['@network.bytes_written is not a facet']}] : this.aggregate(this.logs, body)
      case 'events-v1': return this.eventsV1(url)
      case 'rum-search': return this.search(this.rum, body, '/api/v2/rum/events', fault)
      case 'rum-aggregate': return this.opts.noRumAggregate ? [400, {errors: ['Invalid query']}] : this.aggregate(this.rum, body)
    }
  }

  private search(items: Indexed[], body: any, path: string, fault?: Fault): [number, unknown] {
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
    const key = hash({path, query, from, to, sort, indexes: filter.indexes ?? null, tier: filter.storage_tier ?? null})
    const offset = offsetOf(body?.page?.cursor, key)
    if (offset === undefined) return INVALID_CURSOR
    let sorted = this.hitCache.get(key)
    if (sorted === undefined) {
      const hits = this.hits(items, query, from, to)
      sorted = sort === 'timestamp' ? hits : [...hits].reverse()
      this.hitCache.set(key, sorted)
      if (this.hitCache.size > 64) this.hitCache.delete(this.hitCache.keys().next().value as string)
    }
    const start = fault?.kind === 'overlap' ? Math.max(0, offset - fault.events) : offset
    const page = sorted.slice(start, start + Math.min(limit, this.opts.maxPageSize ?? 1000))
    // As the real API does: a non-empty page always carries a cursor, even the last one; the
    // request after it gets `{"data":[]}`.
    if (page.length === 0) return [200, {data: []}]
    const after = fault?.kind === 'stuck-cursor' && body?.page?.cursor !== undefined
      ? String(body.page.cursor)
      // An overlapping page's cursor names the request too, so that it differs from every other.
      : encodeCursor({o: start + page.length, k: key, ...(fault?.kind === 'overlap' ? {n: this.requests.length} : {})})
    return [200, {data: page.map((x) => x.item), meta: {page: {after}}, links: {next: `${this.url}${path}?page%5Bcursor%5D=${after}&page%5Blimit%5D=${limit}`}}]
  }

  private aggregate(items: Indexed[], body: any): [number, unknown] {
    const filter = body?.filter ?? {}
    for (const k of ['from', 'to', 'query']) if (filter[k] !== undefined && typeof filter[k] !== 'string') return [400, {errors: [`filter.${k} must be a string`]}]
    const from = parseTime(filter.from ?? 'now-15m')
    const to = parseTime(filter.to ?? 'now')
    const query = filter.query ?? '*'
    const request = parseAggregate(body, {from, to}, new Set(this.opts.refusedFacets ?? []))
    if ('error' in request) return [400, {errors: [request.error]}]
    const key = hash({query, from, to, compute: body?.compute ?? null, group_by: body?.group_by ?? null, indexes: filter.indexes ?? null, tier: filter.storage_tier ?? null})
    const offset = offsetOf(body?.page?.cursor, key)
    if (offset === undefined) return INVALID_CURSOR
    const hits = this.hits(items, query, from, to)
    const {buckets, next} = aggregateBuckets(hits, request, {offset, maxOuter: this.opts.maxGroupValues, zeros: this.opts.timeseriesZeros ?? false, range: {from, to}})
    const meta: Record<string, unknown> = {status: 'done', elapsed: 1, request_id: key}
    if (next !== undefined) meta.page = {after: encodeCursor({o: next, k: key})}
    return [200, {data: {buckets}, meta}]
  }

  /**
   * The items a query selects in [from, to), oldest first. The last few answers are kept (the logs
   * never change): a pull asks the same query and range of several aggregates (a count, then by
   * each facet) and of a search.
   */
  private hits(items: Indexed[], query: string, from: number, to: number): Indexed[] {
    const key = `${items === this.logs ? 'logs' : items === this.rum ? 'rum' : 'events'}\n${from}\n${to}\n${query}`
    const kept = this.recentHits.get(key)
    if (kept !== undefined) return kept
    const found = this.match(items, query, from, to)
    this.recentHits.set(key, found)
    if (this.recentHits.size > 16) this.recentHits.delete(this.recentHits.keys().next().value as string)
    return found
  }

  private match(items: Indexed[], query: string, from: number, to: number): Indexed[] {
    let m = this.matchers.get(query)
    if (m === undefined) {
      m = compileQuery(query)
      this.matchers.set(query, m)
      if (this.matchers.size > 256) this.matchers.delete(this.matchers.keys().next().value as string)
    }
    const out: Indexed[] = []
    for (let k = lowerBound(items, from); k < items.length; k++) {
      const x = items[k] as Indexed
      if (x.time >= to) break
      if (m(x.doc)) out.push(x)
    }
    return out
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
  if (method === 'POST' && path.endsWith('/api/v2/rum/events/search')) return 'rum-search'
  if (method === 'POST' && path.endsWith('/api/v2/rum/analytics/aggregate')) return 'rum-aggregate'
  return 'unknown'
}

/** The X-RateLimit-Name each endpoint answers with (search and aggregate have limits of their own). */
const RATE_LIMIT_NAMES: Record<Endpoint, string> = {
  'logs-search': 'logs_query', 'logs-aggregate': 'logs_aggregate', 'events-search': 'events', 'events-v1': 'events',
  'rum-search': 'rum_events_search', 'rum-aggregate': 'rum_analytics_aggregate',
}

/** The first item at or after `time` (items sorted by time). */
function lowerBound(items: readonly Indexed[], time: number): number {
  let lo = 0
  let hi = items.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((items[mid] as Indexed).time < time) lo = mid + 1
    else hi = mid
  }
  return lo
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

// ---- Logs aggregate ----------------------------------------------------------------------------
//
// As the API reference and Datadog's "Build custom reports using Log Analytics API" guide describe
// it: computes are named c0, c1, ... in order; a timeseries is `[{time, value}]` with ISO bucket
// starts (epoch-aligned); group-bys nest, each bucket's `by` naming every facet's value; a
// group-by's `limit` is how many of its values come (at most 10000, and the product of all limits
// at most 10000); the outer group pages: when more of its values remain, `meta.page.after` is set
// and the next request with that cursor gets the next `limit` of them. A sort is by a measure
// (`aggregation`, with `metric` for any but count) or alphabetical; no sort at all is by count,
// descending. Logs without the facet are left out unless `missing` names a value for them.
// Histograms and `total` are refused (400): nothing in src sends them, and a fake that ignored
// them would answer something Datadog would not.

const AGGREGATIONS = new Set(['count', 'cardinality', 'sum', 'min', 'max', 'avg', 'median', 'pc75', 'pc90', 'pc95', 'pc98', 'pc99'])
const GROUP_LIMIT = 10_000

interface Compute {
  aggregation: string
  metric?: string
  /** Bucket size of a timeseries; undefined for a total. */
  intervalMs?: number
}

interface GroupBy {
  facet: string
  limit: number
  missing?: string | number
  sort: {type: 'alphabetical' | 'measure'; order: 'asc' | 'desc'; aggregation: string; metric?: string}
}

export interface AggregateRequest {
  computes: Compute[]
  groupBy: GroupBy[]
}

/** The aggregate body as Datadog reads it, or the 400 it answers. */
export function parseAggregate(body: any, range: {from: number; to: number}, refused: ReadonlySet<string>): AggregateRequest | {error: string} {
  const isFacet = (f: string): string | undefined => (refused.has(f) ? `${f} is not a facet` : undefined)
  const rawComputes: any[] = body?.compute ?? [{aggregation: 'count', type: 'total'}]
  if (!Array.isArray(rawComputes) || rawComputes.length === 0) return {error: 'compute must be a non-empty list'}
  const computes: Compute[] = []
  for (const c of rawComputes) {
    if (!AGGREGATIONS.has(c?.aggregation)) return {error: `invalid aggregation ${JSON.stringify(c?.aggregation)}`}
    const type = c.type ?? 'total'
    if (type !== 'total' && type !== 'timeseries') return {error: `invalid compute type ${JSON.stringify(type)}`}
    if (c.aggregation !== 'count' && typeof c.metric !== 'string') return {error: `aggregation ${c.aggregation} needs a metric`}
    if (typeof c.metric === 'string' && isFacet(c.metric)) return {error: isFacet(c.metric) as string}
    let ms: number | undefined
    if (type === 'timeseries') {
      try {
        ms = c.interval === undefined ? defaultInterval(range.to - range.from) : intervalMs(c.interval)
      } catch (error: unknown) {
        return {error: (error as Error).message}
      }
    }
    computes.push({aggregation: c.aggregation, ...(typeof c.metric === 'string' ? {metric: c.metric} : {}), ...(ms === undefined ? {} : {intervalMs: ms})})
  }
  const rawGroups: any[] = body?.group_by ?? []
  if (!Array.isArray(rawGroups)) return {error: 'group_by must be a list'}
  const groupBy: GroupBy[] = []
  let product = 1
  for (const g of rawGroups) {
    if (typeof g?.facet !== 'string' || g.facet === '') return {error: 'group_by facet is required'}
    if (isFacet(g.facet)) return {error: isFacet(g.facet) as string}
    const limit = g.limit ?? 10
    if (!Number.isInteger(limit) || limit < 1 || limit > GROUP_LIMIT) return {error: `group_by limit must be between 1 and ${GROUP_LIMIT}, got ${JSON.stringify(limit)}`}
    product *= limit
    if (g.histogram !== undefined) return {error: 'group_by histogram is not supported by this fake'}
    if (g.total !== undefined && g.total !== false) return {error: 'group_by total is not supported by this fake'}
    if (g.missing !== undefined && typeof g.missing !== 'string' && typeof g.missing !== 'number') return {error: 'group_by missing must be a string or a number'}
    const s = g.sort
    const type = s === undefined ? 'measure' : (s.type ?? (s.aggregation === undefined ? 'alphabetical' : 'measure'))
    if (type !== 'alphabetical' && type !== 'measure') return {error: `invalid sort type ${JSON.stringify(type)}`}
    const order = s?.order ?? (type === 'alphabetical' ? 'asc' : 'desc')
    if (order !== 'asc' && order !== 'desc') return {error: `invalid sort order ${JSON.stringify(order)}`}
    const aggregation = type === 'measure' ? (s?.aggregation ?? 'count') : 'count'
    if (!AGGREGATIONS.has(aggregation)) return {error: `invalid sort aggregation ${JSON.stringify(aggregation)}`}
    if (type === 'measure' && aggregation !== 'count' && typeof s?.metric !== 'string') return {error: `sort by ${aggregation} needs a metric`}
    if (typeof s?.metric === 'string' && isFacet(s.metric)) return {error: isFacet(s.metric) as string}
    groupBy.push({facet: g.facet, limit, ...(g.missing === undefined ? {} : {missing: g.missing}), sort: {type, order, aggregation, ...(typeof s?.metric === 'string' ? {metric: s.metric} : {})}})
  }
  if (product > GROUP_LIMIT) return {error: `the product of group_by limits (${product}) must not exceed ${GROUP_LIMIT}`}
  return {computes, groupBy}
}

interface AggregateOptions {
  /** How many outer values earlier pages gave. */
  offset: number
  /** At most this many outer values per answer. */
  maxOuter?: number
  /** Timeseries list every bucket of the range. */
  zeros: boolean
  range: {from: number; to: number}
}

/** The buckets of an aggregate over the hits, and where the next page starts when the outer group has more. */
export function aggregateBuckets(hits: readonly Indexed[], req: AggregateRequest, o: AggregateOptions): {buckets: {by: Record<string, unknown>; computes: Record<string, unknown>}[]; next?: number} {
  const computeAll = (xs: readonly Indexed[]): Record<string, unknown> => Object.fromEntries(req.computes.map((c, k) => [
    `c${k}`, c.intervalMs === undefined ? measure(c.aggregation, c.metric, xs) : series(xs, c, o.zeros, o.range),
  ]))
  if (req.groupBy.length === 0) return {buckets: [{by: {}, computes: computeAll(hits)}]}
  const buckets: {by: Record<string, unknown>; computes: Record<string, unknown>}[] = []
  let next: number | undefined
  const walk = (xs: readonly Indexed[], level: number, by: Record<string, unknown>): void => {
    const g = req.groupBy[level]
    if (g === undefined) {
      buckets.push({by, computes: computeAll(xs)})
      return
    }
    let groups = groupsOf(xs, g)
    if (level === 0) {
      const size = Math.min(g.limit, o.maxOuter ?? Number.POSITIVE_INFINITY)
      if (o.offset + size < groups.length) next = o.offset + size
      groups = groups.slice(o.offset, o.offset + size)
    } else groups = groups.slice(0, g.limit)
    for (const [value, members] of groups) walk(members, level + 1, {...by, [g.facet]: value})
  }
  walk(hits, 0, {})
  return {buckets, ...(next === undefined ? {} : {next})}
}

const scalar = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'

/** An `@a.b.c` facet's attribute path, split once per facet (it is looked up in every log of every aggregate). */
const paths = new Map<string, string[]>()
function attributePath(facet: string): string[] {
  let path = paths.get(facet)
  if (path === undefined) paths.set(facet, (path = facet.slice(1).split('.')))
  return path
}

/** A facet's values in one log: an attribute (`@a.b`, each element of a list), a reserved attribute, or a tag's values. */
export function facetValues(doc: SearchDoc, facet: string): (string | number | boolean)[] {
  if (facet.startsWith('@')) {
    let cur: unknown = doc.attributes
    for (const p of attributePath(facet)) cur = cur !== null && typeof cur === 'object' && !Array.isArray(cur) ? (cur as Record<string, unknown>)[p] : undefined
    return Array.isArray(cur) ? cur.filter(scalar) : scalar(cur) ? [cur] : []
  }
  if (facet === 'service' || facet === 'host' || facet === 'status' || facet === 'source') {
    const v = doc.reserved[facet]
    return scalar(v) ? [v] : []
  }
  const prefix = `${facet}:`
  return doc.tags.filter((t) => t.startsWith(prefix)).map((t) => t.slice(prefix.length))
}

function groupsOf(xs: readonly Indexed[], g: GroupBy): [string | number | boolean, Indexed[]][] {
  const groups = new Map<string, [string | number | boolean, Indexed[]]>()
  for (const x of xs) {
    const values = facetValues(x.doc, g.facet)
    // A log's distinct values (nearly every log has one).
    for (const v of values.length === 0 ? (g.missing === undefined ? [] : [g.missing]) : values.length === 1 ? values : new Set(values)) {
      const k = `${typeof v}:${String(v)}`
      let e = groups.get(k)
      if (!e) groups.set(k, (e = [v, []]))
      e[1].push(x)
    }
  }
  const alphabetical = (a: string | number | boolean, b: string | number | boolean): number =>
    typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0
  const sign = g.sort.order === 'asc' ? 1 : -1
  const list = [...groups.values()]
  if (g.sort.type === 'alphabetical') return list.sort((a, b) => sign * alphabetical(a[0], b[0]))
  const by = new Map(list.map((e) => [e, measure(g.sort.aggregation, g.sort.metric, e[1]) ?? Number.NEGATIVE_INFINITY]))
  // Ties in value order, so answers are the same every time.
  return list.sort((a, b) => sign * ((by.get(a) as number) - (by.get(b) as number)) || alphabetical(a[0], b[0]))
}

/** One aggregation over some logs: a number, or null when no log has a numeric value of the metric. */
function measure(aggregation: string, metric: string | undefined, xs: readonly Indexed[]): number | null {
  if (aggregation === 'count') return xs.length
  const values = xs.flatMap((x) => facetValues(x.doc, metric as string))
  if (aggregation === 'cardinality') return new Set(values.map((v) => `${typeof v}:${String(v)}`)).size
  const nums = values.filter((v) => typeof v === 'number' || (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)))).map(Number)
  if (nums.length === 0) return null
  switch (aggregation) {
    case 'sum': return nums.reduce((a, b) => a + b, 0)
    case 'min': return Math.min(...nums)
    case 'max': return Math.max(...nums)
    case 'avg': return nums.reduce((a, b) => a + b, 0) / nums.length
  }
  // Percentiles (median = pc50) by nearest rank.
  const p = aggregation === 'median' ? 50 : Number(aggregation.slice(2))
  const sorted = [...nums].sort((a, b) => a - b)
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number
}

function series(xs: readonly Indexed[], c: Compute, zeros: boolean, range: {from: number; to: number}): {time: string; value: number | null}[] {
  const ms = c.intervalMs as number
  const buckets = new Map<number, Indexed[]>()
  for (const x of xs) {
    const b = Math.floor(x.time / ms) * ms
    let list = buckets.get(b)
    if (!list) buckets.set(b, (list = []))
    list.push(x)
  }
  if (zeros) for (let b = Math.floor(range.from / ms) * ms; b < range.to; b += ms) if (!buckets.has(b)) buckets.set(b, [])
  return [...buckets].sort((a, b) => a[0] - b[0]).map(([t, list]) => ({time: new Date(t).toISOString(), value: measure(c.aggregation, c.metric, list)}))
}

/** `interval` of a timeseries compute: `10s`, `1m`, `5m`, `1h`, `1d`, `1w`. */
export function intervalMs(interval: unknown): number {
  const m = /^(\d+)(s|m|h|d|w)$/.exec(String(interval))
  if (!m || Number(m[1]) === 0) throw new Error(`bad interval ${JSON.stringify(interval)}`)
  return Number(m[1]) * {s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000}[m[2] as 's' | 'm' | 'h' | 'd' | 'w']
}

/** Without an interval, Datadog gives about 150 points: the first round size at least range/150. */
function defaultInterval(rangeMs: number): number {
  const sizes = [1, 5, 10, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14_400, 43_200, 86_400, 604_800].map((s) => s * 1000)
  return sizes.find((s) => s >= rangeMs / 150) ?? (sizes[sizes.length - 1] as number)
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

function encodeCursor(c: {o: number; k: string; n?: number}): string {
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
