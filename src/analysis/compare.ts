import type {CompareDeploy, CompareGroup, CompareReport, FixComparison, FixCounts} from '../model/compare'
import {COMPARE_SCHEMA_VERSION} from '../model/compare'
import type {AnalysisReport, DeployAdvice, FixId} from '../model/report'
import {plural} from '../util/plural'
import {affinityPrevents, FIXES} from './advice'

export interface LabelledReport {
  name: string
  report: AnalysisReport
}

const share = (n: number, d: number): number => (d === 0 ? 0 : Math.round((n / d) * 10_000) / 10_000)
const pct = (x: number): string => `${Math.round(x * 1000) / 10}%`

/**
 * What each fix would have prevented of a deploy's failed requests, by its advice (none: no
 * failure). With `pods` given (replicas the logs do not name), affinity's 1/pods residual is
 * estimated where the logs could not.
 */
export function fixCounts(advice: DeployAdvice | undefined, pods?: number): FixCounts {
  const out = Object.fromEntries(FIXES.map((f) => [f, 0])) as FixCounts
  for (const f of advice?.fixes ?? []) {
    const race = advice?.evidence.byCause.rollout ?? 0
    out[f.fix] = f.prevented?.failedRequests ?? (f.fix === 'cookie-affinity' && pods !== undefined ? affinityPrevents({failedRequests: race, pageLoads: 0, users: 0}, pods).failedRequests : null)
  }
  return out
}

/** One row per deploy: its page loads, broken ones, users, longest rollout window, replica count and what each fix would have prevented. */
export function deployRows(group: string, r: AnalysisReport, include: (start: number) => boolean = () => true, pods?: number): CompareDeploy[] {
  return r.deploys.filter((d) => include(Date.parse(d.start))).map((d) => {
    const mine = r.incidents.filter((i) => i.deployId === d.id)
    // Crashed page loads of the race; a stale tab's page had loaded long before (its lazy chunk broke).
    const broken = mine.filter((i) => i.cause === 'rollout').reduce((n, i) => n + i.brokenPageLoads, 0)
    const from = r.builds.find((b) => b.id === d.fromBuild && b.app === d.app)
    return {
      group, id: d.id, start: d.start, fromBuild: d.fromBuild, toBuild: d.toBuild, pods: pods ?? from?.pods ?? null,
      pageLoads: d.pageLoads, brokenPageLoads: broken, brokenShare: share(broken, d.pageLoads),
      staleBrokenPageLoads: mine.filter((i) => i.cause === 'stale-client').reduce((n, i) => n + i.affectedPageLoads, 0),
      affectedUsers: d.affectedUsers, windowSeconds: d.rolloutWindow?.seconds ?? 0,
      failedRequests: d.failedRequests, prevents: fixCounts((r.advice ?? []).find((a) => a.deployId === d.id && a.app === d.app), pods),
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
    failedRequests: sum((d) => d.failedRequests), prevents: sumCounts(rows),
  }
}

function sumCounts(rows: readonly CompareDeploy[]): FixCounts {
  const out = Object.fromEntries(FIXES.map((f) => [f, 0])) as FixCounts
  for (const d of rows) for (const f of FIXES) out[f] = out[f] === null || d.prevents[f] === null ? null : (out[f] as number) + (d.prevents[f] as number)
  return out
}

const perThousand = (n: number | null, pageLoads: number): number | null => (n === null || pageLoads === 0 ? null : Math.round((n / pageLoads) * 10_000) / 10)

/**
 * Each fix, before against after, per 1000 page loads: what the advice predicted it would prevent
 * before, and what it would still prevent after. The fix that was made leaves near nothing of its
 * own; those whose share fell most come first.
 */
function fixComparisons(before: CompareGroup, after: CompareGroup): FixComparison[] {
  const rows = FIXES.map((fix) => ({fix, before: perThousand(before.prevents[fix], before.pageLoads), after: perThousand(after.prevents[fix], after.pageLoads)}))
  const fell = (x: FixComparison): number => (x.before === null || x.after === null || x.before === 0 ? -Infinity : 1 - x.after / x.before)
  return rows.sort((a, b) => fell(b) - fell(a) || (b.before ?? -1) - (a.before ?? -1) || FIXES.indexOf(a.fix) - FIXES.indexOf(b.fix))
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
    const fixes = fixComparisons(before, after)
    const failed = {before: perThousand(before.failedRequests, before.pageLoads), after: perThousand(after.failedRequests, after.pageLoads)}
    comparison = {
      before: before.name, after: after.name, brokenShareBefore: before.brokenShare, brokenShareAfter: after.brokenShare,
      relativeChange: change, affinityExpectedShare: expected, failedPerThousandBefore: failed.before, failedPerThousandAfter: failed.after, fixes,
      verdict: `${verdict(before, after, expected, pods)}${fixVerdict(before, fixes, failed)}`,
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

/**
 * What the fix actually prevented beside what the advice predicted: the fix whose failures fell
 * most, from its share before (the prediction) to what is left of it after, and all failures.
 */
function fixVerdict(before: CompareGroup, fixes: readonly FixComparison[], failed: {before: number | null; after: number | null}): string {
  const top = fixes[0]
  if (!top || top.before === null || top.after === null || top.before === 0 || failed.before === null || failed.after === null) return ''
  const predicted = before.prevents[top.fix as FixId] ?? 0
  const fell = (a: number, b: number): string => (a === 0 ? '' : ` (${b <= a ? '−' : '+'}${Math.round(Math.abs(1 - b / a) * 100)}%)`)
  return ` Per 1000 page loads, the failures ${top.fix} prevents went from ${top.before} to ${top.after}${fell(top.before, top.after)}: the advice for ${before.name} ` +
    `predicted it would prevent ${predicted} of ${plural(before.failedRequests, 'failed request')}; all failed requests went from ${failed.before} to ${failed.after}${fell(failed.before, failed.after)}.`
}
