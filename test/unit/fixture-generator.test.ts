import {existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {gunzipSync} from 'node:zlib'
import {parse} from 'csv-parse/sync'
import {looksHashed} from '../../src/analysis/request-kinds'
import {
  agentKind,
  assetKind,
  combinedLine,
  csvCell,
  ddEvent,
  ddUnparsedEvent,
  DEFAULT_CONTEXT,
  deployEventsV2,
  directoryOf,
  DYNAMIC_SHELL_BAND,
  explorerCsvRow,
  EXPLORER_HEADER,
  ingressLine,
  isAssetPath,
  isDocumentPath,
  isShellPath,
  isSourceMap,
  kubectlEvents,
  LAZY_GAP_MS,
  nginxJsonLine,
  resolveParams,
  SCANNERS,
  scenarioNames,
  scenarios,
  simulate,
  simulateIter,
  writeScenario,
} from '../../scripts/fixture-generator'
import type {SimRequest, Simulation, Truth, TruthDeploy, TruthFailure} from '../../scripts/fixture-generator'

const FIXTURES = join(__dirname, '..', '..', 'fixtures')
const ROUND_ROBIN = ['rolling-round-robin', 'two-deploys', 'missing-404', 'two-apps']
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
const DEPLOY_FILES = ['deploys.json', 'deploys.csv', 'deploy-events-v2.json', 'kubectl-events.json']
/** The files of a scenario: every format, but `combined` lines (which name no app) only with one app. */
const filesOf = (truth: Truth): string[] =>
  [...ACCESS_FILES, ...DEPLOY_FILES, 'truth.json'].filter((f) => f !== 'nginx-combined.log' || truth.apps.length === 1).sort()

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
const people = (r: SimRequest): boolean => agentKind(r.userAgent) === undefined
const sessionOf = (r: {clientIp: string; userAgent: string}): string => `${r.clientIp} ${r.userAgent}`
const byRequestId = (s: Simulation): Map<string, SimRequest> => new Map(s.requests.map((r) => [r.requestId, r]))
const upstreamOf = (truth: Truth, service: string): string => truth.apps.find((a) => a.service === service)?.name ?? ''
/** A response that carries a build's shell: to a document request, or as the fallback body of an asset. */
const carriesShell = (r: SimRequest): boolean => r.response === 'shell' && (isAssetPath(r.path) || isDocumentPath(r.path))

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
  upstreamName: string
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
    upstreamName: m[13] as string,
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
    expect(truth.schemaVersion).toBe(3)
    expect(truth.params).toEqual(resolveParams({deploys: 1, seed: 3, durationSeconds: 1200}))
    expect(truth.params.incidentGapSeconds).toBe(300)
    expect(truth.params.deployMarginSeconds).toBe(60)
    expect(truth.params.resolution).toBe('s')
  })

  it('gives every build one shell length by default, as real bundlers do; distinct lengths when asked', () => {
    const same = simulate({seed: 9, durationSeconds: 1500, deploys: 2, every: 540, firstDeployAtSeconds: 300}).truth
    expect(same.builds.map((b) => b.shellBytes)).toEqual([1832, 1832, 1832])
    const distinct = simulate({seed: 9, durationSeconds: 1500, deploys: 2, every: 540, firstDeployAtSeconds: 300, shellBytes: [1832, 1851]}).truth
    // a build past the list repeats the last length given
    expect(distinct.builds.map((b) => b.shellBytes)).toEqual([1832, 1851, 1851])
  })

  it('restart-scale-out: a restart rolls new pods of a new replica set serving the same build; a scale-out adds pods of the serving one at once; neither is a deploy', () => {
    const {truth} = sim('restart-scale-out')
    expect(truth.deploys.map((d) => [d.fromBuild, d.toBuild])).toEqual([['B1', 'B2']])
    const [restart, scaleOut] = truth.podChanges ?? []
    expect(restart).toMatchObject({kind: 'restart', build: 'B2', fromReplicaSet: truth.deploys[0]?.toReplicaSet, fromReplicas: 3, replicas: 3})
    expect(restart?.toReplicaSet).not.toBe(restart?.fromReplicaSet)
    expect(scaleOut).toMatchObject({kind: 'scale-out', build: 'B2', fromReplicaSet: restart?.toReplicaSet, toReplicaSet: restart?.toReplicaSet, fromReplicas: 3, replicas: 5})
    const at = (iso: string | undefined) => Date.parse(iso ?? '')
    const live = (t: number) => truth.pods.filter((p) => (p.start === null || Date.parse(p.start) <= t) && (p.stop === null || t < Date.parse(p.stop)))
    // before the restart: the deploy's 3 pods; after it 3 others, all of build B; after the scale-out 5
    const before = live(at(restart?.start) - 1)
    const after = live(at(restart?.end) + 1)
    expect(before.map((p) => p.build)).toEqual(['B', 'B', 'B'])
    expect(after.map((p) => p.build)).toEqual(['B', 'B', 'B'])
    expect(after.some((p) => before.some((q) => q.ip === p.ip || q.name === p.name))).toBe(false)
    expect(after.every((p) => p.name.startsWith(`${restart?.toReplicaSet}-`))).toBe(true)
    const scaled = live(at(scaleOut?.start))
    expect(scaled).toHaveLength(5)
    expect(scaled.every((p) => p.build === 'B' && p.name.startsWith(`${restart?.toReplicaSet}-`))).toBe(true)
    // every failure of the run belongs to the one deploy; stale tabs of the old build failed while the restart ran
    expect(truth.failures.every((f) => f.deployId === 'D1')).toBe(true)
    expect(truth.failures.some((f) => f.cause === 'stale-client' && at(f.time) >= at(restart?.start) && at(f.time) <= at(restart?.end))).toBe(true)
  })

  it('refuses a restart or scale-out that would overlap a deploy, and a scale-out that adds no pod', () => {
    expect(() => simulate({seed: 1, deploys: 1, firstDeployAtSeconds: 600, restarts: [620]})).toThrow(/after every deploy/)
    expect(() => simulate({seed: 1, deploys: 1, firstDeployAtSeconds: 600, scaleOuts: [{atSeconds: 1200, replicas: 3}]})).toThrow(/more than the 3 pods/)
    expect(() => simulate({seed: 1, deploys: 2, rollouts: [0, 1, 1]})).toThrow(/use restarts/)
  })

  it('streams the same requests and truth through simulateIter', () => {
    const params = scenarios['two-apps']?.params
    const it = simulateIter(params)
    const ids: string[] = []
    let n = it.next()
    for (; !n.done; n = it.next()) ids.push(n.value.requestId)
    const whole = sim('two-apps')
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
    expect(truth.failures.map((f) => f.time)).toEqual(truth.failures.map((f) => new Date(byId.get(f.requestId)?.time ?? 0).toISOString()))
  })

  it('rejects parameters that would make the simulation meaningless', () => {
    expect(() => simulate({dynamicShell: true, missing: 'fallback'})).toThrow(/dynamicShell needs missing: 404/)
    expect(() => simulate({otherApps: [{service: 'web', origin: 'https://x.example.com', shellBytes: [2000], firstDeployAtSeconds: 60}]})).toThrow(/service name of its own/)
    expect(() => simulate({deploys: 2, every: 60})).toThrow(/deploys overlap/)
  })

  it.each(scenarioNames)('%s: requests are in time order, floored to the second, with unique ids', (name) => {
    const {requests, truth} = sim(name)
    expect(requests.length).toBe(truth.requestsTotal)
    // Every request checked, the ones out of line listed in one expect (thousands of expect calls cost more than the checks).
    const outOfLine = requests.filter((r, i) => r.seq !== i || r.time % 1000 !== 0 || r.time !== r.exactTime - (r.exactTime % 1000) ||
      (i > 0 && r.exactTime < (requests[i - 1] as SimRequest).exactTime))
    expect(outOfLine.map((r) => ({seq: r.seq, time: r.time, exactTime: r.exactTime}))).toEqual([])
    expect(new Set(requests.map((r) => r.requestId)).size).toBe(requests.length)
    expect(new Set(requests.map((r) => r.eventId)).size).toBe(requests.length)
    const duration = truth.params.durationSeconds * 1000
    expect(ms(truth.timeRange?.end ?? '') - ms(truth.params.start)).toBeLessThanOrEqual(duration)
    expect(ms(truth.timeRange?.end ?? '') - ms(truth.params.start)).toBeGreaterThan(duration - 5 * 60_000)
  })

  it.each(scenarioNames)('%s: browsers are unique ip+ua pairs of people and keep their page loads in separate seconds', (name) => {
    const {requests, truth} = sim(name)
    const identity = new Map<number, string>()
    const owner = new Map<string, number>()
    const seconds = new Map<number, Map<number, number>>() // browser -> second -> page load
    const lastOfPage = new Map<number, number>()
    // Each broken rule named with its request, all of them in one expect (thousands of expect calls cost more than the checks).
    const broken: string[] = []
    const rule = (ok: boolean, what: string, r: SimRequest): void => {
      if (!ok) broken.push(`${what}: request ${r.seq} ${r.role} ${r.path}`)
    }
    for (const r of requests.filter((x) => x.actor === 'browser')) {
      rule(people(r), 'a person\'s agent', r)
      const b = r.browserId as number
      const key = sessionOf(r)
      if (!identity.has(b)) identity.set(b, key)
      rule(identity.get(b) === key, 'one ip+ua per browser', r)
      if (!owner.has(key)) owner.set(key, b)
      rule(owner.get(key) === b, 'one browser per ip+ua', r)
      const pl = r.pageLoadId
      if (pl === undefined) {
        // A tab whose page load came before the logs: one lazy chunk, nothing else.
        rule(r.role === 'chunk', 'a tab older than the logs asks only for a chunk', r)
        continue
      }
      const perSecond = seconds.get(b) ?? new Map<number, number>()
      seconds.set(b, perSecond)
      const other = perSecond.get(r.time)
      rule(other === undefined || other === pl, 'never two page loads in one second', r)
      perSecond.set(r.time, pl)
      // Lazy loads within 25 minutes of the page's previous request.
      const prev = lastOfPage.get(pl)
      rule(prev === undefined || r.time - prev < 25 * 60_000, 'within 25 minutes of the page\'s previous request', r)
      lastOfPage.set(pl, r.time)
      const origin = truth.params.service === r.app ? truth.params.origin : truth.params.otherApps.find((a) => a.service === r.app)?.origin
      if (r.role === 'page') {
        rule(r.response === 'shell', 'a page gets the shell', r)
        rule(!isAssetPath(r.path), 'a page is no asset path', r)
        rule(isDocumentPath(r.path), 'a page is a document path', r)
      } else if (r.role === 'entry' || r.role === 'chunk') {
        rule(isAssetPath(r.path), 'an entry or chunk is an asset path', r)
        rule(r.referer.startsWith(`${origin}/`), 'an entry or chunk names its app as referer', r)
      } else if (r.role === 'map') {
        rule(isSourceMap(r.path), 'a map is a source map', r)
        rule(r.referer === '-', 'a map has no referer', r)
      }
    }
    expect(broken).toEqual([])
    expect(owner.size).toBe(identity.size)
  })

  it.each(scenarioNames)('%s: non-browsers are crawlers, monitors, scanners and probes, asking only for their kind of path', (name) => {
    const {requests} = sim(name)
    const bots = requests.filter((r) => r.actor !== 'browser')
    expect(bots.length).toBeGreaterThan(0)
    // Each request that is not as its kind asks, with what is wrong (one comparison: an expect()
    // per request cost more than the simulation).
    const wrong = bots.map((r) => {
      const kind = agentKind(r.userAgent)
      const ok = r.pageLoadId === undefined && (
        r.actor === 'probe' ? r.path === '/healthz' && kind === 'crawler'
          : r.actor === 'monitor' ? r.path === '/' && kind === 'crawler'
            : r.actor === 'skewscan' ? kind === 'probe' && (r.role === 'page' ? r.path === '/' : isAssetPath(r.path))
              : r.actor === 'crawler' ? kind === 'crawler' && (r.role === 'bot-page' ? isDocumentPath(r.path) : isAssetPath(r.path))
                : SCANNERS.some((s) => s.ip === r.clientIp && s.paths.includes(r.path)))
      return ok ? undefined : {actor: r.actor, role: r.role, path: r.path, kind, pageLoadId: r.pageLoadId}
    }).filter((x) => x !== undefined)
    expect(wrong).toEqual([])
    expect(bots.some((r) => r.actor === 'crawler')).toBe(true)
    expect(bots.some((r) => r.actor === 'scanner' && people(r))).toBe(true) // the one with a browser's user agent
    expect(bots.some((r) => r.actor === 'scanner' && !people(r))).toBe(true)
  })

  it.each(scenarioNames)('%s: shell lengths are fingerprints: only shells carry them (or, dynamic, never the same twice)', (name) => {
    const {requests, truth} = sim(name)
    for (const app of truth.apps) {
      const mine = requests.filter((r) => r.app === app.service)
      if (app.shellLengthVaries) {
        const shells = mine.filter((r) => r.response === 'shell').map((r) => r.bytes)
        expect(new Set(shells).size).toBe(shells.length)
        const inBand = (b: number): boolean => b >= DYNAMIC_SHELL_BAND.lo && b <= DYNAMIC_SHELL_BAND.hi
        expect(mine.filter((r) => inBand(r.bytes) !== (r.response === 'shell')).map((r) => [r.response, r.bytes])).toEqual([])
        // Nothing but the homepage is a document of a person: routes would be answered with lengths never learned.
        expect(mine.filter((x) => x.role === 'page' && x.path !== '/').map((r) => r.path)).toEqual([])
        continue
      }
      const lengths = new Set(truth.builds.filter((b) => b.app === app.name).map((b) => b.shellBytes))
      expect(mine.filter((r) => lengths.has(r.bytes) !== (r.response === 'shell') || (r.response === 'asset' && r.bytes < 5000))
        .map((r) => [r.response, r.path, r.bytes])).toEqual([])
    }
  })

  it.each(scenarioNames)('%s: content hashes read as hashes; scanners\' guesses do not', (name) => {
    const {requests} = sim(name)
    expect(requests.filter((x) => x.response === 'asset' && !looksHashed(x.path)).map((x) => x.path)).toEqual([])
    expect(SCANNERS.flatMap((s) => s.paths).filter((p) => looksHashed(p))).toEqual([])
  })

  it('rolls pods out one step at a time with new IPs, per app', () => {
    const {truth} = sim('two-deploys')
    expect(truth.pods).toHaveLength(9)
    expect(new Set(truth.pods.map((p) => p.ip)).size).toBe(9)
    truth.deploys.forEach((d, i) => {
      const key = (id: string | null): string => truth.builds.find((b) => b.id === id)?.key ?? ''
      const started = truth.pods.filter((p) => p.build === key(d.toBuild)).map((p) => ms(p.start ?? ''))
      const stopped = truth.pods.filter((p) => p.build === key(d.fromBuild)).map((p) => ms(p.stop ?? ''))
      const t = ms(d.start)
      expect(started).toEqual([t, t + 30_000, t + 60_000])
      expect(stopped).toEqual([t + 30_000, t + 60_000, t + 90_000])
      expect(ms(d.end)).toBe(t + 90_000)
      expect(t).toBe(ms(truth.params.start) + (truth.params.firstDeployAtSeconds + i * truth.params.every) * 1000)
    })
    const two = sim('two-apps').truth
    expect(new Set(two.pods.map((p) => p.ip)).size).toBe(two.pods.length)
    expect(new Set(two.pods.filter((p) => p.app === 'default-docs-80').map((p) => p.ip.split('.')[1]))).toEqual(new Set(['2']))
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
    expect(sticky.truth.totals.pageLoads).toBe(rr.truth.totals.pageLoads)
    // Lazy loads of a page whose build is being retired are left out around the rollout's end, and
    // which build a page got depends on the routing: apart from route chunks, the requests are the same.
    const traffic = (s: Simulation): string[] => s.requests.filter((r) => r.role !== 'chunk').map((r) => `${r.clientIp} ${r.role} ${r.exactTime}`)
    expect(traffic(sticky)).toEqual(traffic(rr))
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

  it('two apps: each request names its app\'s upstream and host; the second deploys a minute after the first', () => {
    const {requests, truth} = sim('two-apps')
    expect(truth.apps.map((a) => [a.name, a.host])).toEqual([['default-docs-80', 'docs.example.com'], ['default-web-80', 'shop.example.com']])
    expect(requests.map((r) => [r.upstreamName, r.vhost])).toEqual(requests.map((r) => (r.app === 'web' ? ['default-web-80', 'shop.example.com'] : ['default-docs-80', 'docs.example.com'])))
    expect(truth.deploys.map((d) => [d.id, d.app])).toEqual([['D1', 'default-web-80'], ['D2', 'default-docs-80']])
    expect(ms(truth.deploys[1]?.start ?? '') - ms(truth.deploys[0]?.start ?? '')).toBe(60_000)
    expect(requests.filter((r) => r.app === 'docs' && r.response === 'asset').every((r) => r.path.startsWith('/assets/'))).toBe(true)
  })
})

// ---------------------------------------------------------------------------- boundaries

/**
 * Where a definition could go either way at a boundary, the simulation arranges that it does not
 * happen (README: "Boundaries"). These are those arrangements, checked on every shipped scenario
 * with what the simulation knows.
 */
describe('no boundary cases', () => {
  it.each(scenarioNames)('%s: a build\'s pods answer only `/` until its shell was served on `/` (every shell length is learned before it is needed)', (name) => {
    const {requests} = sim(name)
    const shown = new Set<string>()
    for (const r of requests) {
      const key = `${r.app}/${r.servingBuild}`
      if (r.response === 'shell' && isShellPath(r.path)) shown.add(key)
      else if (!shown.has(key)) expect({request: r.requestId, path: r.path, shown: false}).toEqual({request: r.requestId, path: r.path, shown: true})
    }
  })

  it.each(scenarioNames)('%s: a page\'s requests come within a second of the one before or more than 4 s after it: the phase reads the same in every timestamp', (name) => {
    const {requests} = sim(name)
    const last = new Map<number, number>()
    for (const r of requests) {
      if (r.pageLoadId === undefined || r.role === 'map' || !(r.role === 'page' || isAssetPath(r.path))) continue
      const prev = last.get(r.pageLoadId)
      if (prev !== undefined) {
        const gap = r.exactTime - prev
        expect(gap < 1000 || gap > LAZY_GAP_MS + 1000).toBe(true)
      }
      last.set(r.pageLoadId, Math.max(prev ?? 0, r.exactTime))
    }
  })

  it.each(scenarioNames)('%s: no page load starts in the last second of a rollout, and no page of the old build lazy-loads around its end', (name) => {
    const {requests, truth} = sim(name)
    for (const d of truth.deploys) {
      const end = ms(d.end)
      const step = truth.params.step * 1000
      const fromKey = truth.builds.find((b) => b.id === d.fromBuild && b.app === d.app)?.key
      const mine = requests.filter((r) => upstreamOf(truth, r.app) === d.app)
      expect(mine.filter((r) => r.role === 'page' && r.exactTime >= end - 1000 && r.exactTime < end)).toEqual([])
      if (fromKey === undefined) continue
      const pageStart = new Map(mine.filter((r) => r.role === 'page' && r.pageLoadId !== undefined).map((r) => [r.pageLoadId, r.exactTime]))
      const lazy = mine.filter((r) => r.role === 'chunk' && r.pageBuild === fromKey && r.exactTime - (pageStart.get(r.pageLoadId) ?? -Infinity) > 1000)
      expect(lazy.filter((r) => r.exactTime >= end - step - 15_000 && r.exactTime <= end + 300_000)).toEqual([])
    }
  })

  it.each(scenarioNames)('%s: while a failure is a rollout race the logs keep showing both builds; a stale tab fails long after its build\'s last response', (name) => {
    const s = sim(name)
    const {requests, truth} = s
    const byId = byRequestId(s)
    const shells = (app: string, build: string): number[] => requests.filter((r) => r.app === app && r.servingBuild === build && carriesShell(r)).map((r) => r.time)
    const lastResponse = (app: string, build: string): number => Math.max(...requests.filter((r) => r.app === app && r.servingBuild === build).map((r) => r.time))
    for (const f of truth.failures) {
      const r = byId.get(f.requestId) as SimRequest
      const t = r.time
      const page = shells(r.app, f.pageBuildKey)
      const serving = shells(r.app, f.servingBuildKey)
      // The serving build was shown on `/` before; the logs show it answering within a second of the failure.
      expect(serving.some((x) => x <= t)).toBe(true)
      expect(serving.some((x) => x >= t - 1000)).toBe(true)
      if (f.cause === 'rollout') {
        // The page's build still answers, in the logs too, within a second of the failure or later.
        expect(page.some((x) => x >= t - 1000)).toBe(true)
      } else if (f.cause === 'stale-client') {
        expect(t - lastResponse(r.app, f.pageBuildKey)).toBeGreaterThan(truth.params.incidentGapSeconds * 1000)
        expect(t - Math.max(...page)).toBeGreaterThan(truth.params.incidentGapSeconds * 1000)
      }
    }
  })

  it.each(scenarioNames)('%s: the last pod of every build had served `/` before its last response (logs that name pods know it)', (name) => {
    const {requests, truth} = sim(name)
    for (const b of truth.builds) {
      const mine = requests.filter((r) => upstreamOf(truth, r.app) === b.app && r.servingBuild === b.key)
      const last = mine[mine.length - 1] as SimRequest
      expect(mine.some((r) => r.upstream === last.upstream && r.response === 'shell' && isShellPath(r.path) && r.time <= last.time)).toBe(true)
      expect(last.time).toBe(ms(b.lastServed))
    }
  })
})

// ---------------------------------------------------------------------------- truth

describe('truth', () => {
  it.each(scenarioNames)('%s: failures are exactly the people\'s asset requests of a page that got a shell or a 404 (source maps apart)', (name) => {
    const s = sim(name)
    const {requests, truth} = s
    const byId = byRequestId(s)
    const expected = requests.filter(
      (r) => people(r) && r.pageLoadId !== undefined && isAssetPath(r.path) && !isSourceMap(r.path) && (r.response === 'shell' || r.status === 404),
    )
    expect(truth.failures.map((f) => f.requestId)).toEqual(expected.map((r) => r.requestId))
    const shellOf = new Map(truth.builds.map((b) => [`${b.app} ${b.id}`, b.shellBytes]))
    for (const f of truth.failures) {
      const r = byId.get(f.requestId) as SimRequest
      expect(r.role === 'entry' || r.role === 'chunk').toBe(true)
      expect([f.path, f.time, f.app, f.session, f.asset]).toEqual([r.path, new Date(r.time).toISOString(), upstreamOf(truth, r.app), sessionOf(r), assetKind(r.path)])
      if (f.reason === 'fallback') expect([r.status, r.bytes]).toEqual([200, shellOf.get(`${f.app} ${f.servingBuild}`)])
      else expect(r.status).toBe(404)
      // Direction is the deploy's: its old build's page on its new build's pod is forward (a
      // rollback's new build was built first); without a deploy it follows build order.
      const plan = truth.deploys.find((d) => d.id === f.deployId)
      if (f.pageBuild === null || f.servingBuild === null) expect(f.direction).toBe('unknown')
      else if (plan && plan.fromBuild === f.pageBuild && plan.toBuild === f.servingBuild) expect(f.direction).toBe('oldPageNewPod')
      else if (plan && plan.toBuild === f.pageBuild && plan.fromBuild === f.servingBuild) expect(f.direction).toBe('newPageOldPod')
      else {
        const cmp = bnum(f.pageBuild) - bnum(f.servingBuild)
        expect(f.direction).toBe(cmp < 0 ? 'oldPageNewPod' : cmp > 0 ? 'newPageOldPod' : 'unknown')
      }
      // The page load's shell came from the page build.
      const shell = requests.find((x) => x.pageLoadId === r.pageLoadId && x.role === 'page') as SimRequest
      expect([shell.servingBuild, new Date(shell.time).toISOString()]).toEqual([f.pageBuildKey, f.pageLoadTime])
      expect(shell.time).toBeLessThanOrEqual(r.time)
      // Phase: more than the lazy gap after the page's previous request (the shell or an asset) at some point.
      const before = requests.filter((x) => x.pageLoadId === r.pageLoadId && x.seq <= r.seq && x.role !== 'map' && (x.role === 'page' || isAssetPath(x.path)))
      const lazy = before.some((x, i) => i > 0 && x.time - (before[i - 1] as SimRequest).time > LAZY_GAP_MS)
      expect(f.phase).toBe(lazy ? 'lazy' : 'initial')
    }
    expect(truth.totals.failedRequests).toBe(truth.failures.length)
    expect(truth.totals.pageLoads).toBe(requests.filter((r) => r.role === 'page' && r.actor === 'browser').length)
  })

  it.each(scenarioNames)('%s: causes come from the live pods: the race while both builds had pods, a stale tab after its build\'s last pod', (name) => {
    const s = sim(name)
    const {truth} = s
    const byId = byRequestId(s)
    for (const f of truth.failures) {
      const r = byId.get(f.requestId) as SimRequest
      const live = truth.pods.filter((p) => p.app === f.app && (p.start === null || ms(p.start) <= r.exactTime) && (p.stop === null || r.exactTime < ms(p.stop)))
      const pageLive = live.some((p) => p.build === f.pageBuildKey)
      expect(f.cause).toBe(pageLive && live.some((p) => p.build !== f.pageBuildKey) ? 'rollout' : !pageLive ? 'stale-client' : 'unattributed')
      const d = truth.deploys.find((x) => x.id === f.deployId) as TruthDeploy
      const key = (id: string | null): string | undefined => truth.builds.find((b) => b.id === id && b.app === d.app)?.key
      expect(d.app).toBe(f.app)
      if (f.cause === 'rollout' && d.fromBuild !== null) {
        expect([key(d.fromBuild), key(d.toBuild)].sort()).toEqual([f.pageBuildKey, f.servingBuildKey].sort())
        expect(r.exactTime).toBeGreaterThanOrEqual(ms(d.start))
        expect(r.exactTime).toBeLessThan(ms(d.end))
      } else if (f.cause === 'stale-client') {
        expect(key(d.fromBuild)).toBe(f.pageBuildKey)
        expect(r.exactTime).toBeGreaterThan(ms(d.end))
        expect(f.direction).toBe('oldPageNewPod')
      }
    }
  })

  it.each(scenarioNames)('%s: not people: crawlers and bots by isbot, skewscan\'s probe, scanners by path, source maps; tabs older than the logs are orphans', (name) => {
    const {requests, truth} = sim(name)
    const failed = (r: SimRequest): boolean => isAssetPath(r.path) && (r.response === 'shell' || r.status === 404)
    for (const kind of ['crawler', 'probe'] as const) {
      const mine = requests.filter((r) => agentKind(r.userAgent) === kind)
      const counts = {
        requests: mine.length,
        clients: truth.apps.reduce((n, a) => n + new Set(mine.filter((r) => r.app === a.service).map(sessionOf)).size, 0),
        failedRequests: mine.filter((r) => failed(r) && !isSourceMap(r.path)).length,
      }
      expect(truth.nonUser[kind === 'crawler' ? 'crawlers' : 'probe']).toEqual(counts)
    }
    expect(truth.nonUser.sourceMaps.failedRequests).toBe(requests.filter((r) => failed(r) && isSourceMap(r.path)).length)
    const noPage = requests.filter((r) => people(r) && r.pageLoadId === undefined && failed(r) && !isSourceMap(r.path))
    const scanners = noPage.filter((r) => r.actor === 'scanner')
    const tabs = noPage.filter((r) => r.actor === 'browser')
    expect(truth.nonUser.scanners).toEqual({requests: scanners.length, clients: new Set(scanners.map(sessionOf)).size, failedRequests: scanners.length})
    expect(truth.orphans).toEqual({requests: tabs.length, clients: new Set(tabs.map(sessionOf)).size})
    expect(tabs.length).toBe(truth.deploys.length > 0 ? truth.params.preexistingTabs : 0)
    // Every asset path of a person's failure was served as real content, or is a content-hashed file beside served ones.
    const appOf = new Map(requests.map((r) => [r.requestId, r.app]))
    const servedDirs = new Set(requests.filter((r) => r.response === 'asset').map((r) => `${r.app} ${directoryOf(r.path)}`))
    expect(truth.failures.filter((f) => !servedDirs.has(`${appOf.get(f.requestId)} ${directoryOf(f.path)}`)).map((f) => f.path)).toEqual([])
    const users = new Set(truth.affectedUsers.map((u) => u.session))
    expect([...scanners, ...tabs, ...requests.filter((x) => !people(x))].filter((r) => users.has(sessionOf(r))).map(sessionOf)).toEqual([])
  })

  it.each(scenarioNames)('%s: incidents, deploys, users, builds and apps follow the definitions', (name) => {
    const {requests, truth} = sim(name)
    const gap = truth.params.incidentGapSeconds * 1000
    const margin = truth.params.deployMarginSeconds * 1000
    const pageLoads = requests.filter((r) => r.role === 'page' && r.actor === 'browser')
    const rank = (f: TruthFailure): number => (f.asset === 'script' ? (f.phase === 'initial' ? 0 : 1) : f.asset === 'stylesheet' ? 2 : 3)
    const outcomes = (fs: TruthFailure[]) => {
      const worst = new Map<number, number>()
      for (const f of fs) worst.set(f.pageLoadId, Math.min(worst.get(f.pageLoadId) ?? 9, rank(f)))
      const out = {crashed: 0, lazyChunkFailed: 0, unstyled: 0, degraded: 0}
      const names = ['crashed', 'lazyChunkFailed', 'unstyled', 'degraded'] as const
      for (const r of worst.values()) out[names[r] as (typeof names)[number]]++
      return out
    }
    const within = (app: string, from: number, to: number, fs: TruthFailure[]): number => {
      const inside = new Set(pageLoads.filter((r) => upstreamOf(truth, r.app) === app && r.time >= from && r.time <= to).map((r) => r.pageLoadId))
      for (const f of fs) inside.add(f.pageLoadId)
      return inside.size
    }
    // Builds: per app, B1… by their first shell on `/`.
    for (const app of truth.apps) {
      const builds = truth.builds.filter((b) => b.app === app.name)
      expect(builds.length).toBe(app.builds)
      builds.forEach((b, i) => {
        expect(b.id).toBe(`B${i + 1}`)
        const firstOnShellPath = (key: string): number => requests.find((r) => r.app === app.service && r.servingBuild === key && r.response === 'shell' && isShellPath(r.path))?.time ?? 0
        if (i > 0) expect(firstOnShellPath(b.key)).toBeGreaterThanOrEqual(firstOnShellPath(builds[i - 1]?.key ?? ''))
        const docs = requests.filter((r) => r.app === app.service && r.servingBuild === b.key && r.response === 'shell' && isDocumentPath(r.path) && !isAssetPath(r.path))
        expect([b.firstSeen, b.lastSeen, b.shellRequests, b.pods]).toEqual([
          new Date((docs[0] as SimRequest).time).toISOString(), new Date((docs[docs.length - 1] as SimRequest).time).toISOString(), docs.length, new Set(docs.map((r) => r.upstream)).size,
        ])
      })
    }
    // Incidents partition the failures by app, deploy and cause, split at gaps > incidentGap, numbered by start.
    let covered = 0
    truth.incidents.forEach((inc, i) => {
      expect(inc.id).toBe(`I${i + 1}`)
      if (i > 0) expect(ms(inc.start)).toBeGreaterThanOrEqual(ms(truth.incidents[i - 1]?.start ?? ''))
      const fs = truth.failures.filter((f) => f.incidentId === inc.id)
      covered += fs.length
      expect(fs.every((f) => f.app === inc.app && f.cause === inc.cause && f.deployId === inc.deployId)).toBe(true)
      expect([inc.start, inc.end, inc.windowSeconds]).toEqual([fs[0]?.time, fs[fs.length - 1]?.time, (ms(inc.end) - ms(inc.start)) / 1000])
      for (let j = 1; j < fs.length; j++) expect(ms(fs[j]?.time ?? '') - ms(fs[j - 1]?.time ?? '')).toBeLessThanOrEqual(gap)
      const next = truth.incidents.slice(i + 1).find((x) => x.app === inc.app && x.cause === inc.cause && x.deployId === inc.deployId)
      if (next) expect(ms(next.start) - ms(inc.end)).toBeGreaterThan(gap)
      expect(inc.affectedUsers).toBe(new Set(fs.map((f) => f.session)).size)
      expect(inc.affectedPageLoads).toBe(new Set(fs.map((f) => f.pageLoadId)).size)
      expect(inc.byOutcome).toEqual(outcomes(fs))
      expect(inc.brokenPageLoads).toBe(inc.byOutcome.crashed)
      expect(inc.pageLoads).toBe(within(inc.app, ms(inc.start), ms(inc.end), fs))
      expect(inc.brokenShare).toBe(Math.round((inc.brokenPageLoads / inc.pageLoads) * 10000) / 10000)
      expect(inc.byDirection.oldPageNewPod + inc.byDirection.newPageOldPod + inc.byDirection.unknown).toBe(inc.failedRequests)
      expect(inc.byReason).toEqual({fallback: fs.filter((f) => f.reason === 'fallback').length, missing: fs.filter((f) => f.reason === 'missing').length, contentType: 0})
      expect(inc.failedRequests).toBe(fs.length)
    })
    expect(covered).toBe(truth.failures.length)
    // Deploys: numbered by start over all apps; the rollout window spans their race failures.
    truth.deploys.forEach((d, i) => {
      expect(d.id).toBe(`D${i + 1}`)
      const fs = truth.failures.filter((f) => f.deployId === d.id)
      expect(d.incidentIds).toEqual([...new Set(fs.map((f) => f.incidentId))].sort((a, b) => bnum(a) - bnum(b)))
      expect([d.failedRequests, d.affectedUsers, d.affectedPageLoads]).toEqual([fs.length, new Set(fs.map((f) => f.session)).size, new Set(fs.map((f) => f.pageLoadId)).size])
      expect(d.byOutcome).toEqual(outcomes(fs))
      expect(d.pageLoads).toBe(within(d.app, ms(d.start) - margin, ms(d.end) + margin, fs))
      const race = fs.filter((f) => f.cause === 'rollout').map((f) => ms(f.time))
      expect(d.rolloutWindow).toEqual(race.length === 0 ? null : {
        start: new Date(Math.min(...race)).toISOString(), end: new Date(Math.max(...race)).toISOString(), seconds: (Math.max(...race) - Math.min(...race)) / 1000,
      })
    })
    // Users and totals add up.
    expect(truth.affectedUsers.reduce((n, u) => n + u.failedRequests, 0)).toBe(truth.failures.length)
    expect(truth.affectedUsers.reduce((n, u) => n + u.brokenPageLoads, 0)).toBe(truth.totals.brokenPageLoads)
    for (const u of truth.affectedUsers) {
      const fs = truth.failures.filter((f) => f.app === u.app && f.session === u.session)
      expect([u.firstFailure, u.lastFailure, u.affectedPageLoads, u.brokenPageLoads]).toEqual([fs[0]?.time, fs[fs.length - 1]?.time, new Set(fs.map((f) => f.pageLoadId)).size, outcomes(fs).crashed])
      expect(u.incidentIds).toEqual([...new Set(fs.map((f) => f.incidentId))].sort((a, b) => bnum(a) - bnum(b)))
    }
    expect(truth.totals.byOutcome).toEqual(outcomes(truth.failures))
    expect(truth.totals.affectedUsers).toBe(truth.affectedUsers.length)
    expect(truth.apps.reduce((n, a) => n + a.requests, 0)).toBe(requests.length)
  })

  it('quiet: no deploy, no failure, no incident; only crawlers, scanners and source maps', () => {
    const {truth} = sim('quiet')
    expect(truth.deploys).toEqual([])
    expect(truth.builds).toHaveLength(1)
    expect(truth.incidents).toEqual([])
    expect(truth.failures).toEqual([])
    expect(truth.affectedUsers).toEqual([])
    expect(truth.nonUser.crawlers.failedRequests).toBeGreaterThan(0)
    expect(truth.nonUser.scanners.requests).toBeGreaterThan(0)
  })

  it.each(ROUND_ROBIN)('%s: each rollout breaks ≥5 page loads both ways; a stale-client incident follows', (name) => {
    const {truth} = sim(name)
    expect(truth.deploys.length).toBeGreaterThan(0)
    for (const d of truth.deploys) {
      const rollouts = truth.incidents.filter((i) => i.cause === 'rollout' && i.deployId === d.id)
      expect(rollouts).toHaveLength(1)
      const inc = rollouts[0]
      expect(inc?.affectedPageLoads).toBeGreaterThanOrEqual(5)
      expect(inc?.byDirection.oldPageNewPod).toBeGreaterThan(0)
      expect(inc?.byDirection.newPageOldPod).toBeGreaterThan(0)
    }
    expect(truth.incidents.some((i) => i.cause === 'stale-client')).toBe(true)
    expect(truth.incidents.every((i) => i.cause !== 'unattributed')).toBe(true)
  })

  it('every page-load outcome, crawler, probe, scanner and source-map count occurs in some scenario', () => {
    const all = scenarioNames.map((n) => sim(n).truth)
    for (const o of ['crashed', 'lazyChunkFailed', 'unstyled', 'degraded'] as const) expect(all.some((t) => t.totals.byOutcome[o] > 0)).toBe(true)
    for (const k of ['crawlers', 'probe', 'scanners'] as const) expect(all.some((t) => t.nonUser[k].failedRequests > 0)).toBe(true)
    expect(all.some((t) => t.nonUser.sourceMaps.failedRequests > 0)).toBe(true)
    expect(all.some((t) => t.orphans.requests > 0)).toBe(true)
  })

  it.each(['missing-404', 'dynamic-homepage'])('%s: every failure is a 404 of the small error page', (name) => {
    const {truth} = sim(name)
    expect(truth.failures.length).toBeGreaterThan(0)
    for (const f of truth.failures) expect([f.reason, f.status, f.bytes]).toEqual(['missing', 404, 153])
  })

  it('dynamic-homepage: no length fingerprint, but builds known by what they serve, so directions too; the rollout is one incident of its deploy', () => {
    const {truth} = sim('dynamic-homepage')
    expect(truth.apps).toEqual([expect.objectContaining({shellLengthVaries: true, builds: 2, deploys: 1})])
    expect(truth.builds.map((b) => b.id)).toEqual(['B1', 'B2'])
    expect(truth.deploys.map((d) => [d.fromBuild, d.toBuild])).toEqual([['B1', 'B2']])
    expect(truth.failures.every((f) => f.direction !== 'unknown' && f.cause === 'rollout' && f.pageBuild !== null)).toBe(true)
    expect(truth.incidents.map((i) => [i.cause, i.deployId])).toEqual([['rollout', 'D1']])
  })

  it('two-apps: each app has its own builds, deploy and incidents', () => {
    const {truth} = sim('two-apps')
    expect(truth.builds.map((b) => [b.app, b.id, b.shellBytes])).toEqual([
      // one shell length for every build of an app unless a scenario gives more, as real bundlers make them
      ['default-docs-80', 'B1', 2290], ['default-docs-80', 'B2', 2290], ['default-web-80', 'B1', 1832], ['default-web-80', 'B2', 1832],
    ])
    for (const d of truth.deploys) {
      const mine = truth.incidents.filter((i) => i.deployId === d.id)
      expect(mine.length).toBeGreaterThan(0)
      expect(mine.every((i) => i.app === d.app)).toBe(true)
    }
  })

  it('cookie affinity breaks a smaller share of page loads than round robin', () => {
    const share = (t: Truth): number => t.totals.affectedPageLoads / t.totals.pageLoads
    const rr = sim('rolling-round-robin').truth
    const sticky = sim('rolling-sticky').truth
    expect(share(sticky)).toBeLessThan(share(rr))
    const rolloutBroken = (t: Truth): number => t.incidents.filter((i) => i.cause === 'rollout').reduce((s, i) => s + i.affectedPageLoads, 0)
    expect(rolloutBroken(sticky)).toBeGreaterThan(0)
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
    app: 'web',
    upstreamName: 'default-web-80',
    vhost: 'shop.example.com',
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

  it('writes the ingress-nginx default upstream format, with the app\'s upstream name', () => {
    expect(ingressLine(base)).toBe(
      '203.0.113.45 - - [29/Nov/2026:14:10:21 +0000] "GET /_build/app.3f9a1c2e.js HTTP/1.1" 200 1851 ' +
        '"https://shop.example.com/products/12" "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0" ' +
        '512 0.012 [default-web-80] [] 10.1.1.153:8080 1851 0.011 200 5f0c2a9e8b7d4c1a9e3f2b1c0d9e8f7a',
    )
    expect(ingressLine(retried)).toContain(
      '[default-web-80] [] 10.1.0.4:8080, 10.1.1.153:8080 0, 1851 0.000, 0.011 502, 200 5f0c2a9e8b7d4c1a9e3f2b1c0d9e8f7a',
    )
    expect(ingressLine({...base, upstreamName: 'default-docs-80'})).toContain(' [default-docs-80] [] ')
  })

  it('writes combined and JSON lines (the JSON one with the Host and the upstream name)', () => {
    expect(combinedLine({...base, query: 'page=2', path: '/api/products', referer: '-'})).toBe(
      '203.0.113.45 - - [29/Nov/2026:14:10:21 +0000] "GET /api/products?page=2 HTTP/1.1" 200 1851 "-" ' +
        '"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"',
    )
    expect(JSON.parse(nginxJsonLine({...retried, referer: '-'}))).toEqual({
      time_iso8601: '2026-11-29T14:10:21+00:00',
      remote_addr: '203.0.113.45',
      host: 'shop.example.com',
      request_method: 'GET',
      request_uri: '/_build/app.3f9a1c2e.js',
      status: 200,
      body_bytes_sent: 1851,
      http_referer: '',
      http_user_agent: base.userAgent,
      upstream_addr: '10.1.0.4:8080, 10.1.1.153:8080',
      proxy_upstream_name: 'default-web-80',
      request_id: base.requestId,
    })
  })

  it('writes Datadog events as the ingress pipeline parses them: the controller\'s service, the app in proxy.name and the host', () => {
    const e = ddEvent({...retried, path: '/api/products', query: 'page=2'})
    expect(e.attributes.timestamp).toBe('2026-11-29T14:10:21.000Z')
    expect(e.attributes.status).toBe('ok')
    expect(e.attributes.service).toBe('ingress-nginx')
    expect(e.attributes.tags).toEqual(['source:nginx-ingress-controller', 'env:prod', 'kube_namespace:ingress-nginx', 'kube_deployment:ingress-nginx-controller'])
    expect(e.attributes.message).toBe(ingressLine({...retried, path: '/api/products', query: 'page=2'}))
    expect(e.attributes.attributes).toEqual({
      http: {
        method: 'GET',
        url: '/api/products?page=2',
        url_details: {host: 'shop.example.com', path: '/api/products', queryString: {page: '2'}},
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
    expect(u.attributes.service).toBe('ingress-nginx')
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
    expect(EXPLORER_HEADER.slice(12)).toEqual(['@http.request_id', '@http.url_details.host', '@proxy.name', 'Content'])
    expect(row?.slice(0, 15)).toEqual([
      '2026-11-29T14:10:21.000Z',
      '"ingress-nginx-controller-7d9f8b6c5d-x2x7q"',
      '"ingress-nginx"',
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
      '"shop.example.com"',
      '"default-web-80"',
    ])
    expect(row?.[15]).toBe(ingressLine(base))
  })

  it('writes deploy events as a rollout produces them: a started and a finished marker, and each ScalingReplicaSet event', () => {
    const {truth} = sim('rolling-round-robin')
    interface V2 {
      id: string
      attributes: {timestamp: string; message: string; tags: string[]; attributes: {title: string; timestamp: number; aggregation_key?: string; source_type_name: string}}
    }
    const doc = JSON.parse(deployEventsV2(truth.deploys, truth.params)) as {data: V2[]; meta: {status: string}}
    const d = truth.deploys[0] as TruthDeploy
    const [start, ...rest] = doc.data
    const finish = rest.pop() as V2
    expect(start?.attributes.attributes).toMatchObject({title: `Deploy web ${d.version} started`, timestamp: ms(d.start), source_type_name: 'deployment'})
    expect(finish.attributes.attributes).toMatchObject({title: `Deploy web ${d.version} finished`, timestamp: ms(d.end), source_type_name: 'deployment'})
    expect(start?.attributes.attributes.aggregation_key).toBe(finish.attributes.attributes.aggregation_key)
    for (const m of [start as V2, finish]) {
      expect(m.attributes.tags).toEqual(expect.arrayContaining(['service:web', 'kube_deployment:web', 'kube_namespace:default', `version:${d.version}`, 'source:deployment']))
    }
    expect(start?.attributes.message).toMatch(new RegExp(`^Rolling out web ${d.version} \\([0-9a-f]{7}\\) replacing ${d.fromVersion} \\([0-9a-f]{7}\\)$`))
    expect(rest.map((e) => e.attributes.message.split('\n')[1])).toEqual([
      `1 **ScalingReplicaSet**: Scaled up replica set ${d.toReplicaSet} to 1`,
      `1 **ScalingReplicaSet**: Scaled down replica set ${d.fromReplicaSet} to 2`,
      `1 **ScalingReplicaSet**: Scaled up replica set ${d.toReplicaSet} to 2`,
      `1 **ScalingReplicaSet**: Scaled down replica set ${d.fromReplicaSet} to 1`,
      `1 **ScalingReplicaSet**: Scaled up replica set ${d.toReplicaSet} to 3`,
      `1 **ScalingReplicaSet**: Scaled down replica set ${d.fromReplicaSet} to 0`,
    ])
    for (const e of rest) {
      expect(e.attributes.message).toBe(
        `%%% \n${e.attributes.message.split('\n')[1]}\n\n _New events emitted by the deployment-controller seen at ${e.attributes.timestamp}_ \n\n %%%`,
      )
      expect(e.attributes.attributes).toMatchObject({title: 'Events from the Deployment default/web', source_type_name: 'kubernetes'})
      expect(e.attributes.attributes.aggregation_key).toBeUndefined()
      expect(e.attributes.tags).toEqual(expect.arrayContaining(['source:kubernetes', 'event_reason:ScalingReplicaSet', 'service:web', 'kube_deployment:web']))
      expect(new Date(e.attributes.attributes.timestamp).toISOString()).toBe(e.attributes.timestamp)
    }
    expect(rest[0]?.attributes.attributes.timestamp).toBe(ms(d.start))
    expect(rest[rest.length - 1]?.attributes.attributes.timestamp).toBe(ms(d.end))
    expect(new Set(doc.data.map((e) => e.id)).size).toBe(doc.data.length)
    expect(doc.meta.status).toBe('done')
  })

  it('writes kubectl events of every Deployment, oldest first', () => {
    const {truth} = sim('two-apps')
    const doc = JSON.parse(kubectlEvents(truth.deploys, truth.params)) as {items: {involvedObject: {name: string}; firstTimestamp: string; metadata: {resourceVersion: string}}[]}
    expect(new Set(doc.items.map((i) => i.involvedObject.name))).toEqual(new Set(['web', 'docs']))
    const times = doc.items.map((i) => ms(i.firstTimestamp))
    expect(times).toEqual([...times].sort((a, b) => a - b))
    const versions = doc.items.map((i) => Number(i.metadata.resourceVersion))
    expect(versions).toEqual([...versions].sort((a, b) => a - b))
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

  it('ships every scenario', () => {
    expect([...scenarioNames].sort()).toEqual(['dynamic-homepage', 'missing-404', 'quiet', 'restart-scale-out', 'rollback', 'rolling-round-robin', 'rolling-sticky', 'two-apps', 'two-deploys', 'two-deploys-same-length'])
  })

  it.each(scenarioNames)('%s: regenerates byte for byte', (name) => {
    const files = readdirSync(join(dirA, name)).sort()
    expect(files).toEqual(filesOf(truths.get(name) as Truth))
    for (const f of files) {
      expect(readFileSync(join(dirB, name, f)).equals(readFileSync(join(dirA, name, f)))).toBe(true)
    }
  })

  it.each(scenarioNames)('%s: shipped fixtures are up to date with the generator', (name) => {
    const shipped = join(FIXTURES, name)
    const files = filesOf(truths.get(name) as Truth)
    expect(existsSync(join(shipped, 'truth.json'))).toBe(true)
    expect(readdirSync(shipped).sort()).toEqual(files)
    for (const f of files) {
      expect({file: f, same: readFileSync(join(shipped, f)).equals(readFileSync(join(dirA, name, f)))}).toEqual({file: f, same: true})
    }
  })

  it.each(scenarioNames)('%s: truth.json lists every file with its format; every file stays under 1 MB', (name) => {
    const truth = JSON.parse(read(name, 'truth.json')) as Truth
    expect(truth.scenario).toBe(name)
    expect(truth.files?.map((f) => f.name).sort()).toEqual(filesOf(truth))
    for (const f of truth.files ?? []) {
      if (ACCESS_FILES.includes(f.name)) expect(f.records).toBe(truth.requestsTotal)
      expect(statSync(join(dirA, name, f.name)).size).toBeLessThan(1024 * 1024)
    }
  })

  it('the generated fixtures stay small altogether', () => {
    const total = scenarioNames.reduce((n, name) => n + readdirSync(join(dirA, name)).reduce((m, f) => m + statSync(join(dirA, name, f)).size, 0), 0)
    expect(total).toBeLessThan(26 * 1024 * 1024)
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
      expect([p.ip, p.status, p.bytes, p.ua, p.upstreamName]).toEqual([r.clientIp, r.status, r.bytes, r.userAgent, r.upstreamName])
      expect(p.upstreams[p.upstreams.length - 1]).toBe(r.upstream)
    })

    if (truth.apps.length === 1) {
      const combined = nonEmptyLines(read(name, 'nginx-combined.log'))
      expect(combined).toHaveLength(n)
      combined.forEach((line, i) => expect((ingress[i] as string).startsWith(line + ' ')).toBe(true))
    }

    const json = nonEmptyLines(read(name, 'nginx-json.log')).map((l) => JSON.parse(l) as {request_id: string; host: string; proxy_upstream_name: string})
    expect(json.map((j) => j.request_id)).toEqual(oldest)
    expect(json.map((j) => [j.host, j.proxy_upstream_name])).toEqual(requests.map((r) => [r.vhost, r.upstreamName]))

    const ndjson = read(name, 'dd-events.ndjson')
    const events = nonEmptyLines(ndjson).map(
      (l) => JSON.parse(l) as {id: string; attributes: {service: string; message: string; attributes: {http: {request_id: string}; proxy: {name: string}}}},
    )
    expect(events.map((e) => e.attributes.attributes.http.request_id)).toEqual(oldest)
    expect(events.map((e) => e.attributes.message)).toEqual(ingress)
    expect(events.map((e) => e.attributes.attributes.proxy.name)).toEqual(requests.map((r) => r.upstreamName))
    expect(new Set(events.map((e) => e.attributes.service))).toEqual(new Set(['ingress-nginx']))
    expect(new Set(events.map((e) => e.id)).size).toBe(n)
    expect(gunzipSync(readFileSync(join(dirA, name, 'dd-events.ndjson.gz'))).toString('utf8')).toBe(ndjson)

    const pagesText = read(name, 'dd-pages.json')
    const pages = splitJsonDocuments(pagesText) as {
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
    // One event per line inside each page, as saved pages look.
    expect(nonEmptyLines(pagesText).length).toBe(n + 2 * full.length + 1)

    const v1 = JSON.parse(read(name, 'dd-v1.json')) as {logs: {content: {message: string}}[]; nextLogId: null; status: string}
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
    expect(csv.map((row) => JSON.parse(row['@proxy.name'] as string))).toEqual([...requests].reverse().map((r) => r.upstreamName))
    expect(csv.map((row) => row['Content'])).toEqual([...ingress].reverse())
    expect(JSON.parse(csv[0]?.['Service'] as string)).toBe('ingress-nginx')
    expect(read(name, 'explorer.csv')).toContain(',"""ingress-nginx""",')

    const raw = parse(read(name, 'explorer-raw.csv'), {columns: true}) as Record<string, string>[]
    expect(Object.keys(raw[0] ?? {})).toEqual(['Date', 'Host', 'Service', 'Message'])
    expect(raw.map((row) => row['Message'])).toEqual([...ingress].reverse())
    expect(new Set(raw.map((row) => row['Service']))).toEqual(new Set(['ingress-nginx']))
  })

  it.each(scenarioNames)('%s: deploy files describe the real rollout windows', (name) => {
    const truth = truths.get(name) as Truth
    const list = JSON.parse(read(name, 'deploys.json')) as unknown[]
    expect(list).toEqual(truth.deploys.map((d) => ({start: d.start, end: d.end, service: d.service, version: d.version, from: d.fromVersion})))
    const csv = parse(read(name, 'deploys.csv'), {columns: true}) as Record<string, string>[]
    expect(csv).toEqual(list)
    const kubectl = JSON.parse(read(name, 'kubectl-events.json')) as {
      kind: string
      items: {reason: string; message: string; involvedObject: {kind: string; name: string}; firstTimestamp: string}[]
    }
    expect(kubectl.kind).toBe('List')
    // 3 replicas: a rollout is 6 scaling messages (up to 1; down, up; down, up; down to 0), a restart
    // too (Kubernetes events only, no deploy marker), a scale-out one.
    const changes = truth.podChanges ?? []
    const restarts = changes.filter((c) => c.kind === 'restart')
    const scaleOuts = changes.filter((c) => c.kind === 'scale-out')
    expect(kubectl.items).toHaveLength((truth.deploys.length + restarts.length) * 6 + scaleOuts.length)
    for (const item of kubectl.items) {
      expect(item.reason).toBe('ScalingReplicaSet')
      expect(item.involvedObject.kind).toBe('Deployment')
    }
    const v2 = JSON.parse(read(name, 'deploy-events-v2.json')) as {data: {attributes: {timestamp: string; tags: string[]; attributes: {title: string}}}[]}
    expect(v2.data).toHaveLength(truth.deploys.length * 8 + restarts.length * 6 + scaleOuts.length)
    const times = v2.data.map((e) => ms(e.attributes.timestamp))
    expect(times).toEqual([...times].sort((a, b) => a - b))
    for (const d of truth.deploys) {
      expect(kubectl.items).toContainEqual(expect.objectContaining({message: `Scaled up replica set ${d.toReplicaSet} to 1`, firstTimestamp: d.start.replace('.000Z', 'Z')}))
      expect(kubectl.items).toContainEqual(expect.objectContaining({message: `Scaled down replica set ${d.fromReplicaSet} to 0`, firstTimestamp: d.end.replace('.000Z', 'Z')}))
      const mine = v2.data.filter((e) => e.attributes.tags.includes(`service:${d.service}`))
      expect(mine.map((e) => e.attributes.attributes.title).filter((t) => t.startsWith('Deploy '))).toContain(`Deploy ${d.service} ${d.version} started`)
      expect(mine.find((e) => e.attributes.attributes.title === `Deploy ${d.service} ${d.version} finished`)?.attributes.timestamp).toBe(d.end)
    }
    for (const c of restarts) {
      expect(kubectl.items).toContainEqual(expect.objectContaining({message: `Scaled up replica set ${c.toReplicaSet} to 1`, firstTimestamp: c.start.replace('.000Z', 'Z')}))
      expect(kubectl.items).toContainEqual(expect.objectContaining({message: `Scaled down replica set ${c.fromReplicaSet} to 0`, firstTimestamp: c.end.replace('.000Z', 'Z')}))
    }
    for (const c of scaleOuts) {
      expect(kubectl.items).toContainEqual(expect.objectContaining({message: `Scaled up replica set ${c.toReplicaSet} to ${c.replicas}`, firstTimestamp: c.start.replace('.000Z', 'Z')}))
    }
    const markers = v2.data.filter((e) => e.attributes.attributes.title.startsWith('Deploy ')).length
    expect(markers).toBe(truth.deploys.length * 2)
  })

  it('a known failure in ingress.log carries the serving build\'s shell length (builds of lengths of their own)', () => {
    const truth = truths.get('two-deploys') as Truth
    const lines = nonEmptyLines(read('two-deploys', 'ingress.log')).map(parseIngress)
    const shell = new Map(truth.builds.map((b) => [b.id, b.shellBytes]))
    const forward = truth.failures.find((f) => f.direction === 'oldPageNewPod') as TruthFailure
    const backward = truth.failures.find((f) => f.direction === 'newPageOldPod') as TruthFailure
    for (const f of [forward, backward]) {
      const idx = lines.findIndex((l) => l.requestId === f.requestId)
      const line = lines[idx] as IngressFields
      expect([line.uri, line.status, line.bytes]).toEqual([f.path, 200, shell.get(f.servingBuild ?? '')])
      expect(line.bytes).not.toBe(shell.get(f.pageBuild ?? ''))
      // The page it belongs to: the same browser's last document request before it got the page build's shell.
      const page = lines
        .slice(0, idx)
        .reverse()
        .find((l) => l.ip === f.clientIp && l.ua === f.userAgent && isDocumentPath(l.uri.split('?')[0] as string) && !l.uri.startsWith('/api/'))
      expect(page?.bytes).toBe(shell.get(f.pageBuild ?? ''))
      expect(line.referer).toBe(`https://shop.example.com${page?.uri}`)
    }
    expect(shell.get('B1')).toBe(1832)
    expect(shell.get('B2')).toBe(1851)
  })
})
