import {detach} from '../util/detach'

/**
 * A build as the logs show it: one shell length (its fingerprint). Builds are numbered in the order
 * their shell first appears on a shell path; that order also decides what "older" means.
 */
export interface Build {
  index: number
  shellBytes: number
  /** Seen by the look-ahead stage, used to decide whether a length is "near" in time. */
  aheadFirst: number
  aheadLast: number
  /** Shell responses as judged in time order (these are reported). */
  firstSeen: number
  lastSeen: number
  shellRequests: number
  versions: Map<string, number>
  /** The pods (upstream addresses) that served this build's shell: its replicas. */
  pods: Set<string>
}

export function buildId(build: Build | undefined): string | null {
  return build ? `B${build.index + 1}` : null
}

export class BuildTracker {
  readonly builds: Build[] = []
  private readonly byBytes = new Map<number, Build>()
  private readonly podBuilds = new Map<string, Build>()

  constructor(private readonly tolerance: number) {}

  /** The build whose shell has this length (within the tolerance), if any. */
  match(bytes: number): Build | undefined {
    const exact = this.byBytes.get(bytes)
    if (exact || this.tolerance === 0) return exact
    let best: Build | undefined
    for (const b of this.builds) {
      const d = Math.abs(b.shellBytes - bytes)
      if (d <= this.tolerance && (!best || d < Math.abs(best.shellBytes - bytes))) best = b
    }
    return best
  }

  /** The build with this shell length that was being served within `slackMs` of `time`. */
  matchNear(bytes: number, time: number, slackMs: number): Build | undefined {
    const b = this.match(bytes)
    if (b && time >= b.aheadFirst - slackMs && time <= b.aheadLast + slackMs) return b
    return undefined
  }

  /** Look-ahead stage: a response on a shell path teaches a fingerprint (and which build a pod runs). */
  learn(bytes: number, time: number, upstream?: string): Build {
    const b = this.learnBytes(bytes, time)
    if (upstream && this.podBuilds.get(upstream) !== b) this.podBuilds.set(detach(upstream), b)
    return b
  }

  private learnBytes(bytes: number, time: number): Build {
    let b = this.match(bytes)
    if (!b) {
      b = {
        index: this.builds.length, shellBytes: bytes, aheadFirst: time, aheadLast: time,
        firstSeen: Number.POSITIVE_INFINITY, lastSeen: Number.NEGATIVE_INFINITY, shellRequests: 0,
        versions: new Map(), pods: new Set(),
      }
      this.builds.push(b)
      this.byBytes.set(bytes, b)
      return b
    }
    if (time < b.aheadFirst) b.aheadFirst = time
    if (time > b.aheadLast) b.aheadLast = time
    return b
  }

  /** Judging stage: a shell response served by this build (and by this pod, when logged). */
  served(b: Build, time: number, upstream: string | undefined, version: string | undefined): void {
    if (time < b.firstSeen) b.firstSeen = time
    if (time > b.lastSeen) b.lastSeen = time
    b.shellRequests++
    if (upstream) {
      if (!b.pods.has(upstream)) b.pods.add(detach(upstream))
      if (!this.podBuilds.has(upstream)) this.podBuilds.set(detach(upstream), b)
    }
    if (version) {
      const n = b.versions.get(version)
      b.versions.set(n === undefined ? detach(version) : version, (n ?? 0) + 1)
    }
  }

  /** The build a pod was last seen serving. */
  podBuild(upstream: string | undefined): Build | undefined {
    return upstream ? this.podBuilds.get(upstream) : undefined
  }

  /**
   * The one build other than `page` whose shell was being served at `time`: who must have answered
   * a request that the page's own build would have served (a 404 for its asset, with no pod logged).
   * `slackMs` widens each build's serving time: a new pod answers before its first shell is logged.
   */
  otherServing(page: Build | undefined, time: number, slackMs: number): Build | undefined {
    let found: Build | undefined
    for (const b of this.builds) {
      if (b === page || time < b.aheadFirst - slackMs || time > b.aheadLast + slackMs) continue
      if (found) return undefined // two candidates: cannot tell
      found = b
    }
    return found
  }

  /** Builds that served at least one shell, in the order they were first seen. */
  seen(): Build[] {
    return this.builds.filter((b) => b.shellRequests > 0)
  }
}

/** The version tag most shell responses of a build carried. */
export function mainVersion(b: Build): string | undefined {
  let best: string | undefined
  let count = 0
  for (const [v, n] of b.versions) if (n > count || (n === count && best !== undefined && v < best)) [best, count] = [v, n]
  return best
}
