/**
 * A day whose people use thousands of distinct user agents, as real traffic does (issue 27 item 2):
 * the page-load census is still counted on Datadog's side (no "reading every one" of the page
 * requests), the pages stream reads only the buckets the plan needs, and the live report is the
 * offline report of the day's events. The day is test/helpers/datadog-day.ts's with each person's
 * agent a realistic browser string of its own (test/helpers/agent-variety.ts).
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {AgentClassifier} from '../../src/util/agent-kind'
import {QueryBuilder} from '../../src/sources/datadog/query'
import {DEFAULT_OPTIONS} from '../../src/analysis/options'
import {buildDay, writeDayNdjson} from '../helpers/datadog-day'
import {withAgentVariety} from '../helpers/agent-variety'
import {browserAgent} from '../helpers/browser-agents'
import {mulberry32} from '../../scripts/fixture-generator/rng'
import {ROOT} from '../helpers/cli'
import {FakeDatadog} from '../helpers/fake-datadog'
import {API_KEY, APP_KEY, expectedIds, fileAnalyze, liveAnalyze, QUERY, sortById, withoutInput} from '../helpers/fake-datadog-live'

/**
 * The CLI's default tuning (src/config/datadog.ts pullTuning), retries fast, and an aggregate that
 * lists at most 900 groups (Datadog's 10,000 scaled down: 300 agents per app of two, where Datadog
 * lists 3,333), so a day of 20,000 items holds what real traffic's thousands of agents make.
 */
const GROUPS = 900
const TUNING = {concurrency: 3, sliceEvents: 20_000, timeoutMs: 30_000, retry: {maxAttempts: 6, baseDelayMs: 5, maxDelayMs: 40, maxElapsedMs: 60_000}, groupLimit: GROUPS}

const dir = mkdtempSync(join(tmpdir(), 'skewscan-agents-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

describe('a live pull of a day whose people use thousands of distinct user agents', () => {
  it('gives people browser strings the analysis takes for people, thousands of them distinct', () => {
    const r = mulberry32(27)
    const agents = Array.from({length: 10_000}, () => browserAgent(r).agent)
    const classifier = new AgentClassifier()
    expect(agents.filter((a) => classifier.kind(a) !== undefined)).toEqual([])
    expect(new Set(agents).size).toBeGreaterThan(2000)
  })

  it('counts page loads on Datadog\'s side (in pieces of the day, each listing every agent of each app), reads page requests only in the planned buckets, and gives the offline report', async () => {
    const day = withAgentVariety(buildDay({root: ROOT, deploys: 2, events: 20_000}))
    // Thousands of people's agents per app, crawlers' among them: more than one aggregate lists.
    const classifier = new AgentClassifier()
    const perApp = new Map<string, Set<string>>()
    let crawlers = 0
    for (const item of day.items) {
      const inner = (item.attributes as {attributes: {http?: {useragent?: unknown}; proxy_upstream_name?: unknown}}).attributes
      const agent = String(inner.http?.useragent ?? '')
      if (classifier.kind(agent) !== undefined) {
        crawlers++
        continue
      }
      const app = String(inner.proxy_upstream_name)
      let s = perApp.get(app)
      if (!s) perApp.set(app, (s = new Set()))
      s.add(agent)
    }
    expect(crawlers).toBeGreaterThan(0)
    expect([...perApp.values()].filter((s) => s.size > GROUPS / 3)).toHaveLength(2)

    const file = join(dir, 'day.ndjson')
    writeDayNdjson(day, file)
    const offline = await fileAnalyze('day', file)
    rmSync(file)
    const server = await FakeDatadog.start({logs: day.items as unknown as Record<string, unknown>[], apiKey: API_KEY, appKey: APP_KEY, rateLimit: {limit: 100_000, periodSeconds: 3600}})
    try {
      const live = await liveAnalyze(server, {spec: {range: day.range, query: QUERY}, tuning: TUNING})
      expect(live.notices.filter((n) => /reading every one|cannot be counted/.test(n))).toEqual([])
      expect(withoutInput(live.report)).toEqual(withoutInput(offline))
      expect(sortById(live.items.map((p) => p.item))).toEqual(expectedIds(server, live.plan))
      const dd = live.report.input.datadog
      expect(dd?.narrowing.pageCounts).toMatchObject({used: true})
      expect(dd?.narrowing.pageCounts?.pageLoadsCounted).toBeGreaterThan(0.9 * offline.totals.pageLoads)
      // People's page loads were counted in more than one piece of the day.
      const q = new QueryBuilder(QUERY, {assetPatterns: DEFAULT_OPTIONS.assetPatterns, shellPaths: DEFAULT_OPTIONS.shellPaths, lengthTolerance: 0})
      const loadCounts = server.requestsTo('logs-aggregate').filter((r) => r.status === 200 && r.body?.filter?.query === q.shellPageLoads())
      expect(loadCounts.length).toBeGreaterThan(1)
      expect(loadCounts.every((r) => (r.body.group_by as {facet: string}[]).some((g) => g.facet === '@http.useragent'))).toBe(true)
      // The pages stream reads only the buckets the census did not count, a small part of the day.
      const census = live.plan.census
      if (!census) throw new Error('no census')
      const read = new Set(census.read)
      const pages = live.plan.streams.find((s) => s.name === 'pages')
      expect(pages?.slices.length).toBeGreaterThan(0)
      for (const s of pages?.slices ?? []) {
        for (let t = Math.floor(s.from / census.bucketMs) * census.bucketMs; t < s.to; t += census.bucketMs) expect(read.has(t)).toBe(true)
      }
      expect(census.read.length).toBeLessThan(0.5 * ((day.range.to - day.range.from) / census.bucketMs))
      expect(live.report.deploys.map((d) => d.affectedUsers > 0)).toEqual([true, true])
    } finally {
      await server.close()
    }
  }, 120_000)
})
