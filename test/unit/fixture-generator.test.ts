import {existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {gunzipSync} from 'node:zlib'
import {parse} from 'csv-parse/sync'
import {
  DEFAULT_CONTEXT,
  combinedLine,
  csvCell,
  ddEvent,
  ddUnparsedEvent,
  deployEventsV2,
  explorerCsvRow,
  ingressLine,
  isAssetPath,
  nginxJsonLine,
  resolveParams,
  scenarioNames,
  scenarios,
  simulate,
  simulateIter,
  writeScenario,
} from '../../scripts/fixture-generator'
import type {SimRequest, Simulation, Truth, TruthDeploy} from '../../scripts/fixture-generator'

const FIXTURES = join(__dirname, '..', '..', 'fixtures')
const ROUND_ROBIN = ['rolling-round-robin', 'two-deploys', 'missing-404']
const ACCESS_FILES = [
  'ingress.log',
  'nginx-combined.log',
  'nginx-json.log',
  'dd-events.ndjson',
  'dd-events.ndjson.gz',
  'dd-pages.json',
  'dd-v1.json',
  'dd-unparsed.ndjson',
  'explorer.csv',
  'explorer-raw.csv',
]
const ALL_FILES = [
  ...ACCESS_FILES,
  'deploys.json',
  'deploys.csv',
  'deploy-events-v2.json',
  'kubectl-events.json',
  'truth.json',
].sort()

const sims = new Map<string, Simulation>()
function sim(name: string): Simulation {
  let s = sims.get(name)
  if (!s) {
    s = simulate(scenarios[name]?.params)
    sims.set(name, s)
  }
  return s
}

const ms = (iso: string): number => Date.parse(iso)
const bnum = (id: string): number => Number(id.slice(1))
const nonEmptyLines = (text: string): string[] => text.split('\n').filter((l) => l.length > 0)

/** Splits concatenated JSON documents (pretty-printed or not). */
function splitJsonDocuments(text: string): unknown[] {
  const docs: unknown[] = []
  let depth = 0
  let inString = false
  let escaped = false
  let begin = -1
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (escaped) escaped = false
      else if (c === '\\') escaped = true
      else if (c === '"') inString = false
      continue
    }
    if (c === '"') inString = true
    else if (c === '{' || c === '[') {
      if (depth === 0) begin = i
      depth++
    } else if (c === '}' || c === ']') {
      depth--
      if (depth === 0) docs.push(JSON.parse(text.slice(begin, i + 1)))
    }
  }
  return docs
}

const INGRESS_RE =
  /^(\S+) - (\S+) \[([^\]]+)\] "(\S+) (\S+) (HTTP\/[\d.]+)" (\d+) (\d+) "([^"]*)" "([^"]*)" (\d+) (\d+\.\d{3}) \[([^\]]*)\] \[([^\]]*)\] ((?:[\d.]+:\d+)(?:, [\d.]+:\d+)*) (\d+(?:, \d+)*) (\d+\.\d{3}(?:, \d+\.\d{3})*) (\d+(?:, \d+)*) ([0-9a-f]{32})$/

interface IngressFields {
  ip: string
  time: string
  uri: string
  status: number
  bytes: number
  referer: string
  ua: string
  upstreams: string[]
  upstreamStatuses: string[]
  requestId: string
}

function parseIngress(line: string): IngressFields {
  const m = INGRESS_RE.exec(line)
  if (!m) throw new Error(`not an ingress line: ${line}`)
  return {
    ip: m[1] as string,
    time: m[3] as string,
    uri: m[5] as string,
    status: Number(m[7]),
    bytes: Number(m[8]),
    referer: m[9] as string,
    ua: m[10] as string,
    upstreams: (m[15] as string).split(', '),
    upstreamStatuses: (m[18] as string).split(', '),
    requestId: m[19] as string,
  }
}

// ---------------------------------------------------------------------------- simulation

describe('simulate', () => {
  it('is deterministic and depends on the seed', () => {
    const params = scenarios['rolling-round-robin']?.params
    const a = simulate(params)
    const b = simulate(params)
    expect(JSON.stringify(b)).toBe(JSON.stringify(a))
    const c = simulate({...params, seed: 7})
    expect(c.requests.map((r) => r.requestId)).not.toEqual(a.requests.map((r) => r.requestId))
  })

  it('records defaults and the definition parameters in truth.params', () => {
    const {truth} = simulate({deploys: 1, seed: 3, durationSeconds: 1200})
    expect(truth.params).toEqual(resolveParams({deploys: 1, seed: 3, durationSeconds: 1200}))
    expect(truth.params.incidentGapSeconds).toBe(300)
    expect(truth.params.deployMarginSeconds).toBe(60)
    expect(truth.params.resolution).toBe('s')
  })

  it('streams the same requests and truth through simulateIter', () => {
    const params = scenarios['two-deploys']?.params
    const it = simulateIter(params)
    const ids: string[] = []
    let n = it.next()
    for (; !n.done; n = it.next()) ids.push(n.value.requestId)
    const whole = sim('two-deploys')
    expect(ids).toEqual(whole.requests.map((r) => r.requestId))
    expect(JSON.stringify(n.value)).toBe(JSON.stringify(whole.truth))
  })

  it('keeps milliseconds with resolution ms, where a format can carry them', () => {
    const {requests, truth} = simulate({seed: 5, durationSeconds: 900, firstDeployAtSeconds: 300, resolution: 'ms'})
    expect(requests.every((r) => r.time === r.exactTime)).toBe(true)
    const r = requests.find((x) => x.time % 1000 !== 0) as SimRequest
    const ctx = {...DEFAULT_CONTEXT, withMs: true}
    expect(ddEvent(r, ctx).attributes.timestamp).toBe(new Date(r.time).toISOString())
    expect((JSON.parse(nginxJsonLine(r, ctx)) as {time_iso8601: string}).time_iso8601).toMatch(/\.\d{3}\+00:00$/)
    expect(ingressLine(r)).toContain(' +0000] ')
    const byId = new Map(requests.map((x) => [x.requestId, x]))
    for (const f of truth.failures) expect(f.time).toBe(new Date(byId.get(f.requestId)?.time ?? 0).toISOString())
  })

  it.each(scenarioNames)('%s: requests are in time order, floored to the second, with unique ids', (name) => {
    const {requests, truth} = sim(name)
    expect(requests.length).toBe(truth.requestsTotal)
    requests.forEach((r, i) => {
      expect(r.seq).toBe(i)
      expect(r.time % 1000).toBe(0)
      expect(r.time).toBe(r.exactTime - (r.exactTime % 1000))
      if (i > 0) expect(r.exactTime).toBeGreaterThanOrEqual((requests[i - 1] as SimRequest).exactTime)
    })
    expect(new Set(requests.map((r) => r.requestId)).size).toBe(requests.length)
    expect(new Set(requests.map((r) => r.eventId)).size).toBe(requests.length)
    const duration = truth.params.durationSeconds * 1000
    expect(ms(truth.timeRange?.end ?? '') - ms(truth.params.start)).toBeLessThanOrEqual(duration)
    expect(ms(truth.timeRange?.end ?? '') - ms(truth.params.start)).toBeGreaterThan(duration - 5 * 60_000)
  })

  it.each(scenarioNames)('%s: browsers are unique ip+ua pairs and keep their page loads in separate seconds', (name) => {
    const {requests} = sim(name)
    const identity = new Map<number, string>()
    const owner = new Map<string, number>()
    const seconds = new Map<number, Map<number, number>>() // browser -> second -> page load
    const lastOfPage = new Map<number, number>()
    for (const r of requests.filter((x) => x.actor === 'browser')) {
      const b = r.browserId as number
      const key = `${r.clientIp}\t${r.userAgent}`
      if (!identity.has(b)) identity.set(b, key)
      expect(identity.get(b)).toBe(key)
      if (!owner.has(key)) owner.set(key, b)
      expect(owner.get(key)).toBe(b)
      const pl = r.pageLoadId as number
      expect(pl).toBeGreaterThan(0)
      const perSecond = seconds.get(b) ?? new Map<number, number>()
      seconds.set(b, perSecond)
      const other = perSecond.get(r.time)
      if (other !== undefined) expect(other).toBe(pl) // never two page loads in one second
      perSecond.set(r.time, pl)
      // Lazy loads within 25 minutes of the page's previous request.
      const prev = lastOfPage.get(pl)
      if (prev !== undefined) expect(r.time - prev).toBeLessThan(25 * 60_000)
      lastOfPage.set(pl, r.time)
      if (r.role === 'page') {
        expect(r.response).toBe('shell')
        expect(isAssetPath(r.path)).toBe(false)
      } else if (r.role === 'entry' || r.role === 'chunk') {
        expect(isAssetPath(r.path)).toBe(true)
        expect(r.referer.startsWith('https://shop.example.com/')).toBe(true)
      }
    }
    expect(owner.size).toBe(identity.size)
  })

  it.each(scenarioNames)('%s: bots only request asset-looking paths or /healthz', (name) => {
    const bots = sim(name).requests.filter((r) => r.actor !== 'browser')
    expect(bots.length).toBeGreaterThan(0)
    for (const r of bots) {
      expect(r.pageLoadId).toBeUndefined()
      if (r.actor === 'probe') expect(r.path).toBe('/healthz')
      else expect(isAssetPath(r.path)).toBe(true)
    }
    expect(bots.some((r) => r.actor === 'crawler')).toBe(true)
    expect(bots.some((r) => r.actor === 'scanner')).toBe(true)
  })

  it.each(scenarioNames)('%s: only shells (and fallbacks) carry a shell length', (name) => {
    const {requests, truth} = sim(name)
    const shells = new Set(truth.builds.map((b) => b.shellBytes))
    for (const r of requests) {
      expect(shells.has(r.bytes)).toBe(r.response === 'shell')
      if (r.response === 'asset') {
        expect(r.bytes).toBeGreaterThanOrEqual(5000)
        expect(r.bytes).toBeLessThanOrEqual(400_000)
      }
    }
  })

  it('rolls pods out one step at a time with new IPs', () => {
    const {truth} = sim('two-deploys')
    expect(truth.pods).toHaveLength(9)
    expect(new Set(truth.pods.map((p) => p.ip)).size).toBe(9)
    truth.deploys.forEach((d, i) => {
      const started = truth.pods.filter((p) => p.build === d.toBuild).map((p) => ms(p.start ?? ''))
      const stopped = truth.pods.filter((p) => p.build === d.fromBuild).map((p) => ms(p.stop ?? ''))
      const t = ms(d.start)
      expect(started).toEqual([t, t + 30_000, t + 60_000])
      expect(stopped).toEqual([t + 30_000, t + 60_000, t + 90_000])
      expect(ms(d.end)).toBe(t + 90_000)
      expect(t).toBe(ms(truth.params.start) + (600 + i * 900) * 1000)
    })
  })

  it('cookie routing keeps a browser on its pod while that pod lives', () => {
    const {requests, truth} = sim('rolling-sticky')
    const stop = new Map(truth.pods.map((p) => [`${p.ip}:8080`, p.stop === null ? Infinity : ms(p.stop)]))
    const last = new Map<number, SimRequest>()
    let moves = 0
    for (const r of requests.filter((x) => x.actor === 'browser')) {
      const prev = last.get(r.browserId as number)
      if (prev && prev.upstream !== r.upstream) {
        expect(stop.get(prev.upstream)).toBeLessThanOrEqual(r.exactTime)
        moves++
      }
      last.set(r.browserId as number, r)
    }
    expect(moves).toBeGreaterThan(0)
  })

  it('routing mode changes only the routing: sticky and round robin see the same traffic', () => {
    const rr = sim('rolling-round-robin')
    const sticky = sim('rolling-sticky')
    expect(sticky.truth.requestsTotal).toBe(rr.truth.requestsTotal)
    expect(sticky.truth.pageLoadsTotal).toBe(rr.truth.pageLoadsTotal)
    expect(sticky.requests.map((r) => `${r.clientIp} ${r.role} ${r.exactTime}`)).toEqual(
      rr.requests.map((r) => `${r.clientIp} ${r.role} ${r.exactTime}`),
    )
  })

  it('logs a few retried requests whose last upstream is the pod that answered', () => {
    const retried = scenarioNames.flatMap((n) => sim(n).requests.filter((r) => r.retriedFrom))
    expect(retried.length).toBeGreaterThanOrEqual(3)
    for (const r of retried) {
      expect(r.retriedFrom).not.toBe(r.upstream)
      const f = parseIngress(ingressLine(r))
      expect(f.upstreams).toEqual([r.retriedFrom, r.upstream])
      expect(f.upstreamStatuses).toEqual(['502', String(r.status)])
      expect(f.bytes).toBe(r.bytes)
    }
  })
})

// ---------------------------------------------------------------------------- truth

describe('truth', () => {
  it.each(scenarioNames)('%s: failures are exactly the browser asset requests that got a shell or a 404', (name) => {
    const {requests, truth} = sim(name)
    const byId = new Map(requests.map((r) => [r.requestId, r]))
    const shellOf = new Map(truth.builds.map((b) => [b.id, b.shellBytes]))
    const expected = requests.filter(
      (r) => r.actor === 'browser' && isAssetPath(r.path) && (r.response === 'shell' || r.status === 404),
    )
    expect(truth.failures.map((f) => f.requestId)).toEqual(expected.map((r) => r.requestId))
    for (const f of truth.failures) {
      const r = byId.get(f.requestId) as SimRequest
      expect(isAssetPath(r.path)).toBe(true)
      expect(r.role === 'entry' || r.role === 'chunk').toBe(true)
      expect(f.path).toBe(r.path)
      expect(f.time).toBe(new Date(r.time).toISOString())
      if (f.reason === 'fallback') {
        expect(r.status).toBe(200)
        expect(r.bytes).toBe(shellOf.get(f.servingBuild))
      } else {
        expect(r.status).toBe(404)
      }
      // Direction follows build order.
      const cmp = bnum(f.pageBuild) - bnum(f.servingBuild)
      expect(f.direction).toBe(cmp < 0 ? 'oldPageNewPod' : cmp > 0 ? 'newPageOldPod' : 'unknown')
      // The page load's shell came from the page build.
      const shell = requests.find((x) => x.pageLoadId === r.pageLoadId && x.role === 'page') as SimRequest
      expect(shell.bytes).toBe(shellOf.get(f.pageBuild))
      expect(shell.time).toBeLessThanOrEqual(r.time)
    }
    expect(truth.failedRequestsTotal).toBe(truth.failures.length)
    expect(truth.brokenPageLoadsTotal).toBe(new Set(truth.failures.map((f) => f.pageLoadId)).size)
    expect(truth.pageLoadsTotal).toBe(requests.filter((r) => r.role === 'page').length)
  })

  it.each(scenarioNames)('%s: orphans come only from bots', (name) => {
    const {requests, truth} = sim(name)
    const orphans = requests.filter(
      (r) => r.actor !== 'browser' && isAssetPath(r.path) && (r.response === 'shell' || r.status === 404),
    )
    expect(truth.orphans.requests).toBe(orphans.length)
    expect(truth.orphans.clients).toBe(new Set(orphans.map((r) => `${r.clientIp} ${r.userAgent}`)).size)
    expect(truth.orphans.requests).toBeGreaterThan(0)
    const users = new Set(truth.affectedUsers.map((u) => `${u.clientIp} ${u.userAgent}`))
    for (const r of orphans) expect(users.has(`${r.clientIp} ${r.userAgent}`)).toBe(false)
  })

  it.each(scenarioNames)('%s: incidents, users and builds follow the definitions', (name) => {
    const {requests, truth} = sim(name)
    const gap = truth.params.incidentGapSeconds * 1000
    const margin = truth.params.deployMarginSeconds * 1000
    // Builds numbered by first shell, windows consistent.
    truth.builds.forEach((b, i) => {
      expect(b.id).toBe(`B${i + 1}`)
      if (i > 0) expect(ms(b.firstSeen ?? '')).toBeGreaterThanOrEqual(ms(truth.builds[i - 1]?.firstSeen ?? ''))
    })
    // Incidents partition the failures, split exactly at gaps > incidentGap.
    let k = 0
    truth.incidents.forEach((inc, i) => {
      expect(inc.id).toBe(`I${i + 1}`)
      const fs = truth.failures.slice(k, k + inc.failedRequests)
      k += inc.failedRequests
      expect(fs.every((f) => f.incidentId === inc.id)).toBe(true)
      expect(inc.start).toBe(fs[0]?.time)
      expect(inc.end).toBe(fs[fs.length - 1]?.time)
      expect(inc.windowSeconds).toBe((ms(inc.end) - ms(inc.start)) / 1000)
      for (let j = 1; j < fs.length; j++) expect(ms(fs[j]?.time ?? '') - ms(fs[j - 1]?.time ?? '')).toBeLessThanOrEqual(gap)
      const next = truth.incidents[i + 1]
      if (next) expect(ms(next.start) - ms(inc.end)).toBeGreaterThan(gap)
      expect(inc.affectedUsers).toBe(new Set(fs.map((f) => `${f.clientIp} ${f.userAgent}`)).size)
      const broken = new Set(fs.map((f) => f.pageLoadId))
      expect(inc.affectedPageLoads).toBe(broken.size)
      const total = new Set([
        ...requests
          .filter((r) => r.role === 'page' && r.time >= ms(inc.start) && r.time <= ms(inc.end))
          .map((r) => r.pageLoadId as number),
        ...broken,
      ])
      expect(inc.pageLoads).toBe(total.size)
      expect(inc.brokenShare).toBe(Math.round((broken.size / total.size) * 10000) / 10000)
      expect(inc.byDirection.oldPageNewPod + inc.byDirection.newPageOldPod + inc.byDirection.unknown).toBe(
        inc.failedRequests,
      )
      expect(inc.byReason.fallback + inc.byReason.missing).toBe(inc.failedRequests)
      expect(inc.byReason.contentType).toBe(0)
      const deploy = truth.deploys.find((d) => d.id === inc.deployId) as TruthDeploy
      if (inc.kind === 'rollout') {
        // Rollout incidents overlap their deploy window (with margin).
        expect(ms(inc.start)).toBeLessThanOrEqual(ms(deploy.end) + margin)
        expect(ms(inc.end)).toBeGreaterThanOrEqual(ms(deploy.start) - margin)
      } else if (inc.kind === 'stale-client') {
        expect(ms(deploy.end)).toBeLessThan(ms(inc.start))
        for (const f of fs) {
          const b = truth.builds.find((x) => x.id === f.pageBuild)
          expect(ms(b?.lastSeen ?? '')).toBeLessThan(ms(inc.start))
          expect(f.direction).toBe('oldPageNewPod')
        }
      } else {
        expect(inc.deployId).toBeNull()
      }
    })
    expect(k).toBe(truth.failures.length)
    // Affected users add up.
    expect(truth.affectedUsers.reduce((s, u) => s + u.failedRequests, 0)).toBe(truth.failures.length)
    expect(truth.affectedUsers.reduce((s, u) => s + u.brokenPageLoads, 0)).toBe(truth.brokenPageLoadsTotal)
    for (const u of truth.affectedUsers) {
      const fs = truth.failures.filter((f) => f.clientIp === u.clientIp && f.userAgent === u.userAgent)
      expect(u.firstFailure).toBe(fs[0]?.time)
      expect(u.lastFailure).toBe(fs[fs.length - 1]?.time)
      expect(u.incidentIds).toEqual([...new Set(fs.map((f) => f.incidentId))])
    }
  })

  it('quiet: no deploy, no failure, no incident; only orphans', () => {
    const {truth} = sim('quiet')
    expect(truth.deploys).toEqual([])
    expect(truth.builds).toHaveLength(1)
    expect(truth.incidents).toEqual([])
    expect(truth.failures).toEqual([])
    expect(truth.affectedUsers).toEqual([])
    expect(truth.orphans.requests).toBeGreaterThan(0)
  })

  it.each(ROUND_ROBIN)('%s: each rollout breaks ≥5 page loads both ways; a stale-client incident follows', (name) => {
    const {truth} = sim(name)
    expect(truth.deploys.length).toBeGreaterThan(0)
    for (const d of truth.deploys) {
      const rollouts = truth.incidents.filter((i) => i.kind === 'rollout' && i.deployId === d.id)
      expect(rollouts).toHaveLength(1)
      const inc = rollouts[0]
      expect(inc?.affectedPageLoads).toBeGreaterThanOrEqual(5)
      expect(inc?.byDirection.oldPageNewPod).toBeGreaterThan(0)
      expect(inc?.byDirection.newPageOldPod).toBeGreaterThan(0)
    }
    const stale = truth.incidents.filter((i) => i.kind === 'stale-client')
    expect(stale.length).toBeGreaterThan(0)
    for (const s of stale) {
      const rollout = truth.incidents.find((i) => i.kind === 'rollout' && i.deployId === s.deployId)
      expect(ms(s.start) - ms(rollout?.end ?? '')).toBeGreaterThan(truth.params.incidentGapSeconds * 1000)
    }
    expect(truth.incidents.every((i) => i.kind !== 'unattributed')).toBe(true)
  })

  it('missing-404: every failure is a 404 of the small error page', () => {
    const {truth} = sim('missing-404')
    expect(truth.failures.length).toBeGreaterThan(0)
    for (const f of truth.failures) expect([f.reason, f.status, f.bytes]).toEqual(['missing', 404, 153])
  })

  it('cookie affinity breaks a smaller share of page loads than round robin', () => {
    const share = (t: Truth): number => t.brokenPageLoadsTotal / t.pageLoadsTotal
    const rr = sim('rolling-round-robin').truth
    const sticky = sim('rolling-sticky').truth
    expect(share(sticky)).toBeLessThan(share(rr))
    const rolloutBroken = (t: Truth): number =>
      t.incidents.filter((i) => i.kind === 'rollout').reduce((s, i) => s + i.affectedPageLoads, 0)
    expect(rolloutBroken(sticky)).toBeLessThan(rolloutBroken(rr))
    // In sticky mode rollout failures are forward skew only (a dead pod's clients land on new pods).
    expect(sticky.failures.filter((f) => f.direction === 'newPageOldPod')).toHaveLength(0)
  })
})

// ---------------------------------------------------------------------------- writers

describe('writers', () => {
  const base: SimRequest = {
    seq: 0,
    time: Date.parse('2026-11-29T14:10:21.000Z'),
    exactTime: Date.parse('2026-11-29T14:10:21.734Z'),
    actor: 'browser',
    role: 'entry',
    clientIp: '203.0.113.45',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
    method: 'GET',
    path: '/_build/app.3f9a1c2e.js',
    query: '',
    referer: 'https://shop.example.com/products/12',
    status: 200,
    bytes: 1851,
    contentType: 'text/html',
    response: 'shell',
    pod: 'web-ecdffbcc18-qnw8n',
    upstream: '10.1.1.153:8080',
    servingBuild: 'B',
    pageBuild: 'A',
    requestLength: 512,
    requestTimeMs: 12,
    upstreamTimeMs: 11,
    requestId: '5f0c2a9e8b7d4c1a9e3f2b1c0d9e8f7a',
    eventId: 'AQAAAZ0test',
    browserId: 1,
    pageLoadId: 1,
  }
  const retried: SimRequest = {...base, retriedFrom: '10.1.0.4:8080'}

  it('writes the ingress-nginx default upstream format', () => {
    expect(ingressLine(base)).toBe(
      '203.0.113.45 - - [29/Nov/2026:14:10:21 +0000] "GET /_build/app.3f9a1c2e.js HTTP/1.1" 200 1851 ' +
        '"https://shop.example.com/products/12" "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0" ' +
        '512 0.012 [default-web-80] [] 10.1.1.153:8080 1851 0.011 200 5f0c2a9e8b7d4c1a9e3f2b1c0d9e8f7a',
    )
    expect(ingressLine(retried)).toContain(
      '[default-web-80] [] 10.1.0.4:8080, 10.1.1.153:8080 0, 1851 0.000, 0.011 502, 200 5f0c2a9e8b7d4c1a9e3f2b1c0d9e8f7a',
    )
  })

  it('writes combined and JSON lines', () => {
    expect(combinedLine({...base, query: 'page=2', path: '/api/products', referer: '-'})).toBe(
      '203.0.113.45 - - [29/Nov/2026:14:10:21 +0000] "GET /api/products?page=2 HTTP/1.1" 200 1851 "-" ' +
        '"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"',
    )
    expect(JSON.parse(nginxJsonLine({...retried, referer: '-'}))).toEqual({
      time_iso8601: '2026-11-29T14:10:21+00:00',
      remote_addr: '203.0.113.45',
      request_method: 'GET',
      request_uri: '/_build/app.3f9a1c2e.js',
      status: 200,
      body_bytes_sent: 1851,
      http_referer: '',
      http_user_agent: base.userAgent,
      upstream_addr: '10.1.0.4:8080, 10.1.1.153:8080',
      request_id: base.requestId,
    })
  })

  it('writes Datadog events as the ingress pipeline parses them (first upstream, like the pipeline)', () => {
    const e = ddEvent({...retried, path: '/api/products', query: 'page=2'})
    expect(e.attributes.timestamp).toBe('2026-11-29T14:10:21.000Z')
    expect(e.attributes.status).toBe('ok')
    expect(e.attributes.message).toBe(ingressLine({...retried, path: '/api/products', query: 'page=2'}))
    expect(e.attributes.attributes).toEqual({
      http: {
        method: 'GET',
        url: '/api/products?page=2',
        url_details: {path: '/api/products', queryString: {page: '2'}},
        status_code: 200,
        referer: base.referer,
        useragent: base.userAgent,
        request_id: base.requestId,
        version: '1.1',
        status_category: 'OK',
      },
      network: {client: {ip: '203.0.113.45'}, bytes_written: 1851, bytes_read: 0, destination: {ip: '10.1.0.4', port: 8080}},
      proxy: {name: 'default-web-80'},
      date_access: Date.parse('2026-11-29T14:10:21.000Z'),
      duration: 12_000_000,
    })
    expect(ddEvent({...base, status: 404}).attributes.status).toBe('warn')
    const u = ddUnparsedEvent(base)
    expect(u.attributes.attributes).toBeUndefined()
    expect(u.attributes.tags).toContain('datadog.pipelines:false')
    expect(Math.floor(Date.parse(u.attributes.timestamp) / 1000) * 1000).toBe(base.time)
  })

  it('quotes CSV cells and JSON-encodes facet cells', () => {
    expect(csvCell('plain')).toBe('plain')
    expect(csvCell('a,b')).toBe('"a,b"')
    expect(csvCell('say "hi"')).toBe('"say ""hi"""')
    expect(csvCell('two\nlines')).toBe('"two\nlines"')
    expect(csvCell(42)).toBe('42')
    const [row] = parse(explorerCsvRow(base)) as string[][]
    expect(row?.slice(0, 13)).toEqual([
      '2026-11-29T14:10:21.000Z',
      '"ingress-nginx-controller-7d9f8b6c5d-x2x7q"',
      '"web"',
      '"GET"',
      '"/_build/app.3f9a1c2e.js"',
      '200',
      '1851',
      '"203.0.113.45"',
      JSON.stringify(base.userAgent),
      '"https://shop.example.com/products/12"',
      '"10.1.1.153"',
      '8080',
      `"${base.requestId}"`,
    ])
    expect(row?.[13]).toBe(ingressLine(base))
  })

  it('writes Kubernetes bundled deploy events in the agent format', () => {
    const {truth} = sim('rolling-round-robin')
    const doc = JSON.parse(deployEventsV2(truth.deploys, truth.params)) as {
      data: {attributes: {timestamp: string; message: string; tags: string[]; attributes: {title: string}}}[]
    }
    const d = truth.deploys[0] as TruthDeploy
    expect(doc.data.map((e) => e.attributes.timestamp)).toEqual([
      '2026-11-29T14:10:00Z',
      '2026-11-29T14:10:30Z',
      '2026-11-29T14:11:00Z',
      '2026-11-29T14:11:30Z',
    ])
    expect(doc.data[0]?.attributes.message).toBe(
      `%%% \n1 **ScalingReplicaSet**: Scaled up replica set ${d.toReplicaSet} to 1\n \n _Events emitted by the ` +
        'deployment-controller seen at 2026-11-29 14:10:00 +0000 UTC since 2026-11-29 14:10:00 +0000 UTC_ \n\n %%%',
    )
    expect(doc.data[1]?.attributes.message).toContain(
      `1 **ScalingReplicaSet**: Scaled down replica set ${d.fromReplicaSet} to 2\n 1 **ScalingReplicaSet**: Scaled up replica set ${d.toReplicaSet} to 2\n`,
    )
    expect(doc.data[0]?.attributes.attributes.title).toBe('Events from the Deployment default/web')
    expect(doc.data[0]?.attributes.tags).toEqual(
      expect.arrayContaining(['source:kubernetes', 'kube_deployment:web', 'kube_namespace:default']),
    )
  })
})

// ---------------------------------------------------------------------------- written files

describe('written scenarios', () => {
  let dirA: string
  let dirB: string
  const truths = new Map<string, Truth>()

  beforeAll(() => {
    dirA = mkdtempSync(join(tmpdir(), 'skewscan-fixtures-a-'))
    dirB = mkdtempSync(join(tmpdir(), 'skewscan-fixtures-b-'))
    for (const name of scenarioNames) {
      truths.set(name, writeScenario(name, join(dirA, name)))
      writeScenario(name, join(dirB, name))
    }
  })

  afterAll(() => {
    rmSync(dirA, {recursive: true, force: true})
    rmSync(dirB, {recursive: true, force: true})
  })

  const read = (name: string, file: string): string => readFileSync(join(dirA, name, file), 'utf8')

  it.each(scenarioNames)('%s: regenerates byte for byte', (name) => {
    const files = readdirSync(join(dirA, name)).sort()
    expect(files).toEqual(ALL_FILES)
    for (const f of files) {
      expect(readFileSync(join(dirB, name, f)).equals(readFileSync(join(dirA, name, f)))).toBe(true)
    }
  })

  it.each(scenarioNames)('%s: shipped fixtures are up to date with the generator', (name) => {
    const shipped = join(FIXTURES, name)
    expect(existsSync(join(shipped, 'truth.json'))).toBe(true)
    expect(readdirSync(shipped).sort()).toEqual(ALL_FILES)
    for (const f of ALL_FILES) {
      expect({file: f, same: readFileSync(join(shipped, f)).equals(readFileSync(join(dirA, name, f)))}).toEqual({
        file: f,
        same: true,
      })
    }
  })

  it.each(scenarioNames)('%s: truth.json lists every file with its format; files stay small', (name) => {
    const truth = JSON.parse(read(name, 'truth.json')) as Truth
    expect(truth.scenario).toBe(name)
    expect(truth.files?.map((f) => f.name).sort()).toEqual(ALL_FILES)
    for (const f of truth.files ?? []) {
      if (ACCESS_FILES.includes(f.name)) expect(f.records).toBe(truth.requestsTotal)
      expect(statSync(join(dirA, name, f.name)).size).toBeLessThan(1.5 * 1024 * 1024)
    }
  })

  it.each(scenarioNames)('%s: every access format holds the same requests in the stated order', (name) => {
    const truth = truths.get(name) as Truth
    const {requests} = sim(name)
    const oldest = requests.map((r) => r.requestId)
    const newest = [...oldest].reverse()
    const n = truth.requestsTotal

    const ingress = nonEmptyLines(read(name, 'ingress.log'))
    expect(ingress).toHaveLength(n)
    const parsed = ingress.map(parseIngress)
    expect(parsed.map((p) => p.requestId)).toEqual(oldest)
    parsed.forEach((p, i) => {
      const r = requests[i] as SimRequest
      expect([p.ip, p.status, p.bytes, p.ua]).toEqual([r.clientIp, r.status, r.bytes, r.userAgent])
      expect(p.upstreams[p.upstreams.length - 1]).toBe(r.upstream)
    })

    const combined = nonEmptyLines(read(name, 'nginx-combined.log'))
    expect(combined).toHaveLength(n)
    combined.forEach((line, i) => expect((ingress[i] as string).startsWith(line + ' ')).toBe(true))

    const json = nonEmptyLines(read(name, 'nginx-json.log')).map((l) => JSON.parse(l) as {request_id: string})
    expect(json.map((j) => j.request_id)).toEqual(oldest)

    const ndjson = read(name, 'dd-events.ndjson')
    const events = nonEmptyLines(ndjson).map(
      (l) => JSON.parse(l) as {id: string; attributes: {message: string; attributes: {http: {request_id: string}}}},
    )
    expect(events.map((e) => e.attributes.attributes.http.request_id)).toEqual(oldest)
    expect(events.map((e) => e.attributes.message)).toEqual(ingress)
    expect(new Set(events.map((e) => e.id)).size).toBe(n)
    expect(gunzipSync(readFileSync(join(dirA, name, 'dd-events.ndjson.gz'))).toString('utf8')).toBe(ndjson)

    const pages = splitJsonDocuments(read(name, 'dd-pages.json')) as {
      data: {attributes: {attributes: {http: {request_id: string}}}}[]
      meta?: {page?: {after?: string}}
      links?: {next?: string}
    }[]
    expect(pages[pages.length - 1]).toEqual({data: []})
    const full = pages.slice(0, -1)
    expect(full.length).toBe(Math.ceil(n / truth.params.ddPageSize))
    for (const p of full) {
      expect(p.data.length).toBeGreaterThan(0)
      expect(p.data.length).toBeLessThanOrEqual(Math.min(1000, truth.params.ddPageSize))
      expect(p.meta?.page?.after).toEqual(expect.any(String))
      expect(p.links?.next).toContain(`page%5Bcursor%5D=${p.meta?.page?.after}`)
    }
    expect(full.flatMap((p) => p.data.map((d) => d.attributes.attributes.http.request_id))).toEqual(newest)

    const v1 = JSON.parse(read(name, 'dd-v1.json')) as {
      logs: {content: {message: string}}[]
      nextLogId: null
      status: string
    }
    expect(v1.nextLogId).toBeNull()
    expect(v1.logs.map((l) => l.content.message)).toEqual([...ingress].reverse())

    const unparsed = nonEmptyLines(read(name, 'dd-unparsed.ndjson')).map(
      (l) => JSON.parse(l) as {attributes: {message: string; attributes?: unknown}},
    )
    expect(unparsed.map((u) => u.attributes.message)).toEqual(ingress)
    expect(unparsed.every((u) => u.attributes.attributes === undefined)).toBe(true)

    const csv = parse(read(name, 'explorer.csv'), {columns: true}) as Record<string, string>[]
    expect(csv).toHaveLength(n)
    expect(csv.map((row) => JSON.parse(row['@http.request_id'] as string))).toEqual(newest)
    expect(csv.map((row) => row['Content'])).toEqual([...ingress].reverse())
    expect(JSON.parse(csv[0]?.['Service'] as string)).toBe('web')
    expect(read(name, 'explorer.csv')).toContain(',"""web""",')

    const raw = parse(read(name, 'explorer-raw.csv'), {columns: true}) as Record<string, string>[]
    expect(Object.keys(raw[0] ?? {})).toEqual(['Date', 'Host', 'Service', 'Message'])
    expect(raw.map((row) => row['Message'])).toEqual([...ingress].reverse())
  })

  it.each(scenarioNames)('%s: deploy files describe the real rollout windows', (name) => {
    const truth = truths.get(name) as Truth
    const list = JSON.parse(read(name, 'deploys.json')) as unknown[]
    expect(list).toEqual(
      truth.deploys.map((d) => ({start: d.start, end: d.end, service: 'web', version: d.version, from: d.fromVersion})),
    )
    const csv = parse(read(name, 'deploys.csv'), {columns: true}) as Record<string, string>[]
    expect(csv).toEqual(list)
    const kubectl = JSON.parse(read(name, 'kubectl-events.json')) as {
      kind: string
      items: {reason: string; message: string; involvedObject: {kind: string; name: string}; firstTimestamp: string}[]
    }
    expect(kubectl.kind).toBe('List')
    expect(kubectl.items).toHaveLength(truth.deploys.length * 6)
    for (const item of kubectl.items) {
      expect(item.reason).toBe('ScalingReplicaSet')
      expect(item.involvedObject).toMatchObject({kind: 'Deployment', name: 'web'})
    }
    for (const d of truth.deploys) {
      expect(kubectl.items).toContainEqual(
        expect.objectContaining({message: `Scaled up replica set ${d.toReplicaSet} to 1`, firstTimestamp: d.start.replace('.000Z', 'Z')}),
      )
      expect(kubectl.items).toContainEqual(
        expect.objectContaining({message: `Scaled down replica set ${d.fromReplicaSet} to 0`, firstTimestamp: d.end.replace('.000Z', 'Z')}),
      )
    }
    const v2 = JSON.parse(read(name, 'deploy-events-v2.json')) as {data: unknown[]}
    expect(v2.data).toHaveLength(truth.deploys.length * 4)
  })

  it('a known failure in ingress.log carries the serving build shell length', () => {
    const truth = truths.get('rolling-round-robin') as Truth
    const lines = nonEmptyLines(read('rolling-round-robin', 'ingress.log')).map(parseIngress)
    const shell = new Map(truth.builds.map((b) => [b.id, b.shellBytes]))
    const forward = truth.failures.find((f) => f.direction === 'oldPageNewPod') as Truth['failures'][number]
    const backward = truth.failures.find((f) => f.direction === 'newPageOldPod') as Truth['failures'][number]
    for (const f of [forward, backward]) {
      const idx = lines.findIndex((l) => l.requestId === f.requestId)
      const line = lines[idx] as IngressFields
      expect([line.uri, line.status, line.bytes]).toEqual([f.path, 200, shell.get(f.servingBuild)])
      expect(line.bytes).not.toBe(shell.get(f.pageBuild))
      // The page it belongs to: the same browser's last document request before it got the page build's shell.
      const page = lines
        .slice(0, idx)
        .reverse()
        .find((l) => l.ip === f.clientIp && l.ua === f.userAgent && !isAssetPath(l.uri.split('?')[0] as string) && l.uri !== '/favicon.ico' && !l.uri.startsWith('/api/'))
      expect(page?.bytes).toBe(shell.get(f.pageBuild))
      expect(line.referer).toBe(`https://shop.example.com${page?.uri}`)
    }
    expect(shell.get('B1')).toBe(1832)
    expect(shell.get('B2')).toBe(1851)
  })
})
