import type {Direction, FailureReason} from '../model/report'
import type {Build} from './builds'
import type {PageLoad} from './sessions'

/**
 * The page loads an incident broke, each once, as columns: their ids, start times and builds are all
 * the report needs, and a page load object kept per entry for the whole run would cost several times
 * as much. The objects themselves are kept only for the HTML report's waterfalls (`keep`).
 */
export class BrokenPageLoads {
  readonly ids: number[] = []
  readonly times: number[] = []
  readonly builds: (Build | undefined)[] = []
  readonly kept: PageLoad[] | undefined

  constructor(keep: boolean) {
    this.kept = keep ? [] : undefined
  }

  add(pl: PageLoad): void {
    this.ids.push(pl.id)
    this.times.push(pl.time)
    this.builds.push(pl.build)
    this.kept?.push(pl)
  }

  get size(): number {
    return this.ids.length
  }
}

/** Failures of one service clustered in time, as they accumulate. */
export interface IncidentAccumulator<U = unknown> {
  index: number
  service: string
  start: number
  end: number
  /** The users hit, each once. */
  users: U[]
  pageLoads: BrokenPageLoads
  failedRequests: number
  byDirection: Record<Direction, number>
  byReason: Record<FailureReason, number>
}

export function incidentId(inc: IncidentAccumulator): string {
  return `I${inc.index + 1}`
}

export function emptyDirections(): Record<Direction, number> {
  return {oldPageNewPod: 0, newPageOldPod: 0, unknown: 0}
}

/**
 * Clusters failures per service: a gap longer than `gapMs` closes an incident. The caller says
 * whether the user and the page load are new to the incident (it knows cheaply: a page load belongs
 * to one service, so its incidents come one after another).
 */
export class IncidentClusterer<U = unknown> {
  readonly incidents: IncidentAccumulator<U>[] = []
  private readonly open = new Map<string, IncidentAccumulator<U>>()

  constructor(private readonly gapMs: number, private readonly keepPageLoads = false) {}

  /** The incident a failure at `time` of `service` belongs to (opened when none is). */
  incidentAt(service: string, time: number): IncidentAccumulator<U> {
    let inc = this.open.get(service)
    if (!inc || time - inc.end > this.gapMs) {
      inc = {
        index: this.incidents.length, service, start: time, end: time, users: [], pageLoads: new BrokenPageLoads(this.keepPageLoads),
        failedRequests: 0, byDirection: emptyDirections(), byReason: {fallback: 0, missing: 0, contentType: 0},
      }
      this.incidents.push(inc)
      this.open.set(service, inc)
    }
    return inc
  }

  /** Counts a failure in `inc` (from incidentAt), with its user and page load when they are new to it. */
  add(inc: IncidentAccumulator<U>, time: number, newUser: U | undefined, newPageLoad: PageLoad | undefined, reason: FailureReason, direction: Direction): void {
    inc.end = time
    if (newUser !== undefined) inc.users.push(newUser)
    if (newPageLoad) inc.pageLoads.add(newPageLoad)
    inc.failedRequests++
    inc.byDirection[direction]++
    inc.byReason[reason]++
  }
}

/**
 * When page loads of each service started, run-length encoded (logs with 1-second timestamps give
 * long runs), so a window can later ask how many page loads began inside it.
 */
export class PageLoadTimeline {
  private readonly runs = new Map<string, {times: number[]; counts: number[]}>()

  add(service: string, time: number): void {
    let r = this.runs.get(service)
    if (!r) this.runs.set(service, (r = {times: [], counts: []}))
    const last = r.times.length - 1
    if (last >= 0 && r.times[last] === time) r.counts[last] = (r.counts[last] ?? 0) + 1
    else {
      r.times.push(time)
      r.counts.push(1)
    }
  }

  /** Page loads started in [from, to]; `service` undefined counts every service. */
  count(service: string | undefined, from: number, to: number): number {
    let n = 0
    for (const [s, r] of this.runs) {
      if (service !== undefined && s !== service) continue
      for (let i = lowerBound(r.times, from); i < r.times.length && (r.times[i] ?? Infinity) <= to; i++) n += r.counts[i] ?? 0
    }
    return n
  }
}

function lowerBound(a: number[], x: number): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((a[mid] ?? Infinity) < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Page loads in [start, end] plus the broken ones that started outside it (stale tabs), given their start times. */
export function pageLoadsInWindow(timeline: PageLoadTimeline, service: string | undefined, start: number, end: number, brokenTimes: Iterable<number>): number {
  let outside = 0
  for (const t of brokenTimes) if (t < start || t > end) outside++
  return timeline.count(service, start, end) + outside
}
