/**
 * Live Datadog runs against a Datadog-compatible server on loopback, through the real client: the
 * report must equal the one of the same traffic read from a file, whatever the pull mode and
 * whatever goes wrong on the wire; the events analysed must be exactly the server's.
 */
import {existsSync, mkdtempSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {ddEvent, simulate, writerContext} from '../../scripts/fixture-generator'
import type {AnalysisReport} from '../../src/model/report'
import {SourceError} from '../../src/sources/errors'
import {ROOT} from '../helpers/cli'
import {type Fault, FakeDatadog, faults} from '../helpers/fake-datadog'
import {API_KEY, APP_KEY, QUERY, expectedIds, fileAnalyze, liveAnalyze, type LiveRun, RANGE, readVolume, sharedLengthFree, sortById, withoutInput} from '../helpers/fake-datadog-live'
import {tempDir} from '../helpers/temp'

const tmp = tempDir('skewscan-datadog-')

const SCENARIOS = readdirSync(join(ROOT, 'fixtures')).filter((d) => existsSync(join(ROOT, 'fixtures', d, 'dd-events.ndjson'))).sort()
const fakes = new Map<string, FakeDatadog>()
const files = new Map<string, AnalysisReport>()

async function fake(scenario: string, opts: {maxPageSize?: number; noAggregate?: boolean; rateLimit?: {limit: number; periodSeconds: number}} = {}): Promise<FakeDatadog> {
  const f = await FakeDatadog.start({...FakeDatadog.fixture(ROOT, scenario), apiKey: API_KEY, appKey: APP_KEY, maxPageSize: 50, ...opts})
  fakes.set(`${scenario}-${fakes.size}`, f)
  return f
}

async function fileReport(scenario: string): Promise<AnalysisReport> {
  let r = files.get(scenario)
  if (!r) files.set(scenario, (r = await fileAnalyze(scenario, 'dd-events.ndjson')))
  return r
}

afterAll(async () => {
  for (const f of fakes.values()) await f.close()
})

const noKeys = (text: string): void => {
  expect(text).not.toContain(API_KEY)
  expect(text).not.toContain(APP_KEY)
}

describe('a live pull gives the report of a file of the same logs', () => {
  it.each(SCENARIOS.flatMap((s) => (['windows', 'narrowed', 'all'] as const).map((m) => [s, m] as const)))('%s, --pull %s', async (scenario, mode) => {
    const server = await fake(scenario)
    const live = await liveAnalyze(server, {mode})
    const file = await fileReport(scenario)
    expect(sharedLengthFree(withoutInput(live.report), mode)).toEqual(sharedLengthFree(withoutInput(file), mode))
    const read = readVolume(live.report)
    for (const [k, v] of Object.entries(readVolume(file))) expect([k, read[k] ?? 0]).toEqual([k, mode === 'all' ? v : Math.min(v, read[k] ?? 0)])
    // Exactly the server's events for the planned queries: none lost, none twice.
    const ids = sortById(live.items.map((p) => p.item))
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toEqual(expectedIds(server, live.plan))
    const dd = live.report.input.datadog
    // Streams overlap only where a slice more would cost more than the copies it saves (windows:
    // the candidates over the whole range, the hurt people's requests where everyone's are read).
    expect(dd).toMatchObject({pull: mode, held: server.select(QUERY, RANGE.from, RANGE.to).length, pulled: ids.length, duplicates: mode === 'windows' ? expect.any(Number) : 0})
    expect(live.report.input.records).toBe(ids.length)
    expect(dd?.narrowing.aggregate).toBe(mode === 'all' ? 'not-asked' : 'used')
  })

  it('pulls only what the analysis reads: health checks, API calls and favicons only at the edges of a pod\'s life, and less than the range holds', async () => {
    const server = await fake('rolling-round-robin')
    const held = server.select(QUERY, RANGE.from, RANGE.to).length
    const pulled: Record<string, number> = {}
    for (const mode of ['windows', 'narrowed'] as const) {
      const live = await liveAnalyze(server, {mode})
      const edges = live.plan.streams.find((st) => st.name === 'edges')?.slices ?? []
      expect(edges.length).toBeGreaterThan(0)
      expect(live.plan.pods).toEqual({facet: '@network.destination.ip', count: expect.any(Number)})
      const other = live.items.filter((p) => /^\/(healthz|api\/|favicon\.ico)/.test((p.item.attributes as any).attributes.http.url_details.path as string))
      // Some are read (a pod's first or last responses), each inside a pod's edge, from a pod it names.
      expect(other.length).toBeGreaterThan(0)
      for (const p of other) {
        const slice = edges.find((sl) => p.time >= sl.from && p.time < sl.to)
        expect(slice?.query).toContain(((p.item.attributes as any).attributes.network.destination.ip as string))
      }
      const dd = live.report.input.datadog
      expect(dd?.held).toBe(held)
      // Pods' edges are joined into slices of up to a page (a request saved per slice joined): on this
      // 50-minute fixture that reads all of the pods' few other requests, so not fewer events than held.
      expect(dd?.pulled).toBeLessThanOrEqual(held)
      expect(dd?.narrowing.shellLengths).toEqual([1832])
      expect(dd?.narrowing.pods).toEqual(live.plan.pods)
      pulled[mode] = dd?.pulled ?? 0
    }
    // Windows: asset requests only around candidate failures (here a minute before them) and at pods' edges.
    const narrow = await liveAnalyze(server, {mode: 'windows', spec: {windowPadMs: 60_000}})
    expect(narrow.report.input.datadog?.windows.pulledSeconds).toBeLessThan(narrow.report.input.datadog?.windows.rangeSeconds ?? 0)
    expect(narrow.report.input.datadog?.pulled).toBeLessThan(pulled.narrowed ?? 0)
  })

  it('on a range with no deploy, windows pull less than the narrowed pull, with the same report', async () => {
    const server = await fake('quiet')
    // The only failure-looking requests here are a browser-agent scanner's: without the scanner check (issue 27) they open a window.
    const live = await liveAnalyze(server, {mode: 'windows', spec: {windowPadMs: 2 * 60_000, scanners: undefined}})
    expect(live.plan.windows.length).toBeGreaterThan(0)
    expect(withoutInput(live.report)).toEqual(withoutInput(await fileReport('quiet')))
    const narrowed = await liveAnalyze(server, {mode: 'narrowed'})
    expect(live.report.input.datadog?.held).toBe(server.select(QUERY, RANGE.from, RANGE.to).length)
    expect(live.report.input.datadog?.pulled).toBeLessThan(narrowed.report.input.datadog?.pulled ?? 0)
    // With it, no window opens at all: the pods' edges then join into slices of up to a page, in fewer search requests, with the same report.
    const checked = await liveAnalyze(server, {mode: 'windows', spec: {windowPadMs: 2 * 60_000}})
    expect(checked.plan.windows).toEqual([])
    expect(checked.plan.scanners).toEqual({paths: 4, clients: 1, buckets: 1})
    expect(withoutInput(checked.report)).toEqual(withoutInput(await fileReport('quiet')))
    expect(checked.report.input.datadog?.requests.search).toBeLessThan(live.report.input.datadog?.requests.search ?? 0)
  })

  it('one slice at a time over many small slices: a stream whose first slice comes late never waits for itself', async () => {
    const server = await fake('two-deploys')
    // Pages are cut into many slices before the first asset window; the merge needs every stream's
    // first slice, which must start although the page slices fill the look-ahead.
    const live = await liveAnalyze(server, {mode: 'windows', tuning: {concurrency: 1, sliceEvents: 10}})
    expect(live.plan.streams.find((st) => st.name === 'pages')?.slices.length).toBeGreaterThan(4)
    expect(withoutInput(live.report)).toEqual(withoutInput(await fileReport('two-deploys')))
    expect(sortById(live.items.map((p) => p.item))).toEqual(expectedIds(server, live.plan))
  })

  it('without a pod facet in the logs, says so and pulls no edges', async () => {
    const {logs, events} = FakeDatadog.fixture(ROOT, 'two-deploys')
    const bare = logs.map((item) => {
      const copy = JSON.parse(JSON.stringify(item))
      delete copy.attributes.attributes.network.destination
      return copy
    })
    const server = await FakeDatadog.start({logs: bare, events, apiKey: API_KEY, appKey: APP_KEY, maxPageSize: 50})
    fakes.set(`bare-${fakes.size}`, server)
    const live = await liveAnalyze(server, {mode: 'narrowed'})
    expect(live.plan.streams.map((st) => st.name)).toEqual(['narrowed'])
    expect(live.report.input.datadog?.narrowing.pods).toEqual({facet: null, count: 0, reason: 'no log names the pod that answered (@network.destination.ip, @upstream_addr)'})
  })
})

describe('faults on the wire: retried, and the report and events unchanged', () => {
  const cases: [string, Fault, {after?: number; times?: number; withCursor?: boolean}][] = [
    ['429 without X-RateLimit-Reset', faults.rateLimited(), {after: 2, times: 2}],
    ['429 with X-RateLimit-Reset: 0', faults.rateLimited(0), {after: 3}],
    ['500', faults.status(500), {after: 1, times: 2}],
    ['502', faults.status(502), {after: 4}],
    ['503 with an HTML body', faults.htmlUnavailable(), {after: 2}],
    ['a reply slower than the timeout', faults.slow(1200), {after: 2}],
    ['a body cut off mid-JSON', faults.cut(), {after: 3, times: 2}],
    ['a connection closed without an answer', faults.hangUp(), {after: 1}],
    ['an invalid (expired) cursor', faults.invalidCursor(), {withCursor: true, after: 1}],
  ]

  it.each(cases)('%s', async (_name, fault, when) => {
    for (const mode of ['windows', 'narrowed'] as const) {
      const server = await fake('two-deploys')
      server.inject({endpoint: 'logs-search', fault, ...when})
      // A slow answer is one past the timeout: 400 ms here, against the 1.2 s the server takes.
      const live = await liveAnalyze(server, {mode, ...(fault.kind === 'slow' ? {tuning: {timeoutMs: 400}} : {})})
      expect(withoutInput(live.report)).toEqual(withoutInput(await fileReport('two-deploys')))
      const ids = sortById(live.items.map((p) => p.item))
      expect(ids).toEqual(expectedIds(server, live.plan))
      const dd = live.report.input.datadog
      if (fault.kind === 'invalid-cursor') expect(live.notices.join('\n')).toMatch(/rejected a page cursor/)
      else expect(dd?.requests.retries).toBeGreaterThanOrEqual(1)
      expect(live.notices.join('\n')).not.toMatch(/fell back|unavailable/)
      noKeys(JSON.stringify(live.report) + live.notices.join('\n'))
    }
  })

  it('waits what X-RateLimit-Reset says before retrying a 429', async () => {
    const server = await fake('missing-404')
    server.inject({endpoint: 'logs-search', fault: faults.rateLimited(1), after: 1})
    // One slice at a time, so that no other search is on its way when the 429 comes.
    const live = await liveAnalyze(server, {mode: 'narrowed', tuning: {concurrency: 1}})
    expect(withoutInput(live.report)).toEqual(withoutInput(await fileReport('missing-404')))
    // The same page was asked again a second later at the soonest (Datadog's reset is in seconds),
    // and no other search was started meanwhile.
    const searches = server.requestsTo('logs-search')
    const limited = searches.find((r) => r.status === 429)
    const retry = searches.find((r) => r !== limited && r.raw === limited?.raw)
    expect((retry?.at ?? 0) - (limited?.at ?? 0)).toBeGreaterThanOrEqual(990)
    expect(searches.filter((r) => r.at > (limited?.at ?? 0) && r.at < (retry?.at ?? 0))).toEqual([])
    expect(live.notices.find((n) => /429/.test(n))).toMatch(/resets in 1s\); retrying in 1(\.\d)?s/)
  })

  it('faults on the aggregate API are retried; a refused aggregate falls back to the narrowed pull, said on stderr and in input.datadog', async () => {
    const flaky = await fake('rolling-sticky')
    flaky.inject({endpoint: 'logs-aggregate', fault: faults.status(500), times: 2})
    const retried = await liveAnalyze(flaky)
    expect(retried.report.input.datadog?.narrowing.aggregate).toBe('used')
    expect(sharedLengthFree(withoutInput(retried.report), 'windows')).toEqual(sharedLengthFree(withoutInput(await fileReport('rolling-sticky')), 'windows'))

    const refused = await fake('rolling-sticky', {noAggregate: true})
    const fallback = await liveAnalyze(refused)
    expect(withoutInput(fallback.report)).toEqual(withoutInput(await fileReport('rolling-sticky')))
    expect(fallback.report.input.datadog?.narrowing).toMatchObject({aggregate: 'fell-back', reason: expect.stringMatching(/not a facet/)})
    expect(fallback.report.input.datadog?.held).toBeNull()
    expect(fallback.notices.join('\n')).toMatch(/aggregate narrowing unavailable .*not a facet.*pulling every GET page and asset request/)
    expect(sortById(fallback.items.map((p) => p.item))).toEqual(expectedIds(refused, fallback.plan))
  })

  it('a rate limit in force throttles the pull (waits for the reset) and loses nothing', async () => {
    const server = await fake('missing-404', {maxPageSize: 100, rateLimit: {limit: 3, periodSeconds: 1}})
    const live = await liveAnalyze(server, {mode: 'narrowed', tuning: {concurrency: 2}})
    expect(withoutInput(live.report)).toEqual(withoutInput(await fileReport('missing-404')))
    expect(sortById(live.items.map((p) => p.item))).toEqual(expectedIds(server, live.plan))
    const searches = server.requestsTo('logs-search')
    expect(searches.length).toBeGreaterThan(3)
    // More searches than one period allows: the pull waited for the budget to refill instead of
    // running into 429s (at most the requests already on their way when it ran out).
    expect(live.ms).toBeGreaterThanOrEqual(900)
    expect(searches.filter((r) => r.status === 429).length).toBeLessThanOrEqual(1)
  })
})

describe('failures that are not retried, or not forever: exit 3 material', () => {
  it('403 fails at once, names the likely key and the logs_read_data permission, and masks keys the server echoes', async () => {
    const server = await fake('rolling-round-robin')
    server.inject({endpoint: 'any', fault: faults.forbidden(`{"errors":["Forbidden: application key ${APP_KEY} lacks permission"]}`), times: Infinity})
    const error = await liveAnalyze(server, {mode: 'narrowed'}).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(SourceError)
    const message = (error as Error).message
    expect(message).toMatch(/HTTP 403 is not transient: not retried/)
    expect(message).toMatch(/DD_APP_KEY or DATADOG_APP_KEY.*logs_read_data/)
    expect(message).toContain('****0002')
    noKeys(message + ((error as Error).stack ?? ''))
    // The first request (the aggregate count) was refused and not retried; nothing else was tried.
    expect(server.requests.map((r) => r.status)).toEqual([403])
  })

  it('401 says the API key is probably wrong', async () => {
    const server = await fake('rolling-round-robin')
    server.inject({endpoint: 'any', fault: faults.unauthorized(), times: Infinity})
    await expect(liveAnalyze(server, {mode: 'all'})).rejects.toThrow(/API key \(DD_API_KEY or DATADOG_API_KEY\) is probably wrong/)
  })

  it('wrong keys are refused by the server: 403, no retry', async () => {
    const server = await fake('rolling-round-robin')
    const error = await liveAnalyze(server, {mode: 'all', keys: {appKey: 'wrong-app-key-0000000000000000000000000'}}).then(() => undefined, (e: unknown) => e as Error)
    expect(error?.message).toMatch(/HTTP 403/)
    expect(error?.message).not.toContain('wrong-app-key-0000000000000000000000000')
  })

  it('gives up after the attempts allowed and says how far it got', async () => {
    const server = await fake('two-deploys')
    server.inject({endpoint: 'logs-search', fault: faults.status(502), after: 4, times: Infinity})
    const error = await liveAnalyze(server, {mode: 'narrowed', tuning: {retry: {maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20, maxElapsedMs: 10_000}}}).then(() => undefined, (e: unknown) => e as Error)
    expect(error).toBeInstanceOf(SourceError)
    expect(error?.message).toMatch(/HTTP 502; gave up after 3 attempts/)
    expect(error?.message).toMatch(/Got this far: \d+ of \d+ slices done, \d+ events pulled, \d+ requests made/)
  })

  it('gives up when the wait would exceed the time allowed per request, without waiting', async () => {
    const server = await fake('two-deploys')
    server.inject({endpoint: 'logs-search', fault: faults.rateLimited(600), after: 1})
    await expect(liveAnalyze(server, {mode: 'narrowed'})).rejects.toThrow(/resets in 600s.*would exceed the 10s allowed per request/)
    // Without waiting: the limited search was never asked again (the test's own time bounds the run).
    const searches = server.requestsTo('logs-search')
    const limited = searches.filter((r) => r.status === 429)
    expect(limited).toHaveLength(1)
    expect(searches.filter((r) => r.raw === limited[0]?.raw)).toHaveLength(1)
  })
})

describe('--spool: a pull that failed continues where it stopped', () => {
  it('keeps what was pulled, says how to continue, and the next run pulls only the rest, with the plan kept, and gives the report of the whole', async () => {
    const server = await fake('rolling-round-robin')
    const spool = join(mkdtempSync(join(tmp, 'skewscan-spool-')), 'pull')
    const whole = (await liveAnalyze(server)).report.input.datadog?.requests.search ?? 0
    // The search fails for good after about two thirds of the pull's pages (retries run out).
    expect(whole).toBeGreaterThan(10)
    server.inject({endpoint: 'logs-search', fault: faults.status(500), after: Math.round((whole * 2) / 3), times: Infinity})
    const failed = liveAnalyze(server, {spool, tuning: {concurrency: 1, timeoutMs: 10_000, retry: {maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2, maxElapsedMs: 20_000}}})
    await expect(failed).rejects.toThrow(new RegExp(`\\d+ events pulled so far are kept in ${spool.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: run the same command again to continue where it stopped\\.$`))
    expect(readdirSync(spool).sort()).toEqual(['pull-state.json', 'pull.ndjson.gz'])
    const aggregates = server.requestsTo('logs-aggregate').length
    server.clearFaults()
    const live = await liveAnalyze(server, {spool})
    expect(sharedLengthFree(withoutInput(live.report), 'windows')).toEqual(sharedLengthFree(withoutInput(await fileReport('rolling-round-robin')), 'windows'))
    expect(live.notices).toContainEqual(expect.stringMatching(/^Continuing the pull kept in .*pull \(service:ingress-nginx, 2026-11-29T13:55:00\.000Z to 2026-11-29T14:45:00\.000Z\): \d+ events already pulled$/))
    // The plan was kept: no aggregate asked again; the events already pulled were not pulled again.
    expect(server.requestsTo('logs-aggregate')).toHaveLength(aggregates)
    const dd = live.report.input.datadog
    expect(dd?.resumed?.events).toBeGreaterThan(0)
    expect((dd?.resumed?.events ?? 0) + (dd?.pulled ?? 0)).toBe(expectedIds(server, live.plan).length)
    // Slices wholly before where the first run stopped are not asked again (retries on a busy machine left out).
    expect((dd?.requests.search ?? 0) - (dd?.requests.retries ?? 0)).toBeLessThan(whole)
    // The report is made: the spool is gone.
    expect(existsSync(spool)).toBe(false)
  })
})

describe('requests as Datadog expects them on the wire', () => {
  it('search: snake_case keys, page.limit 1000, string times, ascending sort, a fresh body per slice, cursors followed', async () => {
    const server = await fake('rolling-round-robin')
    const live = await liveAnalyze(server, {mode: 'windows', spec: {scope: {indexes: ['main', 'web'], storageTier: 'flex'}}})
    const searches = server.requestsTo('logs-search')
    expect(searches.length).toBeGreaterThan(live.report.input.datadog?.slices ?? 0)
    for (const r of searches) {
      expect(r.headers['content-type']).toMatch(/application\/json/)
      expect(r.body.page.limit).toBe(1000)
      expect(r.body.sort).toBe('timestamp')
      expect(r.body.filter).toEqual({query: expect.any(String), from: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), to: expect.stringMatching(/Z$/), indexes: ['main', 'web'], storage_tier: 'flex'})
      expect(r.raw).not.toMatch(/storageTier|"limit":10[,}]/)
    }
    // Every slice starts without a cursor; each later page carries the cursor the previous answer gave.
    const firstPages = searches.filter((r) => r.body.page.cursor === undefined)
    expect(firstPages.length).toBe(live.report.input.datadog?.slices)
    const aggregates = server.requestsTo('logs-aggregate')
    // Count; the shell-path requests per app and length (by the first app facet that names them
    // all, the pipeline's proxy.name here) and people's page loads per
    // app and agent, counted rather than read; candidate buckets by user agent (windows open around
    // people's only); each pod's requests per bucket; each pod's shells per length (its first
    // shell is read); the page, route, asset and candidate streams' own counts (to cut and estimate
    // their slices).
    const sort = {aggregation: 'count', order: 'desc', type: 'measure'}
    const series = [{aggregation: 'count', type: 'timeseries', interval: '1m'}]
    const grouped = aggregates.map((r) => (r.body.group_by as {facet: string}[] | undefined)?.map((g) => g.facet) ?? null)
    const apart = live.plan.streams.filter((st) => st.name === 'sessions' || st.name === 'edges').flatMap((st) => st.slices)
    expect(grouped).toEqual([
      null,
      ['@proxy.name', '@network.bytes_written'], ['@proxy.name', '@http.useragent'],
      ['@http.useragent'], ['@network.client.ip'],
      // The scanner check (issue 27): people's candidates by path; which of the guessed-looking ones
      // were answered with content; their shell-length answers per app and length (a fallback only
      // near that shell's serving). No path here is a guess no build serves: no address is checked.
      ['@http.url_details.path'], ['@http.url_details.path'], ['@http.url_details.path', '@proxy.name', '@network.bytes_written'],
      ['@network.destination.ip'],
      // Plain routes (no dot in the path) answered with a shell's length, per app and length, and
      // people's among them per app and agent: counted rather than read (issue 27 item 3).
      ['@proxy.name', '@network.bytes_written'], ['@proxy.name', '@http.useragent'],
      ['@network.destination.ip', '@network.bytes_written'],
      null, null, null, null,
      // Each slice of the sessions and edges streams (a query of its own) counted by a total of its very filter (issue 27 item 4).
      ...apart.map(() => null),
    ])
    // Several at once: in any order.
    const filters = (xs: unknown[][]): string[] => xs.map((x) => JSON.stringify(x)).sort()
    expect(filters(aggregates.slice(16).map((r) => [r.body.filter.query, r.body.filter.from, r.body.filter.to, r.body.compute]))).toEqual(filters(apart.map((sl) => [sl.query, new Date(sl.from).toISOString(), new Date(sl.to).toISOString(), [{aggregation: 'count', type: 'total'}]])))
    expect(apart.length).toBeGreaterThan(0)
    for (const sl of apart) expect(sl.count).toBe(server.select(sl.query as string, sl.from, sl.to).length)
    expect(aggregates[5]?.body.group_by).toEqual([{facet: '@http.url_details.path', limit: 10000, sort}])
    expect(aggregates[6]?.body.filter.query).toMatch(/ @http\.method:GET \(\(@http\.status_code:\[200 TO 299\] -@network\.bytes_written:0\) OR @http\.status_code:304\) -@network\.bytes_written:/)
    expect(aggregates[7]?.body.group_by).toEqual([expect.objectContaining({facet: '@http.url_details.path'}), {facet: '@proxy.name', limit: 20, missing: 'skewscan-none', sort}, expect.objectContaining({facet: '@network.bytes_written'})])
    expect(aggregates[1]?.body.group_by).toEqual([{facet: '@proxy.name', limit: 20, missing: 'skewscan-none', sort}, {facet: '@network.bytes_written', limit: 500, sort}])
    // People's page loads by app and agent: the app level lists the apps the shells named and one
    // more (here one app: 2), leaving each app all the groups one aggregate lists (10,000 / 2).
    expect(aggregates[2]?.body.group_by).toEqual([{facet: '@proxy.name', limit: 2, sort}, {facet: '@http.useragent', limit: 5000, missing: 'skewscan-none', sort}])
    expect(aggregates[3]?.body.group_by).toEqual([{facet: '@http.useragent', limit: 10000, missing: 'n/a', sort}])
    // People's candidates (crawlers' agents left out by name) by client address: theirs are read a window back.
    expect(aggregates[4]?.body.group_by).toEqual([{facet: '@network.client.ip', limit: 10000, missing: 'n/a', sort}])
    expect(aggregates[8]?.body.group_by).toEqual([{facet: '@network.destination.ip', limit: 10000, sort}])
    // Plain routes as the shells are counted (by app and length), and people's as their page loads (by app and agent).
    const plainRoute = / -@http\.url_details\.path:\*\.\* @http\.status_code:\[200 TO 299\] @network\.bytes_written:1832$/
    expect(aggregates[9]?.body.filter.query).toMatch(plainRoute)
    expect(aggregates[9]?.body.group_by).toEqual([{facet: '@proxy.name', limit: 20, missing: 'skewscan-none', sort}, {facet: '@network.bytes_written', limit: 500, sort}])
    expect(aggregates[10]?.body.filter.query).toBe(aggregates[9]?.body.filter.query)
    expect(aggregates[10]?.body.group_by).toEqual([{facet: '@proxy.name', limit: 2, sort}, {facet: '@http.useragent', limit: 5000, missing: 'skewscan-none', sort}])
    // Each pod's shells, its plain routes' included.
    expect(aggregates[11]?.body.filter.query).toMatch(/ \(@http\.url_details\.path:\(\\\/ OR \\\/index\.html\) OR \(-@http\.url_details\.path:\*\.\* @network\.bytes_written:1832\)\)$/)
    for (const i of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]) expect(aggregates[i]?.body.compute).toEqual(series)
    expect([12, 13, 14, 15].map((i) => aggregates[i]?.body.filter.query)).toEqual(live.plan.streams.slice(0, 4).map((st) => st.query))
    expect(live.plan.streams.map((st) => st.name)).toEqual(['pages', 'routes', 'assets', 'candidates', 'sessions', 'edges'])
    expect(aggregates[0]?.body.filter.storage_tier).toBe('flex')
    for (const r of server.requests) {
      expect(r.headers['dd-api-key']).toBe(API_KEY)
      expect(r.headers['dd-application-key']).toBe(APP_KEY)
    }
  })

  it('the queries sent add only GET page and asset terms (and pods at their edges) to the user\'s query', async () => {
    const server = await fake('rolling-round-robin')
    const live = await liveAnalyze(server, {mode: 'windows'})
    const queries = [...new Set(server.requestsTo('logs-search').map((r) => r.body.filter.query as string))]
    const [pages, routes, assets, candidates, sessions, ...edges] = live.plan.streams
    expect([pages?.name, routes?.name, assets?.name, candidates?.name, sessions?.name]).toEqual(['pages', 'routes', 'assets', 'candidates', 'sessions'])
    expect(new Set(queries)).toEqual(new Set([pages?.query, routes?.query, assets?.query, ...(candidates?.slices.length ? [candidates.query] : []), ...[sessions, ...edges].flatMap((st) => st?.slices ?? []).map((sl) => sl.query)]))
    for (const q of queries) {
      expect(q).toMatch(new RegExp(`^\\(${QUERY}\\) @(http\\.method|network\\.client\\.ip):`))
      expect(q).toMatch(/@http\.url_details\.path:\(\\\/_build\\\/\* OR /)
    }
    // The hurt people's own pages and assets, by address; candidates left out (their stream has them).
    for (const sl of sessions?.slices ?? []) expect(sl.query).toMatch(/^\(service:ingress-nginx\) @network\.client\.ip:\(\d+\.\d+\.\d+\.\d+( OR \d+\.\d+\.\d+\.\d+)*\) \(\(@http\.method:GET .*\) OR \(@http\.method:\(GET OR HEAD\) .* -\(@network\.bytes_written:1832 OR @http\.status_code:\(404 OR 410\)/)
    const assetTerm = String.raw`@http.url_details.path:(\/_build\/* OR \/assets\/* OR \/static\/* OR \/_next\/static\/* OR \/_app\/immutable\/* OR *.js OR *.JS OR *.mjs OR *.MJS OR *.cjs OR *.CJS OR *.css OR *.CSS OR *.map OR *.MAP OR *.wasm OR *.WASM)`
    // Shell paths and routes by the shells' lengths in the buckets read; over the whole range only
    // routes with a dot that may be documents (a dot before the last segment, `.html` or `.htm` in
    // any case): plain routes are counted (issue 27 item 3), `/sitemap.xml` is no page load.
    const htmls = ['htm', 'htM', 'hTm', 'hTM', 'Htm', 'HtM', 'HTm', 'HTM', 'html', 'htmL', 'htMl', 'htML', 'hTml', 'hTmL', 'hTMl', 'hTML', 'Html', 'HtmL', 'HtMl', 'HtML', 'HTml', 'HTmL', 'HTMl', 'HTML'].map((x) => `*.${x}`)
    expect(pages?.query).toBe(`(${QUERY}) @http.method:GET -${assetTerm} (@http.url_details.path:(\\/ OR \\/index.html) OR @network.bytes_written:1832)`)
    expect(routes?.query).toBe(`(${QUERY}) @http.method:GET -${assetTerm} -@http.url_details.path:(\\/ OR \\/index.html) @http.url_details.path:(*.*\\/* OR ${htmls.join(' OR ')}) @network.bytes_written:1832`)
    expect(routes?.slices).toEqual([expect.objectContaining({from: RANGE.from, to: RANGE.to})])
    // A pod's edge: its requests the other streams leave out, by its address.
    for (const sl of edges[0]?.slices ?? []) expect(sl.query).toMatch(/^\(service:ingress-nginx\) @http\.method:\(GET OR HEAD\) @network\.destination\.ip:(\(10\.1\.\d+\.\d+( OR 10\.1\.\d+\.\d+)*\)|10\.1\.\d+\.\d+) /)
  })
})

describe('deploys from Datadog events (--deploy-query)', () => {
  // Deploy markers and the Deployments' own events, of every app.
  const QUERY = 'source:(kubernetes OR deployment)'
  it.each(SCENARIOS.filter((s) => s !== 'quiet'))('%s: the deploy windows of the events API equal those of the events file', async (scenario) => {
    const server = await fake(scenario)
    const live = await liveAnalyze(server, {deployQuery: QUERY})
    const file = await fileAnalyze(scenario, 'dd-events.ndjson', 'deploy-events-v2.json')
    expect(sharedLengthFree(withoutInput(live.report), 'windows')).toEqual(sharedLengthFree(withoutInput(file), 'windows'))
    expect(live.report.deploys.every((d) => d.sources.length > 0 && d.sources.every((src) => src === 'marker' || src === 'kubernetes'))).toBe(true)
    expect(live.report.input.datadog?.deployEvents).toMatchObject({api: 'v2'})
    // Declared deploys as read (a marker and the Deployment's events of one rollout are fused later).
    expect(live.report.input.datadog?.deployEvents?.deploys).toBeGreaterThanOrEqual(live.report.deploys.length)
    const search = server.requestsTo('events-search')[0]
    expect(search?.body).toMatchObject({filter: {query: QUERY, from: expect.any(String), to: expect.any(String)}, page: {limit: 1000}, sort: 'timestamp'})
  })

  it('falls back to the v1 events list (start/end in seconds) when v2 search fails, with the same deploys', async () => {
    const server = await fake('two-deploys')
    server.inject({endpoint: 'events-search', fault: faults.status(500), times: Infinity})
    const live = await liveAnalyze(server, {deployQuery: QUERY})
    const file = await fileAnalyze('two-deploys', 'dd-events.ndjson', 'deploy-events-v2.json')
    expect(withoutInput(live.report)).toEqual(withoutInput(file))
    expect(live.report.input.datadog?.deployEvents).toMatchObject({api: 'v1', fallbackReason: expect.stringMatching(/HTTP 500/)})
    const v1 = server.requestsTo('events-v1')[0]
    const params = new URL(v1?.url ?? '', 'http://x').searchParams
    expect(params.get('start')).toMatch(/^\d{10}$/)
    expect(params.get('sources')).toBe('kubernetes,deployment')
    expect(params.has('tags')).toBe(false)
  })

  it('without --deploy-query, deploys are inferred as offline', async () => {
    const server = await fake('two-deploys')
    const live = await liveAnalyze(server)
    expect(live.report.deploys.every((d) => d.sources.join() === 'inferred')).toBe(true)
    expect(server.requestsTo('events-search')).toHaveLength(0)
  })
})

describe('a longer range (4 h, a deploy after 3 h): the windows cut the asset pull', () => {
  let server: FakeDatadog
  let file: string
  const range = {from: Date.parse('2026-11-29T14:00:00Z'), to: Date.parse('2026-11-29T18:00:00Z')}
  beforeAll(async () => {
    const sim = simulate({seed: 7, durationSeconds: 4 * 3600, firstDeployAtSeconds: 3 * 3600, deploys: 1, browsersPerMinute: 1, staleShare: 0.15, staleMinAfterEndSeconds: 510, surge: {factor: 6, beforeSeconds: 150, afterSeconds: 20}, apiShare: 0.25, healthzEverySeconds: 120})
    const ctx = writerContext(sim.truth)
    const logs = sim.requests.map((r) => ddEvent(r, ctx) as unknown as Record<string, unknown>)
    file = join(mkdtempSync(join(tmp, 'skewscan-long-')), 'dd-events.ndjson')
    writeFileSync(file, logs.map((l) => JSON.stringify(l)).join('\n') + '\n')
    server = await FakeDatadog.start({logs, apiKey: API_KEY, appKey: APP_KEY})
    fakes.set('long', server)
  })

  // The windowed pull of the range and the analysis of the full export, made once for both tests.
  let pulled: Promise<LiveRun> | undefined
  let exported: Promise<AnalysisReport> | undefined
  const windowed = (): Promise<LiveRun> => (pulled ??= liveAnalyze(server, {mode: 'windows', spec: {range}}))
  const full = (): Promise<AnalysisReport> => (exported ??= fileAnalyze('long', file))

  it('pulls the page requests and only the asset requests around the deploy', async () => {
    const live = await windowed()
    const dd = live.report.input.datadog
    expect(dd?.held).toBe(server.select('*', range.from, range.to).length)
    expect(dd?.pulled).toBeLessThan(0.55 * (dd?.held ?? 0))
    expect(dd?.windows.pulledSeconds).toBeLessThan(0.5 * (dd?.windows.rangeSeconds ?? 0))
    expect(sortById(live.items.map((p) => p.item))).toEqual(expectedIds(server, live.plan))
    // Every failure the full file shows is in the windows.
    expect(withoutInput(live.report)).toEqual(withoutInput(await full()))
  })

  // Known issue, outside the Datadog code: the analyzer learns a shell as soon as it is pushed but
  // judges an event only once a later event arrives, so how far ahead it has looked depends on how
  // dense the input is. Without the health checks and API calls a live pull leaves out, one page
  // load at 14:02:04 (a route answered with a shell 100 s before the first shell-path response) is
  // counted that a full export does not count. Judging with exactly `lookaheadMs` of look-ahead
  // makes both agree (verified): then this test passes and `.failing` must go.
  it('gives the report of the full export over a long range with unrelated traffic left out', async () => {
    const live = await windowed()
    expect(withoutInput(live.report)).toEqual(withoutInput(await full()))
  })
})
