import type {Direction, FailureReason} from '../model/report'
import type {PageLoad} from './sessions'

/** Failures of one service clustered in time, as they accumulate. */
export interface IncidentAccumulator {
  index: number
  service: string
  start: number
  end: number
  sessions: Set<string>
  pageLoads: Set<PageLoad>
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

/** Clusters failures per service: a gap longer than `gapMs` closes an incident. */
export class IncidentClusterer {
  readonly incidents: IncidentAccumulator[] = []
  private readonly open = new Map<string, IncidentAccumulator>()

  constructor(private readonly gapMs: number) {}

  add(service: string, time: number, session: string, pl: PageLoad, reason: FailureReason, direction: Direction): IncidentAccumulator {
    let inc = this.open.get(service)
    if (!inc || time - inc.end > this.gapMs) {
      inc = {
        index: this.incidents.length, service, start: time, end: time, sessions: new Set(), pageLoads: new Set(),
        failedRequests: 0, byDirection: emptyDirections(), byReason: {fallback: 0, missing: 0, contentType: 0},
      }
      this.incidents.push(inc)
      this.open.set(service, inc)
    }
    inc.end = time
    inc.sessions.add(session)
    inc.pageLoads.add(pl)
    inc.failedRequests++
    inc.byDirection[direction]++
    inc.byReason[reason]++
    return inc
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

/** Page loads in [start, end] plus the broken ones that started outside it (stale tabs). */
export function pageLoadsInWindow(timeline: PageLoadTimeline, service: string | undefined, start: number, end: number, broken: Iterable<PageLoad>): number {
  let outside = 0
  for (const pl of broken) if (pl.time < start || pl.time > end) outside++
  return timeline.count(service, start, end) + outside
}
