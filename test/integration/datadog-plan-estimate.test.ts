/**
 * Issue 27 item 6: what `--plan` says a pull takes in search requests is within 20% of what the
 * pull then makes, on days of traffic (test/helpers/datadog-day.ts) and on a shipped capture,
 * counted in the fake Datadog's request log: the estimate of a fresh pull (as `--plan` makes it),
 * then the pull itself.
 */
import {buildDay} from '../helpers/datadog-day'
import {ROOT} from '../helpers/cli'
import {FakeDatadog} from '../helpers/fake-datadog'
import {API_KEY, APP_KEY, connection, liveAnalyze, QUERY, RANGE, spec, tuning} from '../helpers/fake-datadog-live'
import {DatadogPull, type PullTuning} from '../../src/sources/datadog/pull'
import {PAGE_LIMIT} from '../../src/sources/datadog/puller'
import {countedRequestsFor} from '../../src/sources/datadog/estimate'
import type {PullEstimate} from '../../src/model/pull-estimate'
import type {TimeRange} from '../../src/model/time-range'

/** The CLI's default tuning (src/config/datadog.ts pullTuning), retries fast. */
const DEFAULTS: Partial<PullTuning> = {concurrency: 3, sliceEvents: 20_000, timeoutMs: 30_000}

/** The estimate, then the search requests of the pull (pages of PAGE_LIMIT: the budget probe asks for 1). */
async function estimateThenPull(logs: Record<string, unknown>[], range: TimeRange, over: Partial<PullTuning>): Promise<{estimate: PullEstimate; searches: number; plannedSlices: number; counted: {count: number; held: number; searches: number}[]}> {
  const server = await FakeDatadog.start({logs, apiKey: API_KEY, appKey: APP_KEY, rateLimit: {limit: 100_000, periodSeconds: 3600}})
  try {
    const estimate = await new DatadogPull(connection(server), spec('windows', {range, query: QUERY}), tuning(over)).estimate()
    const before = server.requestsTo('logs-search').length
    const live = await liveAnalyze(server, {spec: {range, query: QUERY}, tuning: over})
    const searches = server.requestsTo('logs-search').slice(before)
    // Each search of the pull asks for full pages; none failed (no faults), so each is one request of the estimate's.
    expect(searches.every((r) => r.body?.page?.limit === PAGE_LIMIT && r.status === 200)).toBe(true)
    expect(live.report.input.datadog?.requests.search).toBe(searches.length)
    // Each slice the plan counted: its count, what the server holds for its query and times, and the searches it took.
    const counted = live.plan.streams.flatMap((st) => st.slices.filter((sl) => sl.count !== undefined).map((sl) => {
      const query = sl.query ?? st.query
      const [from, to] = [new Date(sl.from).toISOString(), new Date(sl.to).toISOString()]
      return {count: sl.count as number, held: server.select(query, sl.from, sl.to).length, searches: searches.filter((r) => r.body?.filter?.query === query && r.body?.filter?.from === from && r.body?.filter?.to === to).length}
    }))
    return {estimate, searches: searches.length, plannedSlices: live.plan.streams.reduce((n, s) => n + s.slices.length, 0), counted}
  } finally {
    await server.close()
  }
}

describe('--plan\'s search-request estimate against the pull', () => {
  it.each([
    {deploys: 1, noise: true},
    {deploys: 3, noise: false},
  ])('a day of 10,000 events, $deploys deploys (crawlers and scanners: $noise): within 20%', async ({deploys, noise}) => {
    const day = buildDay({root: ROOT, deploys, events: 10_000, noise})
    const {estimate, searches, plannedSlices, counted} = await estimateThenPull(day.items as unknown as Record<string, unknown>[], day.range, DEFAULTS)
    expect(estimate.slices).toBe(plannedSlices)
    expect(estimate.searchRequests / searches).toBeGreaterThanOrEqual(0.8)
    expect(estimate.searchRequests / searches).toBeLessThanOrEqual(1.2)
    // Issue 27 item 4: on a day cut along whole minutes every slice is counted, each count is what
    // its search returns, and each slice takes its pages alone (no empty closing page) unless
    // the last is full: the estimate is then the pull's exact cost.
    expect(counted.length).toBe(plannedSlices)
    for (const c of counted) {
      expect(c.count).toBe(c.held)
      expect(c.searches).toBe(countedRequestsFor(c.count))
    }
    expect(estimate.searchRequests).toBe(searches)
  })

  it('a shipped capture cut into many small slices: within 20%', async () => {
    const {logs} = FakeDatadog.fixture(ROOT, 'rolling-round-robin')
    const {estimate, searches} = await estimateThenPull(logs, RANGE, {})
    expect(estimate.slices).toBeGreaterThan(5)
    expect(estimate.searchRequests / searches).toBeGreaterThanOrEqual(0.8)
    expect(estimate.searchRequests / searches).toBeLessThanOrEqual(1.2)
  })
})
