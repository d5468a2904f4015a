import {lowerBound} from './builds'

/**
 * When page loads of one app started, run-length encoded (logs with 1-second timestamps give long
 * runs), so a window can later ask how many page loads began inside it. Page loads counted per
 * bucket rather than read (see census.ts) count in a window that holds their whole bucket; a
 * window that cuts such a bucket cannot be counted exactly, and says so (`inexact`).
 */
export class PageLoadTimeline {
  private readonly times: number[] = []
  private readonly counts: number[] = []
  private readonly counted: {start: number; end: number; n: number}[] = []
  /** Windows asked for that cut a counted bucket. */
  inexact = 0

  add(time: number): void {
    const last = this.times.length - 1
    if (last >= 0 && this.times[last] === time) this.counts[last] = (this.counts[last] ?? 0) + 1
    else {
      this.times.push(time)
      this.counts.push(1)
    }
  }

  /** `n` page loads somewhere in [start, start + bucketMs). */
  addCounted(start: number, bucketMs: number, n: number): void {
    this.counted.push({start, end: start + bucketMs, n})
  }

  /** Page loads started in [from, to]. */
  count(from: number, to: number): number {
    let n = 0
    for (let i = lowerBound(this.times, from); i < this.times.length && (this.times[i] as number) <= to; i++) n += this.counts[i] as number
    let cut = false
    for (const c of this.counted) {
      if (c.start >= from && c.end - 1 <= to) n += c.n
      else if (c.end - 1 >= from && c.start <= to) cut = true
    }
    if (cut) this.inexact++
    return n
  }
}

/** Page loads in [start, end] plus the affected ones that started outside it (stale tabs), given their start times. */
export function pageLoadsInWindow(timeline: PageLoadTimeline, start: number, end: number, affectedTimes: Iterable<number>): number {
  let outside = 0
  for (const t of affectedTimes) if (t < start || t > end) outside++
  return timeline.count(start, end) + outside
}
