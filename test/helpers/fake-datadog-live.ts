/**
 * In-process live runs against the fake Datadog: the same code path as `analyze --from`, with fast
 * retries and short timeouts so fault tests take milliseconds, not seconds.
 */
import {join} from 'node:path'
import {analyze} from '../../src/app/analyze'
import {DEFAULT_OPTIONS} from '../../src/analysis/options'
import {type DatadogConnection, scannerCheck} from '../../src/config/datadog'
import type {AnalysisReport, BuildReport} from '../../src/model/report'
import {DEFAULT_NORMALIZE} from '../../src/normalize/fields'
import {APP_FACETS} from '../../src/sources/datadog/census'
import {openDatadogLogs} from '../../src/sources/datadog/live-source'
import type {DatadogPull, PullHooks, PullMode, PullPlan, PullSpec, PullTuning} from '../../src/sources/datadog/pull'
import type {Pulled} from '../../src/sources/datadog/puller'
import type {PullEstimate} from '../../src/model/pull-estimate'
import {ROOT} from './cli'
import type {FakeDatadog} from './fake-datadog'

/** Distinctive keys, planted so tests can prove they never reach any output. */
export const API_KEY = 'dd0api0key0PLANTED0c0ffee0000001'
export const APP_KEY = 'dd0app0key0PLANTED0c0ffee000000000000002'

/** The fixtures' Datadog logs are the ingress controller's: its own service, the app in `proxy.name`. */
export const QUERY = 'service:ingress-nginx'

/** Every shipped fixture's traffic lies in this range. */
export const RANGE = {from: Date.parse('2026-11-29T13:55:00Z'), to: Date.parse('2026-11-29T14:45:00Z')}

export function connection(fake: FakeDatadog, keys: {apiKey?: string; appKey?: string} = {}): DatadogConnection {
  return {site: 'datadoghq.com', baseUrl: fake.url, apiKey: keys.apiKey ?? API_KEY, appKey: keys.appKey ?? APP_KEY}
}

export function spec(mode: PullMode, over: Partial<PullSpec> = {}): PullSpec {
  return {
    query: QUERY, range: RANGE, scope: {}, mode,
    narrowing: {assetPatterns: DEFAULT_OPTIONS.assetPatterns, shellPaths: DEFAULT_OPTIONS.shellPaths, lengthTolerance: 0},
    windowPadMs: DEFAULT_OPTIONS.horizonMs, windowTailMs: DEFAULT_OPTIONS.lookaheadMs, countPages: {appFacets: APP_FACETS.auto, routes: {horizonMs: DEFAULT_OPTIONS.horizonMs, lookaheadMs: DEFAULT_OPTIONS.lookaheadMs}},
    // As `analyze` sets it (config/datadog.ts liveRequest).
    scanners: scannerCheck(DEFAULT_OPTIONS, DEFAULT_NORMALIZE), ...over,
  }
}

/**
 * A test's pull settings. Requests time out after 10 s, which a busy machine never reaches: a test
 * of a slow answer sets its own short timeout (a request count or a retry never depends on the load).
 */
export function tuning(over: Partial<PullTuning> = {}): PullTuning {
  return {
    concurrency: 3, sliceEvents: 150, maxSliceMs: 3_600_000, timeoutMs: 10_000,
    retry: {maxAttempts: 6, baseDelayMs: 5, maxDelayMs: 40, maxElapsedMs: 10_000}, ...over,
  }
}

export interface LiveRun {
  report: AnalysisReport
  notices: string[]
  /** Every item the pull handed to the analysis, in order. */
  items: Pulled[]
  plan: PullPlan
  ms: number
  /** What `--plan` said the pull would cost, asked before it (with `estimate`), and the searches the pull then made. */
  estimate?: {said: PullEstimate; searches: number}
}

export interface LiveOptions {
  mode?: PullMode
  spec?: Partial<PullSpec>
  tuning?: Partial<PullTuning>
  deployQuery?: string
  hooks?: PullHooks
  keys?: {apiKey?: string; appKey?: string}
  /** `--spool DIR`. */
  spool?: string
  /** Ask the pull's estimate first (as `--plan` does), to compare with what it then does. */
  estimate?: boolean
}

export async function liveAnalyze(fake: FakeDatadog, opts: LiveOptions = {}): Promise<LiveRun> {
  const started = Date.now()
  const notices: string[] = []
  const hooks: PullHooks = {onNotice: (m) => notices.push(m), ...opts.hooks}
  const live = await openDatadogLogs({
    connection: connection(fake, opts.keys), spec: spec(opts.mode ?? 'windows', opts.spec), tuning: tuning(opts.tuning), normalize: DEFAULT_NORMALIZE,
    ...(opts.deployQuery ? {deployQuery: opts.deployQuery, deployRange: RANGE} : {}), ...(opts.spool ? {spool: opts.spool} : {}),
  }, hooks)
  const said = opts.estimate ? await live.estimate() : undefined
  const searchesBefore = fake.requestsTo('logs-search').length
  // A tap on what the source reads, to compare it with what the server holds.
  const items: Pulled[] = []
  const pull = (live.source as unknown as {pull: DatadogPull}).pull
  const pulled = pull.pulled.bind(pull)
  pull.pulled = async function* (resume) {
    for await (const batch of pulled(resume)) {
      items.push(...batch)
      yield batch
    }
  }
  const report = await analyze({
    inputs: [], sources: [live.source], deploys: live.deploys, datadogSummary: live.summary, census: live.census,
    normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000, onNotice: (m) => notices.push(m),
  })
  return {
    report, notices, items, plan: await pull.plan(), ms: Date.now() - started,
    ...(said ? {estimate: {said, searches: fake.requestsTo('logs-search').length - searchesBefore}} : {}),
  }
}

/** The ids the server holds for a plan: every stream's query over its slices, oldest first. */
export function expectedIds(fake: FakeDatadog, plan: PullPlan): string[] {
  // Streams may overlap (the candidates stream lies inside the asset windows too): each event once.
  const items = plan.streams.flatMap((s) => s.slices.flatMap((sl) => fake.select(sl.query ?? s.query, sl.from, sl.to)))
  return [...new Set(sortById(items))]
}

export function sortById(items: {id?: unknown}[]): string[] {
  return items.map((i) => String(i.id)).sort()
}

export async function fileAnalyze(scenario: string, file: string, deploys?: string): Promise<AnalysisReport> {
  return analyze({
    inputs: [file.startsWith('/') ? file : join(ROOT, 'fixtures', scenario, file)],
    ...(deploys ? {deploysFile: join(ROOT, 'fixtures', scenario, deploys)} : {}),
    normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000,
  })
}

/**
 * A report without its `input` block and without the volumes of what was read (requests per app,
 * requests and clients of crawlers, the probe and scanners): what must not depend on where the
 * events came from. A narrowed or windowed pull leaves out requests the analysis never needs
 * (health checks, API calls, assets far from any failure), so those volumes are smaller; every
 * count of people, page loads and failures must still be equal. `readVolume` holds the rest.
 */
export function withoutInput(r: AnalysisReport): Omit<AnalysisReport, 'input'> {
  const {input: _input, ...rest} = r
  const nonUser = Object.fromEntries(Object.entries(rest.nonUser).map(([k, v]) => {
    const {requests: _r, clients: _c, ...kept} = v as {requests?: number; clients?: number}
    return [k, kept]
  })) as unknown as AnalysisReport['nonUser']
  return {...rest, apps: rest.apps.map(({requests: _r, ...a}) => ({...a, requests: 0})), nonUser}
}

/** The volumes `withoutInput` leaves out, to check that a pull read no more than the file holds. */
export function readVolume(r: AnalysisReport): Record<string, number> {
  const out: Record<string, number> = {}
  for (const a of r.apps) out[`app ${a.name} requests`] = a.requests
  for (const [k, v] of Object.entries(r.nonUser)) {
    const c = v as {requests?: number; clients?: number}
    if (c.requests !== undefined) out[`${k} requests`] = c.requests
    if (c.clients !== undefined) out[`${k} clients`] = c.clients
  }
  return out
}

/**
 * A report without what a pull that reads only some page requests can only estimate for builds
 * whose shells share one length: their first shell comes from the pages read (a pod's shells are
 * counted by the minute, and a pod whose pages and assets were not read names no build). Every
 * other field (their shell counts too: each pod's counted shells), and every field of builds with a
 * length of their own, is held equal.
 */
export function sharedLengthFree<T extends Partial<AnalysisReport>>(r: T, mode: 'windows' | 'narrowed' | 'all'): T {
  if (mode === 'all' || !r.builds) return r
  const shared = (b: BuildReport): boolean => r.builds?.some((x) => x !== b && x.app === b.app && x.shellBytes === b.shellBytes) === true
  return {...r, builds: r.builds.map((b) => (shared(b) ? {...b, firstSeen: '(estimated)'} : b))}
}
