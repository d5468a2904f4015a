/** `skewscan compare --json` (schemas/compare.schema.json). */
export const COMPARE_SCHEMA_VERSION = 1

export interface CompareDeploy {
  group: string
  id: string
  start: string
  fromBuild: string | null
  toBuild: string | null
  /** Replicas of the build being replaced, from the pods seen serving it (null when logs name no pods). */
  pods: number | null
  pageLoads: number
  /** Page loads broken by the rollout race (rollout incidents). */
  brokenPageLoads: number
  /** Rollout-broken page loads over page loads in the deploy window. */
  brokenShare: number
  /** Page loads of stale tabs broken after the deploy (stale-client incidents): a fix like keeping old assets targets these. */
  staleBrokenPageLoads: number
  affectedUsers: number
  /** The longest rollout incident of the deploy; 0 when it broke nothing. */
  windowSeconds: number
}

export interface CompareGroup {
  name: string
  deploys: number
  pageLoads: number
  brokenPageLoads: number
  /** Rollout-broken page loads over page loads, pooled over the group's deploys. */
  brokenShare: number
  staleBrokenPageLoads: number
  affectedUsers: number
  usersPerDeploy: number
  meanWindowSeconds: number
  pods: number | null
}

export interface CompareReport {
  schemaVersion: number
  /** How the deploys were split: at a date, or by labelled input sets. */
  split: {kind: 'fix-date'; fixDate: string} | {kind: 'sets'}
  groups: CompareGroup[]
  deploys: CompareDeploy[]
  /** The first group against the last: the change and what cookie affinity alone would predict. */
  comparison: {
    before: string
    after: string
    brokenShareBefore: number
    brokenShareAfter: number
    /** (after - before) / before; null when before is 0. */
    relativeChange: number | null
    /** Cookie affinity leaves about 1/pods of the race (the write-up): before share / pods. */
    affinityExpectedShare: number | null
    verdict: string
  } | null
}
