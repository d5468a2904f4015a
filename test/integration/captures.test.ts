/**
 * The real captures (fixtures/captures: a real nginx in front of SPA pods during rolling deploys,
 * with the browsers' own truth, joined on nginx's $request_id): analyze must name the same people,
 * the same race windows and the same stale tabs as the truth, in every format nginx and Datadog
 * write, in either order, at the recorded speed and stretched to real deploy lengths (×10, ×60),
 * with deploys inferred from the logs and with the captured Datadog deploy events. Two captures
 * merged as two apps behind one ingress must each keep their own answer. And the advice of the same
 * analyses is held to the truth (test/helpers/advice-truth.ts; the rest of the advice:
 * advice-captures.test.ts).
 */
import {type Capture, CAPTURES, FORMATS, loadCapture} from '../../scripts/captures/capture'
import {composeCaptures, SECOND_APP} from '../../scripts/captures/compose'
import {analyzeCase, type CaseSpec} from '../../scripts/captures/run'
import {scoreCapture} from '../../scripts/captures/score'
import {checkAdvice} from '../helpers/advice-truth'
import {ROOT} from '../helpers/cli'
import {schemaValidator} from '../helpers/schema'

const captures = new Map<string, Capture>(CAPTURES.map((name) => [name, loadCapture(ROOT, name)]))
const capture = (name: string): Capture => captures.get(name) as Capture

const SPECS: CaseSpec[] = FORMATS.flatMap((format) => [1, 10, 60].flatMap((stretch) =>
  (['oldest-first', 'newest-first'] as const).flatMap((order) => (['inferred', 'events'] as const).map((deploys) => ({format, order, stretch, deploys})))))
const label = (s: CaseSpec): string => `${s.format}, ${s.order}, x${s.stretch}, deploys ${s.deploys}`

/** The cases whose advice is held to the truth too: oldest-first, at the recorded speed and at x60. */
const forAdvice = (s: CaseSpec): boolean => s.order === 'oldest-first' && s.stretch !== 10
const ADVICE_SPECS = SPECS.filter(forAdvice)
/** The analyses a later test checks again: both orders at x10 with deploy events, and rr-3's nginx-json at x1. */
const checkedAgain = (name: string, s: CaseSpec): boolean => (s.stretch === 10 && s.deploys === 'events') ||
  (name === 'rr-3' && s.format === 'nginx-json' && s.stretch === 1 && s.order === 'oldest-first' && s.deploys === 'events')

/**
 * The analyses checked again (above) and those whose advice is checked after their truth, kept from
 * the case that made them: the same capture rendered the same way gives the same analysis, so it is
 * made once.
 */
type Analysed = Awaited<ReturnType<typeof analyzeCase>>
const kept = new Map<string, Promise<Analysed>>()
const keyOf = (name: string, s: CaseSpec): string => `${name}: ${label(s)}`
function analysed(name: string, s: CaseSpec): Promise<Analysed> {
  if (!checkedAgain(name, s) && !forAdvice(s)) return analyzeCase(capture(name), s)
  let r = kept.get(keyOf(name, s))
  if (r === undefined) kept.set(keyOf(name, s), (r = analyzeCase(capture(name), s)))
  return r
}
/** An analysis for its advice's check, given up then unless a later test checks it again. */
function taken(name: string, s: CaseSpec): Promise<Analysed> {
  const r = analysed(name, s)
  if (!checkedAgain(name, s)) kept.delete(keyOf(name, s))
  return r
}
async function scored(name: string, s: CaseSpec): Promise<Analysed & {score: ReturnType<typeof scoreCapture>}> {
  const r = await analysed(name, s)
  return {...r, score: scoreCapture(capture(name), r.stretch, r.report, r.failures)}
}

describe.each([...CAPTURES])('capture %s', (name) => {
  it.each(SPECS.map((s) => [label(s), s] as const))('%s: users, race windows and stale tabs as the truth has them', async (_label, spec) => {
    const {score, report} = await scored(name, spec)
    expect(score.problems).toEqual([])
    expect(score.users.recall).toBeGreaterThanOrEqual(0.98)
    expect(score.users.precision).toBeGreaterThanOrEqual(0.98)
    // Every record read, none skipped; one app, named by the ingress upstream where the format logs it.
    expect(report.input.skipped.total).toBe(0)
    expect(report.apps.map((a) => a.name)).toEqual([spec.format === 'combined' ? null : 'default-webapp-80'])
    // One deploy per rollout (markers and Kubernetes events fused), none left unmatched.
    expect(report.deploys).toHaveLength(capture(name).truth.deploys.length)
    expect(report.unmatchedDeploys).toEqual([])
    if (spec.deploys === 'events') for (const d of report.deploys) expect(d.sources).toEqual(['marker', 'kubernetes'])
  })

  it.each(ADVICE_SPECS.map((s) => [label(s), s] as const))('%s: keep-old-assets prevents the forward skew, version-pinning the race', async (_label, spec) => {
    checkAdvice(capture(name), await taken(name, spec))
  })

  it('gives the same answer whichever order the log is in, and a report valid against the schema', async () => {
    const validate = schemaValidator('analyze')
    for (const format of FORMATS) {
      const [oldest, newest] = await Promise.all((['oldest-first', 'newest-first'] as const).map((order) => analysed(name, {format, order, stretch: 10, deploys: 'events'})))
      const {input: _a, ...a} = oldest?.report ?? {}
      const {input: _b, ...b} = newest?.report ?? {}
      expect(b).toEqual(a)
      expect(validate(oldest?.report) || validate.errors).toBe(true)
    }
  })
})

describe('the crawler, the scanner and the stale tabs of a real capture (rr-3)', () => {
  it('counts Googlebot\'s old asset URL and the scanner\'s SPA fallback apart, and the stale tabs as their own incident', async () => {
    const {report, failures} = await scored('rr-3', {format: 'nginx-json', order: 'oldest-first', stretch: 1, deploys: 'events'})
    const decoys = capture('rr-3').truth.noise.decoys
    expect(decoys.length).toBeGreaterThan(0)
    // No decoy is a failure of a person.
    for (const d of decoys) expect(failures.find((f) => f.requestId === d.request_id)).toBeUndefined()
    expect(report.nonUser.crawlers.failedRequests).toBeGreaterThanOrEqual(1)
    expect(report.nonUser.scanners.requests).toBeGreaterThanOrEqual(1)
    expect(report.incidents.map((i) => [i.cause, i.deployId])).toEqual([['rollout', 'D1'], ['stale-client', 'D1']])
    // The truth's 11 broken (crashed) page loads, 16 people.
    expect(report.totals).toMatchObject({brokenPageLoads: 11, affectedUsers: 16, failedRequests: 33})
  })
})

describe('two apps behind one ingress, composed of two captures (the second on another host, upstream and pods, a minute later)', () => {
  const PAIRS = [['rr-3', 'two-deploys'], ['lazy-stale', 'mode-404'], ['sticky', 'keep-old-assets']] as const
  const APP_FORMATS = FORMATS.filter((f) => f !== 'combined')
  // Composed once per pair (a pure function of the two captures): each of its 24 cases, and the
  // rendered log two cases in a row share (deploys inferred and from events), then read the same.
  const composed = new Map<string, ReturnType<typeof composeCaptures>>()
  const compose = (a: string, b: string): ReturnType<typeof composeCaptures> => {
    let c = composed.get(`${a}+${b}`)
    if (c === undefined) composed.set(`${a}+${b}`, (c = composeCaptures(capture(a), capture(b), {offsetMs: 60_000, lengthShift: 1000})))
    return c
  }
  it.each(PAIRS.flatMap(([a, b]) => APP_FORMATS.flatMap((format) => [1, 10, 60].flatMap((stretch) => (['inferred', 'events'] as const).map((deploys) => [a, b, format, stretch, deploys] as const)))))(
    '%s + %s, %s, x%s, deploys %s: each app keeps its own builds, deploys and answer', async (a, b, format, stretch, deploys) => {
      const {capture: both, truths} = compose(a, b)
      const r = await analyzeCase(both, {format, order: 'oldest-first', stretch, deploys})
      expect(r.report.apps.map((x) => [x.name, x.builds, x.deploys])).toEqual([
        [SECOND_APP.upstream, Object.keys(truths[1]?.builds ?? {}).length, truths[1]?.deploys.length],
        ['default-webapp-80', Object.keys(truths[0]?.builds ?? {}).length, truths[0]?.deploys.length],
      ])
      expect(r.report.unmatchedDeploys).toEqual([])
      for (const [app, truth] of [['default-webapp-80', truths[0]], [SECOND_APP.upstream, truths[1]]] as const) {
        const score = scoreCapture(both, r.stretch, r.report, r.failures, {app, truth: truth as Capture['truth']})
        expect(score.problems).toEqual([])
      }
    })
})
