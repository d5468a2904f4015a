/**
 * The page-load census on real user-agent variety (issue 27 item 2): people's page loads are
 * counted per app and bucket however many distinct agents load pages, by cutting the range until
 * each aggregate lists every agent of each app, and equal what the analysis's own classifier makes
 * of every request.
 */
import {DatadogClient} from '../../../../src/sources/datadog/client'
import {countRoutes, countShells, halved, MAX_LOAD_PIECES, peoplesPageLoads} from '../../../../src/sources/datadog/census'
import {bucketFor} from '../../../../src/sources/datadog/plan'
import {QueryBuilder} from '../../../../src/sources/datadog/query'
import {AgentClassifier} from '../../../../src/util/agent-kind'
import {DEFAULT_OPTIONS} from '../../../../src/analysis/options'
import {FakeDatadog} from '../../../helpers/fake-datadog'
import {API_KEY, APP_KEY, connection} from '../../../helpers/fake-datadog-live'

const START = Date.parse('2026-12-01T10:00:00Z')
const MINUTE = 60_000
const RANGE = {from: START, to: START + 120 * MINUTE}
const APPS = ['default-webapp-80', 'default-shop-80']
const CRAWLERS = [
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
  'python-requests/2.31.0',
  'skewscan-probe/1.4.0',
]

/** A distinct desktop Chrome of a real release line per n (the fourth part runs 0-204, as Chrome's patch numbers do). */
function chrome(n: number): string {
  const major = 120 + (n % 12)
  const build = 6099 + Math.floor(n / 205) % 700
  const os = ['Windows NT 10.0; Win64; x64', 'Macintosh; Intel Mac OS X 10_15_7', 'X11; Linux x86_64'][Math.floor(n / 143_500) % 3] as string
  return `Mozilla/5.0 (${os}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.${build}.${n % 205} Safari/537.36`
}

interface Load {
  at: number
  app: string
  agent?: string
  status?: number
  bytes?: number
  /** `/` unless given. */
  path?: string
}

function item(k: number, l: Load): Record<string, unknown> {
  return {
    id: `load-${k}`, type: 'log',
    attributes: {
      timestamp: new Date(l.at).toISOString(), service: 'ingress-nginx', host: 'ingress-1', status: 'info', message: `GET ${l.path ?? '/'}`, tags: ['service:ingress-nginx'],
      attributes: {
        proxy_upstream_name: l.app,
        http: {method: 'GET', status_code: l.status ?? 200, url_details: {path: l.path ?? '/'}, ...(l.agent === undefined ? {} : {useragent: l.agent})},
        network: {bytes_written: l.bytes ?? 1834, client: {ip: `10.1.${k % 250}.${Math.floor(k / 250) % 250}`}},
      },
    },
  }
}

/** `perApp` people with distinct agents per app spread over the range, crawlers' and agentless loads among them. */
function loads(perApp: number, at: (k: number) => number): Load[] {
  const out: Load[] = []
  for (let k = 0; k < perApp; k++) {
    for (const [i, app] of APPS.entries()) {
      out.push({at: at(k), app, agent: chrome(2 * k + i), ...(k % 50 === 0 ? {status: 304, bytes: 0} : {})})
      if (k % 100 === 0) out.push({at: at(k), app, agent: CRAWLERS[(k / 100) % CRAWLERS.length] as string})
      if (k % 997 === 0) out.push({at: at(k), app})
    }
  }
  return out
}

/** People's page loads per app and bucket as the analysis's classifier tells them. */
function truth(ls: readonly Load[], bucketMs: number): Map<string, Map<number, number>> {
  const agents = new AgentClassifier()
  const out = new Map<string, Map<number, number>>()
  for (const l of ls) {
    if (agents.kind(l.agent ?? '') !== undefined) continue
    let m = out.get(l.app)
    if (!m) out.set(l.app, (m = new Map()))
    const t = Math.floor(l.at / bucketMs) * bucketMs
    m.set(t, (m.get(t) ?? 0) + 1)
  }
  return out
}

const q = new QueryBuilder('service:ingress-nginx', {assetPatterns: DEFAULT_OPTIONS.assetPatterns, shellPaths: DEFAULT_OPTIONS.shellPaths, lengthTolerance: 0})
const bucket = bucketFor(RANGE.to - RANGE.from)

/**
 * An aggregate here lists at most 600 groups (Datadog's 10,000 scaled down: 200 agents per app for
 * two apps and one more, where Datadog lists 3,333), so a few hundred people make what thousands do.
 */
const GROUPS = 600

async function withServer<T>(ls: readonly Load[], run: (ask: {client: DatadogClient; scope: object; range: typeof RANGE; bucket: typeof bucket; groupLimit?: number}, server: FakeDatadog) => Promise<T>, groupLimit: number | 'datadog' = GROUPS): Promise<T> {
  const server = await FakeDatadog.start({logs: ls.map((l, k) => item(k, l)), apiKey: API_KEY, appKey: APP_KEY})
  try {
    const client = new DatadogClient(connection(server), {timeoutMs: 10_000, retry: {maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10, maxElapsedMs: 10_000}})
    return await run({client, scope: {}, range: RANGE, bucket, ...(groupLimit === 'datadog' ? {} : {groupLimit})}, server)
  } finally {
    await server.close()
  }
}

describe('halved', () => {
  it('cuts a range at the bucket boundary nearest its middle, and not a range within one bucket', () => {
    expect(halved({from: 0, to: 10 * MINUTE}, MINUTE)).toEqual([{from: 0, to: 5 * MINUTE}, {from: 5 * MINUTE, to: 10 * MINUTE}])
    // Ends off the boundaries stay where they are; the cut is on one.
    expect(halved({from: 30_000, to: 3 * MINUTE + 1}, MINUTE)).toEqual([{from: 30_000, to: 2 * MINUTE}, {from: 2 * MINUTE, to: 3 * MINUTE + 1}])
    expect(halved({from: 30_000, to: 2 * MINUTE}, MINUTE)).toEqual([{from: 30_000, to: MINUTE}, {from: MINUTE, to: 2 * MINUTE}])
    expect(halved({from: MINUTE, to: 2 * MINUTE}, MINUTE)).toBeUndefined()
    expect(halved({from: MINUTE + 5, to: 2 * MINUTE - 5}, MINUTE)).toBeUndefined()
  })
})

describe('counting people\'s page loads on Datadog\'s side', () => {
  it('counts thousands of distinct agents per app (more than one aggregate lists) in pieces of the range, crawlers and the probe left out as the analysis leaves them', async () => {
    // 270 agents per app over two hours: one aggregate lists 200 per app (two apps and one more).
    const ls = loads(270, (k) => START + Math.floor((k * 120 * MINUTE) / 270))
    await withServer(ls, async (ask) => {
      const r = await peoplesPageLoads(ask, q.shellPageLoads(), '@proxy_upstream_name', 2)
      if ('reason' in r) throw new Error(r.reason)
      expect(r.apps).toEqual(truth(ls, bucket.ms))
      expect(r.pieces).toBeGreaterThan(1)
      expect(r.pieces).toBeLessThanOrEqual(7)
      // The census through countShells: the same counts, no refusal.
      const counted = await countShells(ask, q, ['@proxy.name', '@proxy_upstream_name'])
      if ('reason' in counted) throw new Error(counted.reason)
      expect(counted.facet).toBe('@proxy_upstream_name')
      expect(new Map([...counted.apps].map(([name, a]) => [name, a.pageLoads]))).toEqual(truth(ls, bucket.ms))
      expect(ask.client.stats.byOperation['logs-search']).toBe(0)
    })
  }, 30_000)

  it('asks once when one aggregate lists every agent: with Datadog\'s limit, 3,333 agents per app of two', async () => {
    const ls = loads(1000, (k) => START + Math.floor((k * 120 * MINUTE) / 1000))
    await withServer(ls, async (ask, server) => {
      const r = await peoplesPageLoads(ask, q.shellPageLoads(), '@proxy_upstream_name', 2)
      if ('reason' in r) throw new Error(r.reason)
      expect(r).toEqual({apps: truth(ls, bucket.ms), pieces: 1})
      expect(ask.client.stats.byOperation['logs-aggregate']).toBe(1)
      const [asked] = server.requestsTo('logs-aggregate')
      expect((asked?.body?.group_by as {facet: string; limit: number}[]).map((g) => [g.facet, g.limit])).toEqual([['@proxy_upstream_name', 3], ['@http.useragent', 3333]])
    }, 'datadog')
  }, 30_000)

  it('refuses, saying why, when one bucket of one app holds more agents than one aggregate lists, and when more apps load pages than the shells named', async () => {
    const ls = loads(210, (k) => START + 17 * MINUTE + (k % 60) * 1000)
    await withServer(ls, async (ask) => {
      expect(await peoplesPageLoads(ask, q.shellPageLoads(), '@proxy_upstream_name', 2)).toEqual({reason: 'more than 200 user agents load pages of one app in one 1m bucket'})
      // Bounded: halving a two-hour range down to one minute takes 7 cuts.
      expect(ask.client.stats.byOperation['logs-aggregate']).toBeLessThanOrEqual(2 * 7 + 1)
      expect(ask.client.stats.byOperation['logs-aggregate']).toBeLessThanOrEqual(MAX_LOAD_PIECES)
      expect(await peoplesPageLoads(ask, q.shellPageLoads(), '@proxy_upstream_name', 1)).toEqual({reason: 'more than 1 apps load pages'})
    })
  }, 30_000)
})

describe('counting deep links on Datadog\'s side (issue 27 item 3)', () => {
  it('counts plain routes answered 2xx with a shell\'s length: every agent\'s per app and length, people\'s per app in pieces of the range; dotted routes, other statuses and lengths left out', async () => {
    const at = (k: number): number => START + Math.floor((k * 120 * MINUTE) / 270)
    const shells = loads(270, at)
    // The same people (and crawlers) on deep links; a revalidated one (304) is no shell.
    const deep = loads(270, (k) => at(k) + 20_000).map((l, i) => ({...l, path: `/orders/${1000 + i}`}))
    const other: Load[] = [
      {at: START + 5 * MINUTE, app: APPS[0] as string, agent: chrome(1), path: '/sitemap.xml'},
      {at: START + 6 * MINUTE, app: APPS[0] as string, agent: chrome(2), path: '/v1.2/orders'},
      {at: START + 7 * MINUTE, app: APPS[1] as string, agent: chrome(3), path: '/orders/1', status: 404},
      {at: START + 8 * MINUTE, app: APPS[1] as string, agent: chrome(4), path: '/orders/2', bytes: 999},
    ]
    await withServer([...shells, ...deep, ...other], async (ask) => {
      const counted = await countShells(ask, q, ['@proxy_upstream_name'])
      if ('reason' in counted) throw new Error(counted.reason)
      expect(counted.lengths).toEqual([1834])
      const before = ask.client.stats.byOperation['logs-aggregate']
      const r = await countRoutes(ask, q, counted, counted.lengths)
      if ('reason' in r) throw new Error(r.reason)
      const shown = deep.filter((l) => l.status === undefined)
      expect(new Map([...r.apps].map(([name, a]) => [name, a.pageLoads]))).toEqual(truth(shown, bucket.ms))
      const every = new Map<string, Map<number, Map<number, number>>>()
      for (const l of shown) {
        const byLength = every.get(l.app) ?? new Map<number, Map<number, number>>()
        every.set(l.app, byLength)
        const m = byLength.get(1834) ?? new Map<number, number>()
        byLength.set(1834, m)
        const t = Math.floor(l.at / bucket.ms) * bucket.ms
        m.set(t, (m.get(t) ?? 0) + 1)
      }
      expect(new Map([...r.apps].map(([name, a]) => [name, a.shells]))).toEqual(every)
      // One aggregate by app and length; people's by agent in more than one piece (200 agents per app listed at most).
      expect(ask.client.stats.byOperation['logs-aggregate'] - before).toBeGreaterThan(2)
      expect(ask.client.stats.byOperation['logs-search']).toBe(0)
    })
  }, 30_000)
})
