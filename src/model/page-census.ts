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
