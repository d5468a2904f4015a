import type {
  AssetKind, DeployAdvice, Direction, FailureCause, FailureReason, FixAdvice, FixId, Impact, LoadPhase,
} from '../model/report'
import {duration} from '../util/duration'
import {plural} from '../util/plural'

/** One failed request of a deploy, as the advice weighs it. */
export interface AdviceFailure {
  cause: FailureCause
  direction: Direction
  reason: FailureReason
  phase: LoadPhase
  asset: AssetKind
  /** The page load it hit (its id) and the user (session). */
  pageLoad: number
  session: string
  /** How long the page's shell had been loaded when it failed, ms. */
  pageAgeMs: number
}

/** What the logs show of the deploy beside its failures. */
export interface AdviceContext {
  pods: number | null
  windowSeconds: number
  raceSeconds: number | null
  samePod: {assetRequests: number; share: number} | null
}

/** Every fix, in the order of a tie. */
export const FIXES: readonly FixId[] = ['keep-old-assets', 'version-pinning', 'cookie-affinity', 'not-found-for-missing-assets', 'client-reload-on-chunk-error', 'shorter-rollout']

/**
 * How sessions stick to pods, by the share of asset requests their shell's pod answered: at least
 * STICKY is cookie affinity (lazy chunks after a pod went away are the few others); under SPREAD
 * the requests are spread over pods (round-robin gives about 1/pods). Between, or with fewer than
 * MIN_REQUESTS, the logs do not tell.
 */
const STICKY = 0.9
const SPREAD = 0.6
const MIN_REQUESTS = 20

const isForward = (f: AdviceFailure): boolean => f.direction === 'oldPageNewPod'
const isRace = (f: AdviceFailure): boolean => f.cause === 'rollout'
const isShell = (f: AdviceFailure): boolean => f.reason !== 'missing'
const pct = (share: number): string => `${Math.round(share * 1000) / 10}%`
const failures = (n: number): string => plural(n, 'failure')

/** The failed requests a fix prevents; the page loads and users left with no failure at all. */
export function impactOf(list: readonly AdviceFailure[], prevents: (f: AdviceFailure) => boolean): Impact {
  const pageLoads = new Map<number, boolean>()
  const users = new Map<string, boolean>()
  let failedRequests = 0
  for (const f of list) {
    const p = prevents(f)
    if (p) failedRequests++
    pageLoads.set(f.pageLoad, (pageLoads.get(f.pageLoad) ?? true) && p)
    users.set(f.session, (users.get(f.session) ?? true) && p)
  }
  const all = (m: Map<unknown, boolean>): number => [...m.values()].filter(Boolean).length
  return {failedRequests, pageLoads: all(pageLoads), users: all(users)}
}

const scaled = (i: Impact, k: number): Impact => ({failedRequests: Math.round(i.failedRequests * k), pageLoads: Math.round(i.pageLoads * k), users: Math.round(i.users * k)})
const NONE: Impact = {failedRequests: 0, pageLoads: 0, users: 0}

/** What cookie affinity would prevent of a race of `race` (its failures, page loads, users) with `pods` pods: all but about 1/pods. */
export function affinityPrevents(race: Impact, pods: number): Impact {
  return pods <= 1 ? NONE : scaled(race, 1 - 1 / pods)
}

type Evidence = DeployAdvice['evidence']

function evidenceOf(list: readonly AdviceFailure[], ctx: AdviceContext): Evidence {
  const byDirection: Record<Direction, number> = {oldPageNewPod: 0, newPageOldPod: 0, unknown: 0}
  const byCause: Record<FailureCause, number> = {rollout: 0, 'stale-client': 0, unattributed: 0}
  const byReason: Record<FailureReason, number> = {fallback: 0, missing: 0, contentType: 0}
  const byPhase: Record<LoadPhase, number> = {initial: 0, lazy: 0}
  const forwardByCause: Record<FailureCause, number> = {rollout: 0, 'stale-client': 0, unattributed: 0}
  let oldest: number | null = null
  for (const f of list) {
    byDirection[f.direction]++
    byCause[f.cause]++
    byReason[f.reason]++
    byPhase[f.phase]++
    if (isForward(f)) forwardByCause[f.cause]++
    if (f.cause === 'stale-client' && (oldest === null || f.pageAgeMs > oldest)) oldest = f.pageAgeMs
  }
  return {
    byDirection, byCause, byReason, byPhase, forwardByCause, oldestStalePageSeconds: oldest === null ? null : Math.round(oldest) / 1000,
    pods: ctx.pods, windowSeconds: ctx.windowSeconds, raceSeconds: ctx.raceSeconds, samePod: ctx.samePod,
  }
}

/**
 * Impacts several fixes weigh, counted once per deploy: the rollout race's (version pinning,
 * cookie affinity, a shorter rollout) and every failure's (the deploy's own, client reload). Each
 * count is a pass over the deploy's failures with two maps; a file of many deploys made seven per
 * deploy, in the report's part of the run that no other thread shares.
 */
interface SharedImpacts {
  race: Impact
  all: Impact
}

function keepOldAssets(list: readonly AdviceFailure[], e: Evidence): FixAdvice {
  const forward = e.byDirection.oldPageNewPod
  const backward = e.byDirection.newPageOldPod
  const stale = e.forwardByCause['stale-client']
  const prevented = impactOf(list, isForward)
  const keep = e.oldestStalePageSeconds === null || stale === 0
    ? 'no stale tab failed, so the logs set no lower bound on how long to keep them beyond the rollout'
    : `keep them at least ${duration(e.oldestStalePageSeconds)}: the oldest stale tab that failed had loaded its page that long before`
  const remains = `what remains is backward skew, new pages asking old pods (${backward}), which version pinning prevents (cookie affinity most of it)`
  const base = {fix: 'keep-old-assets' as const, basis: 'counted' as const, prevented, recovered: {pageLoads: 0, users: 0}}
  if (forward === 0 && backward > 0) {
    return {...base, inPlace: 'yes', note: `Old assets are already kept: no old page failed on a new pod, while ${plural(backward, 'request')} of new pages failed on old pods; ${remains}.`}
  }
  if (e.forwardByCause.rollout === 0 && stale > 0 && backward > 0) {
    return {...base, inPlace: 'partly', note: `Old assets seem kept through the rollout (no old page failed on a new pod during it), not after: ${plural(stale, 'stale tab request')} failed later; ${keep}.`}
  }
  const note = forward === 0
    ? 'No old page asked a new pod for a missing asset here: nothing for it to prevent.'
    : `Prevents the ${failures(forward)} of old pages asking new pods (${e.forwardByCause.rollout} in the race, ${stale} of stale tabs)${backward > 0 ? `, not the ${backward} of new pages asking old pods` : ''}. ` +
      `Keep the previous build's assets on the new pods or in a shared bucket; ${keep}.`
  return {...base, inPlace: forward > 0 ? 'no' : 'unknown', note}
}

function versionPinning(list: readonly AdviceFailure[], e: Evidence, shared: SharedImpacts): FixAdvice {
  const race = e.byCause.rollout
  const stale = e.byCause['stale-client']
  const note = race === 0
    ? `No failure of the rollout race here (pinning, blue/green or a quiet window: the logs cannot tell which); it does nothing for the ${failures(stale)} of stale tabs.`
    : `Prevents every failure of the rollout race, in both directions (${race}: ${e.forwardByCause.rollout} of old pages on new pods, ${list.filter((f) => isRace(f) && f.direction === 'newPageOldPod').length} of new pages on old pods)` +
      `${stale > 0 ? `, not the ${failures(stale)} of stale tabs whose build is gone (keep-old-assets prevents those)` : ''}.`
  return {fix: 'version-pinning', basis: 'counted', prevented: shared.race, recovered: {pageLoads: 0, users: 0}, inPlace: race > 0 ? 'no' : 'unknown', note}
}

function cookieAffinity(_list: readonly AdviceFailure[], e: Evidence, shared: SharedImpacts): FixAdvice {
  const race = shared.race
  const stale = e.byCause['stale-client']
  const s = e.samePod
  const seen = s !== null && s.assetRequests >= MIN_REQUESTS
  const sticky = seen && s.share >= STICKY
  const spread = seen && s.share < SPREAD
  const share = s === null ? '' : `${pct(s.share)} of ${plural(s.assetRequests, 'asset request')} in the minutes of its failures came from their page's pod`
  const base = {fix: 'cookie-affinity' as const, recovered: {pageLoads: 0, users: 0}}
  if (sticky) {
    return {...base, basis: 'counted', prevented: NONE, inPlace: 'yes',
      note: `Sessions already stick to pods (${share}). What remains: ${race.failedRequests} of the race (sessions moved when their pod went away), for version pinning, and ${stale} of stale tabs, for keep-old-assets.`}
  }
  const inPlace = spread ? 'no' : 'unknown'
  const how = spread ? ` Today ${share}: requests are spread over pods.` : ''
  if (e.pods === null) {
    return {...base, basis: 'unknown', prevented: null, inPlace,
      note: `Pins a pod, not a build: it leaves at most about 1/pods of the race's ${race.failedRequests}, but the logs name no pods, so that residual is unknown; nothing for the ${failures(stale)} of stale tabs.${how}`}
  }
  const prevented = affinityPrevents(race, e.pods)
  return {...base, basis: e.pods > 1 && race.failedRequests > 0 ? 'estimated' : 'counted', prevented, inPlace,
    note: `Pins a pod, not a build: with ${plural(e.pods, 'pod')}, at most about 1/${e.pods} of the race's ${race.failedRequests} would remain (about ${prevented.failedRequests} prevented, likely more): ` +
      `sessions whose pod goes away, pages pinned just before; nothing for the ${failures(stale)} of stale tabs.${how}`}
}

function notFound(list: readonly AdviceFailure[], e: Evidence): FixAdvice {
  const shells = e.byReason.fallback + e.byReason.contentType
  const missing = e.byReason.missing
  // Page loads (and users) with a request answered by a shell: their SyntaxError becomes a load error.
  const hit = list.filter(isShell)
  const withShell = {pageLoads: new Set(hit.map((f) => f.pageLoad)).size, users: new Set(hit.map((f) => f.session)).size}
  const base = {fix: 'not-found-for-missing-assets' as const, basis: 'counted' as const, prevented: NONE, recovered: withShell}
  if (shells === 0 && missing > 0) {
    return {...base, inPlace: 'yes', note: `Pods already answer 404 for missing assets: all ${failures(missing)} are 404s, none a shell, so each is a load error the page can catch (see client-reload-on-chunk-error).`}
  }
  const note = shells === 0
    ? 'No asset was answered with a shell here.'
    : `Answering 404 for unknown hashed assets turns the SyntaxError of the ${plural(shells, 'request')} answered with a shell into a load error the page can catch ` +
      `(${plural(withShell.pageLoads, 'page load')}); it prevents the crash, not the failed request.`
  return {...base, inPlace: missing > 0 && shells > 0 ? 'partly' : shells > 0 ? 'no' : 'unknown', note}
}

function clientReload(list: readonly AdviceFailure[], e: Evidence, shared: SharedImpacts): FixAdvice {
  const shells = e.byReason.fallback + e.byReason.contentType
  // Page loads whose every failure is a 404: a reload on the load error recovers them.
  const only404 = impactOf(list, (f) => !isShell(f))
  const all = shared.all
  const base = {fix: 'client-reload-on-chunk-error' as const, basis: 'counted' as const, prevented: NONE, recovered: {pageLoads: only404.pageLoads, users: only404.users}, inPlace: 'unknown' as const}
  if (list.length === 0) return {...base, note: 'No failure to recover from.'}
  if (shells === 0) {
    return {...base, note: `With 404s, one reload on the chunk error (Vite's vite:preloadError, webpack's chunk retry) recovers: the ${plural(only404.pageLoads, 'page load')} hit (${plural(only404.users, 'user')}) would get the current build; the failed requests still happen. The logs cannot tell whether clients already reload.`}
  }
  return {...base, note: `Needs 404s first: ${plural(shells, 'request')} got a shell, a SyntaxError no handler catches. With not-found-for-missing-assets it would recover the ${plural(all.pageLoads, 'page load')} hit with one reload (${only404.pageLoads} already could).`}
}

function shorterRollout(_list: readonly AdviceFailure[], e: Evidence, shared: SharedImpacts): FixAdvice {
  const race = shared.race
  const stale = e.byCause['stale-client']
  const half = scaled(race, 0.5)
  const base = {fix: 'shorter-rollout' as const, recovered: {pageLoads: 0, users: 0}, inPlace: 'unknown' as const}
  if (race.failedRequests === 0) return {...base, basis: 'counted', prevented: NONE, note: `No failure of the rollout race: a shorter rollout has nothing to shrink; stale tabs (${stale}) do not depend on it.`}
  const raced = e.raceSeconds === null ? '' : `, failing for ${duration(e.raceSeconds)} of it`
  return {...base, basis: 'estimated', prevented: half,
    note: `The rollout took ${duration(e.windowSeconds)}${raced}; the race's failures grow with its length, so each halving (more surge, faster readiness) prevents about half of its ${race.failedRequests} (about ${half.failedRequests}); stale tabs (${stale}) are unaffected.`}
}

/** The order of the advice: the fix that would have prevented the most page loads, then failed requests, then recovered page loads. */
function byMostPrevented(a: FixAdvice, b: FixAdvice): number {
  const p = (x: FixAdvice): Impact => x.prevented ?? {failedRequests: -1, pageLoads: -1, users: -1}
  return p(b).pageLoads - p(a).pageLoads || p(b).failedRequests - p(a).failedRequests || p(b).users - p(a).users ||
    (b.recovered?.pageLoads ?? -1) - (a.recovered?.pageLoads ?? -1) || FIXES.indexOf(a.fix) - FIXES.indexOf(b.fix)
}

/**
 * Which fix would have prevented which of one deploy's failures, counted from what each failure
 * was: its direction (keep-old-assets prevents old pages asking new pods), its cause (version
 * pinning prevents the rollout race, not stale tabs), its reason (a 404 can be caught, a shell
 * cannot). Affinity and a shorter rollout are estimates: a share of the race.
 */
export function adviseDeploy(list: readonly AdviceFailure[], ctx: AdviceContext): Omit<DeployAdvice, 'deployId' | 'app'> {
  const e = evidenceOf(list, ctx)
  const shared: SharedImpacts = {race: impactOf(list, isRace), all: impactOf(list, () => true)}
  const fixes = [keepOldAssets, versionPinning, cookieAffinity, notFound, clientReload, shorterRollout].map((f) => f(list, e, shared)).sort(byMostPrevented)
  const unknown: string[] = []
  if (e.byDirection.unknown > 0) unknown.push(`${plural(e.byDirection.unknown, 'failed request')} of unknown direction (the page's or the answering build not known): counted by no fix that depends on direction`)
  if (e.pods === null) unknown.push('how many pods served: the logs name no upstream pods, so cookie affinity\'s residual (about 1/pods) is unknown')
  if (e.samePod === null) unknown.push('whether sessions stick to pods: the logs name no pod per request')
  return {failures: shared.all, evidence: e, fixes, unknown}
}
