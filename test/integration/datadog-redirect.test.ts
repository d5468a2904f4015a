/**
 * Issue 14, item 6: the keys never follow a redirect. Server A (the `--api-url`) answers a 3xx
 * pointing at server B, another origin on loopback: a Datadog-compatible server that takes the
 * very same keys, so a client that followed would be rewarded with a working answer. B must get no
 * request at all, the run must fail with exit 3 naming B's origin, and no key may appear anywhere.
 * Every HTTP path is covered: the aggregate (planning), the log search (analyze and export), and
 * the deploy events (v2 search and the v1 list it falls back to).
 */
import {join} from 'node:path'
import {ROOT} from '../helpers/cli'
import {type Endpoint, FakeDatadog, faults, type RecordedRequest} from '../helpers/fake-datadog'
import {runCliAsync, runInProcess, useDatadogEnv} from '../helpers/fake-datadog-cli'
import {API_KEY, APP_KEY} from '../helpers/fake-datadog-live'
import {tempDir} from '../helpers/temp'

const RANGE = ['--from', '2026-11-29T13:55:00Z', '--to', '2026-11-29T14:45:00.000Z', '--query', 'service:ingress-nginx']
const KEYS = {DD_API_KEY: API_KEY, DD_APP_KEY: APP_KEY}
const FAST = ['--retry-base', '10ms', '--timeout', '2s']
const dir = tempDir('skewscan-ddredirect-')

let a: FakeDatadog
let b: FakeDatadog
beforeAll(async () => {
  const data = FakeDatadog.fixture(ROOT, 'rolling-round-robin')
  ;[a, b] = await Promise.all([
    FakeDatadog.start({...data, apiKey: API_KEY, appKey: APP_KEY, maxPageSize: 100}),
    FakeDatadog.start({...data, apiKey: API_KEY, appKey: APP_KEY, maxPageSize: 100}),
  ])
})
afterAll(async () => Promise.all([a.close(), b.close()]))
afterEach(() => {
  a.clearFaults()
  a.requests.length = 0
  b.requests.length = 0
})

useDatadogEnv(KEYS)
const run = runInProcess

/** A answers `status` with a Location on B; the Location even carries the keys, which must not be echoed. */
function redirect(endpoint: Endpoint | 'any', status: number, location = `${b.url}/api/v2/logs/events/search?dd-api-key=${API_KEY}&dd-application-key=${APP_KEY}`): void {
  a.inject({endpoint, fault: {kind: 'status', status, body: '', headers: {location}}, times: Infinity})
}

function withKeys(requests: RecordedRequest[]): RecordedRequest[] {
  return requests.filter((r) => r.headers['dd-api-key'] !== undefined || r.headers['dd-application-key'] !== undefined)
}

function expectNoKeys(...texts: string[]): void {
  for (const t of texts) {
    expect(t).not.toContain(API_KEY)
    expect(t).not.toContain(APP_KEY)
  }
}

/** The failed run: exit 3, B never reached, the message naming B's origin as another origin. */
function expectRefused(r: {stdout: string; stderr: string; exit: number; message: string}, status: number): void {
  expect(withKeys(b.requests)).toEqual([])
  expect(b.requests).toEqual([])
  expect(r.exit).toBe(3)
  expect(r.message).toContain(`HTTP ${status} redirect to ${b.url}`)
  expect(r.message).toContain(`another origin than ${a.url}`)
  expect(r.message).toMatch(/Not followed: that is another origin than .*, and the keys are sent to no other origin/)
  expectNoKeys(r.stdout, r.stderr, r.message)
}

describe('a redirect to another origin is never followed with the keys', () => {
  it.each([301, 302, 303, 307, 308])('analyze --from: HTTP %d on the first request fails the run (exit 3) without a request to B, and without retrying', async (status) => {
    redirect('any', status)
    const r = await run(['analyze', ...RANGE, '--api-url', a.url, ...FAST])
    expectRefused(r, status)
    // Not retried and no fallback: one request, the first aggregate count.
    expect(a.requests.map((q) => q.endpoint)).toEqual(['logs-aggregate'])
  })

  it('analyze --from --pull all: a 302 on the log search (after a good aggregate) fails the run', async () => {
    redirect('logs-search', 302)
    const r = await run(['analyze', ...RANGE, '--pull', 'all', '--api-url', a.url, ...FAST])
    expectRefused(r, 302)
    expect(r.message).toContain('Datadog POST /api/v2/logs/events/search failed')
    expect(r.message).toMatch(/Got this far: /)
    expect(a.requestsTo('logs-aggregate').length).toBeGreaterThan(0)
  })

  it('a redirect of the aggregate is not taken as "narrowing unavailable": the run fails instead of falling back', async () => {
    redirect('logs-aggregate', 307)
    const r = await run(['analyze', ...RANGE, '--api-url', a.url, ...FAST])
    expectRefused(r, 307)
    expect(r.message).toContain('Datadog POST /api/v2/logs/analytics/aggregate failed')
    expect(r.stderr).not.toMatch(/narrowing unavailable/)
    expect(a.requestsTo('logs-search')).toEqual([])
  })

  it('export: a 308 on the log search fails the export (exit 3)', async () => {
    redirect('logs-search', 308)
    const r = await run(['export', ...RANGE, '--api-url', a.url, '-o', join(dir, 'export-308.ndjson'), ...FAST])
    expectRefused(r, 308)
    expect(r.message).toContain('Datadog POST /api/v2/logs/events/search failed')
  })

  it('--deploy-query: a 302 on the Events v2 search fails the run, with no fallback to the v1 list', async () => {
    redirect('events-search', 302, `${b.url}/api/v2/events/search`)
    const r = await run(['analyze', ...RANGE, '--deploy-query', 'kube_deployment:web', '--api-url', a.url, ...FAST])
    expectRefused(r, 302)
    expect(r.message).toContain('Datadog POST /api/v2/events/search failed')
    expect(a.requestsTo('events-v1')).toEqual([])
    expect(a.requestsTo('logs-search')).toEqual([])
  })

  it('--deploy-query: a 301 on the v1 events list (GET, after v2 failed) fails the run', async () => {
    a.inject({endpoint: 'events-search', fault: faults.status(400), times: Infinity})
    redirect('events-v1', 301, `${b.url}/api/v1/events`)
    const r = await run(['analyze', ...RANGE, '--deploy-query', 'kube_deployment:web', '--api-url', a.url, ...FAST])
    expectRefused(r, 301)
    expect(r.message).toContain('Datadog GET /api/v1/events failed')
    expect(a.requestsTo('events-v1')).toHaveLength(1)
  })

  it('the built CLI with DEBUG=*: export refuses a 307 to B (exit 3) and prints no key, on stdout or stderr', async () => {
    redirect('any', 307)
    const r = await runCliAsync(['export', ...RANGE, '--api-url', a.url, '-o', join(dir, 'export-cli.ndjson'), ...FAST], {env: {...KEYS, DEBUG: '*'}})
    expect(r.status).toBe(3)
    expect(b.requests).toEqual([])
    expect(r.stderr).toContain(`HTTP 307 redirect to ${b.url}`)
    expectNoKeys(r.stdout, r.stderr)
  })
})

describe('a redirect on the same origin is not followed either', () => {
  it('a relative Location (same scheme, host and port): exit 3, naming it as the same origin, one request only', async () => {
    redirect('any', 308, `/api/v2/logs/analytics/aggregate/?key=${APP_KEY}`)
    const r = await run(['analyze', ...RANGE, '--api-url', a.url, ...FAST])
    expect(r.exit).toBe(3)
    expect(r.message).toContain(`HTTP 308 redirect to ${a.url}/api/v2/logs/analytics/aggregate/ (same origin)`)
    expect(r.message).toMatch(/skewscan follows no redirect/)
    expect(a.requests).toHaveLength(1)
    expect(b.requests).toEqual([])
    expectNoKeys(r.stdout, r.stderr, r.message)
  })

  it('another port of the same host is another origin', async () => {
    const port = new URL(b.url).port
    redirect('any', 302, `http://127.0.0.1:${port}/`)
    const r = await run(['analyze', ...RANGE, '--api-url', a.url, ...FAST])
    expectRefused(r, 302)
  })

  it('a 3xx without a Location fails as it is, not retried', async () => {
    a.inject({endpoint: 'any', fault: {kind: 'status', status: 300, body: ''}, times: Infinity})
    const r = await run(['analyze', ...RANGE, '--api-url', a.url, ...FAST])
    expect(r.exit).toBe(3)
    expect(r.message).toContain('HTTP 300 redirect without a usable Location')
    expect(a.requests).toHaveLength(1)
    expect(b.requests).toEqual([])
  })
})
