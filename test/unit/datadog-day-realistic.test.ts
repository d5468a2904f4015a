/**
 * The day of issue 27 (test/helpers/datadog-day.ts with `realistic`): the captures' rollouts and
 * steady visitors, and generated around them an uptime probe, a mobile API client, crawlers and
 * scanners, with people's user agents as varied as real traffic's.
 */
import {createHash} from 'node:crypto'
import {mulberry32} from '../../scripts/fixture-generator/rng'
import {AgentClassifier} from '../../src/util/agent-kind'
import {browserAgent, CRAWLERS, isMobileAgent, SCANNER_BROWSERS} from '../helpers/browser-agents'
import {buildDay, type Day, type DayItem} from '../helpers/datadog-day'
import {ROOT} from '../helpers/cli'

interface Req {
  client: string
  agent: string
  method: string
  path: string
  status: number
  bytes: number
  host: string
  upstream: string
  addr: string
  time: number
}

const req = (i: DayItem): Req => {
  const a = i.attributes.attributes as {http: {useragent: string; method: string; status_code: number; url_details: {path: string; host: string}}; network: {client: {ip: string}; bytes_written: number}; proxy_upstream_name: string; upstream_addr: string}
  return {
    client: a.network.client.ip, agent: a.http.useragent, method: a.http.method, path: a.http.url_details.path, status: a.http.status_code, bytes: a.network.bytes_written,
    host: a.http.url_details.host, upstream: a.proxy_upstream_name, addr: a.upstream_addr, time: Date.parse(String(i.attributes.timestamp)),
  }
}

const digest = (d: Day): string => createHash('sha1').update(JSON.stringify([d.items, d.events, d.truths])).digest('hex')
const kinds = new AgentClassifier()
const CRAWLER_AGENTS = new Set(CRAWLERS.map((c) => c.agent))

describe('people\'s user agents', () => {
  it('are thousands of distinct strings in 20,000 draws, every one a person\'s to the analysis, phones when asked', () => {
    const random = mulberry32(5)
    const seen = new Set<string>()
    for (let k = 0; k < 20_000; k++) seen.add(browserAgent(random).agent)
    expect(seen.size).toBeGreaterThan(2000)
    expect([...seen].filter((a) => kinds.kind(a) !== undefined)).toEqual([])
    for (let k = 0; k < 500; k++) expect(isMobileAgent(browserAgent(random, true).agent)).toBe(true)
    // Crawlers are crawlers; the browser strings scanners borrow are a person's.
    expect(CRAWLERS.map((c) => kinds.kind(c.agent))).toEqual(CRAWLERS.map(() => 'crawler'))
    expect(SCANNER_BROWSERS.map((a) => kinds.kind(a))).toEqual(SCANNER_BROWSERS.map(() => undefined))
  })
})

describe('the realistic day', () => {
  const EVENTS = 30_000
  let day: Day
  let reqs: Req[]
  beforeAll(() => {
    day = buildDay({root: ROOT, deploys: 6, events: EVENTS, realistic: {}})
    reqs = day.items.map(req)
  })

  it('is the same for the same seed, and leaves the day without it as it was', () => {
    expect(digest(buildDay({root: ROOT, deploys: 6, events: EVENTS, realistic: {}}))).toBe(digest(day))
    const plain = buildDay({root: ROOT, deploys: 6, events: EVENTS})
    expect(plain.counts.generated).toEqual({probe: 0, mobileApi: 0, crawlers: 0, scanners: 0, crawlerVisits: 0, scannerBursts: 0})
    // The generated clients draw from their own generator: the rollouts are the same requests.
    expect(day.rollouts.map((r) => r.failures)).toEqual(plain.rollouts.map((r) => r.failures))
  })

  it('holds about the events asked for: six rollouts of two apps, crawlers about 2%, scanners about 1%, a probe and an API client', () => {
    expect(day.items.length).toBeGreaterThan(0.95 * EVENTS)
    expect(day.items.length).toBeLessThan(1.05 * EVENTS)
    expect(day.deploys.map((d) => d.app)).toEqual(['default-webapp-80', 'default-shop-80', 'default-webapp-80', 'default-shop-80', 'default-webapp-80', 'default-shop-80'])
    const g = day.counts.generated
    expect(g).toMatchObject({crawlers: 0.02 * EVENTS, scanners: 0.01 * EVENTS, mobileApi: 0.03 * EVENTS})
    expect(g.probe).toBeGreaterThan(0.004 * EVENTS)
    expect(reqs.filter((r) => CRAWLER_AGENTS.has(r.agent) && !r.client.startsWith('10.'))).toHaveLength(g.crawlers)
    expect(reqs.filter((r) => r.path === '/api/health' && r.agent.startsWith('Pingdom') && !r.client.startsWith('10.'))).toHaveLength(g.probe)
    // The captures' own crawlers and scanners (127.20/16) are left out of the steady traffic.
    const rolloutClients = new Set(day.items.filter((i, k) => day.rollouts.some((x) => (reqs[k] as Req).time >= x.span.from && (reqs[k] as Req).time <= x.span.to)).map(req).map((r) => r.client))
    expect(reqs.filter((r) => r.client.startsWith('10.') && !rolloutClients.has(r.client) && (kinds.kind(r.agent) !== undefined || r.agent.startsWith('AcmeConsole/')))).toEqual([])
  })

  it('people\'s user agents: hundreds of distinct strings even in a small day, every one a person\'s', () => {
    // Between rollouts (the rollouts replay the captures' own crawlers and scanners with people's addresses too).
    const between = (r: Req): boolean => !day.rollouts.some((x) => r.time >= x.span.from && r.time <= x.span.to)
    const people = new Set(reqs.filter((r) => r.client.startsWith('10.') && between(r)).map((r) => r.agent))
    expect(people.size).toBeGreaterThan(500)
    expect([...people].filter((a) => kinds.kind(a) !== undefined)).toEqual([])
    // One client, one agent: a session keyed by address and agent stays one.
    const byClient = new Map<string, Set<string>>()
    for (const r of reqs) if (r.client.startsWith('10.')) (byClient.get(r.client) ?? byClient.set(r.client, new Set()).get(r.client))?.add(r.agent)
    expect([...byClient.values()].filter((s) => s.size > 1)).toEqual([])
  })

  it('crawlers re-fetch asset URLs of the app\'s earlier builds, answered as that app answers a missing asset', () => {
    const shells = new Map(day.apps.map((a) => [a.upstream, new Set(a.builds.map((b) => b.shellBytes))]))
    const crawled = reqs.filter((r) => CRAWLER_AGENTS.has(r.agent) && r.path.startsWith('/_build/'))
    const stale = crawled.filter((r) => r.status === 404 || shells.get(r.upstream)?.has(r.bytes))
    expect(stale.length).toBeGreaterThan(0.2 * crawled.length)
    // rr-3's app falls back to its shell, mode-404's answers 404.
    expect(stale.filter((r) => r.upstream === 'default-webapp-80').every((r) => r.status === 200)).toBe(true)
    expect(stale.filter((r) => r.upstream === 'default-shop-80').every((r) => r.status === 404)).toBe(true)
  })

  it('scanners: bursts from new addresses, some HEAD, some with a browser\'s agent, half to the apps\' hosts answered with the shell', () => {
    const scanners = reqs.filter((r) => !r.client.startsWith('10.') && !r.client.startsWith('100.') && !CRAWLER_AGENTS.has(r.agent) && !r.agent.startsWith('Pingdom'))
    expect(scanners).toHaveLength(day.counts.generated.scanners)
    const addresses = new Set(scanners.map((r) => r.client))
    expect(addresses.size).toBe(day.counts.generated.scannerBursts)
    // A burst lasts seconds.
    for (const a of addresses) {
      const times = scanners.filter((r) => r.client === a).map((r) => r.time)
      expect(Math.max(...times) - Math.min(...times)).toBeLessThan(20_000)
    }
    expect(scanners.some((r) => r.method === 'HEAD' && r.status === 200 && r.bytes === 0 && r.addr !== '')).toBe(true)
    expect(scanners.some((r) => kinds.kind(r.agent) === undefined)).toBe(true)
    const onApps = scanners.filter((r) => r.upstream !== 'upstream-default-backend')
    expect(onApps.length).toBeGreaterThan(0.3 * scanners.length)
    expect(onApps.length).toBeLessThan(0.7 * scanners.length)
    const shells = new Map(day.apps.map((a) => [a.upstream, new Set(a.builds.map((b) => b.shellBytes))]))
    expect(onApps.filter((r) => r.method === 'GET').every((r) => r.status === 200 && shells.get(r.upstream)?.has(r.bytes))).toBe(true)
    expect(onApps.filter((r) => r.path === '/js/app.js' || r.path === '/static/js/main.js').length).toBeGreaterThan(0)
    // Asset-like junk: no path a build ever served.
    const served = new Set(reqs.filter((r) => r.client.startsWith('10.') && r.status === 200 && r.path.startsWith('/_build/')).map((r) => r.path))
    expect(scanners.filter((r) => served.has(r.path))).toEqual([])
  })

  it('without browser agents for scanners, every scanner says what it is', () => {
    const d = buildDay({root: ROOT, deploys: 6, events: EVENTS, realistic: {scannerBrowserAgents: false, variedAgents: false}})
    const rs = d.items.map(req)
    const scanners = rs.filter((r) => !r.client.startsWith('10.') && !r.client.startsWith('100.') && !CRAWLER_AGENTS.has(r.agent) && !r.agent.startsWith('Pingdom'))
    expect(scanners).toHaveLength(d.counts.generated.scanners)
    expect(scanners.filter((r) => kinds.kind(r.agent) === undefined)).toEqual([])
    // The captures' own agents: a handful.
    expect(new Set(rs.filter((r) => r.client.startsWith('10.')).map((r) => r.agent)).size).toBeLessThan(40)
    expect(d.counts.generated).toMatchObject({crawlers: day.counts.generated.crawlers, scanners: day.counts.generated.scanners})
  })
})
