import type {FailureReason} from '../model/report'
import {urlPath} from '../util/url-path'
import type {Build} from './builds'
import {PodAffinity} from './pod-affinity'

/** One request of a page load, kept for the HTML report's waterfall. */
export interface PageRequest {
  time: number
  path: string
  status: number
  bytes: number
  /** The build that answered, when known. */
  build: Build | undefined
  /** The pod that answered, when logged. */
  pod?: string
  /** Why it broke the page, when it did. */
  reason?: FailureReason
}

/** A shell request and the asset requests that follow it in the same session. */
export interface PageLoad {
  id: number
  session: string
  time: number
  path: string
  build: Build | undefined
  lastActivity: number
  /** Its initial load is over: a request came more than the lazy gap after the one before. */
  lazy: boolean
  failures: number
  /** Asset responses of real content it got: a browser's page load gets some; a scanner's junk requests none. */
  realAssets: number
  /** The page's requests (shell first), only when the analysis keeps detail; capped. */
  requests?: PageRequest[]
  /** The pod that served its shell (a PodAffinity number; 0 when not logged). */
  pod: number
  /** The pod that served its shell, and the shell's length, when logged (build-identity.ts). */
  shellPod?: string
  shellBytes?: number
  /**
   * The assets it asked for (build-identity.ts ids), in the order asked: the first `assetCount`.
   * Room is made four at a time, then doubled up to MAX_PAGE_ASSETS: an array of exactly the
   * length so far (retained page loads are many) took a new one for every asset, their sizes adding
   * up with the square of the count.
   */
  assetIds: number[] | undefined
  assetCount: number
  /** A bit per asset of assetIds (bit i for the i-th) that is surely its own: no other tab of its session could have asked. */
  signature: number
}

/** Whether an asset request at `path` can be of a page load (build-identity.ts's BuildEvidence). */
export interface AssetFit {
  fits(path: string, pl: PageLoad): boolean
}

/** Requests kept per page load for the waterfall. */
export const MAX_PAGE_REQUESTS = 40

export interface Session {
  key: string
  /** Newest last; bounded by MAX_PAGE_LOADS. */
  pageLoads: PageLoad[]
  lastSeen: number
}

/** A shared ip + user agent (NAT, a proxy) can hold many tabs; beyond this the oldest is forgotten. */
const MAX_PAGE_LOADS = 64

/**
 * Live sessions and their page loads. State is bounded by time: a session with no request for
 * `horizonMs` is dropped, so memory follows the number of concurrent users, not the input size.
 */
export class SessionTracker {
  /** Whether pages' assets came from their shell's pod (cookie affinity, or not). */
  readonly affinity = new PodAffinity()
  private readonly sessions = new Map<string, Session>()
  private lastSweep = Number.NEGATIVE_INFINITY
  private lastKey: string | undefined
  private lastSession: Session | undefined

  /** `ids` numbers page loads across every app's tracker. */
  constructor(private readonly horizonMs: number, private readonly ids: {next: number} = {next: 1}) {}

  get size(): number {
    return this.sessions.size
  }

  startPageLoad(key: string, time: number, path: string, build: Build | undefined, upstream?: string): PageLoad {
    let s = this.session(key)
    if (!s) {
      s = {key, pageLoads: [], lastSeen: time}
      this.sessions.set(key, s)
      this.lastKey = key
      this.lastSession = s
    }
    // The session's own key: one copy for all its page loads (each event brings a copy of its own).
    // Every field from the start, those set later too (undefined until then): all page loads share
    // one shape, so the analysis reads them alike, and no property store is added to them later.
    const pl: PageLoad = {
      id: this.ids.next++, session: s.key, time, path, build, lastActivity: time, lazy: false, failures: 0, realAssets: 0, pod: this.affinity.podId(upstream),
      requests: undefined, shellPod: undefined, shellBytes: undefined, assetIds: undefined, assetCount: 0, signature: 0,
    }
    s.pageLoads = s.pageLoads.length < MAX_PAGE_LOADS ? appended(s.pageLoads, pl) : [...s.pageLoads.slice(1), pl]
    s.lastSeen = Math.max(s.lastSeen, time)
    return pl
  }

  /**
   * The page load an asset request belongs to: among the session's live page loads, the newest one
   * whose path the referer names, else the newest one. When the asset's path is known to belong to
   * one build (`owner`), a page load of that build (or of no known build) is taken before those of
   * other builds: a browser with an old tab and a new page asks for the old tab's chunk from the old page.
   * Before all that, `fit` tells whether the asset at `path` goes with what a page load asked for
   * before: only page loads it fits are taken when any live one is (builds of one length are told
   * apart by their assets). (An object and a path rather than a closure: one is asked for every
   * asset request, and a closure made for each was a twentieth of what the analysis allocated.)
   */
  pageLoadFor(key: string, time: number, refererPath: string | undefined, owner?: Build, fit?: AssetFit, path = ''): PageLoad | undefined {
    const s = this.session(key)
    if (!s) return undefined
    // One page load is taken whether the asset fits it or not: `fit` is asked only among several.
    if (!fit || s.pageLoads.length < 2) return this.choose(s, time, refererPath, owner)
    // None when the asset fits no live page load: then the choice among all of them.
    return this.choose(s, time, refererPath, owner, fit, path) ?? this.choose(s, time, refererPath, owner)
  }

  /**
   * pageLoadFor's choice among a session's live page loads, those `fit` allows for `path` when it is given:
   * asked only of a page load that could change the choice (a session can hold 64 live ones), and
   * of every live one until one fits (the newest), so undefined means that none fits.
   */
  private choose(s: Session, time: number, refererPath: string | undefined, owner: Build | undefined, fit?: AssetFit, path = ''): PageLoad | undefined {
    let newest: PageLoad | undefined
    let named: PageLoad | undefined
    let owned: PageLoad | undefined
    for (let i = s.pageLoads.length - 1; i >= 0; i--) {
      const pl = s.pageLoads[i]
      if (!pl || time - pl.lastActivity > this.horizonMs || pl.time > time) continue
      const byReferer = refererPath !== undefined && pl.path === refererPath
      // A page of unknown build (a revalidated shell) may be of the owner's build too.
      const ours = owner !== undefined && (pl.build === owner || pl.build === undefined)
      const matters = newest === undefined || (ours && (byReferer || owned === undefined)) || (byReferer && named === undefined)
      if (!matters || (fit && !fit.fits(path, pl))) continue
      if (ours) {
        if (byReferer) return pl
        owned ??= pl
      }
      if (byReferer) named ??= pl
      newest ??= pl
    }
    return owned ?? named ?? newest
  }

  /** Whether a session had one live page load at `time`: its requests then can be of no other. */
  alone(key: string, time: number): boolean {
    const s = this.session(key)
    if (!s) return false
    let live = 0
    for (const pl of s.pageLoads) if (time - pl.lastActivity <= this.horizonMs && pl.time <= time && ++live > 1) return false
    return live === 1
  }

  /** An asset of `pl` answered with real content by the pod `upstream`. */
  assetAnswered(pl: PageLoad, upstream: string | undefined, time: number): void {
    this.affinity.asset(pl.pod, pl.time, upstream, time)
  }

  /** A request of `pl` at `time`: its initial load is over when it comes more than `lazyGapMs` after the one before. */
  touch(key: string, pl: PageLoad, time: number, lazyGapMs = Number.POSITIVE_INFINITY): void {
    if (time - pl.lastActivity > lazyGapMs) pl.lazy = true
    if (time > pl.lastActivity) pl.lastActivity = time
    const s = this.session(key)
    if (s && time > s.lastSeen) s.lastSeen = time
  }

  /** The session of a key; the last one looked up is remembered (a request's page load, then its touch). */
  private session(key: string): Session | undefined {
    if (key === this.lastKey) return this.lastSession
    const s = this.sessions.get(key)
    this.lastKey = key
    this.lastSession = s
    return s
  }

  /**
   * Whether a page load of a session went idle past the horizon. A page load is active no earlier
   * than it started, and a session's page loads are in the order they started: while the first one
   * started within the horizon, none can have expired (nearly every session, at nearly every sweep).
   */
  private anyExpired(pageLoads: readonly PageLoad[], now: number): boolean {
    const first = pageLoads[0]
    if (first === undefined || now - first.time <= this.horizonMs) return false
    for (const pl of pageLoads) if (now - pl.lastActivity > this.horizonMs) return true
    return false
  }

  /** Drops sessions idle for longer than the horizon; cheap enough to call on every request. */
  expire(now: number): void {
    if (now - this.lastSweep < this.horizonMs / 8) return
    this.lastSweep = now
    this.lastKey = this.lastSession = undefined
    // values(), not entries: no [key, value] array per session and sweep (a session knows its key).
    for (const s of this.sessions.values()) {
      if (now - s.lastSeen > this.horizonMs) this.sessions.delete(s.key)
      else if (this.anyExpired(s.pageLoads, now)) keepLive(s.pageLoads, now - this.horizonMs)
    }
  }
}

/**
 * Drops, in place, the page loads idle since before `since`: a session's list is its own (appended
 * makes a new one for each page load), and a new filtered list at every sweep was 4% of what the
 * main thread allocated on 1M ingress-nginx lines (38 of 931 MB).
 */
function keepLive(pageLoads: PageLoad[], since: number): void {
  let kept = 0
  for (const pl of pageLoads) if (pl.lastActivity >= since) pageLoads[kept++] = pl
  pageLoads.length = kept
}

/**
 * `list` and `x` in a new array of exactly their size (push reserves room for 16 more, and so does
 * a spread): most sessions hold one or two page loads, and there are as many sessions as users in
 * the horizon. The first two sizes by a literal: `concat` looks up whether its argument is to be
 * spread, and took 140-180 ns where a literal takes 20 (node 20).
 */
function appended<T>(list: readonly T[], x: T): T[] {
  if (list.length === 0) return [x]
  if (list.length === 1) return [list[0] as T, x]
  return list.concat(x)
}

/** The path part of a referer URL (`https://host/a?b` -> `/a`), or undefined for `-`/empty. */
export function refererPath(referer: string | undefined): string | undefined {
  return !referer || referer === '-' ? undefined : urlPath(referer)
}
