import type {AccessEvent, RecordLocation} from '../model/access-event'
import type {FailureReason} from '../model/report'
import {boundText, MAX_FIELD_LENGTH} from '../util/bounded-text'
import {detach} from '../util/detach'
import type {KeyedAccessEvent, ReleasableEvent} from '../util/session-key'
import {copyKeyOf, type CopyKeyedEvent} from '../util/copy-key'
import {appNameOf, appSourceOf, AppState, type CountedApp, NonUserTally} from './apps'
import {type CountedShells, countedShells, inCountedBucket} from './census'
import type {PageCensus} from '../model/page-census'
import {EXAMPLES_PER_REASON} from '../model/rejection'
import {assetMatcher} from './asset-patterns'
import type {Build} from './builds'
import {type AnalysisOptions, MAX_FULL_APPS} from './options'
import {assetKind, isDocumentPath, isSourceMap} from './request-kinds'
import {AgentClassifier, type AgentKind} from '../util/agent-kind'
import type {FailureDetail} from './failures'
import {MAX_PAGE_REQUESTS, type PageLoad, refererPath} from './sessions'
import {TrafficHistogram} from './traffic'
import {cmp} from '../util/compare'
import {Ring} from '../util/ring'

/** Apps kept as counts at most; the requests of further ones are counted together. */
const MAX_COUNTED_APPS = 100_000

/** Requests of apps beyond the limit of apps analysed in full (options.maxApps). */
export interface AppLimit {
  requests: number
  /** The first few, for the skipped-records summary. */
  examples: DuplicateExample[]
}

/**
 * The streaming pass. Feed it events in non-decreasing time order (`push`), then `drain`. Each
 * request goes to its app; per app it learns the builds (shell lengths) and when each was served,
 * follows sessions and page loads, and keeps every failed asset request of a person compactly, to
 * be attributed once the deploy windows are known (attribute.ts).
 *
 * Two stages run over the stream. Before a batch at time t is judged, the look-ahead stage learns
 * the shell lengths served up to exactly t + `lookaheadMs` (not "as far as the input happens to
 * reach", so leaving out unrelated traffic, as a narrowed Datadog pull does, cannot change the
 * answer); so when it decides whether an asset got a shell back, it knows shells served a little
 * later. Events with the same timestamp are judged as one batch, shells first and otherwise in a
 * fixed order of their content: logs with 1-second timestamps give no order within a second, and
 * the answer must not depend on the input's order.
 */
export class Detector {
  /** Apps analysed in full: those with shell or asset traffic (see CountedApp). */
  readonly apps = new Map<string, AppState>()
  /** Apps with no shell or asset traffic (yet): counts only. */
  private readonly countedApps = new Map<string, CountedApp>()
  /** Requests of apps beyond MAX_COUNTED_APPS kept as counts. */
  otherAppRequests = 0
  /** Crawlers and skewscan's probe at apps kept as counts. */
  readonly countedCrawlers = new NonUserTally()
  readonly countedProbe = new NonUserTally()
  readonly appLimit: AppLimit = {requests: 0, examples: []}
  readonly traffic: TrafficHistogram | undefined
  duplicates = 0
  /** Where the first few dropped duplicates were, for the skipped-records summary. */
  readonly duplicateExamples: DuplicateExample[] = []
  /** Duplicates and app-limit requests by the file they were read from: each file's skipped records add up to the total. */
  readonly setApartByFile = new Map<string, number>()
  first: number | undefined
  last: number | undefined

  private readonly agents = new AgentClassifier()
  private readonly isAsset: (path: string) => boolean
  private readonly shellPaths: Set<string>
  private readonly pageLoadIds = {next: 1}
  /** Events by their place in the input (their position): judged from `head`, learned from `learnHead`. */
  private readonly queue = new Ring<AccessEvent>(4096)
  /** Copies of one record among the queued events of one second (one table, emptied for each second). */
  private readonly copies = new Copies(this.queue)
  private head = 0
  /** The first queued event the look-ahead stage has not learned from. */
  private learnHead = 0
  /** Session keys by client address, then user agent (see sessionKeyOf). */
  private keys = new Map<string, CachedKey>()
  private oldKeys = new Map<string, CachedKey>()
  private keyCount = 0
  /** The last referer seen and its path: assets of one page come together and share it. */
  private lastReferer: string | undefined
  private lastRefererPath: string | undefined
  private lastApp: AppState | undefined
  /** User agents kept for the whole run (of affected users), one copy per distinct agent. */
  private readonly keptAgents = new Map<string, string>()

  /** Shells counted rather than read (census.ts), learned as the look-ahead reaches them. */
  private readonly counted: CountedShells[]
  private countedHead = 0
  /**
   * Whether a page request's time lies in a bucket counted rather than read: such a request (of a
   * person whose failure's page load it is) is read for its session, but the count has it already.
   */
  private readonly inCount: (time: number) => boolean = () => false
  /** Whether routes whose path holds no dot are counted too (PageCensus.routes). */
  private readonly routesCounted: boolean = false

  /** `keepDetail`: every failure's method, status, bytes, pod and location, for `--failures` and the per-request reports. */
  constructor(private readonly options: AnalysisOptions, private readonly keepDetail: boolean, census?: PageCensus) {
    if (census) this.inCount = inCountedBucket(census)
    if (census?.routes) this.routesCounted = true
    this.counted = census ? countedShells(census) : []
    this.isAsset = assetMatcher(options.assetPatterns)
    this.shellPaths = new Set(options.shellPaths)
    this.traffic = options.detail ? new TrafficHistogram(10_000) : undefined
  }

  push(e: AccessEvent): void {
    const time = e.time
    if (this.last !== undefined && time < this.last) throw new Error(`events out of order: ${time} after ${this.last}`)
    this.first ??= time
    this.last = time
    this.queue.push(e)
    this.judgeUntil(time - this.options.lookaheadMs)
  }

  /** Judges what is left. */
  drain(): void {
    this.judgeUntil(Number.POSITIVE_INFINITY)
    this.learnCounted(Number.POSITIVE_INFINITY)
  }

  /** The look-ahead stage, over counted shells: those of buckets starting up to `until`. */
  private learnCounted(until: number): void {
    const c = this.counted
    while (this.countedHead < c.length && (c[this.countedHead] as CountedShells).time <= until) {
      const {time, app, bytes, n} = c[this.countedHead++] as CountedShells
      // A length's first shell is read, so its app is known by then; a count of an app never read is of nothing the report shows.
      this.apps.get(app)?.builds.counted(bytes, time, n)
    }
  }

  /**
   * The app of a request, analysed in full: made on its first shell or asset request (`asset`, or
   * a shell path answered, decided only for an app not seen yet); `counted` when the app has had
   * neither (it is then counted, not analysed: any client sets Host); undefined when `--app` leaves
   * it out, or when options.maxApps apps are analysed already (its requests are then counted apart
   * as app-limit).
   */
  private appFor(e: AccessEvent, asset: boolean, judging: boolean): AppState | 'counted' | undefined {
    const source = this.options.appSource ?? 'auto'
    const name = appNameOf(e, source)
    const last = this.lastApp
    if (last !== undefined && last.name === name) return last
    if (this.options.app !== undefined && name !== this.options.app) return undefined
    let app = this.apps.get(name)
    if (!app) {
      if (!asset && !this.isShellPathResponse(e)) {
        this.countApart(name, e)
        return 'counted'
      }
      if (this.apps.size >= (this.options.maxApps ?? MAX_FULL_APPS)) {
        // Counted once, when judged (the look-ahead reads shells before).
        if (judging) {
          if (this.appLimit.requests++ < EXAMPLES_PER_REASON) this.appLimit.examples.push({location: e.location, matched: `app ${boundText(name, 80)}`})
          this.setApart(e)
        }
        return undefined
      }
      app = new AppState(detach(name), appSourceOf(e, source), this.options, this.pageLoadIds, this.keepDetail)
      const counted = this.countedApps.get(name)
      if (counted !== undefined) {
        app.requests = counted.requests
        app.resolutionMs = counted.resolutionMs
        this.countedApps.delete(name)
      }
      this.apps.set(app.name, app)
    }
    this.lastApp = app
    return app
  }

  /** A record skipped by the analysis (a duplicate, past the app limit), counted for its file. */
  private setApart(e: AccessEvent): void {
    const file = e.location.file
    this.setApartByFile.set(file, (this.setApartByFile.get(file) ?? 0) + 1)
  }

  /** A request of an app with no shell or asset traffic so far: counted. */
  private countApart(name: string, e: AccessEvent): void {
    let c = this.countedApps.get(name)
    if (c === undefined) {
      if (this.countedApps.size >= MAX_COUNTED_APPS) {
        this.otherAppRequests++
        return
      }
      this.countedApps.set(detach(name), (c = {requests: 0, resolutionMs: 1}))
    }
    c.requests++
    if (e.resolutionMs > c.resolutionMs) c.resolutionMs = e.resolutionMs
  }

  /** Apps kept as counts (no shell or asset request), and their requests. */
  get countedOnly(): {apps: number; requests: number} {
    let requests = this.otherAppRequests
    for (const c of this.countedApps.values()) requests += c.requests
    return {apps: this.countedApps.size, requests}
  }

  private isShellPathResponse(e: AccessEvent): boolean {
    const status = e.status
    return status >= 200 && status < 300 && e.bytes > 0 && e.method === 'GET' && this.shellPaths.has(e.path) && !this.isAsset(e.path)
  }

  /** Judges every batch of equal timestamps strictly before `limit`. */
  private judgeUntil(limit: number): void {
    const q = this.queue
    const lookahead = this.options.lookaheadMs
    while (this.head < q.end) {
      const t = (q.at(this.head) as AccessEvent).time
      if (t >= limit) break
      let end = this.head + 1
      // Input is in time order and a later event exists (t < limit), so this batch is complete.
      while (end < q.end && (q.at(end) as AccessEvent).time === t) end++
      // Every event up to t + look-ahead has arrived (t < limit = newest - look-ahead).
      if (this.countedHead < this.counted.length) this.learnCounted(t + lookahead)
      while (this.learnHead < q.end && (q.at(this.learnHead) as AccessEvent).time <= t + lookahead) this.learnSecond(q)
      const from = this.head
      this.head = end
      this.judgeBatch(q, from, end)
    }
    // Judged events are let go of (the queue keeps only those waiting).
    q.dropBefore(this.head)
  }

  /**
   * The look-ahead stage, over the queued events of one timestamp: shell responses teach their
   * lengths. They are learned in an order of their content, not of their arrival, because it
   * decides which length is numbered first and which build a pod is last seen serving, and events
   * of one timestamp have no order (a reorder buffer or a sort may hand them over any way).
   */
  private learnSecond(q: Ring<AccessEvent>): void {
    const t = (q.at(this.learnHead) as AccessEvent).time
    let shells: {e: AccessEvent; app: AppState}[] | undefined
    // Copies of one record (judgeBatch drops them) teach nothing: one of them is learned.
    const copies = this.copies.begin(this.learnHead)
    for (let x = q.at(this.learnHead); x !== undefined && x.time === t; x = q.at(++this.learnHead)) {
      if (!this.isShellPathResponse(x) || copies.seen(x, this.learnHead)) continue
      const app = this.appFor(x, true, false)
      if (app && app !== 'counted') (shells ??= []).push({e: x, app})
    }
    if (!shells) return
    if (shells.length > 1) shells.sort((a, b) => cmp(a.app.name, b.app.name) || a.e.bytes - b.e.bytes || cmp(a.e.upstream ?? '', b.e.upstream ?? ''))
    const counted = this.inCount(t)
    for (const {e, app} of shells) app.builds.learn(e.bytes, e.time, e.upstream, e.responseBytes === true, counted)
  }

  /** Judges the events at positions [from, to) of the queue, all of one timestamp. */
  private judgeBatch(q: Ring<AccessEvent>, from: number, to: number): void {
    const n = to - from
    if (n === 1) {
      const e = q.at(from) as AccessEvent
      this.judge(e, this.isAsset(e.path), this.sessionKeyOf(e))
      release(e)
      return
    }
    const events = new Array<AccessEvent>(n)
    const keys = new Array<string>(n)
    const assets = new Array<boolean>(n)
    // The order: pages before assets, then by session key, then compareEvents (a total order, so
    // the same whatever the input order). Sorted by groups: the distinct keys of each kind with the
    // native string sort, then each key's few events (one page load's requests share a second and
    // a key) with compareEvents, instead of n log n calls of a comparator over all of them.
    // A group of one is its event's index (most are), of more an array of them in input order.
    const pages = new Map<string, number | number[]>()
    const assetsByKey = new Map<string, number | number[]>()
    for (let i = 0; i < n; i++) {
      const e = (events[i] = q.at(from + i) as AccessEvent)
      const key = (keys[i] = this.sessionKeyOf(e))
      const asset = (assets[i] = this.isAsset(e.path))
      const groups = asset ? assetsByKey : pages
      const group = groups.get(key)
      if (group === undefined) groups.set(key, i)
      else if (typeof group === 'number') groups.set(key, [group, i])
      else group.push(i)
    }
    const order: number[] = []
    const byContent = (x: number, y: number): number => compareEvents(events[x] as AccessEvent, keys[x] as string, events[y] as AccessEvent, keys[y] as string)
    for (const groups of [pages, assetsByKey]) {
      // The default sort compares strings by UTF-16 code units, as cmp does.
      for (const key of [...groups.keys()].sort()) {
        const group = groups.get(key) as number | number[]
        if (typeof group === 'number') order.push(group)
        else for (const i of sortFew(group, byContent)) order.push(i)
      }
    }
    const copies = this.copies.begin(from)
    for (const i of order) {
      const e = events[i] as AccessEvent
      const original = copies.seen(e, from + i)
      if (original !== undefined) {
        if (this.duplicates++ < EXAMPLES_PER_REASON) this.duplicateExamples.push({location: e.location, matched: matchedOf(e, original)})
        this.setApart(e)
        continue
      }
      this.judge(e, assets[i] as boolean, keys[i] as string)
    }
    // Released once the whole batch is judged: Copies compares a later copy with the event itself.
    for (const e of events) release(e)
  }

  /**
   * sessionKey(e): the key the reader built when it gives one (packed events do), else the
   * explicit session, else `clientIp user-agent` built once per client rather than once per
   * request (a new string per request would be hashed afresh at every session lookup). The cache
   * keeps two generations of at most KEY_CACHE clients, so it stays bounded.
   */
  private sessionKeyOf(e: AccessEvent): string {
    // Readers bound every field (normalize/fields.ts boundFields); events made some other way are
    // bounded here alike, so a key is never longer than an address and an agent at their bound.
    const given = (e as KeyedAccessEvent).sessionKey
    if (given !== undefined) return boundText(given, MAX_KEY_LENGTH)
    const session = e.session
    if (session !== undefined) return boundText(session, MAX_KEY_LENGTH)
    const ip = boundText(e.clientIp)
    const ua = boundText(e.userAgent)
    const entry = this.keys.get(ip)
    if (entry !== undefined) {
      if (entry.ua === ua) return entry.key
      const other = entry.others?.get(ua)
      if (other !== undefined) return other
    }
    const old = entry === undefined ? this.oldKeys.get(ip) : undefined
    let key: string
    if (old !== undefined && (old.ua === ua || old.others?.has(ua))) {
      // Seen in the previous generation: the entry moves over as it is.
      this.keys.set(old.ip, old)
      key = old.ua === ua ? old.key : (old.others?.get(ua) as string)
    } else {
      key = `${detach(ip)} ${detach(ua)}`
      if (entry === undefined) {
        const kept = detach(ip)
        this.keys.set(kept, {ip: kept, ua: detach(ua), key})
      } else {
        (entry.others ??= new Map()).set(detach(ua), key)
      }
    }
    if (++this.keyCount > KEY_CACHE) {
      this.oldKeys = this.keys
      this.keys = new Map()
      this.keyCount = 0
    }
    return key
  }

  /** A copy of a user agent kept for the whole run, one per distinct agent (there are few), bounded as in its session key. */
  private keep(agent: string): string {
    const userAgent = boundText(agent)
    let kept = this.keptAgents.get(userAgent)
    if (kept === undefined) this.keptAgents.set((kept = detach(userAgent)), kept)
    return kept
  }

  private refererPathOf(referer: string | undefined): string | undefined {
    if (referer !== this.lastReferer) {
      this.lastReferer = referer
      this.lastRefererPath = refererPath(referer)
    }
    return this.lastRefererPath
  }

  private judge(e: AccessEvent, asset: boolean, key: string): void {
    const app = this.appFor(e, asset, true)
    if (app === 'counted') return this.countNonUser(e, key)
    if (!app) return
    const time = e.time
    app.requests++
    if (e.resolutionMs > app.resolutionMs) app.resolutionMs = e.resolutionMs
    this.traffic?.request(app.name, time)
    const method = e.method
    if (method !== 'GET' && method !== 'HEAD') return
    app.sessions.expire(time)
    const agent = this.agents.kind(e.userAgent)
    if (agent !== undefined) (agent === 'crawler' ? app.crawlers : app.probe).request(key)
    // Any response of a pod known to run a build shows that build being served.
    const pod = app.builds.podBuild(e.upstream)
    if (pod) app.builds.served(pod, time)
    app.evidence.response(e.upstream, time, e.version)
    if (asset) this.judgeAsset(app, e, key, agent)
    else this.judgePage(app, e, key, agent)
  }

  /** Crawlers and the probe at an app kept as counts, as judge counts them at an app analysed in full. */
  private countNonUser(e: AccessEvent, key: string): void {
    if (e.method !== 'GET' && e.method !== 'HEAD') return
    const agent = this.agents.kind(e.userAgent)
    if (agent !== undefined) (agent === 'crawler' ? this.countedCrawlers : this.countedProbe).request(key)
  }

  /** A non-asset request: a shell (a page load starts), a route answered with the shell, or something else (ignored). */
  private judgePage(app: AppState, e: AccessEvent, key: string, agent: AgentKind): void {
    if (e.method !== 'GET') return
    let build: Build | undefined
    const shellPath = this.shellPaths.has(e.path)
    // A shell-path request in a counted bucket is in the count already, and so is a route whose
    // path holds no dot where routes are counted (others are read in full).
    const counted = (shellPath || (this.routesCounted && !e.path.includes('.'))) && this.inCount(e.time)
    if (e.status >= 200 && e.status < 300) {
      if (shellPath && e.bytes > 0) {
        build = app.builds.match(e.bytes)
        if (!counted) app.evidence.shells(e.upstream, 1, {bytes: e.bytes, time: e.time})
      }
      else if (isDocumentPath(e.path)) {
        build = app.builds.matchNear(e.bytes, e.time, this.options.horizonMs)
        // A route answered with a shell.
        if (build && !counted) app.evidence.shells(e.upstream, 1, {bytes: e.bytes, time: e.time})
      }
      if (!build) return
      app.builds.shellServed(build, e.time, e.upstream, e.version, counted)
    } else if (!(e.status === 304 && shellPath)) {
      return // a revalidated shell (304) still starts a page load, of a build we cannot tell
    }
    // Crawlers and the probe load pages too, but they are not people.
    if (agent !== undefined) return
    const pl = app.sessions.startPageLoad(key, e.time, e.path, build, e.upstream)
    if (e.upstream) pl.shellPod = app.evidence.podName(e.upstream)
    if (build) pl.shellBytes = e.bytes
    if (this.options.detail) pl.requests = [{time: e.time, path: e.path, status: e.status, bytes: e.bytes, build, ...(pl.shellPod ? {pod: pl.shellPod} : {})}]
    if (counted) return
    app.timeline.add(e.time)
    this.traffic?.pageLoad(app.name, e.time)
    app.pageLoads++
  }

  private judgeAsset(app: AppState, e: AccessEvent, key: string, agent: AgentKind): void {
    const time = e.time
    const reason = this.failureReason(app, e)
    if (!reason) {
      // Real content (or a cached copy still valid): the path exists, and belongs to the page's build.
      const status = e.status
      const exists = isContent(e)
      const pl = agent === undefined ? this.pageLoadOf(app, e, key) : undefined
      if (exists) {
        app.assetServed(e.path, pl?.build)
        app.evidence.real(e.path, e.upstream, time)
      }
      if (!pl) return
      if (exists) pl.realAssets++
      if (exists) app.sessions.assetAnswered(pl, e.upstream, time)
      // A page whose shell was revalidated (304) is of the build its assets belong to.
      if (pl.build === undefined && exists) pl.build = app.servedAssets.get(e.path) ?? undefined
      app.sessions.touch(key, pl, time, this.options.lazyGapMs)
      if (!isSourceMap(e.path)) this.pageAsset(app, pl, e.path, key, time)
      if (status >= 200 && status < 300 && app.assetBytes.get(e.path) !== e.bytes) this.pend(app, e, pl)
      if (pl.requests && pl.requests.length < MAX_PAGE_REQUESTS) {
        pl.requests.push({time, path: e.path, status: e.status, bytes: e.bytes, build: app.builds.podBuild(e.upstream), ...(e.upstream ? {pod: detach(e.upstream)} : {})})
      }
      return
    }
    // DevTools fetch source maps; a page never does.
    if (isSourceMap(e.path)) {
      app.sourceMapFailures++
      return
    }
    if (agent !== undefined) {
      (agent === 'crawler' ? app.crawlers : app.probe).failedRequests++
      return
    }
    const pl = this.pageLoadOf(app, e, key)
    if (!pl) {
      app.orphan(key, e.path)
      return
    }
    app.sessions.touch(key, pl, time, this.options.lazyGapMs)
    this.pageAsset(app, pl, e.path, key, time)
    if (pl.failures++ === 0) [pl.path, pl.session] = [detach(pl.path), detach(pl.session)]
    if (!app.people.has(pl.session)) app.people.set(pl.session, {clientIp: detach(boundText(e.clientIp)), userAgent: this.keep(e.userAgent)})
    if (pl.requests && pl.requests.length < MAX_PAGE_REQUESTS) {
      pl.requests.push({time, path: e.path, status: e.status, bytes: e.bytes, build: reason.serving, reason: reason.reason, ...(e.upstream ? {pod: detach(e.upstream)} : {})})
    }
    this.traffic?.failure(app.name, time)
    app.failures.add(
      {time, pageLoad: pl, session: pl.session, path: app.evidence.assetPath(e.path), status: e.status, reason: reason.reason, kind: assetKind(e.path), phase: pl.lazy ? 'lazy' : 'initial', serving: reason.serving, pod: e.upstream === undefined ? undefined : app.evidence.podName(e.upstream)},
      () => this.detailOf(e),
    )
  }

  /** An asset `pl` asked for, as build evidence: surely its own in its initial load, or when no other tab of its session was open. */
  private pageAsset(app: AppState, pl: PageLoad, path: string, key: string, time: number): void {
    app.evidence.pageAsset(pl, path, !pl.lazy, !pl.lazy || app.sessions.alone(key, time))
  }

  /** The page load an asset request belongs to: of the tab whose assets it goes with, else see pageLoadFor. */
  private pageLoadOf(app: AppState, e: AccessEvent, key: string): PageLoad | undefined {
    const path = e.path
    return app.sessions.pageLoadFor(key, e.time, this.refererPathOf(e.referer), app.servedAssets.get(path) ?? undefined, app.evidence, path)
  }

  /** A length this path had not shown: kept, in case it is the shell of a build learned later. */
  private pend(app: AppState, e: AccessEvent, pl: PageLoad): void {
    const path = detach(e.path)
    app.assetBytes.set(path, e.bytes)
    app.pending.forgetBefore(e.time - this.options.horizonMs)
    app.pending.add({
      entry: {time: e.time, pageLoad: pl, session: detach(pl.session), path, status: e.status, reason: 'fallback', kind: assetKind(path), phase: pl.lazy ? 'lazy' : 'initial', serving: undefined, pod: e.upstream === undefined ? undefined : app.evidence.podName(e.upstream)},
      bytes: e.bytes, clientIp: detach(boundText(e.clientIp)), userAgent: this.keep(e.userAgent), detail: this.keepDetail ? this.detailOf(e) : undefined,
    })
  }

  private detailOf(e: AccessEvent): FailureDetail {
    return {method: e.method, status: e.status, bytes: e.bytes, service: e.service, upstream: e.upstream, requestId: e.requestId, location: e.location}
  }

  /** Why an asset response is a failure, and the build that answered when it tells; undefined when it is not one. */
  private failureReason(app: AppState, e: AccessEvent): {reason: FailureReason; serving: Build | undefined} | undefined {
    const status = e.status
    if (status === 404 || status === 410) return {reason: 'missing', serving: app.builds.podBuild(e.upstream)}
    if (status < 200 || status >= 300) return undefined
    const shell = app.builds.matchNear(e.bytes, e.time, this.options.horizonMs, e.responseBytes === true)
    if (shell) {
      // A fallback body: the build whose shell it is was being served.
      app.builds.served(shell, e.time)
      return {reason: 'fallback', serving: shell}
    }
    if (e.contentType && /^\s*text\/html/i.test(e.contentType)) return {reason: 'contentType', serving: app.builds.podBuild(e.upstream)}
    return undefined
  }
}

/**
 * Whether an asset response (no failure) shows real content at its path: a GET answered 2xx with a
 * body, or 304 (the server found the client's cached copy, fetched with its body, still current).
 * A `HEAD` of any status sends no body and proves nothing: a scanner's `HEAD /js/app.js` answered
 * 200 by the SPA's fallback is a shell's headers. A 2xx of 0 bytes sent no content either (an
 * aborted transfer, an empty answer). A log that carries no byte count (bytesNotLogged) keeps its
 * 2xx as evidence: there a 0 is no length at all.
 */
function isContent(e: Pick<AccessEvent, 'method' | 'status' | 'bytes' | 'bytesNotLogged'>): boolean {
  if (e.method !== 'GET') return false
  const status = e.status
  if (status === 304) return true
  return status >= 200 && status < 300 && (e.bytes > 0 || e.bytesNotLogged === true)
}

/** Done with an event: nothing the analysis keeps refers to it (see ReleasableEvent). */
function release(e: AccessEvent): void {
  (e as Partial<ReleasableEvent>).release?.()
}

/** The session key of a client address: for its (usually one) user agent, and any others. */
interface CachedKey {
  ip: string
  ua: string
  key: string
  others?: Map<string, string>
}

/** The longest session key: an address and a user agent at their bound (MAX_FIELD_LENGTH each). */
const MAX_KEY_LENGTH = 2 * MAX_FIELD_LENGTH + 1

/** Clients whose session keys are cached, per generation. */
const KEY_CACHE = 32_768

/** A total order on events of the same time that depends only on their content. */
function compareEvents(a: AccessEvent, ak: string, b: AccessEvent, bk: string): number {
  return cmp(ak, bk) || cmp(a.path, b.path) || a.status - b.status || a.bytes - b.bytes ||
    cmp(a.requestId ?? '', b.requestId ?? '') || cmp(a.id ?? '', b.id ?? '') || cmp(a.method, b.method) ||
    cmp(a.upstreamName ?? '', b.upstreamName ?? '') || cmp(a.vhost ?? '', b.vhost ?? '') ||
    // Only copies of one record get this far: the first one read is kept, the later ones are duplicates.
    cmp(a.location.file, b.location.file) || a.location.line - b.location.line
}

/**
 * What makes two events copies of one record, among events of one time: the Datadog event id, else
 * the request id the proxy logged with what the request was and who answered it (a client may send
 * its own X-Request-Id again on another request, or to another app: that one differs in path,
 * status, bytes, address, app, host or pod).
 * Events with neither are never taken for copies: two identical requests in one second are real.
 * Copies holds the events of one timestamp seen so far, by their place in the queue (they stay
 * there, unreleased, until their batch is judged), under their copy keys (util/copy-key.ts: a
 * number made of the id, which a packing reader gives): events whose keys meet are compared by
 * their ids, and by request id those fields one by one. No key string, copy of its fields or
 * location is made for an event, and no id read for one whose key is new (nearly every one).
 *
 * The keys sit in an open-addressing table of typed arrays, kept from one second to the next and
 * emptied by the slots it filled: a Map per second, grown as its events came, was 7% of what the
 * main thread allocated on 1M ingress-nginx lines (94.6 of 1,292 MB). A key's events lie along its
 * probe sequence in the order they were seen, so a copy is compared with the earlier events of its
 * key in that order, as the list of a Map's entry was.
 */
class Copies {
  private keys = new Int32Array(256).fill(-1)
  /** The queue place of the event in each slot, from the second's first (`base`). */
  private at = new Int32Array(256)
  /** The slots filled this second, to empty them at the next. */
  private filled = new Int32Array(128)
  private count = 0
  private base = 0

  constructor(private readonly q: Ring<AccessEvent>) {}

  /** Starts a second, whose first event is at position `base` of the queue: nothing seen yet. */
  begin(base: number): this {
    const keys = this.keys
    for (let i = 0; i < this.count; i++) keys[this.filled[i] as number] = -1
    this.count = 0
    this.base = base
    return this
  }

  /** Where the event was first read, for a copy of an event seen before; an event seen for the first time (at position `at`) is remembered. */
  seen(e: AccessEvent, at: number): RecordLocation | undefined {
    const key = (e as CopyKeyedEvent).copyKey ?? copyKeyOf(e)
    if (key < 0) return undefined
    if ((this.count + 1) * 2 > this.keys.length) this.grow()
    const keys = this.keys
    const mask = keys.length - 1
    // Keys of one kind (the lowest bit): both events have an event id, or neither has and both a request id.
    const byEventId = (key & 1) === 1
    let slot = slotOf(key, mask)
    for (let k = keys[slot] as number; k !== -1; slot = (slot + 1) & mask, k = keys[slot] as number) {
      if (k !== key) continue
      // A key seen before in this second (rare): a copy, another request that sent the same id, or two ids of one hash.
      const x = this.q.at(this.base + (this.at[slot] as number)) as AccessEvent
      if (byEventId ? x.id === e.id : x.requestId === e.requestId && sameRequest(x, e)) return x.location
    }
    keys[slot] = key
    this.at[slot] = at - this.base
    this.filled[this.count++] = slot
    return undefined
  }

  /** Twice the room, the second's keys placed again in the order they were seen (which keeps each key's events in order). */
  private grow(): void {
    const {keys, at, filled, count} = this
    this.keys = new Int32Array(keys.length * 2).fill(-1)
    this.at = new Int32Array(keys.length * 2)
    this.filled = new Int32Array(keys.length)
    const mask = this.keys.length - 1
    for (let i = 0; i < count; i++) {
      const old = filled[i] as number
      const key = keys[old] as number
      let slot = slotOf(key, mask)
      while (this.keys[slot] !== -1) slot = (slot + 1) & mask
      this.keys[slot] = key
      this.at[slot] = at[old] as number
      this.filled[i] = slot
    }
  }
}

/** Where a copy key's probe sequence starts in a table of mask + 1 slots (a power of two). */
const slotOf = (key: number, mask: number): number => (Math.imul(key, 0x9e3779b1) >>> 8) & mask

const sameRequest = (x: AccessEvent, e: AccessEvent): boolean => x.path === e.path && x.status === e.status && x.bytes === e.bytes &&
  x.clientIp === e.clientIp && (x.upstreamName ?? '') === (e.upstreamName ?? '') && (x.vhost ?? '') === (e.vhost ?? '') && (x.upstream ?? '') === (e.upstream ?? '')

/**
 * A few indexes sorted in place by `compare` (a total order): by insertion, which allocates
 * nothing, where a group holds up to 16 (one page load's requests in a second share a key); the
 * native sort beyond. (The native sort copies its array first: for the groups of every second it
 * was a tenth of what the analysis allocated.)
 */
function sortFew(xs: number[], compare: (a: number, b: number) => number): number[] {
  if (xs.length > 16) return xs.sort(compare)
  for (let i = 1; i < xs.length; i++) {
    const x = xs[i] as number
    let j = i - 1
    for (; j >= 0 && compare(xs[j] as number, x) > 0; j--) xs[j + 1] = xs[j] as number
    xs[j + 1] = x
  }
  return xs
}

/** A dropped copy: where it was, and what it shared with the record read before (for the skip's detail). */
export interface DuplicateExample {
  location: RecordLocation
  matched: string
}

/**
 * What a copy shared with its original, as said in its skip: the Datadog event id, or the request id
 * with the time, path, status, bytes, client, pod and app it was logged with (what Copies compares). Log text: bounded.
 */
function matchedOf(e: AccessEvent, first: RecordLocation): string {
  const at = `${first.file === e.location.file ? 'line' : `${first.file.slice(-30)} line`} ${first.line}`
  const cut = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s)
  // eslint-disable-next-line no-control-regex
  const clean = (s: string): string => s.replace(/[\u0000-\u001f\u007f]/g, '?')
  if (e.id !== undefined) return clean(`same event id as ${at}: ${cut(e.id, 60)}`)
  // Named rather than shown: the values are in the line, and a list of them would not fit a detail.
  const parts = ['request id', 'time', 'path', 'status', 'bytes']
  if (e.clientIp !== '') parts.push('client')
  if (e.upstream !== undefined) parts.push('pod')
  if (e.upstreamName !== undefined || e.vhost !== undefined) parts.push('app')
  const names = `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1] ?? ''}`
  return clean(cut(`same ${names} as ${at} (request id ${cut(e.requestId ?? '', 20)})`, 120))
}

