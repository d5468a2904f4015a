import type {BarrageResult, BuildSeen, ProbeStop, ProbeSummary} from './types'

/** Builds listed in the summary at most (a page with a nonce in every asset URL would otherwise grow it without end). */
const MAX_BUILDS = 100

const iso = (t: number): string => new Date(t).toISOString()

/**
 * The probe's running totals. Constant memory per build, whatever the number of barrages, so a
 * probe left running for hours stays small. Pure: times come from the barrages.
 */
export class ProbeTally {
  private barrages = 0
  private failed = 0
  private pageErrors = 0
  private readonly byVerdict = {html: 0, missing: 0, error: 0}
  private firstFailure: number | undefined
  private lastFailure: number | undefined
  private readonly builds = new Map<string, {shellBytes: number; assetsHash: string; assets: number; first: number; last: number; barrages: number}>()
  private previous: string | undefined
  private changes = 0
  private readonly assets = {requests: 0, ok: 0, htmlForAsset: 0, missing: 0, error: 0}

  /** Counts a barrage; says whether its build was seen for the first time and whether it differs from the previous barrage's. */
  add(b: BarrageResult): {newBuild: boolean; changed: boolean} {
    this.barrages++
    if (b.verdict === 'page-error') this.pageErrors++
    else if (b.verdict !== 'all-ok') {
      this.failed++
      this.byVerdict[b.verdict]++
      this.firstFailure ??= b.startedAt
      this.lastFailure = b.startedAt
    }
    for (const a of b.assets) {
      this.assets.requests++
      if (a.outcome === 'ok') this.assets.ok++
      else if (a.outcome === 'html-for-asset') this.assets.htmlForAsset++
      else this.assets[a.outcome]++
    }
    if (!b.build) return {newBuild: false, changed: false}
    const fp = b.build.fingerprint
    const changed = this.previous !== undefined && this.previous !== fp
    if (changed) this.changes++
    this.previous = fp
    const seen = this.builds.get(fp)
    if (seen) {
      seen.last = Math.max(seen.last, b.startedAt)
      seen.barrages++
      return {newBuild: false, changed}
    }
    if (this.builds.size < MAX_BUILDS) {
      this.builds.set(fp, {shellBytes: b.build.shellBytes, assetsHash: b.build.assetsHash, assets: b.assets.length, first: b.startedAt, last: b.startedAt, barrages: 1})
    }
    return {newBuild: true, changed}
  }

  get failedBarrages(): number {
    return this.failed
  }

  summary(meta: {url: string; startedAt: number; endedAt: number; stoppedBy: ProbeStop}): ProbeSummary {
    const loaded = this.barrages - this.pageErrors
    const builds: BuildSeen[] = [...this.builds].map(([fingerprint, b]) => ({
      fingerprint, shellBytes: b.shellBytes, assetsHash: b.assetsHash, assets: b.assets,
      firstSeen: iso(b.first), lastSeen: iso(b.last), barrages: b.barrages,
    }))
    return {
      schemaVersion: 1, url: meta.url, startedAt: iso(meta.startedAt), endedAt: iso(meta.endedAt), stoppedBy: meta.stoppedBy,
      barrages: this.barrages, failedBarrages: this.failed, byVerdict: {...this.byVerdict}, pageErrors: this.pageErrors,
      failureRate: loaded === 0 ? 0 : Math.round((this.failed / loaded) * 10_000) / 10_000,
      firstFailure: this.firstFailure === undefined ? null : iso(this.firstFailure),
      lastFailure: this.lastFailure === undefined ? null : iso(this.lastFailure),
      windowSeconds: this.firstFailure === undefined || this.lastFailure === undefined ? null : (this.lastFailure - this.firstFailure) / 1000,
      builds, buildChanges: this.changes, assets: {...this.assets},
    }
  }
}

/** The verdict of a barrage whose page loaded: the worst asset outcome, HTML first as in the write-up. */
export function verdictOf(outcomes: readonly string[]): 'all-ok' | 'html' | 'missing' | 'error' {
  if (outcomes.includes('html-for-asset')) return 'html'
  if (outcomes.includes('missing')) return 'missing'
  if (outcomes.includes('error')) return 'error'
  return 'all-ok'
}
