import {RECENT_EVIDENCE} from '../model/page-census'
import {detach} from '../util/detach'

/**
 * A shell length of one app, as the logs show it. While the stream is read every length is a
 * candidate; at the end only lengths that recur and hold their share of the shell responses are
 * builds (see BuildTracker.confirm): a dynamic homepage, whose length varies per request, has none.
 */
export interface Build {
  /** Candidate number, in the order lengths were first learned. */
  index: number
  shellBytes: number
  /** Shell-path responses learned by the look-ahead stage: how many, first and last. */
  aheadCount: number
  aheadFirst: number
  aheadLast: number
  /** Shell responses as judged in time order (shell paths and routes; these are reported). */
  firstSeen: number
  lastSeen: number
  shellRequests: number
  /** When the logs showed the build answering: its shell, its length as a fallback body, its pods. */
  firstServed: number
  lastServed: number
  /** The last few of those times, oldest first (how dense the evidence was near the end). */
  recent: number[]
  versions: Map<string, number>
  /** The pods (upstream addresses) that served this build's shell: its replicas. */
  pods: Set<string>
  /** `B<number>` once confirmed as a build; undefined for a length that is not one. */
  number?: number
  /** Another header block of this build's shell, learned first as a length of its own (see BuildTracker.learn). */
  mergedInto?: Build
  /** What names a build known by what it serves (build-identity.ts); absent for a build known by its shell length alone. */
  identity?: BuildIdentityFacts
  /** When its pods served it, where that had gaps (a rollback serves a build again); else firstServed to lastServed. */
  spans?: ServedSpan[]
}

export interface ServedSpan {
  first: number
  last: number
}

/** A build served over one stretch of time: a build that came back (a rollback) is served twice. */
export interface Episode extends ServedSpan {
  build: Build
}

/** The stretches of time a build was served. */
export function servedSpans(b: Build): readonly ServedSpan[] {
  return b.spans ?? [{first: b.firstServed, last: b.lastServed}]
}

/** Every build's stretches of being served, in time order. */
export function episodes(builds: readonly Build[]): Episode[] {
  return builds.flatMap((build) => servedSpans(build).map((s) => ({build, first: s.first, last: s.last})))
    .sort((a, b) => a.first - b.first || a.build.index - b.build.index)
}

/** Whether a build was served at `time`, give or take `slackMs`. */
export function servedAt(b: Build, time: number, slackMs: number): boolean {
  for (const s of servedSpans(b)) if (time >= s.first - slackMs && time <= s.last + slackMs) return true
  return false
}

/** A build known by what it serves: its entry asset, its own assets, the shell lengths its pages had. */
export interface BuildIdentityFacts {
  entry: string
  assets: string[]
  shellLengths: number[]
}

export function buildId(build: Build | undefined): string | null {
  return build?.number === undefined ? null : `B${build.number}`
}

/** How far a fallback body's header block may be from every one seen on a shell path (`close` for `keep-alive`). */
const HEADER_SLACK = 8

/** How much the header block of one response varies, at most (cookies set or not, cache headers). */
const HEADER_VARIANCE = 1024

/** A length counts as a build when it makes up at least this share of the shell responses of its own time. */
const MIN_SHARE = 0.05

/** The shell lengths of one app: learned ahead of judging, with the evidence of when each was served. */
export class BuildTracker {
  readonly builds: Build[] = []
  private readonly byBytes = new Map<number, Build>()
  private readonly podBuilds = new Map<string, Build>()
  /** When shell-path responses came, run-length encoded, for the share test. */
  private readonly shellTimes: number[] = []
  private readonly shellCounts: number[] = []
  /** Lengths learned so far: the next one's index. */
  private learned = 0
  /** Set by confirm(). */
  private confirmedBuilds: Build[] | undefined

  constructor(private readonly tolerance: number) {}

  /** The candidate whose shell has this length (within the tolerance), if any. */
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

  /**
   * The candidate with this shell length that the look-ahead saw served within `slackMs` of `time`.
   * `withHeaders`: the length counts the response headers, and a fallback body may come with a
   * header block a few bytes off any seen on a shell path (`Connection: close` for keep-alive): the
   * nearest length within HEADER_SLACK bytes answers when none is exact.
   */
  matchNear(bytes: number, time: number, slackMs: number, withHeaders = false): Build | undefined {
    // Called for every asset response: no closure or pair made per call (they were a twentieth of what the analysis allocated).
    const exact = this.match(bytes)
    if (exact !== undefined && isNear(exact, time, slackMs)) return exact
    if (!withHeaders) return undefined
    let best: Build | undefined
    let bestD = HEADER_SLACK + 1
    for (const [length, b] of this.byBytes) {
      const d = Math.abs(length - bytes)
      if (d < bestD && isNear(b, time, slackMs)) {
        best = b
        bestD = d
      }
    }
    return best
  }

  /**
   * Look-ahead stage: a response on a shell path teaches a length (and which build a pod runs).
   * `withHeaders`: the length counts the response headers (ALB, CloudFront, Google Cloud), so one
   * shell comes at several lengths, one per header block it was sent with (a Set-Cookie or not).
   * A pod runs one build: a new length from a pod already seen serving a shell, within the size a
   * header block varies by, is that build's shell with other headers, not a new build.
   */
  learn(bytes: number, time: number, upstream?: string, withHeaders = false, counted = false): Build {
    let b = this.match(bytes)
    if (withHeaders && upstream) {
      const same = this.podBuilds.get(upstream)
      if (same && same !== b && Math.abs(same.shellBytes - bytes) <= HEADER_VARIANCE) {
        if (b) b = this.merge(same, b)
        else {
          b = same
          this.byBytes.set(bytes, same)
        }
      }
    }
    if (!b) {
      b = {
        index: this.learned++, shellBytes: bytes, aheadCount: 0, aheadFirst: time, aheadLast: time,
        firstSeen: Number.POSITIVE_INFINITY, lastSeen: Number.NEGATIVE_INFINITY, shellRequests: 0,
        firstServed: Number.POSITIVE_INFINITY, lastServed: Number.NEGATIVE_INFINITY, recent: [],
        versions: new Map(), pods: new Set(),
      }
      this.builds.push(b)
      this.byBytes.set(bytes, b)
    }
    if (time < b.aheadFirst) b.aheadFirst = time
    if (time > b.aheadLast) b.aheadLast = time
    if (upstream && this.podBuilds.get(upstream) !== b) this.podBuilds.set(detach(upstream), b)
    // A shell of a bucket counted rather than read (census.ts) is in the count already.
    if (counted) return b
    b.aheadCount++
    this.addShellTimes(time, 1)
    return b
  }

  /**
   * Two lengths a pod served are one build's shell with two header blocks: the later-learned one is
   * folded into the earlier, and every length and pod of it now names the earlier.
   */
  private merge(a: Build, b: Build): Build {
    const [keep, gone] = a.index < b.index ? [a, b] : [b, a]
    keep.aheadCount += gone.aheadCount
    keep.aheadFirst = Math.min(keep.aheadFirst, gone.aheadFirst)
    keep.aheadLast = Math.max(keep.aheadLast, gone.aheadLast)
    keep.firstSeen = Math.min(keep.firstSeen, gone.firstSeen)
    keep.lastSeen = Math.max(keep.lastSeen, gone.lastSeen)
    keep.shellRequests += gone.shellRequests
    keep.firstServed = Math.min(keep.firstServed, gone.firstServed)
    keep.lastServed = Math.max(keep.lastServed, gone.lastServed)
    keep.recent = [...keep.recent, ...gone.recent].sort((x, y) => x - y).slice(-RECENT_EVIDENCE)
    for (const [v, n] of gone.versions) keep.versions.set(v, (keep.versions.get(v) ?? 0) + n)
    for (const p of gone.pods) keep.pods.add(p)
    for (const [bytes, x] of this.byBytes) if (x === gone) this.byBytes.set(bytes, keep)
    for (const [pod, x] of this.podBuilds) if (x === gone) this.podBuilds.set(pod, keep)
    gone.mergedInto = keep
    this.builds.splice(this.builds.indexOf(gone), 1)
    return keep
  }

  /**
   * `n` shell-path responses of this length in the bucket starting at `time`, counted rather than
   * read (census.ts): they count as learned and judged shells, learned at the bucket's start (the
   * look-ahead stage learns them as it reaches it). Their times are not known, so they show no
   * build served: a pull reads each length's first and last shells.
   */
  counted(bytes: number, time: number, n: number): void {
    let b = this.match(bytes)
    let rest = n
    if (!b) {
      // No shell of this length was read (the pull reads each length's first): learned here.
      b = this.learn(bytes, time)
      rest--
    }
    b.shellRequests += n
    if (time > b.aheadLast) b.aheadLast = time
    if (rest === 0) return
    b.aheadCount += rest
    this.addShellTimes(time, rest)
  }

  /** `n` shell-path responses at `time`, in time order (read ones come in order: appended). */
  private addShellTimes(time: number, n: number): void {
    const last = this.shellTimes.length - 1
    if (last >= 0 && this.shellTimes[last] === time) this.shellCounts[last] = (this.shellCounts[last] ?? 0) + n
    else if (last < 0 || (this.shellTimes[last] as number) < time) {
      this.shellTimes.push(time)
      this.shellCounts.push(n)
    } else {
      const at = lowerBound(this.shellTimes, time)
      if (this.shellTimes[at] === time) this.shellCounts[at] = (this.shellCounts[at] ?? 0) + n
      else {
        this.shellTimes.splice(at, 0, time)
        this.shellCounts.splice(at, 0, n)
      }
    }
  }

  /** Judging stage: a shell response of this build (and of this pod, when logged); `counted`: in a counted bucket (see learn). */
  shellServed(b: Build, time: number, upstream: string | undefined, version: string | undefined, counted = false): void {
    if (time < b.firstSeen) b.firstSeen = time
    if (time > b.lastSeen) b.lastSeen = time
    if (!counted) b.shellRequests++
    if (upstream) {
      if (!b.pods.has(upstream)) b.pods.add(detach(upstream))
      if (!this.podBuilds.has(upstream)) this.podBuilds.set(detach(upstream), b)
    }
    if (version) {
      const n = b.versions.get(version)
      b.versions.set(n === undefined ? detach(version) : version, (n ?? 0) + 1)
    }
    this.served(b, time)
  }

  /** Judging stage, in time order: the logs show the build answering at `time`. */
  served(b: Build, time: number): void {
    if (time < b.firstServed) b.firstServed = time
    if (time >= b.lastServed) {
      b.lastServed = time
      const r = b.recent
      if (r.length === RECENT_EVIDENCE) r.shift()
      r.push(time)
    }
  }

  /** The build a pod was last seen serving. */
  podBuild(upstream: string | undefined): Build | undefined {
    return upstream ? this.podBuilds.get(upstream) : undefined
  }

  /**
   * Decides which lengths are builds: those seen on a shell path at least twice that make up at
   * least MIN_SHARE of the shell responses between their first and last (a length of a dynamic page
   * that recurs by chance hours apart does not), numbered B1, B2, … in the order they appeared.
   */
  confirm(): Build[] {
    if (this.confirmedBuilds) return this.confirmedBuilds
    const confirmed = this.builds.filter((b) => b.aheadCount >= 2 && b.aheadCount >= MIN_SHARE * this.shellsBetween(b.aheadFirst, b.aheadLast))
      .sort((a, b) => a.aheadFirst - b.aheadFirst || a.index - b.index)
    confirmed.forEach((b, i) => (b.number = i + 1))
    return (this.confirmedBuilds = confirmed)
  }

  /** Shell-path responses the look-ahead learned. */
  get shellResponses(): number {
    let n = 0
    for (const c of this.shellCounts) n += c
    return n
  }

  private shellsBetween(from: number, to: number): number {
    let n = 0
    for (let i = lowerBound(this.shellTimes, from); i < this.shellTimes.length && (this.shellTimes[i] as number) <= to; i++) n += this.shellCounts[i] as number
    return n
  }
}

/**
 * How long after the last evidence of a build it may still have been served unseen: the widest gap
 * between the last few times the logs showed it (evidence thins out as its last pods go), at least
 * the logs' resolution.
 */
export function servingSlack(b: Build, resolutionMs: number): number {
  let gap = resolutionMs
  for (let i = 1; i < b.recent.length; i++) gap = Math.max(gap, (b.recent[i] as number) - (b.recent[i - 1] as number))
  return gap
}

/** The version tag most shell responses of a build carried. */
export function mainVersion(b: Build): string | undefined {
  let best: string | undefined
  let count = 0
  for (const [v, n] of b.versions) if (n > count || (n === count && best !== undefined && v < best)) [best, count] = [v, n]
  return best
}

export function lowerBound(a: readonly number[], x: number): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((a[mid] as number) < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Whether a build's shells were served within `slackMs` of `time` (as the look-ahead has seen them). */
function isNear(b: Build, time: number, slackMs: number): boolean {
  return time >= b.aheadFirst - slackMs && time <= b.aheadLast + slackMs
}
