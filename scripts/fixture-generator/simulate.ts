/**
 * A deterministic simulation of one or more SPAs behind one ingress during rolling deploys.
 *
 * Browsers, a crawler, scanners, kube-probe and skewscan's probe produce request intents; a heap
 * replays them in time order; each intent is routed through the app's balancer to a live pod, and
 * the pod answers from its own build (asset, SPA fallback shell, or 404). Everything the truth needs
 * (which pod and build answered, which shell a page load got) comes from this replay, never from the
 * written logs.
 *
 * `simulateIter` / `runSimulation` stream requests so large runs need not hold them; `simulate` collects.
 */
import {BROWSER_UAS, CRAWLER, DEPLOY_WATCHER, DYNAMIC_SHELL_BAND, FAVICON_BYTES, HEALTHZ_BYTES, MONITOR, NOT_FOUND_BYTES, PROBE, profileOf, SCANNERS, SKEWSCAN_PROBE} from './catalog'
import type {AppProfile} from './catalog'
import {appStream, buildAssets, livePods, makeBuilds, planCluster} from './cluster'
import type {Cluster} from './cluster'
import {MinHeap} from './heap'
import {appConfigs, resolveParams} from './params'
import {isAssetPath, isShellPath, podTreatsAsAsset} from './paths'
import {Rng} from './rng'
import {TruthCollector} from './truth'
import type {Actor, Build, Pod, RequestRole, ResponseKind, SimParams, SimRequest, Simulation, Truth} from './types'

const SECOND = 1000
const MINUTE = 60 * SECOND
/** A request this soon after a pod stopped may first have been sent to it (502) and retried. */
const RETRY_WINDOW = 3 * SECOND
/**
 * Lazy loads of a page whose build a deploy retires do not happen from this long before that deploy
 * ends (one rollout step plus 15 s: while its last pods still serve, the logs keep showing the old
 * build after the request) to this long after it (by then the logs have long stopped showing it):
 * such a request is clearly a rollout race or clearly a stale tab, never a toss-up at the end.
 */
const LAZY_CLEAR_AFTER = 5 * MINUTE
const lazyClearBefore = (stepSeconds: number): number => (stepSeconds + 15) * SECOND
/** No page load starts in the last second before a rollout ends: its initial requests all come before or after the last old pod stops. */
const DOCUMENT_CLEAR = SECOND

interface BrowserState {
  id: number
  ip: string
  userAgent: string
  /** The pod named by the INGRESSCOOKIE, in cookie routing. */
  pinned: Pod | undefined
  /** DevTools open: it fetches the bundles' source maps. */
  devtools: boolean
}

interface PageLoadState {
  /** The browser; absent for skewscan's probe. */
  browser: BrowserState | undefined
  path: string
  referer: string
  /** Assigned when a browser's shell is served, so ids follow time order. */
  id: number | undefined
  shellBuild: string | undefined
}

type EntryName = 'main' | 'vendor' | 'css' | 'font'

interface Intent {
  time: number
  seq: number
  app: number
  /** A browser arrives at this app (schedules its page loads); not a request. */
  arrival?: true
  actor: Actor
  role: RequestRole
  clientIp: string
  userAgent: string
  referer: string
  path?: string
  query?: string
  entry?: EntryName
  route?: string
  /** A source map of this bundle. */
  mapOf?: 'main' | 'vendor'
  api?: {min: number; max: number}
  browser?: BrowserState
  pageLoad?: PageLoadState
  /** A lazy load (a route chunk requested after the initial load). */
  lazy?: true
  /** The build of a tab whose page load came before the logs. */
  tabBuild?: string
}

type IntentInput = Omit<Intent, 'seq'>

/** One app while the simulation runs: its cluster, balancer state and streams. */
class AppRuntime {
  readonly builds = new Map<string, Build>()
  readonly assets = new Map<string, Map<string, number>>()
  readonly profile: AppProfile
  readonly traffic: Rng
  readonly forbiddenSizes: Set<number>
  roundRobin = 0
  podCache: {from: number; to: number; live: Pod[]; stopped: Pod[]} | undefined
  readonly changeTimes: number[] = []
  /** Builds whose shell has been served on a shell path (`/`): the logs have shown their fingerprint. */
  readonly learned = new Set<string>()
  /** The dynamic shell's last length and every length it had. */
  readonly dynamic: {rng: Rng; current: number; used: Set<number>} | undefined

  constructor(readonly params: SimParams, readonly cluster: Cluster) {
    for (const b of cluster.builds) {
      this.builds.set(b.key, b)
      this.assets.set(b.key, buildAssets(b))
    }
    this.forbiddenSizes = new Set(cluster.builds.map((b) => b.shellBytes))
    this.profile = profileOf(cluster.app.index)
    this.traffic = new Rng(params.seed, appStream('traffic', cluster.app))
    this.dynamic = cluster.app.dynamicShell
      ? {rng: new Rng(params.seed, appStream('dynamic-shell', cluster.app)), current: Math.round((DYNAMIC_SHELL_BAND.lo + DYNAMIC_SHELL_BAND.hi) / 2), used: new Set()}
      : undefined
  }

  get service(): string {
    return this.cluster.app.service
  }
}

/**
 * Iterates over the simulated requests in time order without holding them; the generator's return
 * value is the truth. Use this (with the per-format writers) for large runs.
 */
export function simulateIter(input: Partial<SimParams> = {}): Generator<SimRequest, Truth, void> {
  const params = resolveParams(input)
  const clusters = appConfigs(params).map((app) => planCluster(params, app, makeBuilds(params, app)))
  return new Engine(params, clusters).requests()
}

/** Runs the simulation, handing each request to `onRequest` in time order, and returns the truth. */
export function runSimulation(input: Partial<SimParams>, onRequest: (r: SimRequest) => void): Truth {
  const it = simulateIter(input)
  for (let n = it.next(); ; n = it.next()) {
    if (n.done) return n.value
    onRequest(n.value)
  }
}

/** Runs the simulation and keeps every request. */
export function simulate(input: Partial<SimParams> = {}): Simulation {
  const requests: SimRequest[] = []
  const truth = runSimulation(input, (r) => requests.push(r))
  return {requests, truth}
}

class Engine {
  private readonly startMs: number
  private readonly endMs: number
  private readonly heap = new MinHeap<Intent>()
  private readonly apps: AppRuntime[]
  private pushSeq = 0
  private emitted = 0
  private pageLoadCounter = 0
  private browserCounter = 0
  private readonly identities = new Set<string>()
  private readonly recentIps: string[] = []
  private readonly truth: TruthCollector
  // Independent streams: traffic shape does not depend on routing, so routing modes can be compared.
  private readonly noise: Rng
  private readonly routing: Rng
  private readonly wire: Rng
  private readonly retry: Rng
  private readonly devtools: Rng

  constructor(private readonly params: SimParams, clusters: Cluster[]) {
    this.startMs = Date.parse(params.start)
    this.endMs = this.startMs + params.durationSeconds * SECOND
    this.apps = clusters.map((c) => new AppRuntime(params, c))
    this.truth = new TruthCollector(params, clusters)
    this.noise = new Rng(params.seed, 'noise')
    this.routing = new Rng(params.seed, 'routing')
    this.wire = new Rng(params.seed, 'wire')
    this.retry = new Rng(params.seed, 'retry')
    this.devtools = new Rng(params.seed, 'devtools')
  }

  *requests(): Generator<SimRequest, Truth, void> {
    this.scheduleNoise()
    this.scheduleTabs()
    this.apps.forEach((_, i) => this.scheduleArrival(i, this.startMs))
    for (let it = this.heap.pop(); it; it = this.heap.pop()) {
      if (it.arrival) {
        this.arrive(it.app, it.time)
        this.scheduleArrival(it.app, it.time)
      } else {
        const r = this.emit(it)
        if (r) yield r
      }
    }
    return this.truth.finish()
  }

  /** Pods change only at rollout steps: cache the live list and the recently stopped pods between changes. */
  private podsAt(rt: AppRuntime, t: number): {live: Pod[]; stopped: Pod[]} {
    const c = rt.podCache
    if (c && t >= c.from && t < c.to) return c
    if (rt.changeTimes.length === 0) {
      const times = new Set<number>()
      for (const p of rt.cluster.pods) {
        for (const x of [p.start, p.stop, p.stop + RETRY_WINDOW]) if (Number.isFinite(x)) times.add(x)
      }
      rt.changeTimes.push(-Infinity, ...[...times].sort((a, b) => a - b), Infinity)
    }
    let i = 0
    while ((rt.changeTimes[i + 1] as number) <= t) i++
    const from = rt.changeTimes[i] as number
    const to = rt.changeTimes[i + 1] as number
    const live = livePods(rt.cluster.pods, t)
    const stopped = rt.cluster.pods.filter((p) => p.stop <= t && t - p.stop < RETRY_WINDOW)
    rt.podCache = {from, to, live, stopped}
    return rt.podCache
  }

  private push(intent: IntentInput): void {
    this.heap.push({...intent, seq: this.pushSeq++})
  }

  // ------------------------------------------------------------ arrivals and browsers

  private inSurge(rt: AppRuntime, t: number): boolean {
    const {beforeSeconds, afterSeconds} = this.params.surge
    return rt.cluster.deploys.some((d) => t >= d.start - beforeSeconds * SECOND && t <= d.end + afterSeconds * SECOND)
  }

  /** Next browser arrival at app `i` after `from`: a Poisson process whose rate rises around its deploys (thinning). */
  private scheduleArrival(i: number, from: number): void {
    const rt = this.apps[i] as AppRuntime
    const base = rt.cluster.app.browsersPerMinute / MINUTE
    const factor = this.params.surge.factor
    const max = base * factor
    const lastArrival = this.endMs - 2 * MINUTE
    let t = from
    for (;;) {
      t += rt.traffic.exp(1 / max)
      if (t >= lastArrival) return
      const rate = this.inSurge(rt, t) ? max : base
      if (rt.traffic.float() * max < rate) break
    }
    this.push({time: t, app: i, arrival: true, actor: 'browser', role: 'page', clientIp: '', userAgent: '', referer: '-'})
  }

  private randomIp(r: Rng): string {
    if (r.chance(0.75)) return `${r.pick(['203.0.113', '198.51.100', '192.0.2'])}.${r.int(1, 254)}`
    return `100.${r.int(64, 127)}.${r.int(0, 255)}.${r.int(1, 254)}`
  }

  /** A new browser: a unique (client ip, user agent) pair; a few share an office IP with another browser. */
  private newBrowser(r: Rng): BrowserState {
    for (let attempt = 0; ; attempt++) {
      const userAgent = r.pick(BROWSER_UAS)
      // After a few collisions (large runs exhaust the small documentation ranges) use 100.64.0.0/10.
      const ip =
        attempt < 4 && this.recentIps.length > 0 && r.chance(0.08)
          ? r.pick(this.recentIps)
          : attempt < 4
            ? this.randomIp(r)
            : `100.${r.int(64, 127)}.${r.int(0, 255)}.${r.int(1, 254)}`
      const key = `${ip}\t${userAgent}`
      if (this.identities.has(key) || ip === SKEWSCAN_PROBE.ip) continue
      this.identities.add(key)
      this.recentIps.push(ip)
      if (this.recentIps.length > 50) this.recentIps.shift()
      return {id: ++this.browserCounter, ip, userAgent, pinned: undefined, devtools: this.devtools.chance(this.params.devtoolsShare)}
    }
  }

  private pagePath(rt: AppRuntime): string {
    const r = rt.traffic
    if (r.chance(this.params.homeShare)) return '/'
    return rt.profile.routePath(r.pick(rt.profile.routes), r.int(1, 250))
  }

  /** A page load never starts in the last second before a rollout of its app ends (see DOCUMENT_CLEAR). */
  private clearOfRolloutEnd(rt: AppRuntime, t: number): number {
    for (const d of rt.cluster.deploys) if (t >= d.end - DOCUMENT_CLEAR && t < d.end) return d.end + 100
    return t
  }

  /** A browser arrives: plan all its page loads (1–3), their assets, API calls and lazy chunks. */
  private arrive(i: number, t0: number): void {
    const rt = this.apps[i] as AppRuntime
    const r = rt.traffic
    const browser = this.newBrowser(r)
    const count = 1 + r.weighted([50, 30, 20])
    const lastPageStart = this.endMs - 30 * SECOND
    const lastRequest = this.endMs - SECOND
    const origin = rt.cluster.app.origin
    let t = t0
    let last: {page: PageLoadState; end: number; loaded: Set<string>} | undefined
    // The first document request comes from a search result or a typed URL; later ones follow a link.
    let documentReferer = r.chance(0.4) ? 'https://www.google.com/' : '-'
    for (let k = 0; k < count && t < lastPageStart; k++) {
      t = this.clearOfRolloutEnd(rt, t)
      const path = this.pagePath(rt)
      const page: PageLoadState = {browser, path, referer: origin + path, id: undefined, shellBuild: undefined}
      const base = {app: i, actor: 'browser' as const, clientIp: browser.ip, userAgent: browser.userAgent, browser, pageLoad: page}
      const times: number[] = [t]
      this.push({...base, time: t, role: 'page', path, referer: documentReferer})
      documentReferer = page.referer
      // Entry bundles, fetched 20–400 ms after the shell, each routed on its own.
      const a0 = t + r.uniform(20, 400)
      const entries: EntryName[] = ['main', 'vendor', 'css']
      let cssAt = a0
      entries.forEach((entry, j) => {
        const at = a0 + j * r.uniform(0.5, 6)
        if (entry === 'css') cssAt = at
        times.push(at)
        this.push({...base, time: at, role: 'entry', entry, referer: page.referer})
      })
      // The stylesheet names the web font: fetched once the stylesheet arrived.
      if (r.chance(this.params.fontShare)) {
        const at = cssAt + r.uniform(20, 200)
        times.push(at)
        this.push({...base, time: at, role: 'entry', entry: 'font', referer: page.referer})
      }
      const loaded = new Set<string>()
      const route = rt.profile.routes.find((x) => path === `/${x}` || path.startsWith(`/${x}/`))
      if (route) {
        // The route's chunk is requested as soon as the app bundle runs.
        const at = a0 + r.uniform(40, 250)
        times.push(at)
        loaded.add(route)
        this.push({...base, time: at, role: 'chunk', route, referer: page.referer})
      }
      if (k === 0 && r.chance(0.3)) {
        const at = a0 + r.uniform(60, 400)
        times.push(at)
        this.push({...base, time: at, role: 'favicon', path: '/favicon.ico', referer: page.referer})
      }
      if (r.chance(this.params.apiShare)) {
        const api = r.pick(rt.profile.api)
        const at = t + r.uniform(600, 3000)
        if (at < lastRequest) {
          times.push(at)
          this.push({...base, time: at, role: 'api', path: api.path, query: api.query, api, referer: page.referer})
        }
      }
      if (browser.devtools) {
        // DevTools fetches the source maps the bundles name, without a referer; the pods have none.
        let at = t + this.devtools.uniform(1200, 2800)
        for (const mapOf of ['main', 'vendor'] as const) {
          if (at >= lastRequest) break
          times.push(at)
          this.push({...base, time: at, role: 'map', mapOf, referer: '-'})
          at += this.devtools.uniform(5, 80)
        }
      }
      if (r.chance(this.params.lazyShare)) {
        // Navigation inside the SPA, seconds to minutes later: lazy route chunks of the same page load,
        // always more than 4 s after the page's previous request (the initial load is over by then).
        let at = t + r.uniform(5 * SECOND, 120 * SECOND)
        const n = r.chance(0.3) ? 2 : 1
        for (let j = 0; j < n; j++) {
          const candidates = rt.profile.routes.filter((x) => !loaded.has(x))
          if (candidates.length === 0 || at >= lastRequest) break
          const chunk = r.pick(candidates)
          loaded.add(chunk)
          times.push(at)
          this.push({...base, time: at, role: 'chunk', route: chunk, referer: page.referer, lazy: true})
          at += r.uniform(5 * SECOND, 60 * SECOND)
        }
      }
      const end = Math.max(...times)
      last = {page, end, loaded}
      // Think time of at least 5 s: no two page loads (or a page load and another request) share a second.
      t = end + r.uniform(5 * SECOND, 90 * SECOND)
    }
    if (last) this.maybeStale(rt, i, last.page, last.end, last.loaded)
  }

  /**
   * A browser whose last page load finished before a deploy may keep the tab open and lazy-load a
   * chunk of its (now gone) build after the deploy ended: a stale client.
   */
  private maybeStale(rt: AppRuntime, i: number, page: PageLoadState, pageEnd: number, loaded: Set<string>): void {
    const d = rt.cluster.deploys.find((x) => x.start > pageEnd)
    if (!d) return
    const candidates = rt.profile.routes.filter((x) => !loaded.has(x))
    if (candidates.length === 0) return
    const lo = Math.max(pageEnd + 6 * MINUTE, d.end + this.params.staleMinAfterEndSeconds * SECOND)
    const hi = Math.min(pageEnd + 25 * MINUTE - 2 * SECOND, this.endMs - SECOND)
    if (lo >= hi) return
    const r = rt.traffic
    if (!r.chance(this.params.staleShare)) return
    const at = r.uniform(lo, hi)
    const browser = page.browser as BrowserState
    this.push({
      time: at, app: i, actor: 'browser', role: 'chunk', route: r.pick(candidates), clientIp: browser.ip, userAgent: browser.userAgent,
      referer: page.referer, browser, pageLoad: page, lazy: true,
    })
  }

  /** Tabs opened before the logs begin: after the main app's first deploy they lazy-load a chunk of its first build. */
  private scheduleTabs(): void {
    const rt = this.apps[0] as AppRuntime
    const d = rt.cluster.deploys[0]
    if (!d || this.params.preexistingTabs <= 0) return
    const r = new Rng(this.params.seed, 'tabs')
    const lo = d.end + this.params.staleMinAfterEndSeconds * SECOND
    const hi = Math.min(lo + 12 * MINUTE, this.endMs - SECOND)
    for (let k = 0; k < this.params.preexistingTabs && lo < hi; k++) {
      const browser = this.newBrowser(r)
      const path = this.pagePathWith(rt, r)
      this.push({
        time: r.uniform(lo, hi), app: 0, actor: 'browser', role: 'chunk', route: r.pick(rt.profile.routes), clientIp: browser.ip,
        userAgent: browser.userAgent, referer: rt.cluster.app.origin + path, browser, lazy: true, tabBuild: d.fromBuild,
      })
    }
  }

  private pagePathWith(rt: AppRuntime, r: Rng): string {
    return r.chance(0.5) ? '/' : rt.profile.routePath(r.pick(rt.profile.routes), r.int(1, 250))
  }

  // ------------------------------------------------------------ noise: probes, crawler, scanners

  /** Build served to page requests of an app at time t (ignoring the rollout overlap). */
  private currentBuild(rt: AppRuntime, t: number): Build {
    let key = rt.cluster.builds[0]?.key as string
    for (const d of rt.cluster.deploys) if (d.end <= t) key = d.toBuild
    return rt.builds.get(key) as Build
  }

  private scheduleNoise(): void {
    const r = this.noise
    const p = this.params
    const main = this.apps[0] as AppRuntime
    const bot = (app: number, actor: Actor, ip: string, userAgent: string, time: number, path: string, role: RequestRole): void => {
      if (time < this.endMs) this.push({time, app, actor, role, clientIp: ip, userAgent, referer: '-', path})
    }
    if (p.healthzEverySeconds > 0) {
      for (let t = this.startMs + r.uniform(1, 9) * SECOND; t < this.endMs; t += p.healthzEverySeconds * SECOND) {
        bot(0, 'probe', PROBE.ip, PROBE.userAgent, t + r.uniform(0, 900), '/healthz', 'healthz')
      }
    }
    if (p.uptimeEverySeconds > 0) {
      // An uptime monitor checks every app's homepage, the first time as the logs begin.
      const rr = new Rng(p.seed, 'uptime')
      this.apps.forEach((_, i) => {
        for (let t = this.startMs + rr.uniform(300, 900); t < this.endMs; t += p.uptimeEverySeconds * SECOND) {
          bot(i, 'monitor', MONITOR.ip, MONITOR.userAgent, t, '/', 'bot-page')
        }
      })
    }
    if (p.watchEverySeconds > 0) {
      // The deploy pipeline polls the site's homepage from the moment a rollout starts until just after it ends.
      const rr = new Rng(p.seed, 'deploy-watch')
      this.apps.forEach((rt, i) => {
        for (const d of rt.cluster.deploys) {
          for (let t = d.start + rr.uniform(150, 400); t < d.end + 5 * SECOND; t += p.watchEverySeconds * SECOND * rr.uniform(0.9, 1.1)) {
            if (t >= d.end - DOCUMENT_CLEAR && t < d.end) continue
            bot(i, 'monitor', DEPLOY_WATCHER.ip, DEPLOY_WATCHER.userAgent, t, '/', 'bot-page')
          }
        }
      })
    }
    const assetList = (rt: AppRuntime, b: Build): string[] => [b.main.path, b.vendor.path, b.css.path, ...rt.profile.routes.map((x) => b.chunks[x]?.path as string)]
    if (p.crawler) {
      // A routine crawl of the current build's bundles.
      let t = this.startMs + r.uniform(3, 6) * MINUTE
      for (const path of assetList(main, this.currentBuild(main, t)).slice(0, 3)) {
        bot(0, 'crawler', CRAWLER.ip, CRAWLER.userAgent, t, path, 'bot-asset')
        t += r.uniform(2, 9) * SECOND
      }
      // After each deploy of each app: the crawler re-fetches bundles it discovered earlier, from the old build.
      this.apps.forEach((rt, i) => {
        const rr = i === 0 ? r : new Rng(p.seed, appStream('noise', rt.cluster.app))
        for (const d of rt.cluster.deploys) {
          const old = rt.builds.get(d.fromBuild) as Build
          let at = d.end + rr.uniform(60, 420) * SECOND
          const paths = assetList(rt, old)
          const n = rr.int(3, 5)
          for (let k = 0; k < n; k++) {
            bot(i, 'crawler', CRAWLER.ip, CRAWLER.userAgent, at, paths[k] as string, 'bot-asset')
            at += rr.uniform(1, 6) * SECOND
          }
          const fresh = rt.builds.get(d.toBuild) as Build
          bot(i, 'crawler', CRAWLER.ip, CRAWLER.userAgent, at, fresh.main.path, 'bot-asset')
        }
      })
    }
    if (p.crawlerPagesEverySeconds > 0) {
      // Googlebot also crawls the homepage and a route now and then: a bot's page loads are no page loads.
      const rr = new Rng(p.seed, 'crawler-pages')
      for (let t = this.startMs + rr.uniform(30, 90) * SECOND; t < this.endMs; t += p.crawlerPagesEverySeconds * SECOND * rr.uniform(0.7, 1.3)) {
        bot(0, 'crawler', CRAWLER.ip, CRAWLER.userAgent, t, '/', 'bot-page')
        bot(0, 'crawler', CRAWLER.ip, CRAWLER.userAgent, t + rr.uniform(2, 8) * SECOND, this.pagePathWith(main, rr), 'bot-page')
      }
    }
    for (let k = 0; k < p.scanners; k++) {
      const scanner = SCANNERS[k % SCANNERS.length] as (typeof SCANNERS)[number]
      let t = this.startMs + ((k + 1) * p.durationSeconds * SECOND) / (p.scanners + 1) + r.uniform(-60, 60) * SECOND
      for (const path of scanner.paths) {
        bot(0, 'scanner', scanner.ip, scanner.userAgent, t, path, isAssetPath(path) ? 'bot-asset' : 'bot-path')
        t += r.uniform(0.3, 1.5) * SECOND
      }
    }
    if (p.probeEverySeconds > 0) {
      // skewscan's probe around each deploy of the main app: the page, then the bundles its shell names, at once.
      const rr = new Rng(p.seed, 'skewscan-probe')
      for (const d of main.cluster.deploys) {
        for (let t = d.start - 30 * SECOND + rr.uniform(0, 2) * SECOND; t < d.end + 30 * SECOND; t += p.probeEverySeconds * SECOND) {
          if (t >= d.end - DOCUMENT_CLEAR && t < d.end) continue
          const page: PageLoadState = {browser: undefined, path: '/', referer: `${main.cluster.app.origin}/`, id: undefined, shellBuild: undefined}
          const base = {app: 0, actor: 'skewscan' as const, clientIp: SKEWSCAN_PROBE.ip, userAgent: SKEWSCAN_PROBE.userAgent, pageLoad: page}
          this.push({...base, time: t, role: 'page', path: '/', referer: '-'})
          const a0 = t + rr.uniform(8, 30)
          for (const entry of ['main', 'vendor', 'css'] as const) this.push({...base, time: a0 + rr.uniform(0, 15), role: 'entry', entry, referer: page.referer})
        }
      }
    }
  }

  // ------------------------------------------------------------ routing and responses

  /**
   * The pod that answers. Round robin over the live pods (oldest first), or the browser's
   * INGRESSCOOKIE pod. Until a build's shell has been served on `/` once, its pods answer `/` only
   * (the request goes to the next pod whose build the logs have shown): every length a shell comes
   * back with is then one the logs showed on `/` before, never a route or a fallback body first.
   */
  private route(rt: AppRuntime, it: Intent, path: string, t: number, live: Pod[]): Pod {
    const nextInRotation = (): Pod => {
      const pod = live[rt.roundRobin % live.length] as Pod
      rt.roundRobin++
      return pod
    }
    const shown = (pod: Pod): Pod => {
      if (isShellPath(path) || rt.learned.size === 0 || rt.learned.has(pod.build)) return pod
      for (let k = 0; k < live.length; k++) {
        const other = live[(rt.roundRobin + k) % live.length] as Pod
        if (rt.learned.has(other.build)) {
          rt.roundRobin++
          return other
        }
      }
      return pod
    }
    const b = it.browser
    if (this.params.routing === 'cookie' && it.actor === 'browser' && b) {
      if (b.pinned && b.pinned.start <= t && t < b.pinned.stop) return shown(b.pinned)
      // No cookie yet: the balancer picks and the cookie pins it. Pinned pod gone: re-pinned at random.
      b.pinned = b.pinned ? this.routing.pick(live) : nextInRotation()
      return shown(b.pinned)
    }
    return shown(nextInRotation())
  }

  private apiBytes(rt: AppRuntime, range: {min: number; max: number}): number {
    let n = this.wire.int(range.min, range.max)
    const band = rt.dynamic ? DYNAMIC_SHELL_BAND : undefined
    for (;;) {
      if (rt.forbiddenSizes.has(n)) n++
      else if (band && n >= band.lo && n <= band.hi) n = band.hi + 1
      else return n
    }
  }

  /** The next length of a dynamic shell: tens of bytes from the last one, never one it had before. */
  private dynamicShellBytes(rt: AppRuntime): number {
    const dyn = rt.dynamic as NonNullable<AppRuntime['dynamic']>
    const {lo, hi} = DYNAMIC_SHELL_BAND
    for (let tries = 0; tries < 40; tries++) {
      let n = dyn.current + dyn.rng.int(8, 60) * (dyn.rng.chance(0.5) ? 1 : -1)
      if (n < lo) n = 2 * lo - n
      if (n > hi) n = 2 * hi - n
      if (!dyn.used.has(n)) {
        dyn.used.add(n)
        dyn.current = n
        return n
      }
    }
    for (let d = 1; d <= hi - lo; d++) {
      for (const n of [dyn.current + d, dyn.current - d]) {
        if (n >= lo && n <= hi && !dyn.used.has(n)) {
          dyn.used.add(n)
          dyn.current = n
          return n
        }
      }
    }
    throw new Error('the dynamic shell ran out of lengths')
  }

  private respond(rt: AppRuntime, pod: Pod, path: string, it: Intent): {status: number; bytes: number; response: ResponseKind; contentType: string} {
    const build = rt.builds.get(pod.build) as Build
    if (path === '/healthz') return {status: 200, bytes: HEALTHZ_BYTES, response: 'health', contentType: 'text/plain'}
    if (path === '/favicon.ico') return {status: 200, bytes: FAVICON_BYTES, response: 'favicon', contentType: 'image/x-icon'}
    if (path.startsWith('/api/')) {
      return {status: 200, bytes: this.apiBytes(rt, it.api ?? {min: 90, max: 400}), response: 'api', contentType: 'application/json'}
    }
    const own = rt.assets.get(pod.build)?.get(path)
    if (own !== undefined) {
      const contentType = path.endsWith('.css') ? 'text/css' : path.endsWith('.woff2') ? 'font/woff2' : 'application/javascript'
      return {status: 200, bytes: own, response: 'asset', contentType}
    }
    if (this.params.missing === '404' && podTreatsAsAsset(path)) {
      return {status: 404, bytes: NOT_FOUND_BYTES, response: 'not-found', contentType: 'text/html'}
    }
    const bytes = rt.dynamic ? this.dynamicShellBytes(rt) : build.shellBytes
    return {status: 200, bytes, response: 'shell', contentType: 'text/html'}
  }

  private timing(response: ResponseKind, bytes: number): number {
    const w = this.wire
    switch (response) {
      case 'asset':
        return 1 + Math.round(bytes / w.uniform(2000, 20000))
      case 'api':
        return w.int(8, 140)
      case 'shell':
        return w.int(1, 6)
      default:
        return w.int(0, 3)
    }
  }

  private eventId(time: number, seq: number): string {
    const buf = Buffer.alloc(16)
    buf[0] = 1
    buf.writeUIntBE(time, 3, 6)
    buf.writeUInt32BE(seq, 9)
    buf.writeUIntBE(this.wire.int(0, 0xffffff), 13, 3)
    return buf.toString('base64').replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')
  }

  /** A lazy load of a page whose build a deploy is retiring, in the window around that deploy's end (see LAZY_CLEAR_AFTER). */
  private inLazyClearance(rt: AppRuntime, build: string, t: number): boolean {
    const before = lazyClearBefore(rt.cluster.app.step)
    return rt.cluster.deploys.some((d) => d.fromBuild === build && t >= d.end - before && t <= d.end + LAZY_CLEAR_AFTER)
  }

  private emit(it: Intent): SimRequest | undefined {
    const rt = this.apps[it.app] as AppRuntime
    const exactTime = Math.floor(it.time)
    const time = this.params.resolution === 's' ? exactTime - (exactTime % SECOND) : exactTime
    const page = it.pageLoad
    const pageBuild = page?.shellBuild ?? it.tabBuild
    if (it.lazy && pageBuild !== undefined && this.inLazyClearance(rt, pageBuild, exactTime)) return undefined
    let path = it.path
    if (it.role === 'entry' || it.role === 'chunk' || it.role === 'map') {
      const build = pageBuild !== undefined ? rt.builds.get(pageBuild) : undefined
      if (!build) throw new Error('asset request before its page load got a shell')
      if (it.role === 'entry') path = build[it.entry as EntryName].path
      else if (it.role === 'chunk') path = build.chunks[it.route as string]?.path
      else path = `${build[it.mapOf as 'main' | 'vendor'].path}.map`
    }
    if (path === undefined) throw new Error('request without a path')
    const {live, stopped} = this.podsAt(rt, exactTime)
    if (live.length === 0) throw new Error(`no live pod of ${rt.service} at ${new Date(exactTime).toISOString()}`)
    const pod = this.route(rt, it, path, exactTime, live)
    const res = this.respond(rt, pod, path, it)
    if (res.response === 'shell' && isShellPath(path)) rt.learned.add(pod.build)
    if (it.role === 'page') {
      if (!page || res.response !== 'shell') throw new Error(`page request ${path} did not get a shell`)
      page.shellBuild = pod.build
      if (page.browser) page.id = ++this.pageLoadCounter
    }
    // A few requests are logged after a retry: a first attempt at another upstream answered 502.
    let retriedFrom: Pod | undefined
    const justStopped = stopped[0]
    if (justStopped && this.retry.chance(0.5)) retriedFrom = justStopped
    else if (this.retry.chance(this.params.retryShare)) {
      const others = live.filter((p) => p !== pod)
      if (others.length > 0) retriedFrom = this.retry.pick(others)
    }
    const w = this.wire
    const upstreamTimeMs = this.timing(res.response, res.bytes)
    const requestTimeMs = upstreamTimeMs + w.int(0, 1) + (retriedFrom ? w.int(1, 3) : 0)
    const seq = this.emitted++
    const app = rt.cluster.app
    const request: SimRequest = {
      seq,
      time,
      exactTime,
      app: app.service,
      upstreamName: app.upstreamName,
      vhost: app.host,
      actor: it.actor,
      role: it.role,
      clientIp: it.clientIp,
      userAgent: it.userAgent,
      method: 'GET',
      path,
      query: it.query ?? '',
      referer: it.referer,
      status: res.status,
      bytes: res.bytes,
      contentType: res.contentType,
      response: res.response,
      pod: pod.name,
      upstream: `${pod.ip}:${pod.port}`,
      servingBuild: pod.build,
      requestLength: it.actor === 'browser' ? w.int(380, 760) : w.int(120, 260),
      requestTimeMs,
      upstreamTimeMs,
      requestId: w.hex(32),
      eventId: this.eventId(time, seq),
    }
    if (retriedFrom) request.retriedFrom = `${retriedFrom.ip}:${retriedFrom.port}`
    if (it.browser) request.browserId = it.browser.id
    if (pageBuild !== undefined && it.role !== 'page') request.pageBuild = pageBuild
    else if (it.role === 'page' && page) request.pageBuild = page.shellBuild
    if (page?.id !== undefined) request.pageLoadId = page.id
    this.truth.onRequest(request)
    return request
  }
}
