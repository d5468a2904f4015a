/**
 * `analyze --from/--to --rum-query`: the browsers' RUM events of the pull's range, read through the
 * RUM API (`POST /api/v2/rum/events/search`, `POST /api/v2/rum/analytics/aggregate`) by the same
 * client as the logs (one connection, retry policy, rate-limit gate, page cursor handling:
 * client.ts, puller.ts pullSlice), counting on Datadog's side what only needs counting and reading
 * only what the join of RUM views to the log's failures (analysis/rum.ts) can use:
 *
 * 1. **Page loads, counted** (open): initial-load views of the range per time bucket, by one
 *    aggregate (a total and a timeseries; the bucket as fine as 1440 points of the range allow, 1 s
 *    for a range up to 24 min: a bucket counts where it starts, so coverage's edges are off by at
 *    most a bucket). The join's coverage is counted from these, not from views read. A view is a
 *    page load unless it is a `route_change`, as analysis/rum.ts tells them.
 * 2. **The browsers' failures, read** (pull, counted at open): every error event of the range, and
 *    every script resource that failed (`@resource.type:js`, status 400 and up: a classic script's
 *    404 throws no error, and analysis/rum.ts counts such a view as crashed). Errors are few next to
 *    views and resources; at most MAX_FAILURE_EVENTS are read, and a notice says so when cut.
 * 3. **The sessions that matter, read whole** (pull, once the log is analysed): those of the errors
 *    the analysis recognises (the classifier is given: analysis/rum-errors browserFailureOf) and of
 *    the failed scripts, and those of the log's page loads with a failure, found by client address
 *    near each page load's time (an aggregate of session ids per batch of addresses: a view is
 *    joined to a page load by address within a minute). Their views and resources (the join reads
 *    a view's assets and its loading type) are searched by session id, SESSIONS_PER_QUERY ids a
 *    query, each batch counted first so its search ends on its last page. Nothing else is read.
 *
 * Every item is normalised by normalize/rum.ts (as a file's are); items it skips are counted with
 * their reasons. What is returned has the shape of analysis/rum.ts RumInput (sources do not import
 * the analysis: the shape is the model's).
 */
import type {RUMAggregateRequest, RUMCompute, RUMGroupBy, RUMSearchEventsRequest} from './client-types'
import type {TimeRange} from '../../model/time-range'
import type {FailureRecord, RumReport, SkippedLocation} from '../../model/report'
import type {RumEvent} from '../../model/rum'
import {EXAMPLES_PER_REASON} from '../../model/rejection'
import type {RumPullEstimate} from '../../model/pull-estimate'
import {normalizeRum} from '../../normalize/rum'
import {parseTime} from '../../normalize/datadog'
import {SourceError} from '../errors'
import {mapBounded} from '../../util/map-bounded'
import {plural} from '../../util/plural'
import {DatadogClient, DatadogRequestError, PullAborted} from './client'
import type {DatadogConnection} from './connection'
import {type Bucket, pagedBuckets} from './aggregate'
import {endsTheRun} from './errors'
import {countedRequestsFor, requestsFor} from './estimate'
import {INDEXING_LATENCY_MS, type PageSearch, pullSlice} from './puller'
import type {PullHooks, PullTuning} from './pull'
import {anyOf, escapeValue, MAX_TERMS_LENGTH, termBatches, userTerm} from './query'

export interface RumPullRequest {
  connection: DatadogConnection
  /** The user's RUM query (`service:web @application.id:…`), to which each request adds what it reads. */
  query: string
  /** The log pull's range. */
  range: TimeRange
  /** The log pull's timeouts, retry policy and concurrency. */
  tuning: PullTuning
}

/** What `analyze` hands the pull: which errors are the failures it counts (analysis/rum-errors browserFailureOf). */
export type BrowserFailureTest = (message: string, type?: string) => boolean

/** What the pull reads: RUM events in time order, what was read of them, and the page loads counted. Structurally analysis/rum.ts RumInput. */
export interface PulledRum {
  events: RumEvent[]
  input: RumReport['input']
  initialLoads?: {start: number; count: number}[]
}

/** What the RUM pull did, for the line on stderr after it. */
export interface RumPullSummary {
  query: string
  pageLoadsCounted: number | null
  failures: {read: number; held: number | null; cut: boolean}
  /** Sessions with a browser failure; the others found at the addresses of the log's failed page loads; those read (at most MAX_SESSIONS). */
  sessions: {fromFailures: number; fromAddresses: number; read: number; cut: boolean}
  addresses: number
  events: number
  requests: {total: number; search: number; aggregate: number; retries: number}
}

/** Error events and failed scripts read at most (100 pages). */
export const MAX_FAILURE_EVENTS = 100_000
/** Sessions whose views and resources are read at most: those with a browser failure first. */
export const MAX_SESSIONS = 5_000
/** Session ids one search names at most (a UUID is 36 characters: about 2,000 of query). */
export const SESSIONS_PER_QUERY = 50
/** Client addresses one aggregate names at most (each twice: see `addressTerm`). */
export const ADDRESSES_PER_QUERY = 50
/** A view is joined to a page load of the log by address within a minute (analysis/rum.ts JOIN_WINDOW_MS): its session is looked for that far either side. */
const ADDRESS_PAD_MS = 60_000
/** A batch of addresses spans at most this long: an address behind a NAT has many sessions in a day. */
const ADDRESS_SPAN_MS = 3_600_000
/** Groups one aggregate answer lists at most (as the Logs aggregate: aggregate.ts GROUP_LIMIT). */
const GROUP_LIMIT = 10_000

/** The name the pulled events go under in `rum.input.files` and the skipped records' examples. */
export const rumInputName = (query: string): string => `datadog:rum ${query.trim() === '' ? '*' : query.trim()}`

/** The RUM search API as puller.ts pages it. Body per docs.datadoghq.com/api/latest/rum/search-rum-events: `{filter: {query, from, to}, page: {limit, cursor}, sort}`; `page.limit` at most 1000 (DataDog/datadog-api-client-java RUMQueryPageOptions: "maximum: 1000"). */
const RUM_SEARCH: PageSearch = {
  operation: 'rum-search',
  page: (apis, p) => {
    const body: RUMSearchEventsRequest = {
      filter: {query: p.query, from: p.from, to: p.to},
      page: {limit: p.limit, ...(p.cursor === undefined ? {} : {cursor: p.cursor})},
      sort: 'timestamp',
    }
    return apis.rum.searchRUMEvents({body})
  },
}

interface Opened {
  bucket: {ms: number; interval: string}
  /** Page loads per bucket, or why they could not be counted. */
  pageLoads: {total: number; buckets: {start: number; count: number}[]} | {reason: string}
  /** Error events and failed scripts of the range, when counted. */
  failures?: number
}

export class DatadogRumPull {
  readonly client: DatadogClient
  private opened: Promise<Opened> | undefined
  private done: RumPullSummary | undefined
  private readonly now: () => number

  constructor(readonly req: RumPullRequest, private readonly hooks: PullHooks = {}) {
    const {tuning} = req
    this.now = hooks.now ?? Date.now
    // A client of its own (its requests are counted apart from the log pull's), made as the log pull's.
    this.client = new DatadogClient(req.connection, {
      timeoutMs: tuning.timeoutMs, retry: tuning.retry, signal: hooks.signal, now: hooks.now, random: hooks.random,
      ...(tuning.maxAnswerBytes === undefined ? {} : {maxAnswerBytes: tuning.maxAnswerBytes}),
      onRetry: ({operation, attempt, delayMs, why}) => hooks.onNotice?.(`Datadog ${operation}: ${why}; retrying in ${delayMs >= 1000 ? `${Math.round(delayMs / 100) / 10}s` : `${delayMs}ms`} (attempt ${attempt + 1} of ${tuning.retry.maxAttempts})`),
    })
  }

  /** The user's query and what one request reads of it. */
  private query(...terms: string[]): string {
    return [userTerm(this.req.query), ...terms].filter((t) => t !== '').join(' ') || '*'
  }

  /** Initial-load views: a view is a page load unless the SPA opened it itself (analysis/rum.ts: `loadingType !== 'route_change'`). */
  pageLoadsQuery(): string {
    return this.query('@type:view', '-@view.loading_type:route_change')
  }

  /** Errors, and script resources that failed. */
  failuresQuery(): string {
    return this.query('(@type:error OR (@type:resource @resource.type:js @resource.status_code:>=400))')
  }

  /** Views and resources of these sessions. */
  sessionsQuery(sessions: readonly string[]): string {
    return this.query('@type:(view OR resource)', anyOf('@session.id', sessions.map(escapeValue)))
  }

  /** Any event of these client addresses, under either attribute RUM keeps them in (normalize/rum.ts reads both). */
  addressesQuery(addresses: readonly string[]): string {
    const values = addresses.map(escapeValue)
    return this.query(`(${anyOf('@network.client.ip', values)} OR ${anyOf('@session.ip', values)})`)
  }

  /**
   * Step 1, and the count of step 2: before any log is pulled, so that a key without the
   * rum_apps_read permission fails the run at once, and `--plan` can say what the pull costs.
   */
  open(): Promise<Opened> {
    this.opened ??= this.count()
    return this.opened
  }

  private async count(): Promise<Opened> {
    const {range} = this.req
    const bucket = rumBucketFor(range.to - range.from)
    let pageLoads: Opened['pageLoads']
    try {
      const buckets = await this.aggregate(this.pageLoadsQuery(), range, [
        {aggregation: 'count', type: 'total'},
        {aggregation: 'count', type: 'timeseries', interval: bucket.interval},
      ])
      const first = buckets[0]
      const total = first === undefined ? 0 : Number(first.computes.c0 ?? 0)
      const series = seriesOf(first?.computes.c1)
      const sum = series.reduce((n, b) => n + b.count, 0)
      pageLoads = Number.isInteger(total) && buckets.length <= 1 && sum === total ? {total, buckets: series} : {reason: `the timeseries holds ${sum} of the ${total} counted`}
    } catch (error: unknown) {
      pageLoads = {reason: reasonOf(error)}
    }
    if ('reason' in pageLoads) this.hooks.onNotice?.(`Datadog RUM page loads cannot be counted on Datadog's side (${pageLoads.reason}): reading every page load's view of the range instead`)
    let failures: number | undefined
    try {
      const buckets = await this.aggregate(this.failuresQuery(), range, [{aggregation: 'count', type: 'total'}])
      const n = buckets.length === 0 ? 0 : buckets.length === 1 ? Number(buckets[0]?.computes.c0 ?? 0) : Number.NaN
      if (Number.isInteger(n) && n >= 0) failures = n
    } catch (error: unknown) {
      reasonOf(error)
    }
    return {bucket, pageLoads, ...(failures === undefined ? {} : {failures})}
  }

  /** What `--plan` says: the counts, and the searches reading the failures take (the sessions' are known only once the log is analysed). */
  async estimate(): Promise<RumPullEstimate> {
    const o = await this.open()
    const counted = o.failures !== undefined && this.req.range.to <= this.now() - INDEXING_LATENCY_MS
    const failures = o.failures === undefined ? null : Math.min(o.failures, MAX_FAILURE_EVENTS)
    const budget = this.client.rate.budget('rum-search') ?? this.client.rate.budget('rum-aggregate')
    return {
      query: this.req.query, pageLoads: 'reason' in o.pageLoads ? null : o.pageLoads.total, failures: o.failures ?? null,
      failureSearches: failures === null ? 2 : counted ? countedRequestsFor(failures) : requestsFor(failures),
      requests: this.client.stats.requests, ...(budget ? {budget} : {}),
    }
  }

  /** Steps 2 and 3, given the log's failures and which errors are the browser failures the analysis counts. */
  async pull(failures: readonly FailureRecord[], isBrowserFailure: BrowserFailureTest): Promise<PulledRum> {
    const o = await this.open()
    const {range} = this.req
    const reader = new Items(rumInputName(this.req.query))

    // 2. The browsers' failures, and (when page loads could not be counted) every page load's view.
    const read = await this.search(this.failuresQuery(), range, o.failures, MAX_FAILURE_EVENTS)
    if (read.cut) this.hooks.onNotice?.(`Datadog RUM: the range holds ${o.failures === undefined ? 'more than' : o.failures.toLocaleString('en-US')} error events and failed scripts; only the first ${MAX_FAILURE_EVENTS.toLocaleString('en-US')} were read (narrow --rum-query, or the range)`)
    const failed = reader.add(read.items)
    if ('reason' in o.pageLoads) reader.add((await this.search(this.pageLoadsQuery(), range, undefined, Number.POSITIVE_INFINITY)).items)

    // 3. The sessions that matter: those of the failures, then those of the log's failed page loads' addresses.
    const fromFailures = new Set<string>()
    for (const e of failed) {
      if (e.kind === 'resource' || (e.error !== undefined && isBrowserFailure(e.error.message, e.error.type))) fromFailures.add(e.session)
    }
    const loads = failedPageLoads(failures)
    const fromAddresses = await this.sessionsAt(loads)
    const wanted = [...fromFailures, ...[...fromAddresses].filter((s) => !fromFailures.has(s))]
    const sessions = wanted.slice(0, MAX_SESSIONS)
    if (wanted.length > sessions.length) {
      this.hooks.onNotice?.(`Datadog RUM: ${wanted.length.toLocaleString('en-US')} sessions matter; the views and resources of ${MAX_SESSIONS.toLocaleString('en-US')} were read (those with a browser failure first): narrow --rum-query, or the range`)
    }
    const batches = termBatches(sessions, SESSIONS_PER_QUERY)
    const pulled = await mapBounded(batches, this.req.tuning.concurrency, async (ids) => {
      const query = this.sessionsQuery(ids)
      const count = await this.countTotal(query, range)
      return (await this.search(query, range, count, Number.POSITIVE_INFINITY)).items
    })
    for (const items of pulled) reader.add(items)

    const out = reader.result()
    const s = this.client.stats
    this.done = {
      query: this.req.query, pageLoadsCounted: 'reason' in o.pageLoads ? null : o.pageLoads.total,
      failures: {read: read.items.length, held: o.failures ?? null, cut: read.cut},
      sessions: {fromFailures: fromFailures.size, fromAddresses: wanted.length - fromFailures.size, read: sessions.length, cut: wanted.length > sessions.length},
      addresses: new Set(loads.map((l) => l.address)).size, events: out.events.length,
      requests: {total: s.requests, search: s.byOperation['rum-search'], aggregate: s.byOperation['rum-aggregate'], retries: s.retries},
    }
    return {...out, ...('reason' in o.pageLoads ? {} : {initialLoads: o.pageLoads.buckets})}
  }

  /** What the pull did (after `pull`). */
  summary(): RumPullSummary | undefined {
    return this.done
  }

  /**
   * The sessions with an event at the addresses of these page loads near their times: batches of
   * addresses in time order, each over the span of its page loads (a minute either side), grouped
   * by session id on Datadog's side. A batch that cannot be listed is said, and its sessions are
   * left to those the failures name.
   */
  private async sessionsAt(loads: readonly {address: string; time: number}[]): Promise<Set<string>> {
    const out = new Set<string>()
    const batches = addressBatches(loads, this.req.range)
    const lists = await mapBounded(batches, this.req.tuning.concurrency, async (b) => {
      try {
        const buckets = await this.aggregate(this.addressesQuery(b.addresses), b, [{aggregation: 'count', type: 'total'}], [
          {facet: '@session.id', limit: GROUP_LIMIT, sort: {aggregation: 'count', order: 'desc', type: 'measure'}},
        ])
        return buckets.map((x) => x.by['@session.id']).filter((v): v is string => typeof v === 'string' && v !== '')
      } catch (error: unknown) {
        this.hooks.onNotice?.(`Datadog RUM: the sessions of ${plural(b.addresses.length, 'client address', 'client addresses')} of the log's failed page loads cannot be listed (${reasonOf(error)}): only the sessions with a browser failure are read there`)
        return []
      }
    })
    for (const l of lists) for (const s of l) out.add(s)
    return out
  }

  /** A query's events over a range, oldest first, at most `max` (then `cut`); `count`, when known, ends it on its last page. */
  private async search(query: string, range: TimeRange, count: number | undefined, max: number): Promise<{items: Record<string, unknown>[]; cut: boolean}> {
    const items: Record<string, unknown>[] = []
    const slice = pullSlice(this.client, RUM_SEARCH, {stream: 0, query, from: range.from, to: range.to, ...(count === undefined ? {} : {count})}, this.hooks.onNotice, undefined, this.now)
    for await (const page of slice) {
      for (const p of page) {
        if (items.length >= max) {
          await slice.return(undefined)
          return {items, cut: true}
        }
        items.push(p.item)
      }
    }
    return {items, cut: false}
  }

  /** How many events a query's search over exactly this range returns, or undefined (the search then pages to its end). */
  private async countTotal(query: string, range: TimeRange): Promise<number | undefined> {
    try {
      const buckets = await this.aggregate(query, range, [{aggregation: 'count', type: 'total'}])
      if (buckets.length > 1) return undefined
      const n = buckets[0] === undefined ? 0 : Number(buckets[0].computes.c0 ?? 0)
      return Number.isInteger(n) && n >= 0 ? n : undefined
    } catch (error: unknown) {
      reasonOf(error)
      return undefined
    }
  }

  /**
   * The buckets of a RUM aggregate (docs.datadoghq.com/api/latest/rum/aggregate-rum-events: body
   * `{filter: {query, from, to}, compute: [{aggregation, type, interval}], group_by: [{facet, limit,
   * sort}], page: {cursor}}`, answer `{data: {buckets: [{by, computes: {c0, …}}]}, meta: {page: {after}}}`),
   * the outer group's further pages followed.
   */
  private async aggregate(query: string, range: TimeRange, compute: RUMCompute[], groupBy?: RUMGroupBy[]): Promise<Bucket[]> {
    return pagedBuckets(groupBy !== undefined, 'Datadog RUM aggregate answer', (cursor) => this.client.call('rum-aggregate', (apis) => apis.rum.aggregateRUMEvents({body: {
      filter: {query, from: new Date(range.from).toISOString(), to: new Date(range.to).toISOString()},
      // A fresh body for every request: the client's serialiser is handed its own copy.
      compute: compute.map((c) => ({...c})),
      ...(groupBy ? {groupBy: groupBy.map((g) => ({...g}))} : {}),
      ...(cursor === undefined ? {} : {page: {cursor}}),
    } satisfies RUMAggregateRequest})))
  }
}

/**
 * The timeseries bucket: the finest of these sizes with at most 1440 buckets in the range (as the
 * log pull's plan.ts bucketFor, with sizes under a minute for short ranges: coverage counts a
 * bucket where it starts, so the finer, the nearer its edges).
 */
export function rumBucketFor(rangeMs: number): {ms: number; interval: string} {
  const sizes: [number, string][] = [[1000, '1s'], [5000, '5s'], [10_000, '10s'], [30_000, '30s'], [60_000, '1m'], [300_000, '5m'], [600_000, '10m'], [900_000, '15m'], [1_800_000, '30m'], [3_600_000, '1h'], [7_200_000, '2h'], [14_400_000, '4h'], [43_200_000, '12h'], [86_400_000, '1d']]
  for (const [ms, interval] of sizes) if (rangeMs / ms <= 1440) return {ms, interval}
  return {ms: 86_400_000, interval: '1d'}
}

/** `[{time, value}]` as buckets in time order, empty ones left out. */
function seriesOf(raw: unknown): {start: number; count: number}[] {
  if (!Array.isArray(raw)) return []
  const out: {start: number; count: number}[] = []
  for (const p of raw) {
    const point = (p ?? {}) as {time?: unknown; value?: unknown}
    const t = parseTime(point.time)?.ms
    const v = Number(point.value)
    if (t !== undefined && Number.isFinite(v) && v > 0) out.push({start: t, count: v})
  }
  return out.sort((a, b) => a.start - b.start)
}

/** The log's page loads with a failure, once each: the client address and when it began. */
export function failedPageLoads(failures: readonly FailureRecord[]): {address: string; time: number}[] {
  const loads = new Map<string, {address: string; time: number}>()
  for (const f of failures) {
    const key = `${f.app ?? ''}\n${f.pageLoad.id}`
    const time = Date.parse(f.pageLoad.time)
    if (!loads.has(key) && f.clientIp !== '' && Number.isFinite(time)) loads.set(key, {address: f.clientIp, time})
  }
  return [...loads.values()].sort((a, b) => a.time - b.time)
}

/**
 * Page loads' addresses in batches of at most ADDRESSES_PER_QUERY (and a query's length), in time
 * order, each over its page loads' span (a minute either side, at most ADDRESS_SPAN_MS), within the range.
 */
export function addressBatches(loads: readonly {address: string; time: number}[], range: TimeRange): (TimeRange & {addresses: string[]})[] {
  const out: (TimeRange & {addresses: string[]})[] = []
  let cur: (TimeRange & {addresses: Set<string>; chars: number}) | undefined
  const close = (): void => {
    if (cur === undefined) return
    const from = Math.max(range.from, cur.from)
    const to = Math.min(range.to, cur.to)
    if (to > from) out.push({from, to, addresses: [...cur.addresses]})
    cur = undefined
  }
  for (const l of loads) {
    const chars = escapeValue(l.address).length + 4
    const fits = cur !== undefined && l.time + ADDRESS_PAD_MS - cur.from <= ADDRESS_SPAN_MS &&
      (cur.addresses.has(l.address) || (cur.addresses.size < ADDRESSES_PER_QUERY && cur.chars + chars <= MAX_TERMS_LENGTH / 2))
    if (!fits) {
      close()
      cur = {from: l.time - ADDRESS_PAD_MS, to: l.time + ADDRESS_PAD_MS, addresses: new Set(), chars: 0}
    }
    const c = cur as TimeRange & {addresses: Set<string>; chars: number}
    if (!c.addresses.has(l.address)) {
      c.addresses.add(l.address)
      c.chars += chars
    }
    c.to = Math.max(c.to, l.time + ADDRESS_PAD_MS)
  }
  close()
  return out
}

/**
 * The items pulled, normalised: each event once (by id: a failed script comes again with its
 * session's resources), every item used, ignored (RUM of a type not read) or skipped with its
 * reason and place (the item's number in the pull), as sources/rum/rum-file.ts accounts for a file.
 */
class Items {
  private readonly events: RumEvent[] = []
  private readonly seen = new Set<string>()
  private records = 0
  private ignored = 0
  private readonly skipped = {total: 0, byReason: {} as Record<string, number>, examples: [] as SkippedLocation[]}

  constructor(private readonly name: string) {}

  /** Adds items; returns the events they gave. */
  add(items: readonly Record<string, unknown>[]): RumEvent[] {
    const added: RumEvent[] = []
    for (const item of items) {
      const id = typeof item.id === 'string' ? item.id : undefined
      if (id !== undefined) {
        if (this.seen.has(id)) continue
        this.seen.add(id)
      }
      const line = ++this.records
      const out = normalizeRum(item)
      if (out.ok) {
        const e: RumEvent = {...out.event, location: {file: this.name, line}}
        this.events.push(e)
        added.push(e)
      } else if ('ignored' in out) {
        this.ignored++
      } else {
        this.skipped.total++
        const n = (this.skipped.byReason[out.reason] = (this.skipped.byReason[out.reason] ?? 0) + 1)
        if (n <= EXAMPLES_PER_REASON) this.skipped.examples.push({reason: out.reason, file: this.name, line, ...(out.detail ? {detail: out.detail} : {})})
      }
    }
    return added
  }

  result(): {events: RumEvent[]; input: RumReport['input']} {
    // Stable: events of one time keep the order they came in.
    const events = [...this.events].sort((a, b) => a.time - b.time)
    const count = (kind: RumEvent['kind']): number => events.filter((e) => e.kind === kind).length
    return {
      events,
      input: {
        files: [{file: this.name, records: this.records, used: events.length, ignored: this.ignored, skipped: this.skipped.total}],
        views: count('view'), resources: count('resource'), errors: count('error'), skipped: this.skipped,
      },
    }
  }
}

/** Why an optional step failed (said in a notice); refused keys, redirects, bombs and cancels end the run as in the log pull. */
function reasonOf(error: unknown): string {
  if (error instanceof PullAborted || !(error instanceof SourceError)) throw error
  if (error instanceof DatadogRequestError && error.failure.kind === 'http' && (error.failure.status === 401 || error.failure.status === 403)) throw error
  if (endsTheRun(error)) throw error
  return error.message.split('\n')[0] ?? error.message
}

/** The line said on stderr once the RUM pull is done. */
export function rumSummaryLine(s: RumPullSummary): string {
  const loads = s.pageLoadsCounted === null ? 'page loads read, not counted' : `${s.pageLoadsCounted.toLocaleString('en-US')} page loads counted`
  const cut = s.failures.cut || s.sessions.cut ? ' (cut: see above)' : ''
  return `Datadog RUM: ${loads}; read ${s.failures.read.toLocaleString('en-US')} errors and failed scripts, and the views and resources of ${plural(s.sessions.read, 'session')} ` +
    `(${s.sessions.fromFailures} with a browser failure, ${s.sessions.fromAddresses} at ${plural(s.addresses, 'address', 'addresses')} of the log's failed page loads)${cut}: ` +
    `${s.events.toLocaleString('en-US')} events with ${s.requests.total} requests (${s.requests.search} search, ${s.requests.aggregate} aggregate, ${s.requests.retries} retries)`
}

