/**
 * The realistic day of issue 27 (test/helpers/datadog-day.ts with `realistic`: two apps behind one
 * ingress, six rollouts replayed from the captures, steady visitors with thousands of distinct user
 * agents, an uptime probe, a mobile API client, crawlers re-fetching earlier builds' assets and
 * scanners, some with a browser's agent, some HEAD, half to the apps' hosts), smaller than the
 * bench's: its offline analysis holds to its truth (scanners and crawlers are nobody's failures),
 * and a live pull of it from the fake Datadog, through faults, gives the same report.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {analyze} from '../../src/app/analyze'
import {DEFAULT_OPTIONS} from '../../src/analysis/options'
import {DEFAULT_NORMALIZE} from '../../src/normalize/fields'
import {buildDay, type Day, type DayOptions, scoreDay, writeDayNdjson} from '../helpers/datadog-day'
import {ROOT} from '../helpers/cli'
import {FakeDatadog} from '../helpers/fake-datadog'
import {API_KEY, APP_KEY, expectedIds, liveAnalyze, QUERY, sortById, withoutInput} from '../helpers/fake-datadog-live'
import {QueryBuilder} from '../../src/sources/datadog/query'
import type {AnalysisReport, FailureRecord} from '../../src/model/report'

/** The CLI's default tuning (src/config/datadog.ts pullTuning), retries fast. */
const TUNING = {concurrency: 3, sliceEvents: 20_000, timeoutMs: 30_000, retry: {maxAttempts: 6, baseDelayMs: 5, maxDelayMs: 40, maxElapsedMs: 60_000}}

const dir = mkdtempSync(join(tmpdir(), 'skewscan-real-day-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

/** A day and its offline report (the analysis of its NDJSON export) with the failed requests it found. */
async function dayAndReport(o: Omit<DayOptions, 'root'>): Promise<{day: Day; offline: AnalysisReport; failures: FailureRecord[]}> {
  const day = buildDay({root: ROOT, ...o})
  const file = join(dir, 'day.ndjson')
  writeDayNdjson(day, file)
  const failures: FailureRecord[] = []
  const offline = await analyze({inputs: [file], normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000, onFailure: (f) => failures.push(f)})
  rmSync(file)
  return {day, offline, failures}
}

async function serve(day: Day): Promise<FakeDatadog> {
  return FakeDatadog.start({logs: day.items as unknown as Record<string, unknown>[], apiKey: API_KEY, appKey: APP_KEY, rateLimit: {limit: 100_000, periodSeconds: 3600}})
}

describe('a live pull of the realistic day (issue 27): six rollouts, a probe, an API client, crawlers, scanners and thousands of user agents', () => {
  // 40,000 items: every rollout whole (about 4,500 items), crawlers 2%, scanners 1% (half with a
  // browser's agent, some HEAD, half to the apps' hosts), people's agents by the thousand a day.
  const EVENTS = 40_000
  let real: Promise<Awaited<ReturnType<typeof dayAndReport>>> | undefined
  const realDay = (): ReturnType<typeof dayAndReport> => (real ??= dayAndReport({deploys: 6, events: EVENTS, realistic: {}}))

  it('offline: every rollout found, every person\'s failure its truth has and no other; no scanner or crawler is a person', async () => {
    const {day, offline, failures} = await realDay()
    expect(offline.input.skipped.total).toBe(0)
    expect(offline.deploys.map((x) => [x.app, x.fromBuild, x.toBuild])).toEqual(day.deploys.map((x) => [x.app, x.fromBuild, x.toBuild]))
    for (const {score} of scoreDay(day, offline, failures)) {
      expect(score.problems).toEqual([])
      expect(score.requests).toMatchObject({precision: 1, recall: 1})
    }
    // The generated crawlers and scanners (none of them 10/8, the addresses of people) are seen, apart, and fail nobody.
    const generated = new Set(day.items.map((i) => ((i.attributes.attributes as {network: {client: {ip: string}}}).network.client.ip)).filter((ip) => !ip.startsWith('10.')))
    expect(failures.filter((f) => generated.has(f.clientIp))).toEqual([])
    expect(offline.nonUser.scanners.clients).toBeGreaterThan(day.counts.generated.scannerBursts / 4)
    expect(offline.nonUser.crawlers.requests).toBeGreaterThanOrEqual(day.counts.generated.crawlers)
  }, 120_000)

  it('live through faults (a 429 with its reset, 503, a cut body, an aggregate\'s 500): the offline report, the events its plan selects', async () => {
    const {day, offline} = await realDay()
    const server = await serve(day)
    server.injectUsualFaults()
    try {
      const live = await liveAnalyze(server, {spec: {range: day.range, query: QUERY}, tuning: TUNING})
      expect(live.report.input.datadog?.requests.retries).toBeGreaterThanOrEqual(4)
      expect(live.report.input.datadog?.held).toBe(day.items.length)
      expect(withoutInput(live.report)).toEqual(withoutInput(offline))
      expect(sortById(live.items.map((p) => p.item))).toEqual(expectedIds(server, live.plan))
      expect(live.report.deploys.map((d) => d.affectedUsers > 0)).toEqual(day.deploys.map(() => true))
      // Deep links (plain routes answered with a shell) are counted, not read (issue 27 item 3): none
      // is pulled outside the buckets read but a hurt person's (the sessions stream's), and most are not.
      const census = live.plan.census
      expect(census?.routes).toBe(true)
      const plain = new QueryBuilder(QUERY, {assetPatterns: DEFAULT_OPTIONS.assetPatterns, shellPaths: DEFAULT_OPTIONS.shellPaths, lengthTolerance: 0}).plainRoutes(live.plan.shellLengths)
      const deepLinks = server.select(plain, day.range.from, day.range.to)
      const pulled = new Set(live.items.map((p) => p.id))
      const read = new Set(census?.read)
      const hurt = new Set(live.plan.streams.filter((st) => st.name === 'sessions').flatMap((st) => st.slices.flatMap((sl) => server.select(sl.query as string, sl.from, sl.to))).map((x) => x.id))
      const outside = deepLinks.filter((x) => pulled.has(x.id as string) && !read.has(Math.floor(Date.parse((x.attributes as {timestamp: string}).timestamp) / census!.bucketMs) * census!.bucketMs))
      expect(outside.filter((x) => !hurt.has(x.id))).toEqual([])
      expect(deepLinks.filter((x) => pulled.has(x.id as string)).length).toBeLessThan(deepLinks.length / 4)
      const counted = Object.values(census?.apps ?? {}).flatMap((a) => a.routes ?? []).flatMap((r) => r.counts).reduce((n, [, c]) => n + c, 0)
      expect(counted).toBeGreaterThan(deepLinks.length / 2)
    } finally {
      await server.close()
    }
  }, 120_000)
})
