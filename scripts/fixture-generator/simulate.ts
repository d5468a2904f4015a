/**
 * A deterministic simulation of the `web` service during rolling deploys.
 *
 * Browsers, a crawler, scanners and kube-probe produce request intents; a heap replays them in time
 * order; each intent is routed through the balancer to a live pod, and the pod answers from its own
 * build (asset, SPA fallback shell, or 404). Everything the truth needs (which pod and build answered,
 * which shell a page load got) comes from this replay, never from the written logs.
 *
 * `simulateIter` / `runSimulation` stream requests so large runs need not hold them; `simulate` collects.
 */
import {API_CALLS, BROWSER_UAS, CRAWLER, FAVICON_BYTES, HEALTHZ_BYTES, NOT_FOUND_BYTES, PROBE, ROUTES, SCANNERS} from './catalog'
import type {Route} from './catalog'
import {buildAssets, livePods, makeBuilds, planCluster} from './cluster'
import type {Cluster} from './cluster'
import {MinHeap} from './heap'
import {resolveParams} from './params'
import {podTreatsAsAsset} from './paths'
import {Rng} from './rng'
import {TruthCollector} from './truth'
import type {
  Actor,
  Build,
  DeployPlan,
  Pod,
  RequestRole,
  ResponseKind,
  SimParams,
  SimRequest,
  Simulation,
  Truth,
} from './types'

const SECOND = 1000
const MINUTE = 60 * SECOND
/** A request this soon after a pod stopped may first have been sent to it (502) and retried. */
const RETRY_WINDOW = 3 * SECOND

interface BrowserState {
  id: number
  ip: string
  userAgent: string
  /** The pod named by the INGRESSCOOKIE, in cookie routing. */
  pinned: Pod | undefined
}

interface PageLoadState {
  browser: BrowserState
  path: string
  referer: string
  /** Assigned when the shell is served, so ids follow time order. */
  id: number | undefined
  shellBuild: string | undefined
}

type EntryName = 'app' | 'vendor' | 'css'

interface Intent {
  time: number
  seq: number
  arrival?: true
  actor: Actor
  role: RequestRole
  clientIp: string
  userAgent: string
  referer: string
  path?: string
  query?: string
  entry?: EntryName
  route?: Route
  api?: {min: number; max: number}
  browser?: BrowserState
  pageLoad?: PageLoadState
}

type IntentInput = Omit<Intent, 'seq'>

/**
 * Iterates over the simulated requests in time order without holding them; the generator's return
 * value is the truth. Use this (with the per-format writers) for large runs.
 */
export function simulateIter(input: Partial<SimParams> = {}): Generator<SimRequest, Truth, void> {
  const params = resolveParams(input)
  const cluster = planCluster(params, makeBuilds(params))
  return new Engine(params, cluster).requests()
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
  private pushSeq = 0
  private emitted = 0
  private pageLoadCounter = 0
  private browserCounter = 0
  private roundRobin = 0
  private readonly builds = new Map<string, Build>()
  private readonly assets = new Map<string, Map<string, number>>()
  private readonly identities = new Set<string>()
  private readonly recentIps: string[] = []
  private readonly truth: TruthCollector
  // Independent streams: traffic shape does not depend on routing, so routing modes can be compared.
  private readonly traffic: Rng
  private readonly noise: Rng
  private readonly routing: Rng
  private readonly wire: Rng
  private readonly retry: Rng
  private readonly forbiddenSizes: Set<number>

  constructor(
    private readonly params: SimParams,
    private readonly cluster: Cluster,
  ) {
    this.startMs = Date.parse(params.start)
    this.endMs = this.startMs + params.durationSeconds * SECOND
    for (const b of cluster.builds) {
      this.builds.set(b.key, b)
      this.assets.set(b.key, buildAssets(b))
    }
    this.forbiddenSizes = new Set(cluster.builds.map((b) => b.shellBytes))
    this.truth = new TruthCollector(params, cluster)
    this.traffic = new Rng(params.seed, 'traffic')
    this.noise = new Rng(params.seed, 'noise')
    this.routing = new Rng(params.seed, 'routing')
    this.wire = new Rng(params.seed, 'wire')
    this.retry = new Rng(params.seed, 'retry')
  }

  *requests(): Generator<SimRequest, Truth, void> {
    this.scheduleNoise()
    this.scheduleArrival(this.startMs)
    for (let it = this.heap.pop(); it; it = this.heap.pop()) {
      if (it.arrival) {
        this.arrive(it.time)
        this.scheduleArrival(it.time)
      } else {
        yield this.emit(it)
      }
    }
    return this.truth.finish()
  }

  /** Pods change only at rollout steps: cache the live list and the recently stopped pods between changes. */
  private podCache: {from: number; to: number; live: Pod[]; stopped: Pod[]} | undefined
  private readonly changeTimes: number[] = []

  private podsAt(t: number): {live: Pod[]; stopped: Pod[]} {
    const c = this.podCache
    if (c && t >= c.from && t < c.to) return c
    if (this.changeTimes.length === 0) {
      const times = new Set<number>()
      for (const p of this.cluster.pods) {
        for (const x of [p.start, p.stop, p.stop + RETRY_WINDOW]) if (Number.isFinite(x)) times.add(x)
      }
      this.changeTimes.push(-Infinity, ...[...times].sort((a, b) => a - b), Infinity)
    }
    let i = 0
    while ((this.changeTimes[i + 1] as number) <= t) i++
    const from = this.changeTimes[i] as number
    const to = this.changeTimes[i + 1] as number
    const live = livePods(this.cluster.pods, t)
    const stopped = this.cluster.pods.filter((p) => p.stop <= t && t - p.stop < RETRY_WINDOW)
    this.podCache = {from, to, live, stopped}
    return this.podCache
  }

  private push(intent: IntentInput): void {
    this.heap.push({...intent, seq: this.pushSeq++})
  }

  // ------------------------------------------------------------ arrivals and browsers

  private inSurge(t: number): boolean {
    const {beforeSeconds, afterSeconds} = this.params.surge
    return this.cluster.deploys.some((d) => t >= d.start - beforeSeconds * SECOND && t <= d.end + afterSeconds * SECOND)
  }

  /** Next browser arrival after t: a Poisson process whose rate rises around deploys (thinning). */
  private scheduleArrival(from: number): void {
    const base = this.params.browsersPerMinute / MINUTE
    const factor = this.params.surge.factor
    const max = base * factor
    const lastArrival = this.endMs - 2 * MINUTE
    let t = from
    for (;;) {
      t += this.traffic.exp(1 / max)
      if (t >= lastArrival) return
      const rate = this.inSurge(t) ? max : base
      if (this.traffic.float() * max < rate) break
    }
    this.push({time: t, arrival: true, actor: 'browser', role: 'page', clientIp: '', userAgent: '', referer: '-'})
  }

  private randomIp(): string {
    const r = this.traffic
    if (r.chance(0.75)) return `${r.pick(['203.0.113', '198.51.100', '192.0.2'])}.${r.int(1, 254)}`
    return `100.${r.int(64, 127)}.${r.int(0, 255)}.${r.int(1, 254)}`
  }

  /** A new browser: a unique (client ip, user agent) pair; a few share an office IP with another browser. */
  private newBrowser(): BrowserState {
    const r = this.traffic
    for (let attempt = 0; ; attempt++) {
      const userAgent = r.pick(BROWSER_UAS)
      // After a few collisions (large runs exhaust the small documentation ranges) use 100.64.0.0/10.
      const ip =
        attempt < 4 && this.recentIps.length > 0 && r.chance(0.08)
          ? r.pick(this.recentIps)
          : attempt < 4
            ? this.randomIp()
            : `100.${r.int(64, 127)}.${r.int(0, 255)}.${r.int(1, 254)}`
      const key = `${ip}\t${userAgent}`
      if (this.identities.has(key)) continue
      this.identities.add(key)
      this.recentIps.push(ip)
      if (this.recentIps.length > 50) this.recentIps.shift()
      return {id: ++this.browserCounter, ip, userAgent, pinned: undefined}
    }
  }

  private pagePath(): string {
    const r = this.traffic
    if (r.chance(0.7)) return '/'
    const route = r.pick(ROUTES)
    return route === 'products' ? `/products/${r.int(1, 250)}` : `/${route}`
  }

  /** A browser arrives: plan all its page loads (1–3), their assets, API calls and lazy chunks. */
  private arrive(t0: number): void {
    const r = this.traffic
    const browser = this.newBrowser()
    const count = 1 + r.weighted([50, 30, 20])
    const lastPageStart = this.endMs - 30 * SECOND
    const lastRequest = this.endMs - SECOND
    let t = t0
    let last: {page: PageLoadState; end: number; loaded: Set<Route>} | undefined
    // The first document request comes from a search result or a typed URL; later ones follow a link.
    let documentReferer = r.chance(0.4) ? 'https://www.google.com/' : '-'
    for (let k = 0; k < count && t < lastPageStart; k++) {
      const path = this.pagePath()
      const page: PageLoadState = {
        browser,
        path,
        referer: this.params.origin + path,
        id: undefined,
        shellBuild: undefined,
      }
      const base = {actor: 'browser' as const, clientIp: browser.ip, userAgent: browser.userAgent, browser, pageLoad: page}
      const times: number[] = [t]
      this.push({...base, time: t, role: 'page', path, referer: documentReferer})
      documentReferer = page.referer
      // Entry bundles, fetched 20–400 ms after the shell, each routed on its own.
      const a0 = t + r.uniform(20, 400)
      const entries: EntryName[] = ['app', 'vendor', 'css']
      entries.forEach((entry, i) => {
        const at = a0 + i * r.uniform(0.5, 6)
        times.push(at)
        this.push({...base, time: at, role: 'entry', entry, referer: page.referer})
      })
      const loaded = new Set<Route>()
      const route = ROUTES.find((x) => path === `/${x}` || path.startsWith(`/${x}/`))
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
        const api = r.pick(API_CALLS)
        const at = t + r.uniform(600, 3000)
        if (at < lastRequest) {
          times.push(at)
          this.push({...base, time: at, role: 'api', path: api.path, query: api.query, api, referer: page.referer})
        }
      }
      if (r.chance(this.params.lazyShare)) {
        // Navigation inside the SPA, seconds to minutes later: lazy route chunks of the same page load.
        let at = t + r.uniform(2 * SECOND, 120 * SECOND)
        const n = r.chance(0.3) ? 2 : 1
        for (let i = 0; i < n; i++) {
          const candidates = ROUTES.filter((x) => !loaded.has(x))
          if (candidates.length === 0 || at >= lastRequest) break
          const chunk = r.pick(candidates)
          loaded.add(chunk)
          times.push(at)
          this.push({...base, time: at, role: 'chunk', route: chunk, referer: page.referer})
          at += r.uniform(2 * SECOND, 60 * SECOND)
        }
      }
      const end = Math.max(...times)
      last = {page, end, loaded}
      // Think time of at least 5 s: no two page loads (or a page load and another request) share a second.
      t = end + r.uniform(5 * SECOND, 90 * SECOND)
    }
    if (last) this.maybeStale(last.page, last.end, last.loaded)
  }

  /**
   * A browser whose last page load finished before a deploy may keep the tab open and lazy-load a
   * chunk of its (now gone) build after the deploy ended: a stale client.
   */
  private maybeStale(page: PageLoadState, pageEnd: number, loaded: Set<Route>): void {
    const deploys = this.cluster.deploys
    const di = deploys.findIndex((d) => d.start > pageEnd)
    const d = deploys[di]
    if (!d) return
    const candidates = ROUTES.filter((x) => !loaded.has(x))
    if (candidates.length === 0) return
    const next: DeployPlan | undefined = deploys[di + 1]
    const lo = Math.max(pageEnd + 6 * MINUTE, d.end + this.params.staleMinAfterEndSeconds * SECOND)
    const hi = Math.min(
      pageEnd + 25 * MINUTE - 2 * SECOND,
      // Stay clear of the next deploy's rollout (margin plus one incident gap), so each stale lazy load
      // belongs to the deploy that made it stale.
      next ? next.start - (this.params.deployMarginSeconds + this.params.incidentGapSeconds + 60) * SECOND : Infinity,
      this.endMs - SECOND,
    )
    if (lo >= hi) return
    const r = this.traffic
    if (!r.chance(this.params.staleShare)) return
    const at = r.uniform(lo, hi)
    const browser = page.browser
    this.push({
      time: at,
      actor: 'browser',
      role: 'chunk',
      route: r.pick(candidates),
      clientIp: browser.ip,
      userAgent: browser.userAgent,
      referer: page.referer,
      browser,
      pageLoad: page,
    })
  }

  // ------------------------------------------------------------ noise: probes, crawler, scanners

  /** Build served to page requests at time t (ignoring the rollout overlap). */
  private currentBuild(t: number): Build {
    let key = this.cluster.builds[0]?.key as string
    for (const d of this.cluster.deploys) if (d.end <= t) key = d.toBuild
    return this.builds.get(key) as Build
  }

  private scheduleNoise(): void {
    const r = this.noise
    const p = this.params
    const bot = (actor: Actor, ip: string, userAgent: string, time: number, path: string, role: RequestRole): void => {
      if (time < this.endMs) this.push({time, actor, role, clientIp: ip, userAgent, referer: '-', path})
    }
    if (p.healthzEverySeconds > 0) {
      for (let t = this.startMs + r.uniform(1, 9) * SECOND; t < this.endMs; t += p.healthzEverySeconds * SECOND) {
        bot('probe', PROBE.ip, PROBE.userAgent, t + r.uniform(0, 900), '/healthz', 'healthz')
      }
    }
    if (p.crawler) {
      const assetList = (b: Build): string[] => [b.app.path, b.vendor.path, b.css.path, ...ROUTES.map((x) => b.chunks[x]?.path as string)]
      // A routine crawl of the current build's bundles.
      let t = this.startMs + r.uniform(3, 6) * MINUTE
      for (const path of assetList(this.currentBuild(t)).slice(0, 3)) {
        bot('crawler', CRAWLER.ip, CRAWLER.userAgent, t, path, 'bot-asset')
        t += r.uniform(2, 9) * SECOND
      }
      // After each deploy: the crawler re-fetches bundles it discovered earlier, from the old build.
      for (const d of this.cluster.deploys) {
        const old = this.builds.get(d.fromBuild) as Build
        let at = d.end + r.uniform(60, 420) * SECOND
        const paths = assetList(old)
        const n = r.int(3, 5)
        for (let i = 0; i < n; i++) {
          bot('crawler', CRAWLER.ip, CRAWLER.userAgent, at, paths[i] as string, 'bot-asset')
          at += r.uniform(1, 6) * SECOND
        }
        const fresh = this.builds.get(d.toBuild) as Build
        bot('crawler', CRAWLER.ip, CRAWLER.userAgent, at, fresh.app.path, 'bot-asset')
      }
    }
    for (let i = 0; i < p.scanners; i++) {
      const scanner = SCANNERS[i % SCANNERS.length] as (typeof SCANNERS)[number]
      let t = this.startMs + ((i + 1) * p.durationSeconds * SECOND) / (p.scanners + 1) + r.uniform(-60, 60) * SECOND
      for (const path of scanner.paths) {
        bot('scanner', scanner.ip, scanner.userAgent, t, path, 'bot-asset')
        t += r.uniform(0.3, 1.5) * SECOND
      }
    }
  }

  // ------------------------------------------------------------ routing and responses

  private route(it: Intent, t: number, live: Pod[]): Pod {
    const nextInRotation = (): Pod => {
      const pod = live[this.roundRobin % live.length] as Pod
      this.roundRobin++
      return pod
    }
    const b = it.browser
    if (this.params.routing === 'cookie' && it.actor === 'browser' && b) {
      if (b.pinned && b.pinned.start <= t && t < b.pinned.stop) return b.pinned
      // No cookie yet: the balancer picks and the cookie pins it. Pinned pod gone: re-pinned at random.
      b.pinned = b.pinned ? this.routing.pick(live) : nextInRotation()
      return b.pinned
    }
    return nextInRotation()
  }

  private apiBytes(range: {min: number; max: number}): number {
    let n = this.wire.int(range.min, range.max)
    while (this.forbiddenSizes.has(n)) n++
    return n
  }

  private respond(pod: Pod, path: string, it: Intent): {status: number; bytes: number; response: ResponseKind; contentType: string} {
    const build = this.builds.get(pod.build) as Build
    if (path === '/healthz') return {status: 200, bytes: HEALTHZ_BYTES, response: 'health', contentType: 'text/plain'}
    if (path === '/favicon.ico') return {status: 200, bytes: FAVICON_BYTES, response: 'favicon', contentType: 'image/x-icon'}
    if (path.startsWith('/api/')) {
      return {status: 200, bytes: this.apiBytes(it.api ?? {min: 90, max: 400}), response: 'api', contentType: 'application/json'}
    }
    const own = this.assets.get(pod.build)?.get(path)
    if (own !== undefined) {
      const contentType = path.endsWith('.css') ? 'text/css' : 'application/javascript'
      return {status: 200, bytes: own, response: 'asset', contentType}
    }
    if (this.params.missing === '404' && podTreatsAsAsset(path)) {
      return {status: 404, bytes: NOT_FOUND_BYTES, response: 'not-found', contentType: 'text/html'}
    }
    return {status: 200, bytes: build.shellBytes, response: 'shell', contentType: 'text/html'}
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

  private emit(it: Intent): SimRequest {
    const exactTime = Math.floor(it.time)
    const time = this.params.resolution === 's' ? exactTime - (exactTime % SECOND) : exactTime
    const {live, stopped} = this.podsAt(exactTime)
    if (live.length === 0) throw new Error(`no live pod at ${new Date(exactTime).toISOString()}`)
    const pod = this.route(it, exactTime, live)
    const page = it.pageLoad
    let path = it.path
    if (it.role === 'entry' || it.role === 'chunk') {
      const build = page?.shellBuild ? this.builds.get(page.shellBuild) : undefined
      if (!build) throw new Error('asset request before its page load got a shell')
      path = it.role === 'entry' ? build[it.entry as EntryName].path : build.chunks[it.route as Route]?.path
    }
    if (path === undefined) throw new Error('request without a path')
    const res = this.respond(pod, path, it)
    if (it.role === 'page') {
      if (!page || res.response !== 'shell') throw new Error(`page request ${path} did not get a shell`)
      page.id = ++this.pageLoadCounter
      page.shellBuild = pod.build
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
    const request: SimRequest = {
      seq,
      time,
      exactTime,
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
    if (page) {
      request.pageLoadId = page.id
      request.pageBuild = page.shellBuild
    }
    this.truth.onRequest(request)
    return request
  }
}
