import type {FixId} from './report'

/** `skewscan compare --json` (schemas/compare.schema.json). */
export const COMPARE_SCHEMA_VERSION = 1

/** Per fix, failed requests it would have prevented by the report's advice (null: the logs cannot tell). */
export type FixCounts = Record<FixId, number | null>

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
  failedRequests: number
  /** What each fix would have prevented of them, by the advice (analyze's `advice`). */
  prevents: FixCounts
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
  failedRequests: number
  /** Summed over its deploys; null when the advice could not tell for one of them. */
  prevents: FixCounts
}

/** One fix, before against after: what it would prevent per 1000 page loads in the deploy windows. */
export interface FixComparison {
  fix: FixId
  /** What the advice predicted it would have prevented on the before side. */
  before: number | null
  /** What it would still prevent on the after side: near 0 for the fix that was made. */
  after: number | null
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
    /** All failed requests per 1000 page loads in the deploy windows, before and after. */
    failedPerThousandBefore: number | null
    failedPerThousandAfter: number | null
    /** Per fix: its share of the failures before (the advice's prediction) and after, per 1000 page loads; the fix whose share fell most first. */
    fixes: FixComparison[]
    verdict: string
  } | null
}
