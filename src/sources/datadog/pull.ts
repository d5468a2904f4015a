/**
 * A live pull from the Logs API: plan it (aggregate counts, shell lengths, candidate windows), then
 * pull the planned slices. Shared by `analyze --from` (a RecordSource) and `export` (NDJSON).
 */
import type {DatadogConnection} from './connection'
import type {TimeRange} from '../../model/time-range'
import type {DatadogInputSummary} from '../../model/report'
import {SourceError} from '../errors'
import {RECENT_EVIDENCE} from '../../model/page-census'
import {bucketsByClient, bucketsOfPeople, bucketsWithEvents, countEvents, countTotal, lengthsServed, POD_FACETS, podActivity} from './aggregate'
import {AgentClassifier} from '../../util/agent-kind'
import {DatadogClient, DatadogRequestError, type Operation, PullAborted} from './client'
import {endsTheRun} from './errors'
import {aloneScannerBuckets, type BucketCounts, bucketFor, bucketRanges, clientWindows, edgeSlices, joinEdgeSlices, planSlices, planWindows, podEdges, readBuckets, type Slice, withoutBuckets} from './plan'
import {PAGE_LIMIT, type PullProgress, Puller, type Pulled, type SearchScope, type SliceTask} from './puller'
import {lengthValues, type NarrowingSpec, QueryBuilder} from './query'
import type {RetryPolicy} from './retry'
import {plural} from '../../util/plural'
import {estimatePull, type PullEstimate} from './estimate'
import type {PageCensus} from '../../model/page-census'
import {type Ask, censusOf, type Counted, type CountedRoutes, countRoutes, countShells, shellsByPod, unsureRouteBuckets} from './census'
import {findScanners, type Scanners, type ScannerSpec} from './scanners'

export type PullMode = 'windows' | 'narrowed' | 'all'

/** What to pull: everything that decides which events come back (an export's resume checks it). */
export interface PullSpec {
  query: string
  range: TimeRange
  scope: SearchScope
  mode: PullMode
  narrowing: NarrowingSpec
  /** Asset windows reach this far before a candidate failure (the page load behind it). */
  windowPadMs: number
  /** ... and this far after it. */
  windowTailMs: number
  /**
   * Count page requests on Datadog's side and read them only where the analysis needs their times
   * (`analyze` does; an export, which must hold every event it stands for, does not): the facets
   * that name apps, in the order the analysis looks.
   */
  countPages?: {
    appFacets: readonly string[]
    /**
     * Count plain routes answered with a shell too (census.ts countRoutes), by when the analysis
     * takes a route for a shell: at most this long after its length's shell was served, and that
     * shell learned this far ahead (AnalysisOptions' horizonMs and lookaheadMs).
     */
    routes?: {horizonMs: number; lookaheadMs: number}
  }
  /** Declared deploys' times (deploy events): page requests around them are read. */
  deployTimes?: readonly number[]
  /**
   * Leave out the asset windows of buckets whose failure-looking requests the analysis can only
   * count as scanners' (scanners.ts); only where the analysis keys page loads by address and agent
   * (or by these session attributes), and only with page counts.
   */
  scanners?: ScannerSpec
}

export interface PullTuning {
  concurrency: number
  /** Events per slice to aim for, by the aggregate counts. */
  sliceEvents: number
  /** Without counts, the longest slice. */
  maxSliceMs: number
  timeoutMs: number
  retry: RetryPolicy
  /**
   * A range holding at most this many events is pulled narrowed (every page and asset request)
   * rather than windowed: planning windows costs more requests than pulling it whole.
   */
  narrowBelow?: number
  /** The most one answer may take once inflated (default: the client's `MAX_ANSWER_BYTES`); tests make it small. */
  maxAnswerBytes?: number
  /** The most groups one aggregate of people's page loads lists (default: Datadog's GROUP_LIMIT); tests make it small. */
  groupLimit?: number
}

export interface PullHooks {
  onNotice?: (message: string) => void
  onProgress?: (p: PullProgress & {phase: 'planning' | 'pulling'}) => void
  signal?: AbortSignal
  now?: () => number
  random?: () => number
}

/** A planned pull; plain data, so an export can keep it and resume it. */
export interface PullPlan {
  held: number | null
  aggregate: DatadogInputSummary['narrowing']['aggregate']
  reason?: string
  shellLengths: number[]
  /** The time asset requests are pulled from: the windows, or the whole range. */
  windows: TimeRange[]
  streams: {name: 'pages' | 'routes' | 'assets' | 'candidates' | 'sessions' | 'narrowed' | 'all' | 'edges'; query: string; slices: Slice[]}[]
  /** The pods whose first and last responses were pulled (see edges), and by which facet. */
  pods?: {facet: string | null; count: number; reason?: string}
  /** The people whose requests look like failures, by address, and the windows their own requests are read in (the sessions stream). */
  clients?: {count: number; windows: TimeRange[]}
  /** Page requests counted rather than read (the pages stream reads its `read` buckets only). */
  census?: PageCensus
  /** Why page requests were read in full when they were to be counted. */
  censusReason?: string
  /** Candidate buckets left without a window: their failure-looking requests are scanners' alone (scanners.ts). */
  scanners?: {paths: number; clients: number; buckets: number}
}

/** Where a resumed pull starts: the last time written, and the ids already written at that time. */
export interface ResumePoint {
  time: number
  ids: readonly string[]
}

export class DatadogPull {
  readonly client: DatadogClient
  private planned: PullPlan | undefined
  private puller: Puller | undefined
  private emitted = 0
  private duplicatesDropped = 0
  deployEvents: DatadogInputSummary['deployEvents']

  constructor(readonly connection: DatadogConnection, readonly spec: PullSpec, readonly tuning: PullTuning, private readonly hooks: PullHooks = {}) {
    this.client = new DatadogClient(connection, {
      timeoutMs: tuning.timeoutMs, retry: tuning.retry, signal: hooks.signal, now: hooks.now, random: hooks.random,
      ...(tuning.maxAnswerBytes === undefined ? {} : {maxAnswerBytes: tuning.maxAnswerBytes}),
      onRetry: ({operation, attempt, delayMs, why}) => hooks.onNotice?.(`Datadog ${operation}: ${why}; retrying in ${formatMs(delayMs)} (attempt ${attempt + 1} of ${tuning.retry.maxAttempts})`),
    })
  }

  /** Plans once (aggregate calls); `use` installs a plan kept from an earlier run instead. */
  async plan(): Promise<PullPlan> {
    this.planned ??= await planPull(this.client, this.spec, this.tuning, this.hooks)
    return this.planned
  }

  /** Page requests the plan counts rather than reads (undefined when it reads them all). */
  census(): PageCensus | undefined {
    return this.planned?.census
  }

  use(plan: PullPlan): void {
    this.planned = plan
  }

  /**
   * What the planned pull will cost. The search limit is known only from a search's answer: when
   * none was made yet, one search of a single event asks for it.
   */
  async estimate(): Promise<PullEstimate> {
    const plan = await this.plan()
    if (this.client.rate.budget('logs-search') === undefined) {
      const {query, range, scope} = this.spec
      await this.client.call('logs-search', (apis) => apis.logs.listLogs({body: {
        filter: {
          query, from: new Date(range.from).toISOString(), to: new Date(range.to).toISOString(),
          ...(scope.indexes && scope.indexes.length > 0 ? {indexes: [...scope.indexes]} : {}), ...(scope.storageTier ? {storageTier: scope.storageTier} : {}),
        },
        page: {limit: 1}, sort: 'timestamp',
      }}))
    }
    return estimatePull(plan, this.client.stats.requests, this.client.rate.budget('logs-search'), (this.hooks.now ?? Date.now)())
  }

  /** The planned events in time order, each once; from a resume point when given. */
  async *pulled(resume?: ResumePoint): AsyncGenerator<Pulled[]> {
    const plan = await this.plan()
    const tasks: SliceTask[] = plan.streams.flatMap((s, stream) => s.slices
      .filter((sl) => resume === undefined || sl.to > resume.time)
      .map((sl) => sliceTask(stream, sl.query ?? s.query, sl, resume === undefined ? sl.from : Math.max(sl.from, resume.time))))
    const puller = new Puller(this.client, this.spec.scope, tasks, {
      concurrency: this.tuning.concurrency, now: this.hooks.now, onNotice: this.hooks.onNotice,
      onProgress: this.hooks.onProgress && ((p) => this.hooks.onProgress?.({...p, phase: 'pulling'})),
    })
    this.puller = puller
    const skip = new Set(resume?.ids ?? [])
    try {
      for await (const batch of puller.pulled()) {
        const fresh = resume === undefined ? batch : batch.filter((p) => p.time > resume.time || (p.time === resume.time && (p.id === undefined || !skip.has(p.id))))
        this.duplicatesDropped += batch.length - fresh.length
        this.emitted += fresh.length
        if (fresh.length > 0) yield fresh
      }
    } catch (error: unknown) {
      if (error instanceof SourceError) throw this.withProgress(error)
      throw error
    }
  }

  /** How far a failed pull got, appended to its error: the user decides from it whether to resume. */
  private withProgress(error: SourceError): SourceError {
    const p = this.puller
    const where = p ? `${p.slicesDone} of ${plural(p.slicesTotal, 'slice')} done, ${plural(this.emitted, 'event')} pulled, ${plural(this.client.stats.requests, 'request')} made` : 'nothing pulled yet'
    const e = new SourceError(`${error.message}\nGot this far: ${where}.`, error.file)
    e.stack = error.stack
    return e
  }

  get progress(): {slicesDone: number; slicesTotal: number; events: number} {
    return {slicesDone: this.puller?.slicesDone ?? 0, slicesTotal: this.puller?.slicesTotal ?? 0, events: this.emitted}
  }

  summary(): DatadogInputSummary {
    const plan = this.planned
    const s = this.client.stats.byOperation
    const windows = plan?.windows ?? []
    const seconds = (ms: number): number => Math.round(ms / 100) / 10
    return {
      query: this.spec.query, from: iso(this.spec.range.from), to: iso(this.spec.range.to), site: this.connection.site, pull: this.spec.mode,
      narrowing: {
        aggregate: plan?.aggregate ?? 'not-asked', ...(plan?.reason ? {reason: plan.reason} : {}), shellLengths: plan?.shellLengths ?? [], ...(plan?.pods ? {pods: plan.pods} : {}),
        ...(this.spec.countPages && this.spec.mode === 'windows' ? {pageCounts: pageCounts(plan)} : {}),
        ...(plan?.clients ? {clients: {count: plan.clients.count, windowSeconds: seconds(plan.clients.windows.reduce((n, w) => n + w.to - w.from, 0))}} : {}),
      },
      held: plan?.held ?? null,
      pulled: this.emitted,
      duplicates: (this.puller?.duplicates ?? 0) + this.duplicatesDropped,
      requests: {
        total: this.client.stats.requests, search: s['logs-search'], aggregate: s['logs-aggregate'], events: s['events-search'] + s['events-v1'],
        retries: this.client.stats.retries,
      },
      slices: plan?.streams.reduce((n, st) => n + st.slices.length, 0) ?? 0,
      windows: {
        count: windows.length,
        pulledSeconds: seconds(windows.reduce((n, w) => n + w.to - w.from, 0)),
        rangeSeconds: seconds(this.spec.range.to - this.spec.range.from),
        list: windows.slice(0, 100).map((w) => ({start: iso(w.from), end: iso(w.to)})),
      },
      ...(this.deployEvents ? {deployEvents: this.deployEvents} : {}),
    }
  }
}

/** A slice to pull from `from` on; its count holds only for its planned times (a resumed slice starts later). */
function sliceTask(stream: number, query: string, sl: Slice, from: number): SliceTask {
  return {
    stream, query, from, to: sl.to, ...(sl.estimate === undefined ? {} : {estimate: sl.estimate}),
    ...(sl.count === undefined || from !== sl.from ? {} : {count: sl.count}),
  }
}

/**
 * The plan. Count the range (for `held`, and to cut slices); learn the shell lengths, so page
 * requests are only shell paths and routes answered with a shell. `narrowed` then pulls those and
 * every asset request over the whole range; `windows` also finds the buckets with candidate
 * failures and pulls asset requests only in windows around them. Any aggregate failure falls back
 * to the plain narrowed query over the whole range (every 2xx GET page), which reads everything
 * the analysis could use. `all` pulls the user's query as is.
 */
async function planPull(client: DatadogClient, spec: PullSpec, tuning: PullTuning, hooks: PullHooks): Promise<PullPlan> {
  const q = new QueryBuilder(spec.query, spec.narrowing)
  const bucket = bucketFor(spec.range.to - spec.range.from)
  const whole = [spec.range]
  hooks.onProgress?.({phase: 'planning', slicesDone: 0, slicesTotal: 0, pages: 0, events: 0, requests: client.stats.requests, retries: client.stats.retries})
  let held: number | null = null
  let counts: BucketCounts | undefined
  let heldReason: string | undefined
  try {
    const c = await countEvents(client, spec.scope, q.all(), spec.range, bucket)
    held = c.total
    counts = c.counts
    if (c.exact) counts = {...counts, exact: spec.range}
  } catch (error: unknown) {
    heldReason = `the aggregate count failed: ${reasonOf(error)}`
  }
  // Each stream is cut by the counts of its own query, so each slice's estimate is what it holds
  // (what the plan says it will pull), not the user's query's; by those when a count fails, and
  // then no slice's count is exact (they are another query's).
  const slices = async (query: string, ranges: TimeRange[]): Promise<Slice[]> => {
    let own = query === q.all() ? counts : undefined
    if (own === undefined && counts !== undefined) {
      own = await countEvents(client, spec.scope, query, spec.range, bucket).then((c) => (c.exact ? {...c.counts, exact: spec.range} : c.counts), (error: unknown) => {
        reasonOf(error)
        return counts && {bucketMs: counts.bucketMs, counts: counts.counts}
      })
    }
    return planSlices(ranges, own, {targetEvents: tuning.sliceEvents, maxSliceMs: tuning.maxSliceMs})
  }
  const wholeRange = async (aggregate: PullPlan['aggregate'], name: 'narrowed' | 'all', query: string, reason?: string, shellLengths: number[] = []): Promise<PullPlan> => ({
    held, aggregate, ...(reason ? {reason} : {}), shellLengths, windows: whole, streams: [{name, query, slices: await slices(query, whole)}],
  })
  if (spec.mode === 'all') return wholeRange('not-asked', 'all', q.all(), heldReason)
  const fallBack = (reason: string): Promise<PullPlan> => {
    hooks.onNotice?.(`Datadog aggregate narrowing unavailable (${reason}): pulling every GET page and asset request of the range instead`)
    return wholeRange('fell-back', 'narrowed', q.narrowed(), reason)
  }
  if (heldReason !== undefined) return fallBack(heldReason)
  try {
    const ask = {client, scope: spec.scope, range: spec.range, bucket, ...(tuning.groupLimit ? {groupLimit: tuning.groupLimit} : {})}
    // A small range costs fewer requests pulled whole than planning windows would.
    const small = spec.mode === 'windows' && held !== null && held <= (tuning.narrowBelow ?? 0)
    let censusReason: string | undefined
    const uncounted = (reason: string): undefined => {
      censusReason = reason
      hooks.onNotice?.(`Datadog page requests cannot be counted on Datadog's side (${reason}): reading every one of the range`)
      return undefined
    }
    const tried = spec.mode === 'windows' && spec.countPages && !small ? await countShells(ask, q, spec.countPages.appFacets).catch((error: unknown) => ({reason: reasonOf(error)})) : undefined
    const counted = tried && 'reason' in tried ? uncounted(tried.reason) : tried
    const shells = counted ? {lengths: counted.lengths, complete: true} : await lengthsServed(client, spec.scope, q.shellResponses(), spec.range)
    if (!shells.complete) return fallBack(`more than ${shells.lengths.length} distinct shell lengths`)
    const lengths = lengthValues(shells.lengths, spec.narrowing.lengthTolerance)
    if (lengths === undefined) return fallBack(`${shells.lengths.length} shell lengths with --length-tolerance ${spec.narrowing.lengthTolerance} are too many to list in a query`)
    if (spec.mode === 'narrowed' || small) {
      const plan = await wholeRange('used', 'narrowed', q.narrowed(lengths), small ? `the range holds ${plural(held ?? 0, 'event')}: pulled whole (every page and asset request) in fewer requests than planning windows takes` : undefined, shells.lengths)
      return countedApart(client, spec.scope, withEdges(plan, await edgesOf(client, spec, q, lengths, bucket, undefined)), tuning.concurrency)
    }
    // Asset windows open around the failures of people only: the failure-looking requests of
    // crawlers, scanners and the probe (a scanner's 404s can fall in every hour of a day) are
    // pulled alone, in the candidates stream, which is all the analysis reads of them.
    const agents = new AgentClassifier()
    const isPerson = (agent: string): boolean => agents.kind(agent) === undefined
    const unavailable = (error: unknown): undefined => {
      hooks.onNotice?.(`Datadog aggregate by user agent unavailable (${reasonOf(error)}): asset windows open around every failure-looking request, crawlers' included`)
      return undefined
    }
    // When page requests are counted, the people whose requests look like failures are known by
    // address too: their own asset requests are read a window back (the page load behind a
    // failure, and what kept it alive), everyone's only around the failures themselves.
    const people = await bucketsOfPeople(client, spec.scope, q.candidates(lengths), spec.range, bucket, isPerson).catch(unavailable)
    const peoples = people && q.withoutAgents(q.candidates(lengths), people.others)
    const hurt = counted && peoples !== undefined
      ? await bucketsByClient(client, spec.scope, peoples, spec.range, bucket).catch((error: unknown) => (hooks.onNotice?.(`Datadog aggregate by client address unavailable (${reasonOf(error)}): everyone's asset requests are read a window back from each failure`), undefined))
      : undefined
    const found = counted && peoples !== undefined ? await scannerBuckets(ask, q, spec, peoples, hurt, counted, lengths, hooks) : undefined
    const padBefore = hurt ? spec.windowTailMs : spec.windowPadMs
    const all = people?.buckets ?? await bucketsWithEvents(client, spec.scope, q.candidates(lengths), spec.range, bucket)
    const scanners = found && {...found, buckets: aloneScannerBuckets(all, found.buckets, bucket.ms, padBefore, spec.windowTailMs, spec.range)}
    const candidates = withoutBuckets(all, scanners?.buckets ?? new Set(), bucket.ms)
    const windows = planWindows(candidates, bucket.ms, padBefore, spec.windowTailMs, spec.range)
    const sessions = hurt ? clientWindows(withoutScanners(hurt, scanners, bucket.ms), bucket.ms, spec.windowPadMs, spec.windowTailMs, spec.range) : []
    const edges = await edgesOf(client, spec, q, lengths, bucket, windows)
    const planned = counted ? await pagesToRead(ask, q, spec, counted, edges, windows, lengths, hooks) : undefined
    const read = planned && 'reason' in planned ? uncounted(planned.reason) : planned
    // Where plain routes are counted, the buckets read read every page request (routes too), and
    // only dotted routes that may be documents are read over the whole range.
    const pages = read?.census.routes
      ? [
        {name: 'pages' as const, query: q.pageRequests(lengths), slices: await slices(q.pageRequests(lengths), bucketRanges(read.buckets, bucket.ms, spec.range))},
        {name: 'routes' as const, query: q.dottedRoutes(lengths), slices: await slices(q.dottedRoutes(lengths), whole)},
      ]
      : read
      ? [
        {name: 'pages' as const, query: q.shellPageRequests(), slices: await slices(q.shellPageRequests(), bucketRanges(read.buckets, bucket.ms, spec.range))},
        ...(lengths.length === 0 ? [] : [{name: 'routes' as const, query: q.routeRequests(lengths), slices: await slices(q.routeRequests(lengths), whole)}]),
      ]
      : [{name: 'pages' as const, query: q.pageRequests(lengths), slices: await slices(q.pageRequests(lengths), whole)}]
    const plan: PullPlan = {
      held, aggregate: 'used', shellLengths: shells.lengths, windows,
      streams: [
        ...pages,
        {name: 'assets', query: q.assetRequests(), slices: await slices(q.assetRequests(), windows)},
        // Over the whole range: the asset stream has those inside the windows too (each event is
        // kept once), and a slice per stretch between windows would cost a request each.
        {name: 'candidates', query: q.candidates(lengths), slices: await slices(q.candidates(lengths), whole)},
        ...(sessions.length === 0 ? [] : [clientStream(sessions, (clients) => q.clientRequests(clients, lengths))]),
      ],
      ...(hurt ? {clients: {count: hurt.size, windows: sessions.map((w) => ({from: w.from, to: w.to}))}} : {}),
      ...(read ? {census: read.census} : censusReason === undefined ? {} : {censusReason}),
      ...(scanners ? {scanners: {paths: scanners.paths, clients: scanners.clients.size, buckets: scanners.buckets.size}} : {}),
    }
    return countedApart(client, spec.scope, withEdges(plan, edges), tuning.concurrency)
  } catch (error: unknown) {
    return fallBack(reasonOf(error))
  }
}

/**
 * The scanner check (scanners.ts), where the spec asks for it: its buckets, or undefined (saying
 * why in a notice) when it cannot tell, and every candidate bucket then opens its window.
 */
async function scannerBuckets(ask: Ask, q: QueryBuilder, spec: PullSpec, people: string, hurt: Map<string, number[]> | undefined, counted: Counted, lengths: number[], hooks: PullHooks): Promise<Scanners | undefined> {
  if (!spec.scanners || spec.narrowing.lengthTolerance !== 0) return undefined
  const unknown = (reason: string): undefined => {
    hooks.onNotice?.(`Datadog scanners cannot be told apart before pulling (${reason}): asset windows open around their failure-looking requests too`)
    return undefined
  }
  try {
    const byClient = hurt ?? await bucketsByClient(ask.client, ask.scope, people, ask.range, ask.bucket)
    if (!byClient) return unknown('a failure-looking request names no client address, or there are more addresses than one aggregate lists')
    const r = await findScanners(ask, q, people, byClient, counted, lengths, spec.scanners)
    return 'reason' in r ? unknown(r.reason) : r
  } catch (error: unknown) {
    return unknown(reasonOf(error))
  }
}

/** The hurt clients' candidate buckets but the scanners' (scanners' buckets hold no one else's). */
function withoutScanners(hurt: Map<string, number[]>, scanners: {buckets: Set<number>} | undefined, bucketMs: number): Map<string, number[]> {
  if (!scanners || scanners.buckets.size === 0) return hurt
  const out = new Map<string, number[]>()
  for (const [client, times] of hurt) {
    const kept = withoutBuckets(times, scanners.buckets, bucketMs)
    if (kept.length > 0) out.set(client, kept)
  }
  return out
}

/** What the plan counted of page requests rather than read: `input.datadog.narrowing.pageCounts`. */
function pageCounts(plan: PullPlan | undefined): NonNullable<DatadogInputSummary['narrowing']['pageCounts']> {
  const c = plan?.census
  if (!c) return {used: false, reason: plan?.censusReason ?? plan?.reason ?? 'the pull was not planned'}
  let pageLoads = 0
  for (const a of Object.values(c.apps)) for (const [, n] of a.pageLoads) pageLoads += n
  return {used: true, bucketSeconds: c.bucketMs / 1000, bucketsRead: c.read.length, pageLoadsCounted: pageLoads}
}

/** Addresses one query of the sessions stream names at most. */
const CLIENTS_PER_QUERY = 100

/**
 * The hurt clients' own page and asset requests in their windows (the page loads behind their
 * failures, and what kept them alive): one slice per window and batch of addresses, each with its
 * own query. Inside the asset windows the other streams have them too: each event is kept once.
 */
function clientStream(sessions: readonly {from: number; to: number; clients: string[]}[], query: (clients: readonly string[]) => string): PullPlan['streams'][number] {
  const slices: Slice[] = []
  for (const w of sessions) {
    for (let i = 0; i < w.clients.length; i += CLIENTS_PER_QUERY) slices.push({from: w.from, to: w.to, query: query(w.clients.slice(i, i + CLIENTS_PER_QUERY))})
  }
  return {name: 'sessions', query: slices[0]?.query ?? '', slices}
}

interface Edges {
  pods: NonNullable<PullPlan['pods']>
  slices: Slice[]
  /** Each pod's edges (first response, last few). */
  ranges: TimeRange[]
}

/**
 * The buckets whose page requests are read, and the census of the rest: around the asset windows,
 * each length's first and last shells (its first and last time served), each pod's edges and
 * first shell of each length (which teaches the pod's build; every shell of a pod that served
 * several lengths), and the declared deploys' times.
 */
async function pagesToRead(ask: Ask, q: QueryBuilder, spec: PullSpec, counted: Counted, edges: Edges, windows: TimeRange[], lengths: number[], hooks: PullHooks): Promise<{buckets: Set<number>; census: PageCensus} | {reason: string}> {
  const {bucket, range} = ask
  const around: TimeRange[] = [...edges.ranges, ...(spec.deployTimes ?? []).map((t) => ({from: t, to: t + 1}))]
  let podShells: {pod: string; counts: Map<number, number>}[] | undefined
  for (const app of counted.apps.values()) for (const series of app.shells.values()) around.push(...podEdges(series, bucket.ms, RECENT_EVIDENCE, range))
  const routes = await plainRoutes(ask, q, spec, counted, lengths, hooks)
  if (edges.pods.facet !== null) {
    // A pod's shells are its routes' too where those are counted (of any length: each a length of its own).
    const perLength = routes ? lengths.length : Math.max(0, ...[...counted.apps.values()].map((a) => a.shells.size))
    const r = await shellsByPod(ask, q, edges.pods.facet, perLength, routes ? q.shellsAndPlainRoutes(lengths) : undefined).catch((error: unknown) => ({reason: reasonOf(error)}))
    if ('reason' in r) return r
    const pods = r.pods
    podShells = pods
    const lengthsOf = new Map<string, number>()
    for (const p of pods) lengthsOf.set(p.pod, (lengthsOf.get(p.pod) ?? 0) + 1)
    for (const p of pods) {
      const times = [...p.counts].filter(([, n]) => n > 0).map(([t]) => t).sort((a, b) => a - b)
      for (const t of (lengthsOf.get(p.pod) ?? 0) > 1 ? times : times.slice(0, 1)) around.push({from: t, to: t + bucket.ms})
    }
  }
  const buckets = readBuckets(windows, around, bucket.ms, range)
  if (routes && spec.countPages?.routes) for (const t of unsureRouteBuckets(counted, routes, buckets, bucket.ms, spec.countPages.routes)) buckets.add(t)
  return {buckets, census: censusOf(counted, buckets, bucket.ms, podShells, routes)}
}

/**
 * Plain routes answered with a shell, counted (census.ts countRoutes) where the spec asks for it
 * and the lengths are exact (with a tolerance, which build a length matches is the analysis's
 * choice); undefined, saying why in a notice, when they cannot be: they are then read in full.
 */
async function plainRoutes(ask: Ask, q: QueryBuilder, spec: PullSpec, counted: Counted, lengths: number[], hooks: PullHooks): Promise<CountedRoutes | undefined> {
  if (!spec.countPages?.routes || spec.narrowing.lengthTolerance !== 0 || lengths.length === 0) return undefined
  const r = await countRoutes(ask, q, counted, lengths).catch((error: unknown) => ({reason: reasonOf(error)}))
  if (!('reason' in r)) return r
  hooks.onNotice?.(`Datadog routes answered with a shell cannot be counted on Datadog's side (${r.reason}): reading every one of the range`)
  return undefined
}

/**
 * The requests that show each pod's first response and its last few (RECENT_EVIDENCE), which the
 * other streams leave out: the analysis takes any response of a pod as its build being served, so
 * without them a build's first and last sighting (and a deploy's end) would move with the pull
 * mode. Counted per pod and bucket by the aggregate API, then pulled bucket-exact.
 */
async function edgesOf(client: DatadogClient, spec: PullSpec, q: QueryBuilder, lengths: number[], bucket: {ms: number; interval: string}, windows: TimeRange[] | undefined): Promise<Edges> {
  let failure: string | undefined
  const activity = await podActivity(client, spec.scope, q.readable(), spec.range, bucket, (error) => {
    failure ??= reasonOf(error)
  })
  if (!activity) return {pods: {facet: null, count: 0, reason: failure ?? `no log names the pod that answered (${POD_FACETS.join(', ')})`}, slices: [], ranges: []}
  const pods = activity.pods.map((p) => ({value: p.value, edges: podEdges(p.counts, bucket.ms, RECENT_EVIDENCE, spec.range)}))
  // A joined slice's events, at most: its pods' requests in the buckets it spans (pages and assets included).
  const byPod = new Map(activity.pods.map((p) => [p.value, p.counts]))
  const estimate = (names: readonly string[], from: number, to: number): number => {
    let n = 0
    for (const name of names) for (const [t, c] of byPod.get(name) ?? []) if (t + bucket.ms > from && t < to) n += c
    return n
  }
  const slices = joinEdgeSlices(edgeSlices(pods, windows), windows, estimate, PAGE_LIMIT).map((e): Slice => ({
    from: e.from, to: e.to, query: q.podRequests(activity.facet, e.pods, lengths, windows !== undefined && !e.inWindow),
  }))
  return {pods: {facet: activity.facet, count: pods.length, ...(activity.complete ? {} : {reason: 'more pods than one aggregate lists: the edges of some are not pulled'})}, slices, ranges: pods.flatMap((p) => p.edges)}
}

/** The plan with its sessions' and edges' slices counted (countEach); the other streams are cut by counts of their own queries. */
async function countedApart(client: DatadogClient, scope: SearchScope, plan: PullPlan, concurrency: number): Promise<PullPlan> {
  const streams: PullPlan['streams'] = []
  for (const s of plan.streams) streams.push(s.name === 'sessions' || s.name === 'edges' ? await countEach(client, scope, s, concurrency) : s)
  return {...plan, streams}
}

/**
 * The slices of a stream whose sizes no count of its own query gives (each with a query of its
 * own: a hurt person's requests, a pod's edges) counted one by one, each by an aggregate of its
 * very filter (query, scope, times), so each ends without its empty closing page (puller.ts). An
 * aggregate costs no search; one that fails leaves its slice uncounted (it then pages as before).
 */
async function countEach(client: DatadogClient, scope: SearchScope, stream: PullPlan['streams'][number], concurrency: number): Promise<PullPlan['streams'][number]> {
  const slices = [...stream.slices]
  let next = 0
  const work = async (): Promise<void> => {
    while (next < slices.length) {
      const i = next++
      const sl = slices[i] as Slice
      if (sl.count !== undefined) continue
      const n = await countTotal(client, scope, sl.query ?? stream.query, sl).catch((error: unknown) => (reasonOf(error), undefined))
      if (n !== undefined) slices[i] = {...sl, count: n}
    }
  }
  await Promise.all(Array.from({length: Math.max(1, Math.min(concurrency, slices.length))}, work))
  return {...stream, slices}
}

function withEdges(plan: PullPlan, edges: Edges): PullPlan {
  const streams = edges.slices.length === 0 ? plan.streams : [...plan.streams, {name: 'edges' as const, query: edges.slices[0]?.query ?? '', slices: edges.slices}]
  return {...plan, streams, pods: edges.pods}
}

/** Why the aggregate failed, for the fallback; keys refused and redirects fail the run (the search would meet them too). */
function reasonOf(error: unknown): string {
  if (error instanceof PullAborted || !(error instanceof SourceError)) throw error
  if (error instanceof DatadogRequestError && error.failure.kind === 'http' && (error.failure.status === 401 || error.failure.status === 403)) throw error
  if (endsTheRun(error)) throw error
  return error.message.split('\n')[0] ?? error.message
}

function iso(ms: number): string {
  return new Date(ms).toISOString()
}

export function formatMs(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10}s` : `${ms}ms`
}

export type {Operation}
