import type {CompareDeploy, CompareGroup, CompareReport} from '../model/compare'
import {COMPARE_SCHEMA_VERSION} from '../model/compare'
import type {AnalysisReport} from '../model/report'
import {plural} from '../util/plural'

export interface LabelledReport {
  name: string
  report: AnalysisReport
}

const share = (n: number, d: number): number => (d === 0 ? 0 : Math.round((n / d) * 10_000) / 10_000)
const pct = (x: number): string => `${Math.round(x * 1000) / 10}%`

/** One row per deploy: its page loads, broken ones, users, longest rollout window and replica count. */
export function deployRows(group: string, r: AnalysisReport, include: (start: number) => boolean = () => true): CompareDeploy[] {
  return r.deploys.filter((d) => include(Date.parse(d.start))).map((d) => {
    const mine = r.incidents.filter((i) => i.deployId === d.id)
    // Crashed page loads of the race; a stale tab's page had loaded long before (its lazy chunk broke).
    const broken = mine.filter((i) => i.cause === 'rollout').reduce((n, i) => n + i.brokenPageLoads, 0)
    const from = r.builds.find((b) => b.id === d.fromBuild && b.app === d.app)
    return {
      group, id: d.id, start: d.start, fromBuild: d.fromBuild, toBuild: d.toBuild, pods: from?.pods ?? null,
      pageLoads: d.pageLoads, brokenPageLoads: broken, brokenShare: share(broken, d.pageLoads),
      staleBrokenPageLoads: mine.filter((i) => i.cause === 'stale-client').reduce((n, i) => n + i.affectedPageLoads, 0),
      affectedUsers: d.affectedUsers, windowSeconds: d.rolloutWindow?.seconds ?? 0,
    }
  })
}

export function groupOf(name: string, rows: readonly CompareDeploy[]): CompareGroup {
  const sum = (f: (d: CompareDeploy) => number): number => rows.reduce((n, d) => n + f(d), 0)
  const pods = rows.map((d) => d.pods).filter((p): p is number => p !== null)
  return {
    name, deploys: rows.length, pageLoads: sum((d) => d.pageLoads), brokenPageLoads: sum((d) => d.brokenPageLoads),
    brokenShare: share(sum((d) => d.brokenPageLoads), sum((d) => d.pageLoads)), staleBrokenPageLoads: sum((d) => d.staleBrokenPageLoads),
    affectedUsers: sum((d) => d.affectedUsers),
    usersPerDeploy: rows.length === 0 ? 0 : Math.round((sum((d) => d.affectedUsers) / rows.length) * 100) / 100,
    meanWindowSeconds: rows.length === 0 ? 0 : Math.round((sum((d) => d.windowSeconds) / rows.length) * 10) / 10,
    pods: pods.length === 0 ? null : Math.round(pods.reduce((a, b) => a + b, 0) / pods.length),
  }
}

/**
 * Did the fix work? The first group against the last, with what cookie affinity alone predicts:
 * per the write-up, a page load can still break with probability about 1/pods, so affinity should
 * cut the race's broken share by about the number of pods.
 */
export function compareReport(split: CompareReport['split'], groups: {name: string; rows: CompareDeploy[]}[]): CompareReport {
  const summaries = groups.map((g) => groupOf(g.name, g.rows))
  const before = summaries[0]
  const after = summaries.at(-1)
  let comparison: CompareReport['comparison'] = null
  if (before && after && before !== after) {
    const pods = before.pods ?? after.pods
    const expected = pods ? share(before.brokenShare, pods) : null
    const change = before.brokenShare === 0 ? null : Math.round(((after.brokenShare - before.brokenShare) / before.brokenShare) * 10_000) / 10_000
    comparison = {
      before: before.name, after: after.name, brokenShareBefore: before.brokenShare, brokenShareAfter: after.brokenShare,
      relativeChange: change, affinityExpectedShare: expected, verdict: verdict(before, after, expected, pods),
    }
  }
  return {schemaVersion: COMPARE_SCHEMA_VERSION, split, groups: summaries, deploys: groups.flatMap((g) => g.rows), comparison}
}

function verdict(before: CompareGroup, after: CompareGroup, expected: number | null, pods: number | null): string {
  if (before.deploys === 0 || after.deploys === 0) return `No deploys in ${before.deploys === 0 ? before.name : after.name}: nothing to compare.`
  const deploys = (n: number): string => plural(n, 'deploy')
  const points = Math.round((after.brokenShare - before.brokenShare) * 1000) / 10
  const moved = `Page loads broken by the rollout race went from ${pct(before.brokenShare)} (${before.name}, ${deploys(before.deploys)}) to ${pct(after.brokenShare)} (${after.name}, ${deploys(after.deploys)}), ${points > 0 ? '+' : points < 0 ? '−' : '±'}${Math.abs(points)} percentage points`
  if (expected === null) return `${moved}; the logs name no pods, so the cookie-affinity residual (about 1/pods) cannot be estimated (--pods N).`
  const podCount = pods === null ? 'the pods seen' : plural(pods, 'pod')
  const tolerance = Math.max(0.02, expected * 0.25)
  const judged = after.brokenShare <= expected + tolerance
    ? `in line with cookie affinity alone (about ${pct(expected)} with ${podCount})`
    : `more than cookie affinity alone leaves (about ${pct(expected)} with ${podCount}): the fix did not do what affinity should`
  const better = after.brokenShare === 0 ? 'no page broke in the race after the fix' : judged
  const stale = `; stale tabs broke ${before.staleBrokenPageLoads} then ${plural(after.staleBrokenPageLoads, 'page load')}`
  return `${moved}: ${better}${stale}.`
}
