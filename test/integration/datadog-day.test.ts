/**
 * A day of a busy site (test/helpers/datadog-day.ts: two apps behind one ingress, a rollout of
 * each, replayed from the real captures rr-3 and mode-404, and a day of steady visitors, crawlers
 * and scanners between them), served by the fake Datadog: a live run counts page requests on
 * Datadog's side and reads only what the analysis needs, and its report is the offline report of
 * the day's events. (The realistic day of issue 27: datadog-realistic-day.test.ts.)
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {buildDay, type Day, writeDayNdjson} from '../helpers/datadog-day'
import {ROOT} from '../helpers/cli'
import {FakeDatadog} from '../helpers/fake-datadog'
import {API_KEY, APP_KEY, expectedIds, fileAnalyze, liveAnalyze, QUERY, sortById, withoutInput} from '../helpers/fake-datadog-live'
import type {AnalysisReport} from '../../src/model/report'

/** The CLI's default tuning (src/config/datadog.ts pullTuning), retries fast. */
const TUNING = {concurrency: 3, sliceEvents: 20_000, timeoutMs: 30_000, retry: {maxAttempts: 6, baseDelayMs: 5, maxDelayMs: 40, maxElapsedMs: 60_000}}

const dir = mkdtempSync(join(tmpdir(), 'skewscan-day-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

/** A day of about `events` log items and its offline report (the analysis of its NDJSON export). */
async function dayAndReport(events: number): Promise<{day: Day; offline: AnalysisReport}> {
  const day = buildDay({root: ROOT, deploys: 2, events})
  const file = join(dir, `day-${events}.ndjson`)
  writeDayNdjson(day, file)
  const offline = await fileAnalyze('day', file)
  rmSync(file)
  return {day, offline}
}

/**
 * The two-rollout day of 45,000 items, built and analysed once for both of its tests (the first
 * reads at most 5% of it, the second every page request): a day of 200,000 items made this file
 * cost about 60 CPU-seconds, and the pull's share of a day this size already meets the bound
 * (about 4% of it; the rollouts' windows are what it reads, whatever the day's size).
 */
let twoRollouts: Promise<{day: Day; offline: AnalysisReport}> | undefined
const twoRolloutDay = (): Promise<{day: Day; offline: AnalysisReport}> => (twoRollouts ??= dayAndReport(45_000))

async function serve(day: Day, opts: {refusedFacets?: string[]} = {}): Promise<FakeDatadog> {
  return FakeDatadog.start({logs: day.items as unknown as Record<string, unknown>[], apiKey: API_KEY, appKey: APP_KEY, rateLimit: {limit: 100_000, periodSeconds: 3600}, ...opts})
}

describe('a live pull of a day with a rollout of each of two apps', () => {
  it('reads at most 5% of the day in at most 60 requests (page requests counted on Datadog\'s side, hurt people\'s requests read by address) and gives the offline report', async () => {
    // A busy day (45,000 items): what the pull leaves out is most of it.
    const {day, offline} = await twoRolloutDay()
    const server = await serve(day)
    try {
      const live = await liveAnalyze(server, {spec: {range: day.range, query: QUERY}, tuning: TUNING})
      expect(withoutInput(live.report)).toEqual(withoutInput(offline))
      expect(sortById(live.items.map((p) => p.item))).toEqual(expectedIds(server, live.plan))
      const dd = live.report.input.datadog
      expect(dd?.held).toBe(day.items.length)
      expect(dd?.narrowing.pageCounts).toMatchObject({used: true, bucketSeconds: 60})
      expect(dd?.narrowing.pageCounts?.pageLoadsCounted).toBeGreaterThan(0.9 * offline.totals.pageLoads)
      expect(dd?.pulled).toBeLessThanOrEqual(0.05 * day.items.length)
      expect(dd?.requests.total).toBeLessThanOrEqual(60)
      expect(live.plan.streams.map((s) => s.name)).toEqual(['pages', 'routes', 'assets', 'candidates', 'sessions', 'edges'])
      expect(live.plan.clients?.count).toBeGreaterThan(0)
      expect(dd?.narrowing.clients).toEqual({count: live.plan.clients?.count, windowSeconds: expect.any(Number)})
      expect(live.notices.filter((n) => /counted|cannot/.test(n))).toEqual([])
      // Both rollouts found, with people hurt in each.
      expect(live.report.deploys.map((d) => d.affectedUsers > 0)).toEqual([true, true])
    } finally {
      await server.close()
    }
  }, 300_000)

  it('through faults (a 429 with its reset, 5xx, a cut body; a slow reply is held to the fixtures, whose aggregates answer fast) and a refused facet: reads every page request, saying so, when the user agent is not a facet, with the same report', async () => {
    // Reading every page request is the point here, not the share of the day: a day of 45,000 items
    // (the same two rollouts; about 60 search requests, faults after 3, 6 and 12 of them) does.
    const {day, offline} = await twoRolloutDay()
    const server = await serve(day, {refusedFacets: ['@http.useragent']})
    server.injectUsualFaults()
    try {
      const live = await liveAnalyze(server, {spec: {range: day.range, query: QUERY}, tuning: TUNING})
      expect(live.report.input.datadog?.requests.retries).toBeGreaterThanOrEqual(4)
      expect(withoutInput(live.report)).toEqual(withoutInput(offline))
      expect(live.notices).toContainEqual(expect.stringMatching(/^Datadog page requests cannot be counted on Datadog.s side \(.*@http\.useragent is not a facet\): reading every one of the range$/))
      expect(live.report.input.datadog?.narrowing.pageCounts).toEqual({used: false, reason: expect.stringMatching(/@http\.useragent is not a facet$/)})
      expect(live.plan.streams.map((s) => s.name)).toContain('pages')
      expect(live.plan.streams.map((s) => s.name)).not.toContain('routes')
    } finally {
      await server.close()
    }
  }, 300_000)
})

