/**
 * The advice on the real captures (fixtures/captures), held to the browsers' own truth: what
 * keeping old assets would have prevented is exactly the forward-skew failures (an old page asked
 * a new pod: truth's page_build before its served_build), what version pinning would have prevented
 * exactly the rollout race (truth's failures during the deploy; a lazy one just after the last old
 * pod exited may be either, as the captures' README says), in every format nginx and Datadog wrote,
 * at the recorded speed and stretched, with deploys inferred and from the captured events. And what
 * the logs show already in place: old assets kept in keep-old-assets, 404s in mode-404, affinity in sticky.
 */
import {type Capture, CAPTURES, FORMATS, loadCapture, type TruthFailure} from '../../scripts/captures/capture'
import {composeCaptures, SECOND_APP} from '../../scripts/captures/compose'
import {analyzeCase, type CaseSpec} from '../../scripts/captures/run'
import {atBoundary, joinTruth} from '../../scripts/captures/score'
import type {AnalysisReport, DeployAdvice, FixAdvice, FixId} from '../../src/model/report'
import {renderMarkdown} from '../../src/report/markdown'
import {renderTable} from '../../src/report/table'
import {ROOT} from '../helpers/cli'

const captures = new Map<string, Capture>(CAPTURES.map((name) => [name, loadCapture(ROOT, name)]))
const capture = (name: string): Capture => captures.get(name) as Capture

const SPECS: CaseSpec[] = FORMATS.flatMap((format) => [1, 60].flatMap((stretch) =>
  (['inferred', 'events'] as const).map((deploys) => ({format, order: 'oldest-first' as const, stretch, deploys}))))
const label = (s: CaseSpec): string => `${s.format}, x${s.stretch}, deploys ${s.deploys}`

const forward = (t: TruthFailure): boolean => t.page_build < t.served_build
const race = (t: TruthFailure): boolean => t.context !== 'stale_client_lazy'

/**
 * The truth's failures a fix prevents, and its page loads and users left with none. A user is a
 * browser as the logs can tell it by default: its address and user agent (two browsers behind one
 * NAT with one agent are one session without a session key).
 */
function truthImpact(c: Capture, list: readonly TruthFailure[], prevents: (t: TruthFailure) => boolean): {failedRequests: number; pageLoads: number; users: number} {
  const pageLoads = new Map((c.truth.page_loads as {id: string; client_ip: string; ua: string}[]).map((p) => [p.id, `${p.client_ip} ${p.ua}`]))
  const whole = (key: (t: TruthFailure) => string): number => {
    const hit = new Set(list.map(key))
    for (const t of list) if (!prevents(t)) hit.delete(key(t))
    return hit.size
  }
  return {failedRequests: list.filter(prevents).length, pageLoads: whole((t) => t.page_load), users: whole((t) => pageLoads.get(t.page_load) ?? t.browser)}
}

function fixOf(a: DeployAdvice | undefined, fix: FixId): FixAdvice {
  const f = a?.fixes.find((x) => x.fix === fix)
  if (!f) throw new Error(`no ${fix} advice`)
  return f
}

const adviceOf = (r: AnalysisReport, deployId: string): DeployAdvice | undefined => r.advice.find((a) => a.deployId === deployId)

describe.each([...CAPTURES])('advice on capture %s', (name) => {
  it.each(SPECS.map((s) => [label(s), s] as const))('%s: keep-old-assets prevents the forward skew, version-pinning the race', async (_label, spec) => {
    const c = capture(name)
    const {report, failures, stretch} = await analyzeCase(c, spec)
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
  })
})

describe('two apps behind one ingress (two captures composed): each app\'s advice is its own truth\'s', () => {
  it.each([['sticky', 'keep-old-assets'], ['lazy-stale', 'mode-404'], ['rr-3', 'two-deploys']] as const)('%s + %s', async (first, second) => {
    const {capture: both, truths} = composeCaptures(capture(first), capture(second), {offsetMs: 60_000, lengthShift: 1000})
    const {report} = await analyzeCase(both, {format: 'upstreaminfo', order: 'oldest-first', stretch: 10, deploys: 'events'})
    for (const [app, truth] of [['default-webapp-80', truths[0]], [SECOND_APP.upstream, truths[1]]] as const) {
      const mine = report.advice.filter((a) => a.app === app)
      const sum = (fix: FixId): number => mine.reduce((n, a) => n + (fixOf(a, fix).prevented?.failedRequests ?? 0), 0)
      expect([app, sum('keep-old-assets')]).toEqual([app, truth?.failure_requests.filter(forward).length])
      expect([app, mine.reduce((n, a) => n + a.failures.failedRequests, 0)]).toEqual([app, truth?.failure_requests.length])
    }
    // The second app's pods are its own: keep-old-assets' old assets are seen kept there, not in the first.
    if (second === 'keep-old-assets') expect(report.advice.map((a) => [a.app, fixOf(a, 'keep-old-assets').inPlace])).toEqual([['default-webapp-80', 'no'], [SECOND_APP.upstream, 'yes']])
  })
})

describe('what the logs show already in place', () => {
  const run = (name: string, spec: Partial<CaseSpec> = {}) => analyzeCase(capture(name), {format: 'nginx-json', order: 'oldest-first', stretch: 10, deploys: 'events', ...spec})

  it.each(FORMATS.map((f) => [f]))('keep-old-assets (%s): old assets are already kept, what remains is backward skew, for version pinning', async (format) => {
    const {report} = await run('keep-old-assets', {format})
    const a = adviceOf(report, 'D1')
    const keep = fixOf(a, 'keep-old-assets')
    expect(keep).toMatchObject({inPlace: 'yes', prevented: {failedRequests: 0, pageLoads: 0, users: 0}})
    expect(keep.note).toMatch(/^Old assets are already kept: .*what remains is backward skew, new pages asking old pods \(9\)/)
    // Every remaining failure is a new page on an old pod; pinning prevents them all, and comes first.
    expect(a?.evidence.byDirection).toEqual({oldPageNewPod: 0, newPageOldPod: 9, unknown: 0})
    expect(a?.fixes[0]).toMatchObject({fix: 'version-pinning', prevented: a?.failures})
    expect(renderTable(report, {topSessions: 5, width: 100}).replace(/\s+/g, ' ')).toContain('Old assets are already kept')
  })

  it.each(FORMATS.map((f) => [f]))('mode-404 (%s): pods already answer 404, and one reload on the chunk error would recover every page load hit', async (format) => {
    const {report} = await run('mode-404', {format})
    const a = adviceOf(report, 'D1')
    expect(fixOf(a, 'not-found-for-missing-assets')).toMatchObject({inPlace: 'yes', prevented: {failedRequests: 0, pageLoads: 0, users: 0}})
    expect(fixOf(a, 'not-found-for-missing-assets').note).toMatch(/^Pods already answer 404 for missing assets/)
    const reload = fixOf(a, 'client-reload-on-chunk-error')
    expect(reload.recovered).toEqual({pageLoads: a?.failures.pageLoads, users: a?.failures.users})
    expect(reload.note).toMatch(/^With 404s, one reload on the chunk error .* recovers/)
    expect(renderMarkdown(report)).toContain('Pods already answer 404 for missing assets')
  })

  it('rr-3 answers with the shell: 404s first, then a reload recovers; sticky: sessions already stick to their pods', async () => {
    const rr = adviceOf((await run('rr-3')).report, 'D1')
    expect(fixOf(rr, 'client-reload-on-chunk-error')).toMatchObject({inPlace: 'unknown', recovered: {pageLoads: 0, users: 0}})
    expect(fixOf(rr, 'client-reload-on-chunk-error').note).toMatch(/^Needs 404s first/)
    expect(fixOf(rr, 'cookie-affinity')).toMatchObject({inPlace: 'no', basis: 'estimated'})
    expect(rr?.evidence.samePod?.share).toBeLessThan(0.5)
    const sticky = adviceOf((await run('sticky')).report, 'D1')
    expect(fixOf(sticky, 'cookie-affinity')).toMatchObject({inPlace: 'yes', prevented: {failedRequests: 0, pageLoads: 0, users: 0}})
    expect(sticky?.evidence.samePod?.share).toBeGreaterThan(0.95)
    // Affinity leaves lazy chunks and stale tabs: keeping old assets would have prevented them all.
    expect(sticky?.fixes[0]).toMatchObject({fix: 'keep-old-assets', prevented: sticky?.failures})
    // nginx's combined lines name no pods: affinity and its residual are then unknown, and said so.
    const blind = adviceOf((await run('rr-3', {format: 'combined'})).report, 'D1')
    expect(fixOf(blind, 'cookie-affinity')).toMatchObject({basis: 'unknown', prevented: null, inPlace: 'unknown'})
    expect(blind?.evidence).toMatchObject({pods: null, samePod: null})
    expect(blind?.unknown.join(' ')).toContain('the logs name no upstream pods')
  })

  it('lazy-stale: keep old assets at least as long as the oldest stale tab that failed had been open', async () => {
    const {report, failures} = await run('lazy-stale', {stretch: 60})
    const a = adviceOf(report, 'D1')
    const stale = failures.filter((f) => f.cause === 'stale-client').map((f) => Date.parse(f.time) - Date.parse(f.pageLoad.time))
    expect(a?.evidence.oldestStalePageSeconds).toBe(Math.max(...stale) / 1000)
    // Stretched 60 times, the 5–20 s lazy loads come 5–20 minutes after their page.
    expect(a?.evidence.oldestStalePageSeconds).toBeGreaterThan(15 * 60)
    expect(fixOf(a, 'keep-old-assets').note).toMatch(/keep them at least \d+ min \d+ s: the oldest stale tab/)
    expect(a?.fixes[0]?.fix).toBe('keep-old-assets')
  })
})
