import type {AssetKind} from './assets'
import type {AssetOutcome} from './classify'

/** One asset of a barrage: what came back and how it was classified. */
export interface AssetResult {
  url: string
  kind: AssetKind
  status: number | null
  bytes: number
  contentType: string | null
  outcome: AssetOutcome
  reason: string | null
  ms: number
}

/**
 * How a barrage ended. `html`: an asset came back as HTML (the write-up's "has some HTML");
 * `missing`: an asset got a 4xx; `error`: an asset got no usable response; `page-error`: the page
 * itself failed, so no asset was checked.
 */
export type Verdict = 'all-ok' | 'html' | 'missing' | 'error' | 'page-error'

export interface BarrageResult {
  seq: number
  /** Epoch ms. */
  startedAt: number
  endedAt: number
  page: {url: string; status: number | null; bytes: number; contentType: string | null; error: string | null; ms: number}
  /** Shell length and asset-list hash: `2054:3f9a2c1b`. Absent when the page failed. */
  build: {fingerprint: string; shellBytes: number; assetsHash: string} | null
  assets: AssetResult[]
  verdict: Verdict
}

export interface BuildSeen {
  fingerprint: string
  shellBytes: number
  assetsHash: string
  /** How many assets the page named. */
  assets: number
  firstSeen: string
  lastSeen: string
  barrages: number
}

/** `unreachable`: --give-up-after barrages in a row got no answer from the page (refused, DNS, timeout). */
export type ProbeStop = 'count' | 'duration' | 'interrupt' | 'unreachable'

/** The probe's summary: the `--json` contract (schemas/probe.schema.json). */
export interface ProbeSummary {
  schemaVersion: 1
  url: string
  startedAt: string
  endedAt: string
  stoppedBy: ProbeStop
  barrages: number
  /** Barrages with at least one asset that was not ok. */
  failedBarrages: number
  byVerdict: {html: number; missing: number; error: number}
  pageErrors: number
  /** failedBarrages / barrages whose page loaded (4 decimals); 0 when none did. */
  failureRate: number
  firstFailure: string | null
  lastFailure: string | null
  /** From the first failed barrage's start to the last one's; null without failures. */
  windowSeconds: number | null
  builds: BuildSeen[]
  /** Times the fingerprint differed from the previous barrage's. */
  buildChanges: number
  assets: {requests: number; ok: number; htmlForAsset: number; missing: number; error: number}
}
