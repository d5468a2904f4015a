/**
 * Counting before fetching: the Logs aggregate API says how many events the range holds, which
 * shell lengths were served, and in which minutes asset requests looked like failures.
 */
import type {LogsAggregateRequest, LogsCompute, LogsGroupBy} from './client-types'
import type {TimeRange} from '../../model/time-range'
import {parseTime} from '../../normalize/datadog'
import {SourceError} from '../errors'
import type {DatadogClient} from './client'
import type {BucketCounts} from './plan'
import type {SearchScope} from './puller'

/** Group-by limit allowed by the API; a result this long may be cut. */
export const GROUP_LIMIT = 10_000
const MAX_AGGREGATE_PAGES = 10
const BYTES_FACET = '@network.bytes_written'

/** One bucket of an aggregate answer (Logs or RUM: the same shape). */
export interface Bucket {
  by: Record<string, unknown>
  computes: Record<string, unknown>
}

async function aggregate(client: DatadogClient, scope: SearchScope, query: string, range: TimeRange, compute: LogsCompute[], groupBy?: LogsGroupBy[]): Promise<Bucket[]> {
  return pagedBuckets(groupBy !== undefined, 'Datadog aggregate answer', (cursor) => client.call('logs-aggregate', (apis) => apis.logs.aggregateLogs({body: {
    filter: {
      query, from: new Date(range.from).toISOString(), to: new Date(range.to).toISOString(),
      ...(scope.indexes && scope.indexes.length > 0 ? {indexes: [...scope.indexes]} : {}),
      ...(scope.storageTier ? {storageTier: scope.storageTier} : {}),
    },
    // A fresh body for every request: the client's serialiser is handed its own copy.
    compute: compute.map((c) => ({...c})),
    ...(groupBy ? {groupBy: groupBy.map((g) => ({...g}))} : {}),
    ...(cursor === undefined ? {} : {page: {cursor}}),
  } satisfies LogsAggregateRequest})))
}

/**
 * The buckets of an aggregate (the Logs API's or the RUM API's: one answer shape), page after page
 * while a grouped answer has more, MAX_AGGREGATE_PAGES at most. `ask` sends one request for a
 * cursor (none for the first page); `what` names the answer in the error of one without buckets.
 */
export async function pagedBuckets(grouped: boolean, what: string, ask: (cursor: string | undefined) => Promise<unknown>): Promise<Bucket[]> {
  const buckets: Bucket[] = []
  let cursor: string | undefined
  for (let page = 0; page < MAX_AGGREGATE_PAGES; page++) {
    const json = await ask(cursor)
    const raw = (json as {data?: {buckets?: unknown}} | null)?.data?.buckets
    if (!Array.isArray(raw)) throw new SourceError(`${what} has no data.buckets`, 'datadog')
    for (const b of raw) {
      const o = (b ?? {}) as {by?: unknown; computes?: unknown}
      buckets.push({by: isObject(o.by) ? o.by : {}, computes: isObject(o.computes) ? o.computes : {}})
    }
    const after = (json as {meta?: {page?: {after?: unknown}}}).meta?.page?.after
    if (typeof after !== 'string' || after === '' || !grouped) return buckets
    cursor = after
  }
  return buckets
}

/**
 * How many events the range holds for a query, in all and per time bucket. `exact`: the buckets
 * hold every event of the total, each bucket starting on a multiple of its size (or at the range's
 * start), so a slice of whole buckets knows how many events its search returns.
 */
export async function countEvents(client: DatadogClient, scope: SearchScope, query: string, range: TimeRange, bucket: {ms: number; interval: string}): Promise<{total: number; counts: BucketCounts; exact: boolean}> {
  const buckets = await aggregate(client, scope, query, range, [
    {aggregation: 'count', type: 'total'},
    {aggregation: 'count', type: 'timeseries', interval: bucket.interval},
  ])
  const first = buckets[0]
  const total = first === undefined ? 0 : Number(first.computes.c0 ?? 0)
  if (!Number.isFinite(total)) throw new SourceError('Datadog aggregate count is not a number', 'datadog')
  const counts = series(first?.computes.c1, bucket.ms)
  let sum = 0
  for (const n of counts.values()) sum += n
  const aligned = (Array.isArray(first?.computes.c1) ? first.computes.c1 as unknown[] : []).every((p) => {
    const t = parseTime((p as {time?: unknown} | null)?.time)?.ms
    return t !== undefined && (t % bucket.ms === 0 || t === range.from) && Number.isInteger(Number((p as {value?: unknown}).value))
  })
  return {total, counts: {bucketMs: bucket.ms, counts}, exact: buckets.length <= 1 && aligned && sum === total}
}

/** How many events a query's search over exactly this range and scope returns: one total count of the very same filter. */
export async function countTotal(client: DatadogClient, scope: SearchScope, query: string, range: TimeRange): Promise<number | undefined> {
  const buckets = await aggregate(client, scope, query, range, [{aggregation: 'count', type: 'total'}])
  if (buckets.length > 1) return undefined
  const total = buckets[0] === undefined ? 0 : Number(buckets[0].computes.c0 ?? 0)
  return Number.isInteger(total) && total >= 0 ? total : undefined
}

/** The distinct response lengths of a query (the shells' fingerprints), with how often each was served. */
export async function lengthsServed(client: DatadogClient, scope: SearchScope, query: string, range: TimeRange): Promise<{lengths: number[]; complete: boolean}> {
  const buckets = await aggregate(client, scope, query, range, [{aggregation: 'count', type: 'total'}], [
    {facet: BYTES_FACET, limit: GROUP_LIMIT, sort: {aggregation: 'count', order: 'desc', type: 'measure'}},
  ])
  const lengths = new Set<number>()
  for (const b of buckets) {
    const v = Number(b.by[BYTES_FACET])
    if (Number.isInteger(v) && v > 0) lengths.add(v)
  }
  return {lengths: [...lengths].sort((a, b) => a - b), complete: buckets.length < GROUP_LIMIT}
}

/** Start times of the buckets where a query matched anything. */
export async function bucketsWithEvents(client: DatadogClient, scope: SearchScope, query: string, range: TimeRange, bucket: {ms: number; interval: string}): Promise<number[]> {
  const buckets = await aggregate(client, scope, query, range, [{aggregation: 'count', type: 'timeseries', interval: bucket.interval}])
  const out: number[] = []
  for (const b of buckets) for (const [time, n] of series(b.computes.c0, bucket.ms, false)) if (n > 0) out.push(time)
  return out.sort((a, b) => a - b)
}

/** The facet of the user agent in Datadog's web access log pipelines. */
const AGENT_FACET = '@http.useragent'

/**
 * Start times of the buckets where a query matched a request of a person: grouped by user agent,
 * the agents of crawlers and skewscan's probe (as the analysis tells them) left out, a missing
 * agent kept; and those agents left out (`others`). Undefined when the agents are more than one
 * aggregate lists: then no bucket may be left out.
 */
export async function bucketsOfPeople(client: DatadogClient, scope: SearchScope, query: string, range: TimeRange, bucket: {ms: number; interval: string}, isPerson: (agent: string) => boolean): Promise<{buckets: number[]; others: string[]} | undefined> {
  const buckets = await aggregate(client, scope, query, range, [{aggregation: 'count', type: 'timeseries', interval: bucket.interval}], [
    {facet: AGENT_FACET, limit: GROUP_LIMIT, missing: 'n/a', sort: {aggregation: 'count', order: 'desc', type: 'measure'}},
  ])
  if (buckets.length >= GROUP_LIMIT) return undefined
  const out = new Set<number>()
  const others: string[] = []
  for (const b of buckets) {
    const agent = b.by[AGENT_FACET]
    if (typeof agent === 'string' && agent !== '' && !isPerson(agent)) {
      others.push(agent)
      continue
    }
    for (const [time, n] of series(b.computes.c0, bucket.ms, false)) if (n > 0) out.add(time)
  }
  return {buckets: [...out].sort((a, b) => a - b), others: others.sort()}
}

/** The facet of the client's address in Datadog's web access log pipelines. */
const CLIENT_FACET = '@network.client.ip'

/**
 * The buckets where a query matched anything, per client address. Undefined when there were more
 * addresses than one aggregate lists, or a request names no address.
 */
export async function bucketsByClient(client: DatadogClient, scope: SearchScope, query: string, range: TimeRange, bucket: {ms: number; interval: string}): Promise<Map<string, number[]> | undefined> {
  const r = await groupedSeries(client, scope, query, range, bucket, [{facet: CLIENT_FACET, limit: GROUP_LIMIT, missing: 'n/a'}])
  if (!r.complete) return undefined
  const out = new Map<string, number[]>()
  for (const g of r.groups) {
    const times = [...g.counts].filter(([, n]) => n > 0).map(([t]) => t).sort((a, b) => a - b)
    if (times.length === 0) continue
    const address = g.by[0] as string
    if (address === 'n/a' || address === '') return undefined
    out.set(address, times)
  }
  return out
}

/**
 * Where Datadog logs name the pod that answered: the ingress-nginx pipeline's
 * `network.destination.ip`, or ingress-nginx's own `upstream_addr` kept by a custom pipeline.
 */
export const POD_FACETS = ['@network.destination.ip', '@upstream_addr'] as const

/** Requests per pod and time bucket, by the first pod facet the logs carry. */
export interface PodActivity {
  facet: string
  pods: {value: string; counts: Map<number, number>}[]
  /** False when there were more pods than one aggregate lists. */
  complete: boolean
}

/**
 * Each pod's requests per bucket (a timeseries grouped by the pod facet). Tries the facets in turn
 * and takes the first that groups anything; undefined when none does. `fails` decides which
 * errors end the run rather than just this step.
 */
export async function podActivity(client: DatadogClient, scope: SearchScope, query: string, range: TimeRange, bucket: {ms: number; interval: string}, fails: (error: unknown) => void): Promise<PodActivity | undefined> {
  for (const facet of POD_FACETS) {
    let buckets: Bucket[]
    try {
      buckets = await aggregate(client, scope, query, range, [{aggregation: 'count', type: 'timeseries', interval: bucket.interval}], [
        {facet, limit: GROUP_LIMIT, sort: {aggregation: 'count', order: 'desc', type: 'measure'}},
      ])
    } catch (error: unknown) {
      fails(error)
      continue
    }
    const pods: PodActivity['pods'] = []
    for (const b of buckets) {
      const v = b.by[facet]
      if ((typeof v !== 'string' && typeof v !== 'number') || v === '' || v === 'n/a') continue
      pods.push({value: String(v), counts: series(b.computes.c0, bucket.ms, false)})
    }
    if (pods.length > 0) return {facet, pods, complete: buckets.length < GROUP_LIMIT}
  }
  return undefined
}

/**
 * `[{time, value}]` as a map. For counts used to cut slices, times are aligned down to the bucket
 * size; candidate times are kept as Datadog gave them, so a window always covers its bucket.
 */
function series(raw: unknown, bucketMs: number, align = true): Map<number, number> {
  const out = new Map<number, number>()
  if (!Array.isArray(raw)) return out
  for (const p of raw) {
    const point = (p ?? {}) as {time?: unknown; value?: unknown}
    const t = parseTime(point.time)?.ms
    const v = Number(point.value)
    if (t === undefined || !Number.isFinite(v)) continue
    const key = align ? Math.floor(t / bucketMs) * bucketMs : t
    out.set(key, (out.get(key) ?? 0) + v)
  }
  return out
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

/** One level of a nested group-by: its facet, how many values it lists, and the value of logs without it. */
export interface GroupLevel {
  facet: string
  limit: number
  missing?: string
}

/** Counts per time bucket of each combination of the levels' values, and whether every level listed all its values. */
export interface GroupedSeries {
  groups: {by: string[]; counts: Map<number, number>}[]
  complete: boolean
}

/**
 * A timeseries count grouped by nested facets (outer first). `complete` is false when a level may
 * have had more values than its limit lists: the counts of the others are then unknown.
 */
export async function groupedSeries(client: DatadogClient, scope: SearchScope, query: string, range: TimeRange, bucket: {ms: number; interval: string}, levels: readonly GroupLevel[]): Promise<GroupedSeries> {
  const buckets = await aggregate(client, scope, query, range, [{aggregation: 'count', type: 'timeseries', interval: bucket.interval}],
    levels.map((l) => ({facet: l.facet, limit: l.limit, ...(l.missing === undefined ? {} : {missing: l.missing}), sort: {aggregation: 'count', order: 'desc', type: 'measure'}})))
  const groups: GroupedSeries['groups'] = []
  for (const b of buckets) {
    const by = levels.map((l) => b.by[l.facet])
    if (by.some((v) => typeof v !== 'string' && typeof v !== 'number')) continue
    groups.push({by: by.map(String), counts: series(b.computes.c0, bucket.ms)})
  }
  // A level lists at most `limit` values under each value of the level above it: one that listed
  // that many may have had more.
  const complete = levels.every((l, i) => {
    const seen = new Map<string, Set<string>>()
    for (const g of groups) {
      const parent = g.by.slice(0, i).join('\u0000')
      let s = seen.get(parent)
      if (!s) seen.set(parent, (s = new Set()))
      s.add(g.by[i] as string)
    }
    return [...seen.values()].every((s) => s.size < l.limit)
  }) && buckets.length < GROUP_LIMIT
  return {groups, complete}
}
