import {detach} from '../util/detach'

/** Pods told apart per app at most; beyond this a new pod is not followed (its requests are not counted). */
const MAX_PODS = 10_000
const MINUTE = 60_000

/**
 * Whether a page's assets come from the pod that served its shell: nearly all of them under cookie
 * affinity (a session stays on its pod), about 1/pods under round-robin. Counted per minute, in
 * time order (the requests are judged in time order), of page loads that started that minute or
 * the one before, so a deploy can ask about the minutes of its failures: a live Datadog pull reads
 * every request of those minutes and the one either side (its asset windows), so it counts the same.
 */
export class PodAffinity {
  private readonly ids = new Map<string, number>()
  private readonly minutes: number[] = []
  private readonly asked: number[] = []
  private readonly same: number[] = []

  /** A number for the pod an upstream address names (0: none logged, or too many pods). */
  podId(upstream: string | undefined): number {
    if (upstream === undefined || upstream === '') return 0
    const id = this.ids.get(upstream)
    if (id !== undefined) return id
    if (this.ids.size >= MAX_PODS) return 0
    this.ids.set(detach(upstream), this.ids.size + 1)
    return this.ids.size
  }

  /** An asset of a page loaded at `pageTime` whose shell came from pod `shellPod` (0: unknown) answered with real content by `upstream` at `time`. */
  asset(shellPod: number, pageTime: number, upstream: string | undefined, time: number): void {
    if (shellPod === 0 || upstream === undefined || upstream === '') return
    const minute = Math.floor(time / MINUTE)
    if (Math.floor(pageTime / MINUTE) < minute - 1) return
    const last = this.minutes.length - 1
    if (last < 0 || (this.minutes[last] as number) < minute) {
      this.minutes.push(minute)
      this.asked.push(0)
      this.same.push(0)
    }
    // Out of order by less than the minute (never by more: events are judged in time order).
    const i = this.minutes.length - 1
    this.asked[i] = (this.asked[i] as number) + 1
    if (this.ids.get(upstream) === shellPod) this.same[i] = (this.same[i] as number) + 1
  }

  /** Asset requests counted in the minute of each of these times and the minute after, and how many the shell's pod answered. */
  around(times: readonly number[]): {assetRequests: number; samePod: number} {
    const wanted = new Set<number>()
    for (const t of times) wanted.add(Math.floor(t / MINUTE)).add(Math.floor(t / MINUTE) + 1)
    let assetRequests = 0
    let samePod = 0
    for (let i = 0; i < this.minutes.length; i++) {
      if (!wanted.has(this.minutes[i] as number)) continue
      assetRequests += this.asked[i] as number
      samePod += this.same[i] as number
    }
    return {assetRequests, samePod}
  }
}
