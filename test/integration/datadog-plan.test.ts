/**
 * Issue 16: a plan before the pull. `analyze --from … --plan` says what the range holds, what the
 * pull will take (events, search requests) and how long at the organisation's rate limit, and
 * stops; the counts it gives are the ones the pull then makes, against the fake Datadog on loopback.
 */
import {join} from 'node:path'
import {ROOT} from '../helpers/cli'
import {FakeDatadog} from '../helpers/fake-datadog'
import {runCliAsync} from '../helpers/fake-datadog-cli'
import {API_KEY, APP_KEY} from '../helpers/fake-datadog-live'
import {countedRequestsFor, estimatePull, requestsFor} from '../../src/sources/datadog/estimate'
import {INDEXING_LATENCY_MS} from '../../src/sources/datadog/puller'

const RANGE = ['--from', '2026-11-29T13:55:00Z', '--to', '2026-11-29T14:45:00.000Z', '--query', 'service:ingress-nginx']
const KEYS = {DD_API_KEY: API_KEY, DATADOG_APP_KEY: APP_KEY}
/** A test that starts the CLI several times: each start may take 10-20 s on a busy two-core machine (runCliAsync stops one at 60 s). */
const CLI_TEST_MS = 180_000

describe('analyze --plan', () => {
  let fake: FakeDatadog
  beforeAll(async () => {
    fake = await FakeDatadog.start({...FakeDatadog.fixture(ROOT, 'rolling-round-robin'), apiKey: API_KEY, appKey: APP_KEY, maxPageSize: 100, rateLimit: {limit: 300, periodSeconds: 3600}})
  })
  afterAll(async () => fake.close())

  interface Plan {
    query: string
    estimate: {held: number; toPull: number; slices: number; unknownSlices: number; searchRequests: number; planningRequests: number; budget: {name: string; limit: number; remaining: number}; waitSeconds: number}
  }

  it('says what the pull costs and stops: no event pulled; the real pull then pulls what it said', async () => {
    const before = fake.requests.length
    const planned = await runCliAsync(['analyze', ...RANGE, '--api-url', fake.url, '--plan', '--json'], {env: KEYS})
    expect(planned.stderr).toBe('')
    expect(planned.status).toBe(0)
    const plan = JSON.parse(planned.stdout) as Plan
    const sent = fake.requests.slice(before)
    // Planning: aggregates, and one search of a single event for the search limit; no page of events.
    expect(sent.filter((r) => r.endpoint === 'logs-search').map((r) => r.body?.page?.limit)).toEqual([1])
    expect(plan.estimate.planningRequests).toBe(sent.length)
    expect(plan.estimate.held).toBeGreaterThan(plan.estimate.toPull)
    expect(plan.estimate.budget).toMatchObject({name: 'logs_query', limit: 300})
    expect(plan.estimate.waitSeconds).toBe(0)

    const pulled = await runCliAsync(['analyze', ...RANGE, '--api-url', fake.url, '--json'], {env: KEYS})
    expect(pulled.status).toBe(0)
    const dd = (JSON.parse(pulled.stdout) as {input: {datadog: {held: number; pulled: number}}}).input.datadog
    expect(dd.held).toBe(plan.estimate.held)
    // What the slices hold by the counts is what is pulled (the pods' edges, when counted apart, come on top).
    if (plan.estimate.unknownSlices === 0) expect(dd.pulled).toBe(plan.estimate.toPull)
    else expect(dd.pulled).toBeGreaterThanOrEqual(plan.estimate.toPull)
  }, CLI_TEST_MS)

  it('prints the plan as text, and refuses --plan without Datadog', async () => {
    const text = await runCliAsync(['analyze', ...RANGE, '--api-url', fake.url, '--plan'], {env: KEYS})
    expect(text.status).toBe(0)
    expect(text.stdout).toMatch(/^Datadog plan: 2026-11-29 13:55:00Z → 2026-11-29 14:45:00Z holds [\d,]+ events for "service:ingress-nginx"\.\nThe pull takes (at least )?[\d,]+ events \([\d.]+%\) in \d+ slices( \(\d+ of them, (the pods' edges|hurt people's own requests|the pods' edges \(\d+\) and hurt people's own requests \(\d+\)|hurt people's own requests \(\d+\) and the pods' edges \(\d+\)), of unknown size\))?: about \d+ search requests?, after \d+ requests to plan it\.\nRate limit logs_query: 300 requests per 3600 s, \d+ left, refills in .*: no wait\.\n$/)
    // A live run on a terminal says the plan first, then pulls.
    const tty = await runCliAsync(['analyze', ...RANGE, '--api-url', fake.url, '--format', 'markdown'], {env: KEYS, tty: true})
    expect(tty.status).toBe(0)
    expect(tty.stdout.indexOf('Datadog plan: ')).toBeGreaterThanOrEqual(0)
    expect(tty.stdout.indexOf('Datadog plan: ')).toBeLessThan(tty.stdout.indexOf('## skewscan'))
    const offline = await runCliAsync(['analyze', join(ROOT, 'fixtures', 'rolling-round-robin', 'ingress.log'), '--plan'])
    expect(offline.status).toBe(2)
    expect(offline.stderr).toMatch(/--plan says what a Datadog pull will cost: give --from or --since/)
  }, CLI_TEST_MS)
})

describe('estimatePull', () => {
  const plan = (estimates: (number | undefined)[]) => ({held: 100_000, streams: [{slices: estimates.map((estimate) => (estimate === undefined ? {} : {estimate}))}]})
  const budget = {name: 'logs_query', limit: 300, periodSeconds: 3600, remaining: 10, resetInSeconds: 600}

  it('counts pages and the empty page ending each cursor', () => {
    // A short page still carries a cursor (reference/datadog.md 1.3): only an empty slice takes one request.
    expect([0, 1, 999, 1000, 1001, 2500].map(requestsFor)).toEqual([1, 2, 2, 2, 3, 4])
    // A slice of unknown size: a page and the empty one.
    expect(estimatePull(plan([2500, 10, undefined]), 7, budget)).toEqual({
      held: 100_000, toPull: 2510, slices: 3, unknownSlices: 1, unknownStreams: {slices: 1}, searchRequests: 8, planningRequests: 7, budget, waitSeconds: 0,
    })
    const named = {held: 100_000, streams: [{name: 'pages', slices: [{estimate: 5}]}, {name: 'sessions', slices: [{}, {}]}, {name: 'edges', slices: [{}]}]}
    expect(estimatePull(named, 0, undefined)).toMatchObject({unknownSlices: 3, unknownStreams: {sessions: 2, edges: 1}, searchRequests: 8})
  })

  it('a slice counted exactly costs its pages alone: no closing page unless its last page is full or it ends near now (issue 27 item 4)', () => {
    expect([0, 1, 999, 1000, 1001, 2500].map(countedRequestsFor)).toEqual([1, 1, 1, 2, 2, 3])
    const to = Date.parse('2026-12-01T00:00:00Z')
    const counted = {held: 100_000, streams: [{name: 'pages', slices: [{estimate: 2500, count: 2500, to}, {estimate: 1000, count: 1000, to}, {estimate: 10, to}]}]}
    // 3 + 2 counted, 2 for the one only estimated; with no clock given, counts are taken as they are.
    expect(estimatePull(counted, 0, undefined, to + 24 * 3_600_000).searchRequests).toBe(7)
    expect(estimatePull(counted, 0, undefined).searchRequests).toBe(7)
    // Ending within the indexing latency of now, a slice keeps its closing page (puller.ts).
    expect(estimatePull(counted, 0, undefined, to + INDEXING_LATENCY_MS - 1).searchRequests).toBe(4 + 2 + 2)
  })

  it('waits for the reset beyond what is left, then a period per further limit', () => {
    const wait = (requests: number, b: Parameters<typeof estimatePull>[2] = budget) => estimatePull(plan([(requests - 1) * 1000]), 0, b).waitSeconds
    expect(wait(10)).toBe(0)
    expect(wait(11)).toBe(600)
    expect(wait(310)).toBe(600)
    expect(wait(311)).toBe(600 + 3600)
    expect(wait(11, {name: 'logs_query', remaining: 10})).toBeNull()
    expect(estimatePull(plan([10_000]), 0, undefined).waitSeconds).toBeNull()
  })
})
