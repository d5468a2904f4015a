/**
 * Which build is this? Builds known by what they serve (src/analysis/build-identity.ts): every rule
 * of it on small sites whose builds' shells have one length, as real bundlers make them, with a
 * small simulation of pods and browsers: round-robin pods that answer a path they do not have with
 * their own shell (SPA fallback), and pages that load their build's assets.
 */
import {Analyzer} from '../../../src/analysis/analyzer'
import {BuildEvidence, cluster, PairCounts} from '../../../src/analysis/build-identity'
import {SessionTracker} from '../../../src/analysis/sessions'
import type {PageCensus} from '../../../src/model/page-census'
import {DEFAULT_OPTIONS} from '../../../src/analysis/options'
import type {AccessEvent} from '../../../src/model/access-event'
import type {DeclaredDeploy} from '../../../src/model/deploy'
import type {FailureRecord} from '../../../src/model/report'

const BASE = Date.parse('2026-12-01T10:00:00Z')
const SHELL = 2210 // every build's index.html: one length, as content hashes of one length make it
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'

interface BuildDef {
  /** Initial assets: entry, vendor, stylesheet. */
  assets: string[]
  lazy: string
  version?: string
}

const VENDOR = '/assets/vendor-Qm3xT8aa.js'
const A: BuildDef = {assets: ['/assets/index-Bq4nd81x.js', VENDOR, '/assets/index-Kd7pw2Lx.css'], lazy: '/assets/settings-Hc5tt0qe.js', version: 'v1.4.0'}
const B: BuildDef = {assets: ['/assets/index-Zr9ke27m.js', VENDOR, '/assets/index-Pw2mq8Tn.css'], lazy: '/assets/settings-Ye1bc6vd.js', version: 'v1.5.0'}
const C: BuildDef = {assets: ['/assets/index-Nw3gh52y.js', '/assets/vendor-Fx8lr4Pz.js', '/assets/index-Vt6ay1Qs.css'], lazy: '/assets/settings-Lm0dx9wr.js', version: 'v1.6.0'}
const SIZE = new Map<string, number>()
for (const b of [A, B, C]) for (const [i, p] of [...b.assets, b.lazy].entries()) SIZE.set(p, 40_000 + i * 3_000 + p.length)

interface Pod {
  address: string
  build: BuildDef
  /** Seconds after BASE it serves from and to. */
  from: number
  to: number
}

let line = 0

/** A site of pods; each request goes to the next live pod (round-robin). */
class Site {
  readonly events: AccessEvent[] = []
  private turn = 0

  /** `shell`: the logged length of a build's shell for a client (gzip clients get the compressed length); SHELL for all by default. */
  constructor(private readonly pods: Pod[], private readonly opts: {logsPods?: boolean; logsVersions?: boolean; shell?: (b: BuildDef, who: string) => number} = {}) {}

  private shell(b: BuildDef, who: string): number {
    return this.opts.shell?.(b, who) ?? SHELL
  }

  private pod(t: number): Pod {
    const live = this.pods.filter((p) => t >= p.from && t < p.to)
    if (live.length === 0) throw new Error(`no pod at ${t}`)
    return live[this.turn++ % live.length] as Pod
  }

  private log(t: number, who: string, path: string, pod: Pod, status: number, bytes: number): void {
    this.events.push({
      time: BASE + Math.round(t * 1000), resolutionMs: 1, method: 'GET', path, status, bytes, clientIp: `10.9.${who.length}.${who.charCodeAt(0) % 250}`,
      userAgent: `${CHROME} ${who}`, referer: path === '/' ? undefined : 'https://shop.example/', location: {file: 'site', line: ++line},
      ...(this.opts.logsPods === false ? {} : {upstream: pod.address}), ...(this.opts.logsVersions && pod.build.version ? {version: pod.build.version} : {}),
    })
  }

  /** A path asked of the next pod: its content where it has it, else its shell. */
  private ask(t: number, who: string, path: string, pod = this.pod(t)): BuildDef {
    const has = pod.build.assets.includes(path) || pod.build.lazy === path
    this.log(t, who, path, pod, 200, has ? (SIZE.get(path) as number) : this.shell(pod.build, who))
    return pod.build
  }

  /** A browser loads the page at `t`: the shell, then its build's assets (each from the next pod), and optionally its lazy chunk later. */
  page(t: number, who: string, opts: {lazyAt?: number; assetPod?: string} = {}): BuildDef {
    const shellPod = this.pod(t)
    this.log(t, who, '/', shellPod, 200, this.shell(shellPod.build, who))
    const build = shellPod.build
    const assetPod = this.pods.find((p) => p.address === opts.assetPod)
    build.assets.forEach((a, i) => this.ask(t + 0.05 + i * 0.01, who, a, assetPod))
    if (opts.lazyAt !== undefined) this.ask(opts.lazyAt, who, build.lazy)
    return build
  }

  /** Steady traffic: a page every `every` seconds from `from` to `to`, each a new browser. */
  traffic(from: number, to: number, every: number, prefix: string): void {
    for (let t = from, i = 0; t < to; t += every, i++) this.page(t, `${prefix}${i}`)
  }
}

function analyze(events: AccessEvent[], declared: DeclaredDeploy[] = []) {
  const failures: FailureRecord[] = []
  const a = new Analyzer({...DEFAULT_OPTIONS, horizonMs: 10 * 60_000}, (f) => failures.push(f))
  for (const e of [...events].sort((x, y) => x.time - y.time)) a.push(e)
  return {report: a.finish(declared), failures}
}

const iso = (s: number): string => new Date(BASE + s * 1000).toISOString()

/** Three pods of `from` replaced one by one by three of `to`, from `start` seconds, `step` apart. */
function rolling(from: BuildDef, to: BuildDef, start: number, step: number, life: [number, number], ids: [string, string]): Pod[] {
  const pods: Pod[] = []
  for (let i = 0; i < 3; i++) {
    pods.push({address: `10.1.${ids[0]}.${i}:8080`, build: from, from: life[0], to: start + step * (i + 1)})
    pods.push({address: `10.1.${ids[1]}.${i}:8080`, build: to, from: start + step * i, to: life[1]})
  }
  return pods
}

describe('builds whose shells are exactly as long', () => {
  const site = new Site(rolling(A, B, 100, 10, [0, 300], ['a', 'b']))
  site.traffic(0, 300, 1.5, 'u')
  const {report, failures} = analyze(site.events)

  it('are two builds, told apart by the assets their pages load, each named by its entry', () => {
    expect(report.builds.map((b) => ({id: b.id, entry: b.entry, shellBytes: b.shellBytes, pods: b.pods, knownBy: b.knownBy}))).toEqual([
      {id: 'B1', entry: A.assets[0], shellBytes: SHELL, pods: 3, knownBy: 'assets'},
      {id: 'B2', entry: B.assets[0], shellBytes: SHELL, pods: 3, knownBy: 'assets'},
    ])
  })

  it('infers the deploy from the pods: from the first pod of the new build to the last pod of the old one', () => {
    expect(report.deploys).toHaveLength(1)
    const d = report.deploys[0]
    expect(d).toMatchObject({fromBuild: 'B1', toBuild: 'B2', sources: ['inferred']})
    // The first new pod starts at 100 s, the last old one stops at 130 s (pods answer only when asked).
    expect(Date.parse(d?.start ?? '')).toBeGreaterThanOrEqual(BASE + 100_000)
    expect(Date.parse(d?.start ?? '')).toBeLessThan(BASE + 102_000)
    expect(Date.parse(d?.end ?? '')).toBeGreaterThan(BASE + 128_000)
    expect(Date.parse(d?.end ?? '')).toBeLessThanOrEqual(BASE + 130_000)
  })

  it('knows which build answered each failure, so its direction: old pages on new pods and new pages on old pods', () => {
    expect(failures.length).toBeGreaterThan(10)
    for (const f of failures) {
      expect(f.cause).toBe('rollout')
      expect(f.deployId).toBe('D1')
      // A failed asset is the page's own build's, answered by the other build.
      const own = f.pageLoad.build === 'B1' ? A : B
      expect(own.assets).toContain(f.path)
      expect(f.servingBuild).toBe(f.pageLoad.build === 'B1' ? 'B2' : 'B1')
    }
    const directions = new Set(failures.map((f) => f.direction))
    expect(directions).toEqual(new Set(['oldPageNewPod', 'newPageOldPod']))
  })

  it('never takes the vendor chunk both builds share for either build\'s own', () => {
    const {report: alone} = analyze(site.events.filter((e) => e.path !== A.assets[0] && e.path !== B.assets[0]))
    // Without their entries, each build is named by its stylesheet, never by the vendor chunk they share.
    expect(alone.builds.map((b) => b.entry)).toEqual([A.assets[2], B.assets[2]])
  })
})

describe('shells logged compressed (nginx gzip): one build at two lengths, two builds a byte or two apart', () => {
  // gzip clients (every other browser) get 214 bytes from A, 216 from B; the others 2210 from both.
  const shell = (b: BuildDef, who: string): number => (who.charCodeAt(who.length - 1) % 2 === 0 ? (b === A ? 214 : 216) : SHELL)
  for (const logsPods of [true, false]) {
    it(`are two builds, each with both its lengths; a length one build alone has names it (pods ${logsPods ? 'logged' : 'not logged'})`, () => {
      const site = new Site(rolling(A, B, 100, 10, [0, 300], ['a', 'b']), {shell, logsPods})
      site.traffic(0, 300, 1.5, 'u')
      const {report, failures} = analyze(site.events)
      expect(report.builds.map((b) => [b.entry, [...b.shellLengths].sort((x, y) => x - y)])).toEqual([[A.assets[0], [214, SHELL]], [B.assets[0], [216, SHELL]]])
      expect(report.deploys.map((d) => [d.fromBuild, d.toBuild])).toEqual([['B1', 'B2']])
      expect(failures.length).toBeGreaterThan(10)
      for (const f of failures) {
        expect(f.cause).toBe('rollout')
        expect(f.servingBuild).toBe(f.pageLoad.build === 'B1' ? 'B2' : 'B1')
      }
      // Each build has a length of its own (its compressed one): a fallback body of that length names it.
      expect(report.apps[0]?.buildEvidence).toMatchObject({assets: true, pods: logsPods, shellLengths: true})
    })
  }
})

describe('stale tabs of a build no pod serves any more', () => {
  it('are stale clients of the deploy that retired their build, though every shell had one length', () => {
    const site = new Site(rolling(A, B, 100, 10, [0, 400], ['a', 'b']))
    site.traffic(0, 400, 2, 'u')
    // Tabs opened on A before the deploy lazy-load A's chunk long after the last A pod stopped.
    for (let i = 0; i < 4; i++) site.page(50 + i, `tab${i}`, {assetPod: '10.1.a.0:8080', lazyAt: 200 + i * 20})
    const {failures} = analyze(site.events)
    const stale = failures.filter((f) => f.cause === 'stale-client')
    expect(stale.map((f) => f.path)).toEqual([A.lazy, A.lazy, A.lazy, A.lazy])
    expect(stale.every((f) => f.pageLoad.build === 'B1' && f.servingBuild === 'B2' && f.deployId === 'D1')).toBe(true)
  })
})

describe('a page whose every asset failed', () => {
  it('is of the build its asset paths name, though no asset of it was answered with real content', () => {
    const site = new Site(rolling(A, B, 100, 10, [0, 300], ['a', 'b']))
    site.traffic(0, 300, 1.5, 'u')
    // A new page (its shell from a B pod) whose every asset went to an old A pod.
    const shellAt = 125
    const before = site.events.length
    site.page(shellAt, 'unlucky', {assetPod: '10.1.a.2:8080'})
    // Its shell from a B pod, then its entry and stylesheet answered with A's shell, the shared vendor chunk with content.
    expect(site.events.slice(before).map((e) => e.bytes)).toEqual([SHELL, SHELL, SIZE.get(VENDOR), SHELL])
    const {failures} = analyze(site.events)
    const unlucky = failures.filter((f) => f.pageLoad.time === iso(shellAt))
    expect(unlucky.map((f) => [f.path, f.pageLoad.build, f.servingBuild, f.direction])).toEqual([
      [B.assets[0], 'B2', 'B1', 'newPageOldPod'],
      [B.assets[2], 'B2', 'B1', 'newPageOldPod'],
    ])
  })
})

describe('a pod address that comes back', () => {
  it('is a new pod serving the build its new pages show, not the build it served before', () => {
    // 10.1.a.0 serves A until 130 s, then (the same address, a new pod) serves C from 500 s.
    const pods: Pod[] = [...rolling(A, B, 100, 10, [0, 560], ['a', 'b']), {address: '10.1.a.0:8080', build: C, from: 500, to: 900}]
    pods.find((p) => p.address === '10.1.b.0:8080')!.to = 520
    pods.find((p) => p.address === '10.1.b.1:8080')!.to = 540
    pods.push({address: '10.1.c.1:8080', build: C, from: 510, to: 900}, {address: '10.1.c.2:8080', build: C, from: 530, to: 900})
    const site = new Site(pods)
    site.traffic(0, 900, 2, 'u')
    const {report, failures} = analyze(site.events)
    expect(report.builds.map((b) => b.entry)).toEqual([A.assets[0], B.assets[0], C.assets[0]])
    expect(report.deploys.map((d) => [d.fromBuild, d.toBuild])).toEqual([['B1', 'B2'], ['B2', 'B3']])
    // Failures the reused address answered in the second rollout were answered by C, not A.
    const reused = failures.filter((f) => f.upstream === '10.1.a.0:8080' && Date.parse(f.time) >= BASE + 500_000)
    expect(reused.length).toBeGreaterThan(0)
    expect(reused.every((f) => f.servingBuild === 'B3' && f.deployId === 'D2')).toBe(true)
  })
})

describe('a version the logs carry for the serving pod', () => {
  it('names its build, and ties a declared deploy of that version to it', () => {
    const site = new Site(rolling(A, B, 100, 10, [0, 300], ['a', 'b']), {logsVersions: true})
    site.traffic(0, 300, 1.5, 'u')
    const declared: DeclaredDeploy[] = [{source: 'file', start: BASE + 99_000, end: BASE + 131_000, service: 'shop', version: 'v1.5.0'}]
    const {report} = analyze(site.events, declared)
    expect(report.builds.map((b) => [b.id, b.version, b.versions])).toEqual([['B1', 'v1.4.0', ['v1.4.0']], ['B2', 'v1.5.0', ['v1.5.0']]])
    expect(report.deploys.map((d) => [d.fromBuild, d.toBuild, d.version])).toEqual([['B1', 'B2', 'v1.5.0']])
  })
})

describe('rollouts that bring no new build', () => {
  it('a rollback (A → B → A) brings back B1, the same build, in a deploy of its own', () => {
    const pods = [...rolling(A, B, 100, 10, [0, 300], ['a', 'b']), ...rolling(B, A, 300, 10, [0, 600], ['x', 'c']).filter((p) => p.build === A)]
    // B's pods stop one by one as the new A pods start.
    pods.filter((p) => p.build === B).forEach((p, i) => (p.to = 310 + i * 10))
    const site = new Site(pods)
    site.traffic(0, 600, 1.5, 'u')
    const {report, failures} = analyze(site.events)
    expect(report.builds.map((b) => b.id)).toEqual(['B1', 'B2'])
    expect(report.deploys.map((d) => [d.fromBuild, d.toBuild])).toEqual([['B1', 'B2'], ['B2', 'B1']])
    const second = report.deploys[1]
    expect(Date.parse(second?.start ?? '')).toBeGreaterThanOrEqual(BASE + 300_000)
    expect(Date.parse(second?.end ?? '')).toBeLessThanOrEqual(BASE + 330_000)
    expect(failures.filter((f) => Date.parse(f.time) >= BASE + 300_000).every((f) => f.deployId === 'D2' && f.cause === 'rollout')).toBe(true)
  })

  it('a restart (kubectl rollout restart: new pods of the same build) is no deploy and no incident', () => {
    const site = new Site(rolling(A, A, 100, 10, [0, 300], ['a', 'r']))
    site.traffic(0, 300, 1.5, 'u')
    const {report, failures} = analyze(site.events)
    expect(report.builds.map((b) => [b.id, b.pods])).toEqual([['B1', 6]])
    expect(report.deploys).toEqual([])
    expect(failures).toEqual([])
  })

  it('a declared restart (the cluster\'s events record a rollout, the build stays): a deploy from the build to itself, no failure', () => {
    const site = new Site(rolling(A, A, 100, 10, [0, 300], ['a', 'r']))
    site.traffic(0, 300, 1.5, 'u')
    // with and without the rollout's end, as Kubernetes events and a lone marker give them
    for (const end of [BASE + 130_000, undefined]) {
      const declared: DeclaredDeploy[] = [{source: 'kubernetes', start: BASE + 100_000, ...(end ? {end} : {}), service: 'shop', version: 'shop-7d9f6c5b8'}]
      const {report, failures} = analyze(site.events, declared)
      expect(report.deploys.map((d) => [d.fromBuild, d.toBuild, d.failedRequests, d.incidentIds])).toEqual([['B1', 'B1', 0, []]])
      expect(Date.parse(report.deploys[0]?.end ?? '')).toBe(end ?? BASE + 100_000)
      expect(failures).toEqual([])
    }
  })

  it('a scale-out (HPA adds pods of the same build) is no deploy', () => {
    const pods: Pod[] = [0, 1, 2].map((i) => ({address: `10.1.a.${i}:8080`, build: A, from: 0, to: 300}))
    pods.push({address: '10.1.a.7:8080', build: A, from: 120, to: 300}, {address: '10.1.a.8:8080', build: A, from: 130, to: 300})
    const site = new Site(pods)
    site.traffic(0, 300, 1.5, 'u')
    const {report} = analyze(site.events)
    expect(report.builds.map((b) => [b.id, b.pods])).toEqual([['B1', 5]])
    expect(report.deploys).toEqual([])
  })
})

describe('shells counted rather than read (a live pull\'s census)', () => {
  it('count for the builds of their pods, named by address alone where the logs name them with the port', () => {
    const site = new Site(rolling(A, B, 100, 10, [0, 300], ['a', 'b']))
    site.traffic(0, 300, 1.5, 'u')
    const whole = analyze(site.events).report
    // Minutes 1 and 3 counted, not read: their shell-path requests are left out and counted per pod
    // by address, as Datadog's `network.destination.ip` facet gives them.
    const bucketMs = 60_000
    const counted = (t: number): boolean => [1, 3].includes(Math.floor((t - BASE) / bucketMs))
    const left = site.events.filter((e) => e.path === '/' && counted(e.time))
    const pods = new Map<string, Map<number, number>>()
    for (const e of left) {
      const pod = (e.upstream as string).replace(/:\d+$/, '')
      const bucket = Math.floor(e.time / bucketMs) * bucketMs
      const m = pods.get(pod) ?? new Map<number, number>()
      pods.set(pod, m.set(bucket, (m.get(bucket) ?? 0) + 1))
    }
    const pageLoads = new Map<number, number>()
    for (const e of left) pageLoads.set(Math.floor(e.time / bucketMs) * bucketMs, (pageLoads.get(Math.floor(e.time / bucketMs) * bucketMs) ?? 0) + 1)
    const read = [0, 2, 4].map((m) => BASE + m * bucketMs)
    const census: PageCensus = {
      bucketMs, read, apps: {[whole.apps[0]?.name ?? '']: {pageLoads: [...pageLoads], shells: [{bytes: SHELL, counts: [...pageLoads]}]}},
      pods: [...pods].map(([pod, m]) => ({pod, counts: [...m]})),
    }
    const a = new Analyzer({...DEFAULT_OPTIONS, horizonMs: 10 * 60_000}, undefined, census)
    for (const e of site.events.filter((x) => !left.includes(x)).sort((x, y) => x.time - y.time)) a.push(e)
    const live = a.finish([])
    expect(left.length).toBeGreaterThan(50)
    expect(live.builds.map((b) => [b.id, b.shellRequests, b.pods])).toEqual(whole.builds.map((b) => [b.id, b.shellRequests, b.pods]))
    expect(whole.builds.map((b) => b.shellRequests).reduce((x, y) => x + y, 0)).toBe(site.events.filter((e) => e.path === '/').length)
  })
})

describe('routes counted rather than read (a live pull\'s census)', () => {
  it('count as the shells and page loads reading them gives: the builds\' shells, their pods\' and the page loads', () => {
    const site = new Site(rolling(A, B, 100, 10, [0, 420], ['a', 'b']))
    site.traffic(0, 420, 1.5, 'u')
    // Every third page load starts on a deep link (the SPA answers it with its shell), one in nine
    // on a route with a dot in its path (not counted: read), and a crawler's deep links.
    site.events.forEach((e, i) => {
      if (e.path !== '/') return
      const n = Math.floor(i / 4)
      if (n % 9 === 3) e.path = `/v1.2/orders/${n}`
      else if (n % 3 === 0) e.path = `/orders/${n}`
    })
    for (let t = 5; t < 410; t += 7) {
      const e = site.events.find((x) => x.path === '/' && x.time >= BASE + t * 1000) as AccessEvent
      site.events.push({...e, path: `/team/${t}`, userAgent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', clientIp: '66.249.66.1', location: {file: 'site', line: ++line}})
    }
    const whole = analyze(site.events).report
    const bucketMs = 60_000
    const bucketOf = (t: number): number => Math.floor(t / bucketMs) * bucketMs
    // Minutes 4 and 5 counted, after the rollout and its margin (no failure, so no asset window: their assets are not read either).
    const counted = (t: number): boolean => [4, 5].includes(Math.floor((t - BASE) / bucketMs))
    const plainRoute = (p: string): boolean => p !== '/' && !p.startsWith('/assets/') && !p.includes('.')
    const left = site.events.filter((e) => (e.path === '/' || plainRoute(e.path)) && counted(e.time))
    const add = (m: Map<number, number>, t: number): Map<number, number> => m.set(bucketOf(t), (m.get(bucketOf(t)) ?? 0) + 1)
    const pods = new Map<string, Map<number, number>>()
    const pageLoads = new Map<number, number>()
    const shells = new Map<number, number>()
    const routes = new Map<number, number>()
    for (const e of left) {
      const pod = (e.upstream as string).replace(/:\d+$/, '')
      pods.set(pod, add(pods.get(pod) ?? new Map(), e.time))
      if (!e.userAgent.includes('Googlebot')) add(pageLoads, e.time)
      add(e.path === '/' ? shells : routes, e.time)
    }
    const census: PageCensus = {
      bucketMs, read: [0, 1, 2, 3, 6].map((m) => BASE + m * bucketMs), routes: true,
      apps: {[whole.apps[0]?.name ?? '']: {pageLoads: [...pageLoads], shells: [{bytes: SHELL, counts: [...shells]}], routes: [{bytes: SHELL, counts: [...routes]}]}},
      pods: [...pods].map(([pod, m]) => ({pod, counts: [...m]})),
    }
    // A hurt person's deep link in a counted bucket is read too (the sessions stream): the count has it already.
    const again = site.events.find((e) => plainRoute(e.path) && counted(e.time) && !e.userAgent.includes('Googlebot')) as AccessEvent
    const a = new Analyzer({...DEFAULT_OPTIONS, horizonMs: 10 * 60_000}, undefined, census)
    const unread = (e: AccessEvent): boolean => counted(e.time) && (left.includes(e) || e.path.startsWith('/assets/')) && e !== again
    for (const e of site.events.filter((x) => !unread(x)).sort((x, y) => x.time - y.time)) a.push(e)
    const live = a.finish([])
    expect(routes.size).toBe(2)
    expect([...routes.values()].reduce((x, y) => x + y, 0)).toBeGreaterThan(10)
    expect(site.events.some((e) => e.path.startsWith('/v1.2/') && counted(e.time))).toBe(true)
    // (Both builds' shells are one length: their first and last shells are estimated from the pods', as for shell paths.)
    expect(live.builds.map((b) => [b.id, b.shellRequests, b.pods])).toEqual(whole.builds.map((b) => [b.id, b.shellRequests, b.pods]))
    expect(live.totals).toEqual(whole.totals)
    expect(live.deploys).toEqual(whole.deploys)
    // Every shell of the day is in the builds' shells, the routes' included.
    expect(whole.builds.map((b) => b.shellRequests).reduce((x, y) => x + y, 0)).toBe(site.events.filter((e) => e.path === '/' || e.path.startsWith('/v1.2/') || plainRoute(e.path)).length)
  })
})

describe('logs that name no pod (combined)', () => {
  it('still tell the builds apart by their assets, and place each failure on the build that answered it by the builds served then', () => {
    const site = new Site(rolling(A, B, 100, 10, [0, 300], ['a', 'b']), {logsPods: false})
    site.traffic(0, 300, 1.5, 'u')
    const {report, failures} = analyze(site.events)
    expect(report.builds.map((b) => [b.id, b.entry, b.pods])).toEqual([['B1', A.assets[0], undefined], ['B2', B.assets[0], undefined]])
    expect(report.deploys.map((d) => [d.fromBuild, d.toBuild])).toEqual([['B1', 'B2']])
    expect(failures.length).toBeGreaterThan(10)
    for (const f of failures) {
      expect(f.cause).toBe('rollout')
      expect(f.servingBuild).toBe(f.pageLoad.build === 'B1' ? 'B2' : 'B1')
    }
    expect(report.apps[0]?.buildEvidence).toEqual({assets: true, pods: false, versions: false, shellLengths: false})
  })
})

describe('grouping assets into builds', () => {
  const together = (pairs: [number, number, number][]): PairCounts => {
    const t = new PairCounts()
    for (const [a, b, n] of pairs) for (let i = 0; i < n; i++) t.bump(a, b)
    return t
  }
  const groups = (g: Map<number, number[]>): number[][] => [...new Set(g.values())].map((x) => [...x].sort((a, b) => a - b)).sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0))

  it('joins a route\'s chunk and a web font to their build (each comes with only some of its pages)', () => {
    // 0 entry, 1 vendor, 2 css in all 40 pages; 3 cart chunk in 9, 4 products chunk in 14 (never together), 5 font in 20.
    const t = together([[0, 1, 40], [0, 2, 40], [1, 2, 40], [3, 0, 9], [3, 1, 9], [3, 2, 9], [4, 0, 14], [4, 1, 14], [4, 2, 14], [5, 0, 20], [5, 1, 20], [5, 2, 20], [5, 3, 4], [5, 4, 7]])
    const pages = [40, 40, 40, 9, 14, 20]
    expect(groups(cluster([0, 1, 2, 3, 4, 5], t, String, (id) => pages[id] ?? 0))).toEqual([[0, 1, 2, 3, 4, 5]])
  })

  it('counts a pair the same either way round, lists it lower id first, and stops taking new pairs at its bound', () => {
    const t = new PairCounts(3)
    t.bump(5, 2)
    t.bump(2, 5)
    t.bump(7, 1)
    t.bump(2 ** 21 + 4, 0)
    t.bump(9, 8)
    // Full: a new pair is not taken, one already counted still counts.
    t.bump(5, 2)
    expect([t.get(2, 5), t.get(5, 2), t.get(1, 7), t.get(0, 2 ** 21 + 4), t.get(8, 9), t.get(3, 4)]).toEqual([3, 3, 1, 1, 0, 0])
    expect([...t.entries()].sort((x, y) => x[0] - y[0])).toEqual([[0, 2 ** 21 + 4, 1], [1, 7, 1], [2, 5, 3]])
  })

  it('keeps two builds apart when their entries never share a page, whatever they share', () => {
    // A: 0 entry, 2 css; B: 3 entry, 4 css; 1 vendor shared by both.
    const t = together([[0, 2, 30], [0, 1, 30], [1, 2, 30], [3, 4, 20], [1, 3, 8], [1, 4, 8]])
    const pages = [30, 38, 30, 20, 20]
    expect(groups(cluster([0, 1, 2, 3, 4], t, String, (id) => pages[id] ?? 0))).toEqual([[0, 1, 2], [3, 4]])
  })
})

describe('what a page load asked for', () => {
  const asset = (i: number): string => `/assets/chunk-${String(i).padStart(2, '0')}-Hx4kd9Qa.js`
  const pageLoad = (): ReturnType<SessionTracker['startPageLoad']> => new SessionTracker(60_000).startPageLoad('10.0.0.1 agent', BASE, '/', undefined)
  const ids = (ev: BuildEvidence, n: number): number[] => Array.from({length: n}, (_, i) => ev.view.assetIds.get(asset(i)) as number)

  it('a page load does not fit an asset it asked for before, its first as much as its last; one it did not ask for fits by what came with it', () => {
    const ev = new BuildEvidence()
    const pl = pageLoad()
    for (let i = 0; i < 5; i++) ev.pageAsset(pl, asset(i), true, true)
    for (let i = 0; i < 5; i++) expect(ev.fits(asset(i), pl)).toBe(false)
    // Never asked for by a page: fits anything.
    expect(ev.fits(asset(9), pl)).toBe(true)
    // Asked for by another page with none of these: fits no page that asked for them.
    const other = pageLoad()
    ev.pageAsset(other, asset(7), true, true)
    ev.pageAsset(other, asset(8), true, true)
    expect(ev.fits(asset(7), pl)).toBe(false)
    // With three of the five: fits.
    const third = pageLoad()
    for (const i of [0, 1, 2, 6]) ev.pageAsset(third, asset(i), true, true)
    expect(ev.fits(asset(6), pl)).toBe(true)
  })

  it('counts each pair of a page load\'s own assets once, keeps at most 24 assets, and pairs no asset another tab may have asked for', () => {
    const ev = new BuildEvidence()
    const pl = pageLoad()
    for (let i = 0; i < 30; i++) ev.pageAsset(pl, asset(i), i !== 3, i !== 3)
    // Asked again: counted once.
    ev.pageAsset(pl, asset(0), true, true)
    ev.pageAsset(pl, asset(23), true, true)
    const id = ids(ev, 30)
    const t = ev.view.together
    expect(t.get(id[0] as number, id[1] as number)).toBe(1)
    expect(t.get(id[22] as number, id[23] as number)).toBe(1)
    expect(t.get(id[0] as number, id[23] as number)).toBe(1)
    // Past the 24th: not kept, not paired.
    expect(t.get(id[0] as number, id[24] as number)).toBe(0)
    expect(t.get(id[23] as number, id[29] as number)).toBe(0)
    // A later asset while another tab of the session was open (not initial, not alone): kept as asked for, paired with none.
    expect(t.get(id[2] as number, id[3] as number)).toBe(0)
    expect(t.get(id[3] as number, id[4] as number)).toBe(0)
    expect(ev.fits(asset(3), pl)).toBe(false)
    expect(ev.fits(asset(24), pl)).toBe(true)
    // 23 own assets: every pair of them once.
    expect([...t.entries()].length).toBe((23 * 22) / 2)
  })
})
