/**
 * What a live Datadog pull hands the analysis beside the events it reads: page requests it counted
 * rather than read, and how much of each pod's end it must read. The contract between the source
 * (sources/datadog) and the analysis (analysis/census.ts, analysis/builds.ts), below both.
 */

/**
 * Evidence times kept per build to judge how often the logs show it answering near its end
 * (analysis/builds.ts). A Datadog pull reads each pod's last this-many responses for it (see
 * sources/datadog/pull.ts).
 */
export const RECENT_EVIDENCE = 9

/**
 * Page requests counted rather than read: a live Datadog pull reads every page request only in
 * some stretches of time (around failures, builds' and pods' first and last responses, deploy
 * edges) and counts the rest with the aggregate API, bucket by bucket. The counts stand in for the
 * requests left out, so the report's page loads, builds and windows are those of reading them all.
 * Plain data, so it can come from anywhere (the Datadog aggregate API, a test).
 *
 * Shell-path requests are counted (GET on `/`, `/index.html`, …): they need nothing but their
 * time, length, agent and pod to be judged. Routes answered with a shell (deep links) are counted
 * too where `routes` says so: only those whose path holds no dot (surely a document path), and
 * only in buckets where the shell's length was served near enough that every one of them is a
 * shell of that length's build (the pull reads the other buckets). Other routes are read in full.
 */
export interface PageCensus {
  bucketMs: number
  /** The buckets (start times) whose page requests were read: the counts cover every other bucket. */
  read: readonly number[]
  /** By app name as the analysis names apps ('' for none). */
  apps: Readonly<Record<string, AppCensus>>
  /** Shell-path 2xx responses per pod (every app's, every length), per bucket start: which build's shells they were. */
  pods?: readonly {pod: string; counts: readonly (readonly [number, number])[]}[]
  /**
   * Routes whose path holds no dot, answered 2xx with a shell's length, are counted in the buckets
   * not read (AppCensus.routes, in pageLoads and in pods): such a route read there (a hurt
   * person's) is in the count already.
   */
  routes?: boolean
}

export interface AppCensus {
  /** People's page loads on shell paths per bucket start (2xx with a body, or 304; crawlers and the probe left out), and on routes where they are counted. */
  pageLoads: readonly (readonly [number, number])[]
  /**
   * Shell-path 2xx responses (every agent) per length, per bucket start. (The pods that answered
   * each length are not counted: a pull reads each pod's first shell of each length.)
   */
  shells: readonly {bytes: number; counts: readonly (readonly [number, number])[]}[]
  /** Routes (no dot in the path) answered 2xx with a shell's length (every agent) per length, per bucket start, where PageCensus.routes. */
  routes?: readonly {bytes: number; counts: readonly (readonly [number, number])[]}[]
}
