import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {DEFAULT_OPTIONS} from '../../src/analysis/options'
import {analyze} from '../../src/app/analyze'
import {compareStrategies} from '../../src/app/lab'
import {renderCompare} from '../../src/lab/compare'
import type {CompareReport} from '../../src/lab/report'
import type {AnalysisReport, DeployAdvice, FixAdvice, FixId} from '../../src/model/report'
import {DEFAULT_NORMALIZE} from '../../src/normalize/fields'
import {schemaValidator} from '../helpers/schema'

/*
 * Every strategy through the real balancer with the same seeded browsers (one rolling deploy of
 * 3 pods, 2 s per pod): the write-up's claims, as an ordering that holds run after run.
 */
describe('lab --compare', () => {
  let report: CompareReport
  const row = (id: string) => {
    const r = report.strategies.find((s) => s.id === id)
    if (!r) throw new Error(`no row ${id}`)
    return r
  }

  const request = {replicas: 3, stepMs: 2000, everyMs: 1000, tailMs: 2000, browsers: 24, seed: 3, latencyMs: 0}
  // Each strategy's log, analysed as a user would (compressed time: the deploy margin is half the calm before the deploy).
  const dir = mkdtempSync(join(tmpdir(), 'skewscan-lab-compare-'))
  const analyses = new Map<string, AnalysisReport>()
  afterAll(() => rmSync(dir, {recursive: true, force: true}))
  // About 3 s on an idle machine; the bound is for a busy one (a CI run beside other work took over 30 s).
  beforeAll(async () => {
    report = await compareStrategies({...request, logDir: dir})
    for (const s of report.strategies) {
      analyses.set(s.id, await analyze({
        inputs: [join(dir, `${s.id}.ndjson`)], deploysFile: join(dir, `${s.id}-deploys.json`), normalize: DEFAULT_NORMALIZE,
        analysis: {...DEFAULT_OPTIONS, deployMarginMs: request.everyMs / 2}, reorderWindowMs: 60_000,
      }))
    }
  }, 120_000)

  it('on the simulated clock, the same seed gives the same table, request for request', async () => {
    // A smaller comparison, twice with one seed and once with another.
    const small = {...request, stepMs: 1000, browsers: 8}
    const [first, again, other] = [await compareStrategies(small), await compareStrategies(small), await compareStrategies({...small, seed: 4})]
    expect(again.strategies).toEqual(first.strategies)
    expect(other.strategies).not.toEqual(first.strategies)
  }, 120_000)

  it('prints a row per strategy, valid against the schema', () => {
    const validate = schemaValidator('lab')
    expect(validate(report) || validate.errors).toBe(true)
    const table = renderCompare(report.strategies)
    for (const s of report.strategies) expect(table).toContain(s.label)
    for (const s of report.strategies) {
      expect(s.pageLoads).toBeGreaterThan(40)
      expect(s.errors).toBe(0)
    }
  })

  it('round-robin breaks pages for about the length of the deploy', () => {
    const rr = row('round-robin')
    expect(rr.perThousand).toBeGreaterThan(300)
    expect(rr.windowSeconds).toBeGreaterThan(rr.deploySeconds * 0.7)
    expect(rr.byPhase.load).toBeGreaterThan(rr.byPhase.lazy)
    expect(rr.byDirection.oldPageNewPod).toBeGreaterThan(0)
    expect(rr.byDirection.newPageOldPod).toBeGreaterThan(0)
  })

  it('round-robin is worst, blue/green best, cookie affinity between', () => {
    const [rr, cookie, keep, missing, bg] = ['round-robin', 'cookie-affinity', 'keep-old-assets', '404-for-missing', 'blue-green'].map(row) as [ReturnType<typeof row>, ReturnType<typeof row>, ReturnType<typeof row>, ReturnType<typeof row>, ReturnType<typeof row>]
    expect(rr.perThousand).toBeGreaterThan(keep.perThousand)
    expect(keep.perThousand).toBeGreaterThan(cookie.perThousand)
    expect(rr.perThousand).toBeGreaterThan(3 * cookie.perThousand)
    expect(cookie.perThousand).toBeGreaterThanOrEqual(bg.perThousand)
    for (const other of [rr, cookie, keep, missing]) expect(bg.perThousand).toBeLessThanOrEqual(other.perThousand)
    expect(bg.byPhase.load).toBe(0)
  })

  it('cookie affinity: the rollout race is (nearly) gone; what is left hits at most about 1/pods of the users, those whose pod died', () => {
    const [rr, cookie] = [row('round-robin'), row('cookie-affinity')]
    expect(cookie.byPhase.load).toBeLessThanOrEqual(2)
    expect(cookie.byDirection.newPageOldPod).toBe(0)
    expect(rr.affectedUsers / rr.exposedUsers).toBeGreaterThan(0.6)
    expect(cookie.affectedUsers / cookie.exposedUsers).toBeLessThan(1 / 3 + 0.1)
  })

  it('keeping old assets leaves only new pages asking old pods', () => {
    const keep = row('keep-old-assets')
    expect(keep.byDirection.oldPageNewPod).toBe(0)
    expect(keep.byDirection.newPageOldPod).toBeGreaterThan(0)
  })

  it('404 for missing assets changes the symptom, not the count', () => {
    const [rr, missing] = [row('round-robin'), row('404-for-missing')]
    expect(missing.bySymptom).toEqual({html: 0, missing: expect.any(Number)})
    expect(missing.bySymptom.missing).toBeGreaterThan(0)
    expect(rr.bySymptom.missing).toBe(0)
    expect(Math.abs(missing.perThousand - rr.perThousand)).toBeLessThan(0.25 * rr.perThousand)
  })

  describe('the advice from the round-robin run, held to what each other strategy measured', () => {
    const analysed = (id: string): AnalysisReport => analyses.get(id) as AnalysisReport
    const adviceOf = (id: string): DeployAdvice => {
      const a = analysed(id).advice[0]
      if (!a) throw new Error(`no advice for ${id}`)
      return a
    }
    const fix = (id: string, f: FixId): FixAdvice => adviceOf(id).fixes.find((x) => x.fix === f) as FixAdvice
    const rr = (): DeployAdvice => adviceOf('round-robin')

    it('analyze counts every run\'s failures as its browsers recorded them, by direction', () => {
      for (const s of report.strategies) {
        const r = analysed(s.id)
        expect([s.id, r.totals.failedRequests, r.deploys[0]?.byDirection]).toEqual([s.id, s.bySymptom.html + s.bySymptom.missing, s.byDirection])
      }
      // All of round-robin's failures are of the race here (the tail is too short for stale tabs).
      expect(rr().evidence.byCause).toEqual({rollout: rr().failures.failedRequests, 'stale-client': 0, unattributed: 0})
    })

    it('keep-old-assets: predicted to prevent exactly the forward skew; with old assets kept, only backward failures remain, about as many as predicted', () => {
      const predicted = fix('round-robin', 'keep-old-assets').prevented
      expect(predicted?.failedRequests).toBe(row('round-robin').byDirection.oldPageNewPod)
      const left = rr().failures.failedRequests - (predicted?.failedRequests ?? 0)
      const kept = analysed('keep-old-assets').deploys[0]
      expect(kept?.byDirection.oldPageNewPod).toBe(0)
      // The browsers are the same, but once a response differs (an old page that now loads goes on), later requests
      // take other turns of the rotation: which ones race is drawn again. Seeds 3 to 5 measured 0.94 to 1.22 times
      // the prediction, a count of about 70 (two standard deviations about ±25%); half to one and a half is twice that.
      expect(kept?.failedRequests).toBeGreaterThanOrEqual(0.5 * left)
      expect(kept?.failedRequests).toBeLessThanOrEqual(1.5 * left)
      // And that run's own advice sees the old assets kept.
      expect(fix('keep-old-assets', 'keep-old-assets').inPlace).toBe('yes')
    })

    it('version pinning (blue/green stands in for it): predicted to prevent every failure of the race; blue/green leaves none', () => {
      expect(fix('round-robin', 'version-pinning').prevented).toEqual(rr().failures)
      expect(analysed('blue-green').totals.byCause.rollout).toBe(0)
      expect(row('blue-green').byPhase.load).toBe(0)
    })

    it('cookie affinity: predicted to leave at most about 1/pods of the race; affinity leaves no more, and its run shows sessions on their pods', () => {
      const race = rr().failures
      const prevented = fix('round-robin', 'cookie-affinity').prevented
      expect(fix('round-robin', 'cookie-affinity')).toMatchObject({basis: 'estimated', inPlace: 'no'})
      expect(rr().evidence.pods).toBe(request.replicas)
      const residual = {failedRequests: race.failedRequests - (prevented?.failedRequests ?? 0), pageLoads: race.pageLoads - (prevented?.pageLoads ?? 0), users: race.users - (prevented?.users ?? 0)}
      // The write-up's bound is p ≤ 1/pods: a session moves only when its pod goes away, so far fewer than
      // 1/pods of the race break in practice (seeds 3 to 5: 2 to 5 failed requests against a residual of about 55).
      // "No more than the residual" holds with a margin of about ten times.
      const sticky = analysed('cookie-affinity')
      expect(sticky.totals.byCause.rollout).toBeLessThanOrEqual(residual.failedRequests)
      expect(sticky.totals.affectedPageLoads).toBeLessThanOrEqual(residual.pageLoads)
      expect(sticky.totals.affectedUsers).toBeLessThanOrEqual(residual.users)
      expect(fix('cookie-affinity', 'cookie-affinity')).toMatchObject({inPlace: 'yes'})
      expect(adviceOf('cookie-affinity').evidence.samePod?.share).toBeGreaterThan(0.95)
    })

    it('404 for missing assets: predicted to prevent no failed request; 404s fail about as many, and a reload would recover every page load hit', () => {
      expect(fix('round-robin', 'not-found-for-missing-assets').prevented?.failedRequests).toBe(0)
      const measured = analysed('404-for-missing').totals.failedRequests
      expect(Math.abs(measured - rr().failures.failedRequests)).toBeLessThanOrEqual(0.25 * rr().failures.failedRequests)
      expect(fix('404-for-missing', 'not-found-for-missing-assets').inPlace).toBe('yes')
      expect(fix('404-for-missing', 'client-reload-on-chunk-error').recovered?.pageLoads).toBe(adviceOf('404-for-missing').failures.pageLoads)
    })
  })
})
