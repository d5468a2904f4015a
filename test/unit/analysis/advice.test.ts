import {type AdviceContext, type AdviceFailure, adviseDeploy, impactOf} from '../../../src/analysis/advice'
import {PodAffinity} from '../../../src/analysis/pod-affinity'
import type {FixAdvice, FixId} from '../../../src/model/report'

/** A failed request: a forward-skew script of the race, unless told otherwise. */
const f = (pageLoad: number, session: string, over: Partial<AdviceFailure> = {}): AdviceFailure => ({
  cause: 'rollout', direction: 'oldPageNewPod', reason: 'fallback', phase: 'initial', asset: 'script', pageLoad, session, pageAgeMs: 200, ...over,
})
const CTX: AdviceContext = {pods: 3, windowSeconds: 90, raceSeconds: 60, samePod: {assetRequests: 300, share: 0.33}}
const fix = (list: AdviceFailure[], id: FixId, ctx: AdviceContext = CTX): FixAdvice => adviseDeploy(list, ctx).fixes.find((x) => x.fix === id) as FixAdvice

describe('impactOf', () => {
  it('counts the failed requests prevented, and only page loads and users left with no failure at all', () => {
    const list = [f(1, 'a'), f(1, 'a', {direction: 'newPageOldPod'}), f(2, 'a'), f(3, 'b')]
    expect(impactOf(list, (x) => x.direction === 'oldPageNewPod')).toEqual({failedRequests: 3, pageLoads: 2, users: 1})
    expect(impactOf(list, () => true)).toEqual({failedRequests: 4, pageLoads: 3, users: 2})
    expect(impactOf([], () => true)).toEqual({failedRequests: 0, pageLoads: 0, users: 0})
  })
})

describe('adviseDeploy', () => {
  // rr-3 in small: 3 forward in the race (two page loads), 2 backward, 1 stale forward tab 40 min old.
  const mixed = [
    f(1, 'a'), f(1, 'a', {asset: 'stylesheet'}), f(2, 'b'),
    f(3, 'c', {direction: 'newPageOldPod'}), f(4, 'd', {direction: 'newPageOldPod'}),
    f(5, 'e', {cause: 'stale-client', phase: 'lazy', pageAgeMs: 40 * 60_000}),
  ]

  it('keep-old-assets prevents the forward skew (race and stale tabs), version pinning the race in both directions, the most first', () => {
    const a = adviseDeploy(mixed, CTX)
    expect(a.failures).toEqual({failedRequests: 6, pageLoads: 5, users: 5})
    expect(fix(mixed, 'keep-old-assets')).toMatchObject({basis: 'counted', inPlace: 'no', prevented: {failedRequests: 4, pageLoads: 3, users: 3}})
    expect(fix(mixed, 'keep-old-assets').note).toContain('keep them at least 40 min 0 s')
    expect(fix(mixed, 'version-pinning')).toMatchObject({basis: 'counted', inPlace: 'no', prevented: {failedRequests: 5, pageLoads: 4, users: 4}})
    expect(a.evidence).toMatchObject({forwardByCause: {rollout: 3, 'stale-client': 1, unattributed: 0}, oldestStalePageSeconds: 2400, byPhase: {initial: 5, lazy: 1}})
    expect(a.fixes.map((x) => x.fix)).toEqual(['version-pinning', 'keep-old-assets', 'cookie-affinity', 'shorter-rollout', 'not-found-for-missing-assets', 'client-reload-on-chunk-error'])
  })

  it('estimates what affinity and a halved rollout leave of the race, and says when pods are unknown', () => {
    expect(fix(mixed, 'cookie-affinity')).toMatchObject({basis: 'estimated', inPlace: 'no', prevented: {failedRequests: 3, pageLoads: 3, users: 3}})
    expect(fix(mixed, 'shorter-rollout')).toMatchObject({basis: 'estimated', prevented: {failedRequests: 3, pageLoads: 2, users: 2}})
    const blind = adviseDeploy(mixed, {...CTX, pods: null, samePod: null})
    expect(blind.fixes.find((x) => x.fix === 'cookie-affinity')).toMatchObject({basis: 'unknown', prevented: null, inPlace: 'unknown'})
    expect(blind.fixes.at(-1)?.fix).toBe('cookie-affinity')
    expect(blind.unknown).toEqual([expect.stringContaining('no upstream pods'), expect.stringContaining('no pod per request')])
  })

  it('sees affinity in place when nearly every asset came from its page\'s pod, and spread requests as none', () => {
    const sticky = fix(mixed, 'cookie-affinity', {...CTX, samePod: {assetRequests: 400, share: 0.97}})
    expect(sticky).toMatchObject({inPlace: 'yes', prevented: {failedRequests: 0, pageLoads: 0, users: 0}})
    expect(sticky.note).toContain('Sessions already stick to pods (97% of 400 asset requests')
    // Too few requests to tell, or a share between the two: unknown.
    expect(fix(mixed, 'cookie-affinity', {...CTX, samePod: {assetRequests: 10, share: 1}}).inPlace).toBe('unknown')
    expect(fix(mixed, 'cookie-affinity', {...CTX, samePod: {assetRequests: 400, share: 0.75}}).inPlace).toBe('unknown')
  })

  it('sees old assets kept when only new pages failed on old pods, and kept too briefly when stale tabs still failed', () => {
    const backward = [f(1, 'a', {direction: 'newPageOldPod'}), f(2, 'b', {direction: 'newPageOldPod'})]
    const kept = fix(backward, 'keep-old-assets')
    expect(kept).toMatchObject({inPlace: 'yes', prevented: {failedRequests: 0, pageLoads: 0, users: 0}})
    expect(kept.note).toContain('what remains is backward skew, new pages asking old pods (2)')
    const brief = [...backward, f(3, 'c', {cause: 'stale-client', pageAgeMs: 90_000})]
    expect(fix(brief, 'keep-old-assets')).toMatchObject({inPlace: 'partly', prevented: {failedRequests: 1, pageLoads: 1, users: 1}})
  })

  it('404s: already in place when every failure is one; a reload then recovers the page loads, else it needs 404s first', () => {
    const missing = mixed.map((x) => ({...x, reason: 'missing' as const}))
    expect(fix(missing, 'not-found-for-missing-assets')).toMatchObject({inPlace: 'yes', prevented: {failedRequests: 0, pageLoads: 0, users: 0}})
    expect(fix(missing, 'client-reload-on-chunk-error')).toMatchObject({prevented: {failedRequests: 0}, recovered: {pageLoads: 5, users: 5}})
    expect(fix(mixed, 'not-found-for-missing-assets')).toMatchObject({inPlace: 'no', recovered: {pageLoads: 5, users: 5}})
    expect(fix(mixed, 'client-reload-on-chunk-error')).toMatchObject({recovered: {pageLoads: 0, users: 0}})
    expect(fix(mixed, 'client-reload-on-chunk-error').note).toMatch(/^Needs 404s first: 6 requests got a shell/)
    const some = [f(1, 'a', {reason: 'missing'}), f(2, 'b')]
    expect(fix(some, 'not-found-for-missing-assets').inPlace).toBe('partly')
    expect(fix(some, 'client-reload-on-chunk-error').recovered).toEqual({pageLoads: 1, users: 1})
  })

  it('counts no direction it does not know, and says so', () => {
    const a = adviseDeploy([f(1, 'a', {direction: 'unknown'}), f(2, 'b')], CTX)
    expect(a.fixes.find((x) => x.fix === 'keep-old-assets')?.prevented).toEqual({failedRequests: 1, pageLoads: 1, users: 1})
    expect(a.unknown).toEqual([expect.stringContaining('1 failed request of unknown direction')])
  })
})

describe('PodAffinity', () => {
  it('counts assets answered by their shell\'s pod per minute, only where both pods are logged, of pages loaded that minute or the one before', () => {
    const p = new PodAffinity()
    const shell = p.podId('10.0.0.1:80')
    expect([p.podId(undefined), p.podId(''), p.podId('10.0.0.1:80'), p.podId('10.0.0.2:80')]).toEqual([0, 0, shell, shell + 1])
    p.asset(shell, 60_000, '10.0.0.1:80', 60_000)
    p.asset(shell, 59_000, '10.0.0.2:80', 61_000)
    p.asset(0, 60_000, '10.0.0.1:80', 62_000)
    p.asset(shell, 60_000, undefined, 63_000)
    // A page loaded two minutes earlier: not counted (a live pull may not have read that page).
    p.asset(shell, 10_000, '10.0.0.1:80', 130_000)
    p.asset(shell, 190_000, '10.0.0.1:80', 200_000)
    // The minute of each time and the minute after.
    expect(p.around([60_500])).toEqual({assetRequests: 2, samePod: 1})
    expect(p.around([0, 65_000, 180_000])).toEqual({assetRequests: 3, samePod: 2})
    expect(p.around([250_000])).toEqual({assetRequests: 0, samePod: 0})
    expect(p.around([])).toEqual({assetRequests: 0, samePod: 0})
  })
})
