import type {AppState} from './apps'

/**
 * Page requests counted rather than read: a live Datadog pull reads every page request only in
 * some stretches of time (around failures, builds' and pods' first and last responses, deploy
 * edges) and counts the rest with the aggregate API, bucket by bucket. The counts stand in for the
 * requests left out, so the report's page loads, builds and windows are those of reading them all.
 * Plain data, so it can come from anywhere (the Datadog aggregate API, a test).
 *
 * Only shell-path requests are counted (GET on `/`, `/index.html`, …): they need nothing but their
 * time, length, agent and pod to be judged. Routes answered with a shell are read in full.
 */
export interface PageCensus {
  bucketMs: number
  /** The buckets (start times) whose page requests were read: the counts cover every other bucket. */
  read: readonly number[]
  /** By app name as the analysis names apps ('' for none). */
  apps: Readonly<Record<string, AppCensus>>
  /** Shell-path 2xx responses per pod (every app's, every length), per bucket start: which build's shells they were. */
  pods?: readonly {pod: string; counts: readonly (readonly [number, number])[]}[]
}

export interface AppCensus {
  /** People's page loads on shell paths per bucket start (2xx with a body, or 304; crawlers and the probe left out). */
  pageLoads: readonly (readonly [number, number])[]
  /**
   * Shell-path 2xx responses (every agent) per length, per bucket start. (The pods that answered
   * each length are not counted: a pull reads each pod's first shell of each length.)
   */
  shells: readonly {bytes: number; counts: readonly (readonly [number, number])[]}[]
}

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
  // A pod's requests are read at its edges, so a pod of this app is known to it by now.
  for (const {pod: value, counts: series} of census.pods ?? []) {
    const pod = app.evidence.podOf(value)
    if (pod === undefined) continue
    let n = 0
    for (const [t, c] of series) if (counted(t) && c > 0) n += c
    if (n > 0) app.evidence.shells(pod, n)
  }
}
