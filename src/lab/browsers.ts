import {setMaxListeners} from 'node:events'
import {extractAssets} from '../probe/assets'
import {classifyAsset} from '../probe/classify'
import type {Clock} from '../probe/clock'
import {mapBounded} from '../util/map-bounded'
import {CookieJar} from '../probe/cookie-jar'
import {HttpClient, type HttpResult} from '../probe/http-client'
import type {AssetKind} from '../probe/assets'
import {chunkMap, ROUTES} from './builds'
import {Random} from './random'
import type {BrowserRecord} from './record'
import type {RumIdentity, RumJournal, RumLoad, RumPage, RumVisitor} from './rum'

/** How simulated people use the app (ms). Short enough to watch a deploy in seconds, long enough to hold tabs across pod changes. */
export interface BrowserTiming {
  /** Pause between one page load's end and the next. */
  thinkMs: readonly [number, number]
  /** A lazy route chunk comes this long after the page loaded. */
  lazyMs: readonly [number, number]
  /** Share of page loads that lazy-load a chunk later. */
  lazyShare: number
  /** Page loads per visit; then the person leaves and a new one (new IP, no cookies) takes the slot. */
  pagesPerVisit: readonly [number, number]
}

export const DEFAULT_TIMING: BrowserTiming = {thinkMs: [400, 2000], lazyMs: [300, 2500], lazyShare: 0.5, pagesPerVisit: [1, 4]}

export interface FleetOptions {
  /** The balancer's URL, ending in `/`. */
  baseUrl: string
  count: number
  seed: number
  timing: BrowserTiming
  record: BrowserRecord
  /** Build index of a version named by a pod's `x-lab-build` header. */
  buildIndex: (version: string | undefined) => number | null
  clock: Clock
  /** Where the browsers' RUM events go (`lab --rum-out`); without it, nothing of RUM is done. */
  rum?: RumJournal
}

const USER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
]
const PAGE_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

/** A distinct documentation-range client IP per visitor (the balancer trusts X-Forwarded-For from loopback). */
export function visitorIp(n: number): string {
  if (n < 254) return `192.0.2.${n + 1}`
  if (n < 508) return `198.51.100.${n - 253}`
  if (n < 762) return `203.0.113.${n - 507}`
  const m = n - 762
  return `100.${64 + ((m >> 16) & 63)}.${(m >> 8) & 255}.${(m & 255) + 1}`
}

interface Visitor {
  key: string
  client: HttpClient
  /** The visitor to RUM, and who it is in the record (a copy of its own: the record goes into the report). */
  rum?: {visitor: RumVisitor; identity: RumIdentity}
}

/** What a page loaded with is to RUM: a module script (an entry, a modulepreload), a classic script, a stylesheet, a preload. */
const RUM_LOAD: Record<AssetKind, RumLoad> = {module: 'module', modulepreload: 'module', script: 'script', stylesheet: 'stylesheet', preload: 'preload'}

/** The page load under way: its id in the record, its shell, and its RUM view when RUM samples it. */
interface Page {
  id: number
  url: string
  bytes: number
  build: number | null
  rum?: RumPage
}

/**
 * Simulated browsers going through the real balancer: a shell, then its scripts and stylesheets
 * concurrently (found with the probe's HTML parser), the route's chunk at once on route pages, a
 * lazy chunk of another route later (its URL read from the app bundle the browser actually got),
 * think times, cookies kept like a browser. Every outcome goes to the record.
 */
export class BrowserFleet {
  private stopping = false
  private readonly sleeps = new AbortController()
  private readonly visitors = new Set<Visitor>()
  private loops: Promise<void>[] = []
  private visits = 0
  private readonly now: () => number

  constructor(private readonly o: FleetOptions) {
    this.now = () => o.clock.now()
  }

  private sleep(ms: number): Promise<void> {
    return this.o.clock.sleep(ms, this.sleeps.signal)
  }

  start(): void {
    // Every browser sleeps on the same signal.
    setMaxListeners(this.o.count + 10, this.sleeps.signal)
    this.loops = Array.from({length: this.o.count}, (_, slot) => this.slot(slot))
  }

  /** Lets every page load in flight finish (up to `graceMs`), then cuts what is left. */
  async stop(graceMs = 3000): Promise<void> {
    this.stopping = true
    this.sleeps.abort()
    let timer: NodeJS.Timeout | undefined
    await Promise.race([Promise.all(this.loops), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))])
    clearTimeout(timer)
    for (const v of this.visitors) v.client.close()
    await Promise.all(this.loops)
  }

  private async slot(slot: number): Promise<void> {
    const rng = new Random(this.o.seed, `browser-${slot}`)
    const t = this.o.timing
    await this.sleep(rng.between(0, t.thinkMs[1]))
    for (let n = 0; !this.stopping; n++) {
      const ip = visitorIp(this.visits++)
      const userAgent = rng.pick(USER_AGENTS)
      const rum = this.o.rum?.visitor(slot, n, ip, userAgent)
      const visitor: Visitor = {
        key: `${ip} ${userAgent}`,
        client: new HttpClient({userAgent, timeoutMs: 10_000, headers: {'x-forwarded-for': ip}, jar: new CookieJar(this.now), maxSockets: 6}, this.o.clock),
        ...(rum === undefined ? {} : {rum: {visitor: rum, identity: {session: rum.session, sampled: rum.sampled, ...(rum.user === undefined ? {} : {user: rum.user})}}}),
      }
      this.visitors.add(visitor)
      try {
        const pages = rng.int(t.pagesPerVisit[0], t.pagesPerVisit[1])
        for (let p = 0; p < pages && !this.stopping; p++) {
          await this.pageLoad(visitor, rng)
          await this.sleep(rng.between(t.thinkMs[0], t.thinkMs[1]))
        }
      } finally {
        visitor.client.close()
        this.visitors.delete(visitor)
      }
    }
  }

  private async pageLoad(v: Visitor, rng: Random): Promise<void> {
    const route = rng.next() < 0.7 ? undefined : rng.pick(ROUTES)
    const path = route === undefined ? '/' : route === 'products' ? `/products/${rng.int(1, 250)}` : `/${route}`
    const lazy = rng.next() < this.o.timing.lazyShare ? {route: rng.pick(ROUTES.filter((r) => r !== route)), delay: rng.between(...this.o.timing.lazyMs)} : undefined
    // RUM's view starts when the shell is asked for; it is written once the page load is over (or dropped, if no shell came).
    const view = v.rum === undefined ? undefined : this.o.rum?.start(v.rum.visitor, this.now())
    try {
      const shell = await v.client.get(new URL(path, this.o.baseUrl).href, {keepBody: true, accept: PAGE_ACCEPT})
      if (shell.status === undefined || shell.status < 200 || shell.status >= 300) {
        this.o.record.error()
        return
      }
      const version = header(shell, 'x-lab-build')
      const page: Page = {id: this.o.record.startPageLoad(v.key, this.now()), url: shell.url, bytes: shell.bytes, build: this.o.buildIndex(version)}
      if (view) {
        view.shell = {url: shell.url, ...(version === undefined ? {} : {version})}
        page.rum = view
      }
      const assets = extractAssets((shell.body ?? Buffer.alloc(0)).toString('utf8'), shell.url)
      let chunks: Record<string, string> = {}
      await mapBounded(assets, 6, async (a) => {
        const r = await this.fetchAsset(v, a.url, page, 'load', RUM_LOAD[a.kind], a.kind === 'module')
        if (r.ok && a.kind === 'module') chunks = chunkMap((r.result.body ?? Buffer.alloc(0)).toString('utf8'))
      })
      // The route's chunk comes with the page (a module of its initial load); another route's, later, by import().
      const routeChunk = route === undefined ? undefined : chunks[route]
      if (routeChunk) await this.fetchAsset(v, new URL(routeChunk, page.url).href, page, 'load', 'module', false)
      const lazyChunk = lazy === undefined ? undefined : chunks[lazy.route]
      if (lazy && lazyChunk) {
        await this.sleep(lazy.delay)
        if (!this.stopping) await this.fetchAsset(v, new URL(lazyChunk, page.url).href, page, 'lazy', 'import', false)
      }
    } finally {
      if (view) this.o.rum?.end(view)
    }
  }

  private async fetchAsset(v: Visitor, url: string, page: Page, phase: 'load' | 'lazy', load: RumLoad, keepBody: boolean): Promise<{ok: boolean; result: HttpResult}> {
    const asked = this.now()
    const r = await v.client.get(url, {referer: page.url, keepBody})
    const {outcome} = classifyAsset(r, page.bytes)
    const time = this.now()
    this.o.record.asset({
      time, browser: v.key, path: new URL(r.url).pathname, pageLoad: page.id, pageBuild: page.build,
      servingBuild: this.o.buildIndex(header(r, 'x-lab-build')), outcome, phase, ...(v.rum ? {rum: v.rum.identity} : {}),
    })
    page.rum?.requests.push({time: asked, end: time, url, load, ...(r.status === undefined ? {} : {status: r.status}), bytes: r.bytes, outcome})
    return {ok: outcome === 'ok', result: r}
  }
}

function header(r: HttpResult, name: string): string | undefined {
  const v = r.headers[name]
  return typeof v === 'string' ? v : undefined
}
