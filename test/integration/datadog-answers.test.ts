/**
 * Datadog answers that lie, against the Datadog-compatible server on loopback through the real
 * client: a 2xx without a page, a gzip bomb, a cursor that never moves, pages that overlap, and a
 * spool asked to continue another pull.
 */
import {mkdtempSync} from 'node:fs'
import {join} from 'node:path'
import {ConfigError} from '../../src/config/parse'
import {DatadogRequestError} from '../../src/sources/datadog/errors'
import {SourceError} from '../../src/sources/errors'
import {ROOT} from '../helpers/cli'
import {FakeDatadog, faults} from '../helpers/fake-datadog'
import {API_KEY, APP_KEY, expectedIds, fileAnalyze, liveAnalyze, RANGE, sortById, withoutInput} from '../helpers/fake-datadog-live'
import {tempDir} from '../helpers/temp'

const tmp = tempDir('skewscan-datadog-answers-')

const fakes: FakeDatadog[] = []

async function fake(scenario = 'two-deploys'): Promise<FakeDatadog> {
  const f = await FakeDatadog.start({...FakeDatadog.fixture(ROOT, scenario), apiKey: API_KEY, appKey: APP_KEY, maxPageSize: 50})
  fakes.push(f)
  return f
}

afterAll(async () => {
  for (const f of fakes) await f.close()
})

const fastRetry = {maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 4, maxElapsedMs: 10_000}
/** No fault here is a slow answer: requests get a timeout a busy machine never reaches, so a retry or a request count never depends on the load. */
const patient = {timeoutMs: 60_000}
const failure = (p: Promise<unknown>): Promise<Error | undefined> => p.then(() => undefined, (e: unknown) => e as Error)

describe('a 2xx search answer without a data list is a failed request, not the last page', () => {
  const bodies = ['{"errors":["Internal Server Error"]}', '{}', '{"data":null}']

  it.each(bodies)('%s for good: retried, then exit-3 material saying how far the pull got', async (body) => {
    const server = await fake()
    server.inject({endpoint: 'logs-search', fault: faults.okWithout(body), after: 2, times: Infinity})
    const error = await failure(liveAnalyze(server, {mode: 'narrowed', tuning: {...patient, concurrency: 1, retry: fastRetry}}))
    expect(error).toBeInstanceOf(SourceError)
    expect(error?.message).toMatch(/search failed \(a 2xx answer without a data list; gave up after 3 attempts\)/)
    expect(error?.message).toMatch(/Got this far: \d+ of \d+ slices done, \d+ events pulled, \d+ requests made/)
    if (body.includes('errors')) expect(error?.message).toContain('Internal Server Error')
    // Asked three times, the first page and the page after it once.
    expect(server.requestsTo('logs-search')).toHaveLength(5)
  })

  it('once: retried, and the report is the file\'s', async () => {
    const server = await fake()
    server.inject({endpoint: 'logs-search', fault: faults.okWithout('{"data":null}'), after: 2})
    const live = await liveAnalyze(server, {mode: 'narrowed', tuning: {...patient, retry: fastRetry}})
    expect(withoutInput(live.report)).toEqual(withoutInput(await fileAnalyze('two-deploys', 'dd-events.ndjson')))
    expect(live.report.input.datadog?.requests.retries).toBe(1)
    expect(live.notices.join('\n')).toMatch(/without a data list; retrying/)
  })
})

describe('a gzip bomb from the API URL', () => {
  const MiB = 1024 * 1024

  it('a search answer that inflates past the cap fails at once, naming the cap, not retried', async () => {
    const server = await fake()
    server.inject({endpoint: 'logs-search', fault: faults.gzipBomb(128 * MiB), after: 2})
    const error = await failure(liveAnalyze(server, {mode: 'narrowed', tuning: {...patient, concurrency: 1, retry: fastRetry, maxAnswerBytes: MiB}}))
    expect(error).toBeInstanceOf(SourceError)
    expect(error?.message).toMatch(/search failed \(the answer grew past 1 MiB \(the most one answer may take, once inflated\) is not transient: not retried\)/)
    expect(error?.message).toMatch(/Got this far:/)
    expect(server.requestsTo('logs-search')).toHaveLength(3)
  })

  it('an aggregate answer that inflates past the cap ends the run too, rather than a fallback that asks the same server', async () => {
    const server = await fake()
    server.inject({endpoint: 'logs-aggregate', fault: faults.gzipBomb(128 * MiB)})
    const error = await failure(liveAnalyze(server, {tuning: {...patient, retry: fastRetry, maxAnswerBytes: MiB}}))
    expect(error).toBeInstanceOf(DatadogRequestError)
    expect(error?.message).toMatch(/aggregate failed \(the answer grew past 1 MiB/)
    expect(server.requestsTo('logs-search')).toHaveLength(0)
  })
})

describe('a cursor that never moves stops its slice after a few pages', () => {
  it('the cursor sent back unchanged', async () => {
    const server = await fake()
    // Twenty stuck pages, then the server would move on: today's code follows them all and ends well.
    server.inject({endpoint: 'logs-search', fault: faults.stuckCursor(), withCursor: true, times: 20})
    const error = await failure(liveAnalyze(server, {mode: 'narrowed', tuning: {...patient, concurrency: 1, retry: fastRetry}}))
    expect(error).toBeInstanceOf(SourceError)
    expect(error?.message).toMatch(/page cursor stopped moving in the slice 2026-11-29T\d\d:\d\d:\d\d\.\d{3}Z\.\.2026-11-29T\d\d:\d\d:\d\d\.\d{3}Z \(query .*service:ingress-nginx.*\): 3 pages in a row sent back the cursor they were asked with; stopping/)
    expect(error?.message).toMatch(/Got this far:/)
    // The first page, then three with the same cursor.
    expect(server.requestsTo('logs-search')).toHaveLength(4)
  })

  it('new cursors, but pages of events already pulled in the slice', async () => {
    const server = await fake()
    // Each page starts a page back: the same events again, under a cursor never seen before.
    server.inject({endpoint: 'logs-search', fault: faults.overlap(50), withCursor: true, times: 20})
    const error = await failure(liveAnalyze(server, {mode: 'narrowed', tuning: {...patient, concurrency: 1, retry: fastRetry}}))
    expect(error?.message).toMatch(/page cursor stopped moving in the slice .*: 3 pages in a row held only events already pulled; stopping/)
    expect(server.requestsTo('logs-search')).toHaveLength(4)
  })
})

describe('pages that overlap are read once, however far back they reach', () => {
  it('copies of events several minutes old are dropped by id within the slice; the report is the file\'s', async () => {
    const server = await fake()
    // Each of these pages starts 40 events back (minutes of this fixture's traffic).
    server.inject({endpoint: 'logs-search', fault: faults.overlap(40), withCursor: true, after: 1, times: 4})
    const live = await liveAnalyze(server, {mode: 'narrowed', tuning: {...patient, concurrency: 1}})
    expect(withoutInput(live.report)).toEqual(withoutInput(await fileAnalyze('two-deploys', 'dd-events.ndjson')))
    const ids = sortById(live.items.map((p) => p.item))
    expect(ids).toEqual(expectedIds(server, live.plan))
    expect(live.report.input.datadog?.duplicates).toBe(160)
    // The copies reached further back than the minute the merge keeps ids for.
    const times = live.items.map((p) => p.time)
    expect(times).toEqual([...times].sort((a, b) => a - b))
  })
})

describe('--spool continues only the pull it holds', () => {
  async function failedSpool(server: FakeDatadog): Promise<string> {
    const spool = join(mkdtempSync(join(tmp, 'skewscan-spool-')), 'pull')
    server.inject({endpoint: 'logs-search', fault: faults.status(500), after: 10, times: Infinity})
    await expect(liveAnalyze(server, {mode: 'narrowed', spool, tuning: {...patient, concurrency: 1, retry: {maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2, maxElapsedMs: 10_000}}})).rejects.toThrow(/[1-9]\d* events? pulled so far (is|are) kept in .*run the same command again/)
    server.clearFaults()
    return spool
  }

  it('refuses another query, range or pull mode (a configuration error), naming what it holds; the same pull continues', async () => {
    const server = await fake()
    const spool = await failedSpool(server)
    const searches = server.requestsTo('logs-search').length
    const asked = [
      [{spec: {query: 'service:web'}}, /--query "service:ingress-nginx", not "service:web"/],
      [{spec: {range: {from: RANGE.from + 86_400_000, to: RANGE.to + 86_400_000}}}, /--from 2026-11-29T13:55:00\.000Z --to 2026-11-29T14:45:00\.000Z, not 2026-11-30T13:55:00\.000Z to 2026-11-30T14:45:00\.000Z/],
      [{mode: 'windows' as const}, /--pull narrowed, not windows/],
    ] as const
    for (const [opts, why] of asked) {
      const error = await failure(liveAnalyze(server, {mode: 'narrowed', spool, ...opts}))
      expect(error).toBeInstanceOf(ConfigError)
      expect(error?.message).toMatch(why)
      expect(error?.message).toMatch(/To continue it, run again with --query "service:ingress-nginx" --from 2026-11-29T13:55:00\.000Z --to 2026-11-29T14:45:00\.000Z --pull narrowed .*remove .*pull or give another --spool directory/)
    }
    // Refused before any search.
    expect(server.requestsTo('logs-search')).toHaveLength(searches)
    const live = await liveAnalyze(server, {mode: 'narrowed', spool})
    expect(live.report.input.datadog?.resumed?.events).toBeGreaterThan(0)
    expect(withoutInput(live.report)).toEqual(withoutInput(await fileAnalyze('two-deploys', 'dd-events.ndjson')))
  })
})
