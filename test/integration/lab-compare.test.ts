import Ajv from 'ajv'
import addFormats from 'ajv-formats'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {compareStrategies} from '../../src/app/lab'
import {renderCompare} from '../../src/lab/compare'
import type {CompareReport} from '../../src/lab/report'
import {ROOT} from '../helpers/cli'

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
  // About 3 s on an idle machine; the bound is for a busy one (a CI run beside other work took over 30 s).
  beforeAll(async () => {
    report = await compareStrategies(request)
  }, 120_000)

  it('on the simulated clock, the same seed gives the same table, request for request', async () => {
    // A smaller comparison, twice with one seed and once with another.
    const small = {...request, stepMs: 1000, browsers: 8}
    const [first, again, other] = [await compareStrategies(small), await compareStrategies(small), await compareStrategies({...small, seed: 4})]
    expect(again.strategies).toEqual(first.strategies)
    expect(other.strategies).not.toEqual(first.strategies)
  }, 120_000)

  it('prints a row per strategy, valid against the schema', () => {
    const ajv = new Ajv({allErrors: true, strict: false})
    addFormats(ajv)
    const validate = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'schemas', 'lab.schema.json'), 'utf8')))
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
})
