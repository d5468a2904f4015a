import type {AccessEvent} from '../model/access-event'
import type {AppReport} from '../model/report'
import {detach} from '../util/detach'
import {BuildEvidence} from './build-identity'
import {type Build, BuildTracker} from './builds'
import {FailureStore, PendingFallbacks} from './failures'
import {PageLoadTimeline} from './page-load-timeline'
import type {AnalysisOptions, AppSource} from './options'
import {SessionTracker} from './sessions'

/** Requests of one kind of non-user traffic: how many, from how many clients, how many failed. */
export class NonUserTally {
  requests = 0
  failedRequests = 0
  private readonly clients = new Set<string>()
  private clientsBeyond = 0

  request(client: string): void {
    this.requests++
    if (this.clients.has(client)) return
    // Bounded: forged clients cannot grow it without end; past the cap they are counted, not kept.
    if (this.clients.size < 100_000) this.clients.add(detach(client))
    else this.clientsBeyond++
  }

  get clientCount(): number {
    return this.clients.size + this.clientsBeyond
  }
}

/**
 * An app seen only with requests that are neither a shell nor an asset (a random Host a scanner
 * sent, an API host): counted, not analysed. It becomes an AppState on its first shell or asset
 * request, taking these counts along.
 */
export interface CountedApp {
  requests: number
  resolutionMs: number
}

/** An asset request of a person that failed with no page load behind it (kept to tell scanners apart at the end). */
export interface OrphanFailure {
  session: string
  path: string
}

/** Orphans kept per app; beyond this they are counted as orphans without a look at their path. */
const MAX_ORPHANS = 100_000

/** Everything the analysis keeps of one app while the stream is read. */
export class AppState {
  /** Shell lengths: what makes a fallback body recognisable (and, where lengths differ, a build). */
  readonly builds: BuildTracker
  /** What names each build: the assets its pages ask for, its pods, its versions (build-identity.ts). */
  readonly evidence = new BuildEvidence()
  readonly sessions: SessionTracker
  /** When people's page loads started, for the page loads of a window. */
  readonly timeline = new PageLoadTimeline()
  readonly failures: FailureStore
  /** Responses that may turn out to be fallback bodies of a shell learned later (see PendingFallbacks). */
  readonly pending = new PendingFallbacks()
  /** The last length each asset path was answered with. */
  readonly assetBytes = new Map<string, number>()
  /**
   * Asset paths answered with real content (not a shell, not an error): paths that exist, each with
   * the build of the pages that fetched it (its owner: undefined while unknown, null when pages of
   * several builds did, as a vendor chunk two builds share).
   */
  readonly servedAssets = new Map<string, Build | null | undefined>()
  readonly crawlers = new NonUserTally()
  readonly probe = new NonUserTally()
  readonly orphans: OrphanFailure[] = []
  /** The address and user agent of each session with a failure (a cookie session key names neither). */
  readonly people = new Map<string, {clientIp: string; userAgent: string}>()
  orphansBeyond = 0
  sourceMapFailures = 0
  requests = 0
  pageLoads = 0
  /** The coarsest timestamp resolution of its events (1000 for 1-second logs). */
  resolutionMs = 1

  constructor(readonly name: string, readonly source: AppReport['source'], options: AnalysisOptions, pageLoadIds: {next: number}, keepDetail: boolean) {
    this.builds = new BuildTracker(options.lengthTolerance)
    this.sessions = new SessionTracker(options.horizonMs, pageLoadIds)
    this.failures = new FailureStore(keepDetail)
  }

  /** An asset path answered with real content, fetched by a page of `build` (when known). */
  assetServed(path: string, build: Build | undefined): void {
    if (!this.servedAssets.has(path)) {
      this.servedAssets.set(detach(path), build)
      return
    }
    const had = this.servedAssets.get(path)
    if (build === undefined || had === null || had === build) return
    this.servedAssets.set(path, had === undefined ? build : null)
  }

  orphan(session: string, path: string): void {
    if (this.orphans.length < MAX_ORPHANS) this.orphans.push({session: detach(session), path: detach(path)})
    else this.orphansBeyond++
  }
}

/** The event field each source of app names reads. */
const NAMED_BY = {key: 'app', upstream: 'upstreamName', host: 'vhost', service: 'service'} as const

/** What names a request's app under `source`: that field when the event has it (`auto`: the first of them it has), else none. */
export function appSourceOf(e: AccessEvent, source: AppSource): AppReport['source'] {
  if (source !== 'auto') return e[NAMED_BY[source]] === undefined ? 'none' : source
  return e.app !== undefined ? 'key' : e.upstreamName !== undefined ? 'upstream' : e.vhost !== undefined ? 'host' : e.service !== undefined ? 'service' : 'none'
}

/** The name of the app a request belongs to ('' when nothing names it), without an object: asked for every request the analysis judges. */
export function appNameOf(e: AccessEvent, source: AppSource): string {
  const by = appSourceOf(e, source)
  return by === 'none' ? '' : (e[NAMED_BY[by]] as string)
}
