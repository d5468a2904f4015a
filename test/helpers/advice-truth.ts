/**
 * The advice held to a real capture's truth (the captures' README): what keeping old assets would
 * have prevented is exactly the forward-skew failures (an old page asked a new pod: truth's
 * page_build before its served_build), what version pinning would have prevented exactly the
 * rollout race (truth's failures during the deploy; a lazy one just after the last old pod exited
 * may be either). captures.test.ts checks it on the analyses it makes of every capture (each
 * format, at the recorded speed and stretched x60, deploys inferred and from the captured events);
 * advice-captures.test.ts checks the rest of the advice.
 */
import type {Capture, Stretch, TruthFailure} from '../../scripts/captures/capture'
import {atBoundary, joinTruth} from '../../scripts/captures/score'
import type {AnalysisReport, DeployAdvice, FailureRecord, FixAdvice, FixId} from '../../src/model/report'

export const forward = (t: TruthFailure): boolean => t.page_build < t.served_build
export const race = (t: TruthFailure): boolean => t.context !== 'stale_client_lazy'

/**
 * The truth's failures a fix prevents, and its page loads and users left with none. A user is a
 * browser as the logs can tell it by default: its address and user agent (two browsers behind one
 * NAT with one agent are one session without a session key).
 */
export function truthImpact(c: Capture, list: readonly TruthFailure[], prevents: (t: TruthFailure) => boolean): {failedRequests: number; pageLoads: number; users: number} {
  const pageLoads = new Map((c.truth.page_loads as {id: string; client_ip: string; ua: string}[]).map((p) => [p.id, `${p.client_ip} ${p.ua}`]))
  const whole = (key: (t: TruthFailure) => string): number => {
    const hit = new Set(list.map(key))
    for (const t of list) if (!prevents(t)) hit.delete(key(t))
    return hit.size
  }
  return {failedRequests: list.filter(prevents).length, pageLoads: whole((t) => t.page_load), users: whole((t) => pageLoads.get(t.page_load) ?? t.browser)}
}

export function fixOf(a: DeployAdvice | undefined, fix: FixId): FixAdvice {
  const f = a?.fixes.find((x) => x.fix === fix)
  if (!f) throw new Error(`no ${fix} advice`)
  return f
}

export const adviceOf = (r: AnalysisReport, deployId: string): DeployAdvice | undefined => r.advice.find((a) => a.deployId === deployId)

/** Every failure of the truth a record with its direction and cause, and each deploy's advice the truth's. */
export function checkAdvice(c: Capture, {report, failures, stretch}: {report: AnalysisReport; failures: FailureRecord[]; stretch: Stretch}): void {
  const boundary = atBoundary(c.truth, stretch)
  const joined = joinTruth(failures, c.truth.failure_requests, stretch)
  // Every failure of the truth is a record, and no record is something else.
  expect([failures.length, joined.size]).toEqual([c.truth.failure_requests.length, c.truth.failure_requests.length])
  // Each record's direction, and its cause off the boundary, as the truth's (one comparison of
  // them all: an expect() per record cost more than the analysis).
  const pairs = [...joined].map(([f, t]) => [t.request_id, f.direction === 'oldPageNewPod', boundary(t) || f.cause === 'rollout'])
  expect(pairs).toEqual([...joined].map(([, t]) => [t.request_id, forward(t), boundary(t) || race(t)]))
  // Per deploy (ours in time order, as the truth's), the advice's counts are the truth's.
  expect(report.advice.map((a) => a.deployId)).toEqual(c.truth.deploys.filter((d) => c.truth.failure_requests.some((t) => t.deploy === d.id)).map((d) => `D${d.id}`))
  for (const d of c.truth.deploys) {
    const mine = c.truth.failure_requests.filter((t) => t.deploy === d.id)
    if (mine.length === 0) continue
    const a = adviceOf(report, `D${d.id}`)
    expect(a?.failures).toEqual(truthImpact(c, mine, () => true))
    expect(fixOf(a, 'keep-old-assets').prevented).toEqual(truthImpact(c, mine, forward))
    // The race: what the records call it, between the truth's strict race and the race with its boundary.
    const pinned = fixOf(a, 'version-pinning').prevented
    const ours = failures.filter((f) => f.deployId === `D${d.id}` && f.cause === 'rollout').length
    expect(pinned?.failedRequests).toBe(ours)
    expect(ours).toBeGreaterThanOrEqual(mine.filter((t) => race(t) && !boundary(t)).length)
    expect(ours).toBeLessThanOrEqual(mine.filter(race).length)
    if (!mine.some(boundary)) expect(pinned).toEqual(truthImpact(c, mine, race))
  }
}
