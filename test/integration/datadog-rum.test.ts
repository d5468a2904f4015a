/**
 * `analyze --from/--to --rum-query`: a real capture's logs and its browsers' RUM events
 * (fixtures/captures/NAME/rum-events.json.gz), stretched alike, served by the fake Datadog and
 * pulled live through the use case the command runs (app/analyze-and-report.ts). The browsers' word
 * must be that of the offline `analyze LOG --rum RUM` of the same files, the pull must read the
 * views and resources of the sessions that matter only, and the RUM endpoints' 429s and 5xx are
 * retried as the logs' are.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {type Capture, loadCapture, renderLog, renderRum, stretchOf} from '../../scripts/captures/capture'
import {DEFAULT_OPTIONS} from '../../src/analysis/options'
import {browserFailureOf} from '../../src/analysis/rum-errors'
import {analyze} from '../../src/app/analyze'
import {analyzeAndReport, type AnalyzeAndReportOutcome} from '../../src/app/analyze-and-report'
import {rumPullRequest} from '../../src/config/datadog'
import type {AnalysisReport, FailureRecord, RumFindings} from '../../src/model/report'
import {DEFAULT_NORMALIZE} from '../../src/normalize/fields'
import type {PullPlanView} from '../../src/report/pull-plan'
import {failedPageLoads, SESSIONS_PER_QUERY} from '../../src/sources/datadog/rum-pull'
import {ROOT, runCli} from '../helpers/cli'
import {FakeDatadog, faults} from '../helpers/fake-datadog'
import {API_KEY, APP_KEY, connection, spec, tuning} from '../helpers/fake-datadog-live'
import {tempDir} from '../helpers/temp'

const MIN = 60_000
const dir = tempDir('skewscan-dd-rum-')

type Item = {id: string; attributes: {timestamp: string; attributes: Record<string, any>}}

interface Served {
  capture: Capture
  server: FakeDatadog
  range: {from: number; to: number}
  rumQuery: string
  rum: Item[]
  offline: AnalysisReport
  failures: FailureRecord[]
}

/** A capture stretched ×60, its log and RUM files written, the offline report of them, and the fake Datadog serving both. */
async function serve(name: string): Promise<Served> {
  const capture = loadCapture(ROOT, name)
  const s = stretchOf(capture, 60)
  const text = renderLog(capture, 'datadog-ndjson', s, 'oldest-first')
  const rumText = renderRum(capture, s)
  const logFile = join(dir, `${name}.ndjson`)
  const rumFile = join(dir, `${name}-rum.json`)
  writeFileSync(logFile, text)
  writeFileSync(rumFile, rumText)
  const logs = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
  const rum = (JSON.parse(rumText) as {data: Item[]}).data
  const times = logs.map((l) => Date.parse((l.attributes as {timestamp: string}).timestamp))
  const range = {from: Math.floor(Math.min(...times) / MIN) * MIN - MIN, to: Math.ceil(Math.max(...times) / MIN) * MIN + MIN}
  const failures: FailureRecord[] = []
  const offline = await analyze({
    inputs: [logFile], rum: [rumFile], normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000, parallel: false,
    onFailure: (f) => failures.push(f),
  })
  const first = rum[0]?.attributes.attributes as {service: string; application: {id: string}}
  const server = await FakeDatadog.start({logs, rum: rum as unknown as Record<string, unknown>[], apiKey: API_KEY, appKey: APP_KEY, maxPageSize: 200})
  return {capture, server, range, rumQuery: `service:${first.service} @application.id:${first.application.id}`, rum, offline, failures}
}

interface LiveRum {
  outcome: AnalyzeAndReportOutcome
  notices: string[]
}

/** `analyze --from --to --query --rum-query [--plan]` in process, against the fake server. */
async function live(x: Served, planOnly = false): Promise<LiveRum> {
  const notices: string[] = []
  const note = (m: string): void => void notices.push(m)
  const datadog = {connection: connection(x.server), spec: spec('windows', {range: x.range}), tuning: tuning(), normalize: DEFAULT_NORMALIZE}
  const outcome = await analyzeAndReport({
    inputs: [], normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000,
    datadog, datadogRum: rumPullRequest({'rum-query': x.rumQuery}, datadog), planOnly,
    output: {plan: {formats: []}, deliver: false, version: 'test', topSessions: 10}, failOn: [],
  }, {notice: note, print: note, tty: false, pull: {onNotice: note}, reading: {onProgress: () => undefined, note, done: () => undefined}})
  return {outcome, notices}
}

const reportOf = (o: AnalyzeAndReportOutcome): AnalysisReport => {
  if (!('report' in o)) throw new Error('a plan, not a report')
  return o.report
}

/** What must not depend on where the RUM events came from: every finding but coverage (checked apart); not what was read (`input`). */
const findings = (f: RumFindings | undefined): Omit<RumFindings, 'coverage'> | undefined => {
  if (f === undefined) return undefined
  const {crashedPageLoads, confirmed, lazyFailures, accounts, accountIds, sessions, unexplained, unconfirmed, versions} = f
  return {crashedPageLoads, confirmed, lazyFailures, accounts, accountIds, sessions, unexplained, unconfirmed, versions}
}

/** The session ids a search of views and resources names. */
const sessionsNamed = (query: string): string[] => {
  const list = /@session\.id:\(([^)]*)\)|@session\.id:(\S+)/.exec(query)
  const terms = list?.[1] !== undefined ? list[1].split(' OR ') : list?.[2] !== undefined ? [list[2]] : []
  return terms.map((t) => t.replace(/\\(.)/g, '$1'))
}

const CASES = ['rr-3', 'mode-404'] as const
const served = new Map<string, Promise<Served>>()
const get = (name: string): Promise<Served> => {
  let s = served.get(name)
  if (!s) served.set(name, (s = serve(name)))
  return s
}

afterAll(async () => {
  for (const s of served.values()) await (await s).server.close()
})

describe.each(CASES)('capture %s with its RUM events, pulled live', (name) => {
  afterEach(async () => (await get(name)).server.clearFaults())

  it('gives the browsers\' word of `analyze LOG --rum RUM`, reading the views and resources of the sessions that matter only', async () => {
    const x = await get(name)
    const before = x.server.requests.length
    const {outcome, notices} = await live(x)
    const report = reportOf(outcome)
    const want = x.offline.rum
    const got = report.rum
    expect(want).toBeDefined()
    expect(findings(got)).toEqual(findings(want))
    expect({joins: got?.joins, examples: got?.unexplainedExamples}).toEqual({joins: want?.joins, examples: want?.unexplainedExamples})
    expect(Math.abs((got?.coverage ?? 0) - (want?.coverage ?? 0))).toBeLessThanOrEqual(0.02)
    expect(report.deploys.map((d) => findings(d.rum))).toEqual(x.offline.deploys.map((d) => findings(d.rum)))
    for (const [i, d] of report.deploys.entries()) expect(Math.abs((d.rum?.coverage ?? 0) - (x.offline.deploys[i]?.rum?.coverage ?? 0))).toBeLessThanOrEqual(0.02)
    expect(report.builds.map((b) => b.rumVersion)).toEqual(x.offline.builds.map((b) => b.rumVersion))
    expect(got?.input.files).toEqual([{file: `datadog:rum ${x.rumQuery}`, records: expect.any(Number), used: expect.any(Number), ignored: 0, skipped: 0}])
    expect(got?.input.skipped.total).toBe(0)

    // What was asked of the RUM API: the page loads counted, the failures read, the sessions listed by address, and theirs read.
    const asked = x.server.requests.slice(before).filter((r) => r.endpoint === 'rum-search' || r.endpoint === 'rum-aggregate')
    expect(asked.every((r) => r.status === 200)).toBe(true)
    const searches = asked.filter((r) => r.endpoint === 'rum-search').map((r) => r.body.filter.query as string)
    const sessionSearches = searches.filter((q) => q.includes('@session.id:'))
    expect(searches.filter((q) => !q.includes('@session.id:')).every((q) => q.includes('@type:error'))).toBe(true)
    expect(asked.every((r) => (r.body.filter.query as string).startsWith(`(${x.rumQuery}) `))).toBe(true)
    expect(asked.every((r) => r.endpoint !== 'rum-search' || r.body.page.limit === 1000)).toBe(true)
    const named = [...new Set(sessionSearches.flatMap(sessionsNamed))]
    // Each session in one query only (its pages share it), at most SESSIONS_PER_QUERY a query.
    const perQuery = [...new Set(sessionSearches)].map(sessionsNamed)
    expect(perQuery.flat().length).toBe(named.length)
    expect(perQuery.every((ids) => ids.length <= SESSIONS_PER_QUERY)).toBe(true)
    expect(sessionSearches.every((q) => q.includes('@type:(view OR resource)'))).toBe(true)

    // The sessions that matter, from the RUM file and the offline failures: every session with a
    // failure the analysis recognises or a script that failed, and every one with an event at a
    // failed page load's address within a minute of its start; beyond those, only sessions at
    // those addresses (a batch of addresses is asked over its page loads' span).
    const a = (i: Item): Record<string, any> => i.attributes.attributes
    const hurt = new Set(x.rum.filter((i) => (a(i).type === 'error' && browserFailureOf(a(i).error.message, a(i).error.type) !== undefined) ||
      (a(i).type === 'resource' && a(i).resource.type === 'js' && a(i).resource.status_code >= 400)).map((i) => a(i).session.id as string))
    const loads = failedPageLoads(x.failures)
    const sessionsAt = (near: (i: Item, l: {address: string; time: number}) => boolean): Set<string> =>
      new Set(x.rum.filter((i) => loads.some((l) => l.address === a(i).network?.client?.ip && near(i, l))).map((i) => a(i).session.id as string))
    const near = sessionsAt((i, l) => Math.abs(Date.parse(i.attributes.timestamp) - l.time) <= MIN)
    const atAddresses = sessionsAt(() => true)
    const all = new Set(x.rum.map((i) => a(i).session.id as string))
    expect([...hurt, ...near].filter((s) => !named.includes(s))).toEqual([])
    expect(named.filter((s) => !hurt.has(s) && !atAddresses.has(s))).toEqual([])
    expect(named.length).toBeLessThan(all.size)
    // Every session of a view the offline join counted is among them.
    for (const e of got?.unexplainedExamples ?? []) expect(named).toContain(e.session)
    // The events read are those sessions' views and resources, and the failures: nothing else.
    const read = got?.input.files[0]?.used ?? 0
    const errorsAndScripts = x.rum.filter((i) => a(i).type === 'error' || (a(i).type === 'resource' && a(i).resource.type === 'js' && a(i).resource.status_code >= 400))
    const ofSessions = x.rum.filter((i) => named.includes(a(i).session.id) && (a(i).type === 'view' || a(i).type === 'resource'))
    expect(read).toBe(new Set([...errorsAndScripts, ...ofSessions].map((i) => i.id)).size)
    expect(read).toBeLessThan(x.rum.length)
    expect(notices.find((n) => n.startsWith('Datadog RUM: '))).toMatch(new RegExp(`views and resources of ${named.length} sessions?`))
    // The page loads are counted, never read whole: no search of views alone.
    expect(searches.some((q) => /@type:view\b/.test(q) && !q.includes('@session.id'))).toBe(false)
  })

  it('retries a 429 and a 500 of the RUM endpoints as the logs\' are, and the report is the same', async () => {
    const x = await get(name)
    const clean = reportOf((await live(x)).outcome).rum
    x.server.inject({endpoint: 'rum-aggregate', fault: faults.status(500)})
    x.server.inject({endpoint: 'rum-search', fault: faults.rateLimited(1)})
    x.server.inject({endpoint: 'rum-search', fault: faults.status(503), after: 1})
    const before = x.server.requests.length
    const {outcome, notices} = await live(x)
    expect(reportOf(outcome).rum).toEqual(clean)
    const statuses = (endpoint: 'rum-search' | 'rum-aggregate'): number[] => x.server.requests.slice(before).filter((r) => r.endpoint === endpoint).map((r) => r.status)
    expect(statuses('rum-aggregate').slice(0, 2)).toEqual([500, 200])
    expect(statuses('rum-search').slice(0, 4)).toEqual([429, 200, 503, 200])
    expect(notices.filter((n) => /^Datadog rum-(search|aggregate): HTTP (429|500|503)/.test(n))).toHaveLength(3)
    expect(notices.find((n) => n.startsWith('Datadog RUM: '))).toMatch(/, 3 retries\)$/)
    for (const n of notices) expect(n).not.toContain(API_KEY)
  })

  it('--plan says what the RUM pull costs: the page loads counted, the failures to read', async () => {
    const x = await get(name)
    const {outcome} = await live(x, true)
    if (!('plan' in outcome)) throw new Error('a report, not a plan')
    const plan: PullPlanView = outcome.plan
    const a = (i: Item): Record<string, any> => i.attributes.attributes
    const inRange = x.rum.filter((i) => Date.parse(i.attributes.timestamp) >= x.range.from && Date.parse(i.attributes.timestamp) < x.range.to)
    const failures = inRange.filter((i) => a(i).type === 'error' || (a(i).type === 'resource' && a(i).resource.type === 'js' && a(i).resource.status_code >= 400)).length
    expect(plan.rum).toMatchObject({query: x.rumQuery, pageLoads: inRange.filter((i) => a(i).type === 'view' && a(i).view.loading_type !== 'route_change').length, failures, failureSearches: Math.floor(failures / 1000) + 1, requests: 2})
  })
})

describe('--rum-query on the command line', () => {
  it('without --from or --since is a usage error (exit 2) naming the flag', () => {
    const r = runCli(['analyze', join(ROOT, 'fixtures', 'rolling-round-robin', 'dd-events.ndjson'), '--rum-query', 'service:web'])
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('--rum-query')
    expect(r.stderr).toContain('--from or --since')
    expect(r.stdout).toBe('')
  })

  it('is refused beside --rum FILE: RUM from Datadog or from files, not both', () => {
    expect(() => rumPullRequest({'rum-query': 'service:web', rum: ['rum.json']}, undefined)).toThrow('--rum-query and --rum both give RUM events')
  })
})
