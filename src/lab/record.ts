import type {AssetOutcome} from '../probe/classify'
import type {RumIdentity} from './rum'

export type Direction = 'oldPageNewPod' | 'newPageOldPod' | 'unknown'

/** One asset request of a simulated browser that broke its page. */
export interface BrowserFailure {
  time: number
  /** `ip user-agent`: the session key `skewscan analyze` uses by default. */
  browser: string
  path: string
  pageLoad: number
  /** Build indexes (0 = the first build); null when the response did not say. */
  pageBuild: number | null
  servingBuild: number | null
  symptom: 'html' | 'missing'
  direction: Direction
  /** `load`: the shell's own assets, fetched right after it; `lazy`: a chunk fetched later by the running page. */
  phase: 'load' | 'lazy'
  /** Who the browser is to RUM (its session, whether RUM samples it, its account): only when the lab writes RUM events. */
  rum?: RumIdentity
}

/** What the simulated browsers went through: the lab's ground truth. */
export interface BrowserSummary {
  browsers: number
  pageLoads: number
  brokenPageLoads: number
  /** Broken while loading (an entry bundle or the route's chunk failed), and broken only later (a lazy chunk failed). */
  byPhase: {load: number; lazy: number}
  /** Broken page loads per 1000 page loads (1 decimal). */
  perThousand: number
  /** Browsers with at least one broken page load. */
  affectedUsers: number
  /** Browsers busy (between their first page load and their last request) while a deploy ran: who could have been hit. */
  exposedUsers: number
  failedRequests: number
  /** Requests that got no usable answer (never expected on loopback; not counted as broken). */
  errors: number
  byDirection: Record<Direction, number>
  bySymptom: {html: number; missing: number}
  firstFailure: string | null
  lastFailure: string | null
  windowSeconds: number | null
}

/** Failures kept for inspection at most; the counts go on regardless. */
const MAX_FAILURES = 20_000

/** Pure bookkeeping of the simulated browsers' page loads and failures. */
export class BrowserRecord {
  /** Each browser's first page load and last request (epoch ms). */
  private readonly browsers = new Map<string, {first: number; last: number}>()
  private pageLoads = 0
  private readonly broken = new Map<number, 'load' | 'lazy'>()
  private readonly affected = new Set<string>()
  private failedRequests = 0
  private errors = 0
  private readonly byDirection: Record<Direction, number> = {oldPageNewPod: 0, newPageOldPod: 0, unknown: 0}
  private readonly bySymptom = {html: 0, missing: 0}
  private first: number | undefined
  private last: number | undefined
  readonly failures: BrowserFailure[] = []

  /** A shell arrived (2xx) at `time`: a page load starts. Returns its id. */
  startPageLoad(browser: string, time: number): number {
    const seen = this.browsers.get(browser)
    if (seen) seen.last = Math.max(seen.last, time)
    else this.browsers.set(browser, {first: time, last: time})
    return ++this.pageLoads
  }

  /** The outcome of one of a page load's asset requests. */
  asset(f: Omit<BrowserFailure, 'symptom' | 'direction'> & {outcome: AssetOutcome}): void {
    const seen = this.browsers.get(f.browser)
    if (seen) seen.last = Math.max(seen.last, f.time)
    if (f.outcome === 'ok') return
    if (f.outcome === 'error') {
      this.errors++
      return
    }
    const symptom = f.outcome === 'missing' ? 'missing' : 'html'
    const direction: Direction = f.pageBuild === null || f.servingBuild === null || f.pageBuild === f.servingBuild
      ? 'unknown'
      : f.pageBuild < f.servingBuild ? 'oldPageNewPod' : 'newPageOldPod'
    if (!this.broken.has(f.pageLoad)) this.broken.set(f.pageLoad, f.phase)
    this.affected.add(f.browser)
    this.failedRequests++
    this.byDirection[direction]++
    this.bySymptom[symptom]++
    this.first = Math.min(this.first ?? f.time, f.time)
    this.last = Math.max(this.last ?? f.time, f.time)
    if (this.failures.length < MAX_FAILURES) {
      const {outcome: _outcome, ...rest} = f
      this.failures.push({...rest, symptom, direction})
    }
  }

  /** A request that got no usable answer. */
  error(): void {
    this.errors++
  }

  private phases(): {load: number; lazy: number} {
    const out = {load: 0, lazy: 0}
    for (const phase of this.broken.values()) out[phase]++
    return out
  }

  /** `deploys`: the deploy windows (epoch ms; an open one runs to now), for the exposed users. */
  summary(deploys: readonly {start: number; end: number | null}[] = []): BrowserSummary {
    let exposed = 0
    for (const b of this.browsers.values()) if (deploys.some((d) => b.first <= (d.end ?? Number.POSITIVE_INFINITY) && b.last >= d.start)) exposed++
    const iso = (t: number | undefined): string | null => (t === undefined ? null : new Date(t).toISOString())
    return {
      browsers: this.browsers.size, pageLoads: this.pageLoads, brokenPageLoads: this.broken.size, byPhase: this.phases(),
      perThousand: this.pageLoads === 0 ? 0 : Math.round((this.broken.size / this.pageLoads) * 10_000) / 10,
      affectedUsers: this.affected.size, exposedUsers: exposed, failedRequests: this.failedRequests, errors: this.errors,
      byDirection: {...this.byDirection}, bySymptom: {...this.bySymptom},
      firstFailure: iso(this.first), lastFailure: iso(this.last),
      windowSeconds: this.first === undefined || this.last === undefined ? null : (this.last - this.first) / 1000,
    }
  }
}
