import type {AccessEvent, RecordLocation} from '../model/access-event'
import type {DeclaredDeploy} from '../model/deploy'
import type {Direction, FailureReason, FailureRecord} from '../model/report'
import {assetMatcher} from './asset-patterns'
import {type Build, BuildTracker, buildId} from './builds'
import {detach} from '../util/detach'
import type {KeyedAccessEvent, ReleasableEvent} from '../util/session-key'
import {IncidentClusterer, incidentId, PageLoadTimeline} from './incidents'
import type {AnalysisOptions} from './options'
import {TrafficHistogram} from './traffic'
import {type Outcome, summarize} from './summarize'
import {MAX_PAGE_REQUESTS, type PageLoad, refererPath, SessionTracker} from './sessions'

/** A user hit by at least one failure, kept for the whole run (so kept small). */
export interface AffectedSession {
  key: string
  clientIp: string
  userAgent: string
  firstFailure: number
  lastFailure: number
  /** Page loads of this user that broke (a page load belongs to one user: counted at its first failure). */
  brokenPageLoads: number
  failedRequests: number
  /** Indexes of the incidents that hit the user, in the order they did. */
  incidents: number[]
}

/**
 * The streaming analysis. Feed it events in non-decreasing time order (`push`), then `finish`.
 *
 * Two stages run over the stream. Before a batch at time t is judged, the look-ahead stage learns
 * the shell fingerprints served up to exactly t + `lookaheadMs` (not "as far as the input happens to
 * reach", so leaving out unrelated traffic, as a narrowed Datadog pull does, cannot change the
 * answer); so when it decides whether an asset got a shell back, it knows shells served a little later. Events with the same timestamp are judged as
 * one batch, shells first and otherwise in a fixed order of their content: logs with 1-second
 * timestamps give no order within a second, and the answer must not depend on the input's order.
 */
export class Analyzer {
  readonly builds: BuildTracker
  readonly sessions: SessionTracker
  readonly clusterer: IncidentClusterer<AffectedSession>
  readonly timeline = new PageLoadTimeline()
  readonly traffic = new TrafficHistogram(10_000)
  readonly affected = new Map<string, AffectedSession>()
  readonly orphanClients = new Set<string>()
  orphanRequests = 0
  pageLoads = 0
  brokenPageLoads = 0
  failedRequests = 0
  duplicates = 0
  /** Where the first few dropped duplicates were, for the skipped-records summary. */
  readonly duplicateExamples: RecordLocation[] = []
  first: number | undefined
  last: number | undefined

  private readonly isAsset: (path: string) => boolean
  private readonly shellPaths: Set<string>
  /** The traffic timeline is kept only for the HTML report. */
  private readonly detail: boolean
  private queue: AccessEvent[] = []
  private head = 0
  /** The first queued event the look-ahead stage has not learned from. */
  private learnHead = 0
  /** User agents kept for the whole run (of affected users), one copy per distinct agent. */
  private readonly keptAgents = new Map<string, string>()
  /** Session keys by client address, then user agent (see sessionKeyOf). */
  private keys = new Map<string, CachedKey>()
  private oldKeys = new Map<string, CachedKey>()
  private keyCount = 0
  /** The last referer seen and its path: assets of one page come together and share it. */
  private lastReferer: string | undefined
  private lastRefererPath: string | undefined

  /** `onFailure` receives every flagged request; without it none is built. */
  constructor(
    private readonly options: AnalysisOptions,
    private readonly onFailure?: (f: FailureRecord) => void,
  ) {
    this.builds = new BuildTracker(options.lengthTolerance)
    this.sessions = new SessionTracker(options.horizonMs)
    this.clusterer = new IncidentClusterer<AffectedSession>(options.incidentGapMs, options.detail === true)
    this.isAsset = assetMatcher(options.assetPatterns)
    this.shellPaths = new Set(options.shellPaths)
    this.detail = options.detail === true
  }

  push(e: AccessEvent): void {
    const time = e.time
    if (this.last !== undefined && time < this.last) throw new Error(`events out of order: ${time} after ${this.last}`)
    this.first ??= time
    this.last = time
    this.queue.push(e)
    this.judgeUntil(time - this.options.lookaheadMs)
  }

  /** Judges what is left and returns the outcome, deploys resolved and incidents classified. */
  finish(declared: readonly DeclaredDeploy[] = []): Outcome {
    this.judgeUntil(Number.POSITIVE_INFINITY)
    return summarize(this, declared, this.options)
  }

  private isShellPathResponse(e: AccessEvent): boolean {
    const status = e.status
    return status >= 200 && status < 300 && e.bytes > 0 && e.method === 'GET' && this.shellPaths.has(e.path) && !this.isAsset(e.path)
  }

  /** Judges every batch of equal timestamps strictly before `limit`. */
  private judgeUntil(limit: number): void {
    const q = this.queue
    const lookahead = this.options.lookaheadMs
    while (this.head < q.length) {
      const t = (q[this.head] as AccessEvent).time
      if (t >= limit) break
      let end = this.head + 1
      // Input is in time order and a later event exists (t < limit), so this batch is complete.
      while (end < q.length && (q[end] as AccessEvent).time === t) end++
      // Every event up to t + look-ahead has arrived (t < limit = newest - look-ahead).
      while (this.learnHead < q.length && (q[this.learnHead] as AccessEvent).time <= t + lookahead) this.learnSecond(q)
      const from = this.head
      this.head = end
      this.judgeBatch(q, from, end)
    }
    if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head)
      this.learnHead -= this.head
      this.head = 0
    }
  }

  /**
   * The look-ahead stage, over the queued events of one timestamp: shell responses teach their
   * fingerprints. They are learned in an order of their content, not of their arrival, because it
   * decides which new build is numbered first and which build a pod is last seen serving, and
   * events of one timestamp have no order (a reorder buffer or a sort may hand them over any way).
   */
  private learnSecond(q: readonly AccessEvent[]): void {
    const t = (q[this.learnHead] as AccessEvent).time
    let shells: AccessEvent[] | undefined
    for (let x = q[this.learnHead]; x !== undefined && x.time === t; x = q[++this.learnHead]) {
      if (this.isShellPathResponse(x)) (shells ??= []).push(x)
    }
    if (!shells) return
    if (shells.length > 1) shells.sort((a, b) => a.bytes - b.bytes || cmp(a.upstream ?? '', b.upstream ?? ''))
    for (const x of shells) this.builds.learn(x.bytes, x.time, x.upstream)
  }

  /** Judges the events q[from, to), all of one timestamp. */
  private judgeBatch(q: readonly AccessEvent[], from: number, to: number): void {
    const n = to - from
    if (n === 1) {
      const e = q[from] as AccessEvent
      this.judge(e, this.isAsset(e.path), this.sessionKeyOf(e))
      release(e)
      return
    }
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
      const e = q[from + i] as AccessEvent
      const key = (keys[i] = this.sessionKeyOf(e))
      const asset = (assets[i] = this.isAsset(e.path))
      const groups = asset ? assetsByKey : pages
      const group = groups.get(key)
      if (group === undefined) groups.set(key, i)
      else if (typeof group === 'number') groups.set(key, [group, i])
      else group.push(i)
    }
    const order: number[] = []
    const byContent = (x: number, y: number): number => compareEvents(q[from + x] as AccessEvent, keys[x] as string, q[from + y] as AccessEvent, keys[y] as string)
    for (const groups of [pages, assetsByKey]) {
      // The default sort compares strings by UTF-16 code units, as cmp does.
      for (const key of [...groups.keys()].sort()) {
        const group = groups.get(key) as number | number[]
        if (typeof group === 'number') order.push(group)
        else for (const i of group.sort(byContent)) order.push(i)
      }
    }
    let ids: Set<string> | undefined
    for (const i of order) {
      const e = q[from + i] as AccessEvent
      const id = e.id
      if (id !== undefined) {
        ids ??= new Set()
        if (ids.has(id)) {
          if (this.duplicates++ < 3) this.duplicateExamples.push(e.location)
          release(e)
          continue
        }
        ids.add(id)
      }
      this.judge(e, assets[i] as boolean, keys[i] as string)
      release(e)
    }
  }

  /**
   * sessionKey(e): the key the reader built when it gives one (packed events do), else the
   * explicit session, else `clientIp user-agent` built once per client rather than once per
   * request (a new string per request would be hashed afresh at every session lookup). The cache
   * keeps two generations of at most KEY_CACHE clients, so it stays bounded.
   */
  private sessionKeyOf(e: AccessEvent): string {
    const given = (e as KeyedAccessEvent).sessionKey
    if (given !== undefined) return given
    const session = e.session
    if (session !== undefined) return session
    const ip = e.clientIp
    const ua = e.userAgent
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

  /** A copy of a user agent kept for the whole run, one per distinct agent (there are few). */
  private keep(userAgent: string): string {
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
    if (this.detail) this.traffic.request(e.service ?? '', e.time)
    const method = e.method
    if (method !== 'GET' && method !== 'HEAD') return
    this.sessions.expire(e.time)
    if (!asset) {
      this.judgePage(e, key)
      return
    }
    const pl = this.sessions.pageLoadFor(key, e.time, this.refererPathOf(e.referer))
    const reason = this.failureReason(e, pl)
    if (pl?.requests && pl.requests.length < MAX_PAGE_REQUESTS) {
      pl.requests.push({time: e.time, path: e.path, status: e.status, bytes: e.bytes, build: reason?.serving ?? this.builds.podBuild(e.upstream), reason: reason?.reason})
    }
    if (!reason) {
      if (pl) this.sessions.touch(key, pl, e.time)
      return
    }
    if (!pl) {
      this.orphanRequests++
      if (!this.orphanClients.has(key)) this.orphanClients.add(detach(key))
      return
    }
    this.recordFailure(e, key, pl, reason.reason, reason.serving)
  }

  /** A non-asset request: a shell (a page load starts) or something else (ignored). */
  private judgePage(e: AccessEvent, key: string): void {
    if (e.method !== 'GET') return
    let build: Build | undefined
    if (e.status >= 200 && e.status < 300) {
      build = this.shellPaths.has(e.path) && e.bytes > 0
        ? this.builds.match(e.bytes)
        : this.builds.matchNear(e.bytes, e.time, this.options.horizonMs)
      if (!build) return
      this.builds.served(build, e.time, e.upstream, e.version)
    } else if (!(e.status === 304 && this.shellPaths.has(e.path))) {
      return // a revalidated shell (304) still starts a page load, of a build we cannot tell
    }
    const service = e.service ?? ''
    const pl = this.sessions.startPageLoad(key, e.time, e.path, service, build)
    if (this.options.detail) pl.requests = [{time: e.time, path: e.path, status: e.status, bytes: e.bytes, build}]
    this.timeline.add(service, e.time)
    if (this.detail) this.traffic.pageLoad(service, e.time)
    this.pageLoads++
  }

  private failureReason(e: AccessEvent, pl: PageLoad | undefined): {reason: FailureReason; serving: Build | undefined} | undefined {
    if (e.status === 404 || e.status === 410) return {reason: 'missing', serving: this.servingPod(e, pl)}
    if (e.status < 200 || e.status >= 300) return undefined
    const shell = this.builds.matchNear(e.bytes, e.time, this.options.horizonMs)
    if (shell) return {reason: 'fallback', serving: shell}
    if (e.contentType && /^\s*text\/html/i.test(e.contentType)) return {reason: 'contentType', serving: this.servingPod(e, pl)}
    return undefined
  }

  /** The build of the pod that answered: the pod's own shells when it is logged, else the other build being served then. */
  private servingPod(e: AccessEvent, pl: PageLoad | undefined): Build | undefined {
    return this.builds.podBuild(e.upstream) ?? this.builds.otherServing(pl?.build, e.time, this.options.deployMarginMs)
  }

  private recordFailure(e: AccessEvent, key: string, pl: PageLoad, reason: FailureReason, serving: Build | undefined): void {
    const direction = directionOf(pl.build, serving)
    let user = this.affected.get(key)
    if (!user) {
      // Kept for the whole run: copied off the read buffer they were cut from (see detach).
      user = {
        key: detach(key), clientIp: detach(e.clientIp), userAgent: this.keep(e.userAgent), firstFailure: e.time, lastFailure: e.time,
        brokenPageLoads: 0, failedRequests: 0, incidents: [],
      }
      this.affected.set(user.key, user)
    }
    if (pl.failures === 0) [pl.path, pl.session, pl.service] = [detach(pl.path), user.key, detach(pl.service)]
    const inc = this.clusterer.incidentAt(pl.service, e.time)
    const newUser = !user.incidents.includes(inc.index)
    // concat: an array of exactly the size needed (nearly every user is hit by one incident).
    if (newUser) user.incidents = user.incidents.concat(inc.index)
    const newPageLoad = pl.lastIncident !== inc.index
    pl.lastIncident = inc.index
    this.clusterer.add(inc, e.time, newUser ? user : undefined, newPageLoad ? pl : undefined, reason, direction)
    if (this.detail) this.traffic.failure(pl.service, e.time)
    this.sessions.touch(key, pl, e.time)
    if (pl.failures++ === 0) {
      this.brokenPageLoads++
      user.brokenPageLoads++
    }
    this.failedRequests++
    user.lastFailure = e.time
    user.failedRequests++
    this.onFailure?.({
      time: new Date(e.time).toISOString(), reason, direction, method: e.method, path: e.path, status: e.status,
      bytes: e.bytes, session: key, clientIp: e.clientIp, userAgent: e.userAgent, service: pl.service || null,
      pageLoad: {id: pl.id, time: new Date(pl.time).toISOString(), path: pl.path, build: buildId(pl.build)},
      servingBuild: buildId(serving), upstream: e.upstream, requestId: e.requestId, incidentId: incidentId(inc),
      source: {file: e.location.file, line: e.location.line},
    })
  }
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

/** Clients whose session keys are cached, per generation. */
const KEY_CACHE = 32_768

function directionOf(page: Build | undefined, serving: Build | undefined): Direction {
  if (!page || !serving || page === serving) return 'unknown'
  return page.index < serving.index ? 'oldPageNewPod' : 'newPageOldPod'
}

/** A total order on events of the same time that depends only on their content. */
function compareEvents(a: AccessEvent, ak: string, b: AccessEvent, bk: string): number {
  return cmp(ak, bk) || cmp(a.path, b.path) || a.status - b.status || a.bytes - b.bytes ||
    cmp(a.requestId ?? '', b.requestId ?? '') || cmp(a.id ?? '', b.id ?? '') || cmp(a.method, b.method) ||
    // Only copies of one record get this far: the first one read is kept, the later ones are duplicates.
    cmp(a.location.file, b.location.file) || a.location.line - b.location.line
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
