import type {RecordLocation} from '../model/access-event'
import type {AssetKind, FailureReason, LoadPhase} from '../model/report'
import type {Build} from './builds'
import type {PageLoad} from './sessions'

/** What only `--failures` and the per-request reports need: kept only when they are asked for. */
export interface FailureDetail {
  method: string
  status: number
  bytes: number
  service: string | undefined
  upstream: string | undefined
  requestId: string | undefined
  location: RecordLocation
}

/**
 * The failed asset requests of people, in the order they were judged (time order), kept compactly
 * until the end of the run, when the deploy windows are known and each one can be attributed. One
 * entry per failure in parallel columns; strings are the analysis's own copies (paths interned).
 */
export class FailureStore {
  readonly times: number[] = []
  readonly pageLoads: PageLoad[] = []
  readonly sessions: string[] = []
  readonly paths: string[] = []
  /** The status each was answered with (a fallback's 200, a 404 or 410): the report's top status codes. */
  readonly statuses: number[] = []
  readonly reasons: FailureReason[] = []
  readonly kinds: AssetKind[] = []
  readonly phases: LoadPhase[] = []
  /** The build that answered, when the response tells (its shell's length) or the pod is known. */
  readonly serving: (Build | undefined)[] = []
  /** The pod that answered, when logged. */
  readonly pods: (string | undefined)[] = []
  readonly details: FailureDetail[] | undefined

  constructor(keepDetail: boolean) {
    this.details = keepDetail ? [] : undefined
  }

  get size(): number {
    return this.times.length
  }

  add(f: FailureEntry, detail: () => FailureDetail): void {
    this.push(f, this.details ? detail() : undefined)
  }

  push(f: FailureEntry, detail: FailureDetail | undefined): void {
    this.times.push(f.time)
    this.pageLoads.push(f.pageLoad)
    this.sessions.push(f.session)
    this.paths.push(f.path)
    this.statuses.push(f.status)
    this.reasons.push(f.reason)
    this.kinds.push(f.kind)
    this.phases.push(f.phase)
    this.serving.push(f.serving)
    this.pods.push(f.pod)
    // With detail kept, every entry brings its own (pending ones kept theirs).
    if (this.details) this.details.push(detail as FailureDetail)
  }
}

/** One failed request as the store keeps it. */
export interface FailureEntry {
  time: number
  pageLoad: PageLoad
  session: string
  path: string
  status: number
  reason: FailureReason
  kind: AssetKind
  phase: LoadPhase
  serving: Build | undefined
  pod: string | undefined
}

export interface Pending {
  entry: FailureEntry
  bytes: number
  clientIp: string
  userAgent: string
  detail: FailureDetail | undefined
}

/**
 * Asset responses of people that looked like real content when judged, but came with a length the
 * path had not shown before (or a new path): a fallback body of a shell whose length the look-ahead
 * had not learned yet (a new build whose first shell was logged minutes later, on a quiet site).
 * Kept for a horizon; at the end, those whose length turned out to be a build's shell are failures.
 */
export class PendingFallbacks {
  private entries: Pending[] = []
  private head = 0

  add(p: Pending): void {
    this.entries.push(p)
  }

  /** Forgets what came before `time` (no shell learned later can match it any more). */
  forgetBefore(time: number): void {
    while (this.head < this.entries.length && (this.entries[this.head] as Pending).entry.time < time) this.head++
    if (this.head > 4096 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head)
      this.head = 0
    }
  }

  /** The entries still kept, oldest first. */
  *kept(): Generator<Pending> {
    for (let i = this.head; i < this.entries.length; i++) yield this.entries[i] as Pending
  }
}
