import type {AppState} from './apps'
import type {PageCensus} from '../model/page-census'


/** One bucket's counted shells of one length and app, as the look-ahead stage learns them. */
export interface CountedShells {
  time: number
  app: string
  bytes: number
  n: number
}

/** Whether a time lies in a bucket counted rather than read. */
export function inCountedBucket(census: PageCensus): (time: number) => boolean {
  const read = new Set(census.read)
  const bucketMs = census.bucketMs
  return (time) => !read.has(Math.floor(time / bucketMs) * bucketMs)
}

/** Every app's counted shells in time order (buckets that were read left out). */
export function countedShells(census: PageCensus): CountedShells[] {
  const counted = inCountedBucket(census)
  const out: CountedShells[] = []
  for (const [app, counts] of Object.entries(census.apps)) {
    for (const {bytes, counts: series} of counts.shells) for (const [time, n] of series) if (counted(time) && n > 0) out.push({time, app, bytes, n})
  }
  return out.sort((a, b) => a.time - b.time || (a.app < b.app ? -1 : a.app > b.app ? 1 : 0) || a.bytes - b.bytes)
}

/**
 * Adds the counted page loads of one app to what the analysis read: its page loads and their
 * timeline. The counted shells were learned while the stream was read (Detector), as shells read are.
 */
export function applyCensus(app: AppState, census: PageCensus): void {
  const counts = census.apps[app.name]
  if (!counts) return
  const counted = inCountedBucket(census)
  for (const [t, n] of counts.pageLoads) {
    if (!counted(t) || n <= 0) continue
    app.pageLoads += n
    app.timeline.addCounted(t, census.bucketMs, n)
  }
  // Counted routes are shells of their length's build (the pull counts them only where it was
  // served near enough): its shell responses, as judgePage adds those of a route read.
  for (const {bytes, counts: series} of counts.routes ?? []) {
    const build = app.builds.match(bytes)
    if (!build) continue
    for (const [t, n] of series) if (counted(t) && n > 0) build.shellRequests += n
  }
  // A pod's requests are read at its edges, so a pod of this app is known to it by now.
  for (const {pod: value, counts: series} of census.pods ?? []) {
    const pod = app.evidence.podOf(value)
    if (pod === undefined) continue
    let n = 0
    for (const [t, c] of series) if (counted(t) && c > 0) n += c
    if (n > 0) app.evidence.shells(pod, n)
  }
}
