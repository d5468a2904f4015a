import type {AccessEvent, RecordLocation} from '../model/access-event'
import type {DeclaredDeploy} from '../model/deploy'
import type {Direction, FailureReason, FailureRecord} from '../model/report'
import {assetMatcher} from './asset-patterns'
import {type Build, BuildTracker, buildId} from './builds'
import {detach} from '../util/detach'
import {IncidentClusterer, incidentId, PageLoadTimeline} from './incidents'
import type {AnalysisOptions} from './options'
import {TrafficHistogram} from './traffic'
import {type Outcome, summarize} from './summarize'
import {MAX_PAGE_REQUESTS, type PageLoad, refererPath, SessionTracker} from './sessions'

export interface AffectedSession {
  key: string
  clientIp: string
  userAgent: string
  firstFailure: number
  lastFailure: number
  pageLoads: Set<number>
  failedRequests: number
  incidents: Set<number>
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
  readonly clusterer: IncidentClusterer
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
  private queue: AccessEvent[] = []
  private head = 0
  /** The first queued event the look-ahead stage has not learned from. */
  private learnHead = 0

  constructor(
    private readonly options: AnalysisOptions,
    private readonly onFailure: (f: FailureRecord) => void = () => {},
  ) {
    this.builds = new BuildTracker(options.lengthTolerance)
    this.sessions = new SessionTracker(options.horizonMs)
    this.clusterer = new IncidentClusterer(options.incidentGapMs)
    this.isAsset = assetMatcher(options.assetPatterns)
    this.shellPaths = new Set(options.shellPaths)
  }

  push(e: AccessEvent): void {
    if (this.last !== undefined && e.time < this.last) throw new Error(`events out of order: ${e.time} after ${this.last}`)
    this.first ??= e.time
    this.last = e.time
    this.queue.push(e)
    this.judgeUntil(e.time - this.options.lookaheadMs)
  }

  /** Judges what is left and returns the outcome, deploys resolved and incidents classified. */
  finish(declared: readonly DeclaredDeploy[] = []): Outcome {
    this.judgeUntil(Number.POSITIVE_INFINITY)
    return summarize(this, declared, this.options)
  }

  private isShellPathResponse(e: AccessEvent): boolean {
    return e.method === 'GET' && e.status >= 200 && e.status < 300 && e.bytes > 0 && this.shellPaths.has(e.path) && !this.isAsset(e.path)
  }

  /** Judges every batch of equal timestamps strictly before `limit`. */
  private judgeUntil(limit: number): void {
    while (this.head < this.queue.length) {
      const t = this.queue[this.head]?.time
      if (t === undefined || t >= limit) break
      let end = this.head
      // Input is in time order and a later event exists (t < limit), so this batch is complete.
      while (end < this.queue.length && this.queue[end]?.time === t) end++
      // Every event up to t + look-ahead has arrived (t < limit = newest - look-ahead).
      for (let x = this.queue[this.learnHead]; x !== undefined && x.time <= t + this.options.lookaheadMs; x = this.queue[++this.learnHead]) {
        if (this.isShellPathResponse(x)) this.builds.learn(x.bytes, x.time, x.upstream)
      }
      const batch = this.queue.slice(this.head, end)
      this.head = end
      this.judgeBatch(batch)
    }
    if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head)
      this.learnHead -= this.head
      this.head = 0
    }
  }

  private judgeBatch(batch: AccessEvent[]): void {
    const keyed = batch.map((e) => ({e, asset: this.isAsset(e.path), key: sessionKey(e)}))
    keyed.sort((a, b) => Number(a.asset) - Number(b.asset) || compareEvents(a.e, a.key, b.e, b.key))
    const ids = new Set<string>()
    for (const {e, asset, key} of keyed) {
      if (e.id !== undefined) {
        if (ids.has(e.id)) {
          if (this.duplicates++ < 3) this.duplicateExamples.push(e.location)
          continue
        }
        ids.add(e.id)
      }
      this.judge(e, asset, key)
    }
  }

  private judge(e: AccessEvent, asset: boolean, key: string): void {
    this.traffic.request(e.service ?? '', e.time)
    if (e.method !== 'GET' && e.method !== 'HEAD') return
    this.sessions.expire(e.time)
    if (!asset) {
      this.judgePage(e, key)
      return
    }
    const pl = this.sessions.pageLoadFor(key, e.time, refererPath(e.referer))
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
    const pl = this.sessions.startPageLoad(key, e.clientIp, e.userAgent, e.time, e.path, service, build)
    if (this.options.detail) pl.requests = [{time: e.time, path: e.path, status: e.status, bytes: e.bytes, build}]
    this.timeline.add(service, e.time)
    this.traffic.pageLoad(service, e.time)
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
        key: detach(key), clientIp: detach(e.clientIp), userAgent: detach(e.userAgent), firstFailure: e.time, lastFailure: e.time,
        pageLoads: new Set(), failedRequests: 0, incidents: new Set(),
      }
      this.affected.set(user.key, user)
    }
    if (pl.failures === 0) [pl.path, pl.session, pl.service] = [detach(pl.path), user.key, detach(pl.service)]
    const inc = this.clusterer.add(pl.service, e.time, user.key, pl, reason, direction)
    this.traffic.failure(pl.service, e.time)
    this.sessions.touch(key, pl, e.time)
    if (pl.failures++ === 0) this.brokenPageLoads++
    this.failedRequests++
    user.lastFailure = e.time
    user.pageLoads.add(pl.id)
    user.failedRequests++
    user.incidents.add(inc.index)
    this.onFailure({
      time: new Date(e.time).toISOString(), reason, direction, method: e.method, path: e.path, status: e.status,
      bytes: e.bytes, session: key, clientIp: e.clientIp, userAgent: e.userAgent, service: pl.service || null,
      pageLoad: {id: pl.id, time: new Date(pl.time).toISOString(), path: pl.path, build: buildId(pl.build)},
      servingBuild: buildId(serving), upstream: e.upstream, requestId: e.requestId, incidentId: incidentId(inc),
      source: {file: e.location.file, line: e.location.line},
    })
  }
}

export function sessionKey(e: AccessEvent): string {
  return e.session ?? `${e.clientIp} ${e.userAgent}`
}

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
