import {Analyzer} from '../../../src/analysis/analyzer'
import {DEFAULT_OPTIONS, type AnalysisOptions} from '../../../src/analysis/options'
import type {AccessEvent} from '../../../src/model/access-event'
import type {DeclaredDeploy} from '../../../src/model/deploy'
import type {FailureRecord} from '../../../src/model/report'

const A = 1832 // build A's shell length
const B = 1851 // build B's shell length
const BASE = Date.parse('2026-11-29T14:00:00Z')

/** `mm:ss` after 14:00 UTC, or a number of seconds. */
const at = (t: string | number): number => {
  if (typeof t === 'number') return BASE + t * 1000
  const [m, s] = t.split(':').map(Number)
  return BASE + ((m ?? 0) * 60 + (s ?? 0)) * 1000
}

let line = 0
function ev(t: string | number, who: string, path: string, bytes: number, extra: Partial<AccessEvent> = {}): AccessEvent {
  return {
    time: at(t), resolutionMs: 1000, method: 'GET', path, status: 200, bytes, clientIp: `10.0.0.${who.charCodeAt(0) % 250}`,
    userAgent: `Mozilla/5.0 (${who})`, location: {file: 'test', line: ++line}, ...extra,
  }
}

function run(events: AccessEvent[], opts: Partial<AnalysisOptions> = {}, declared: DeclaredDeploy[] = []) {
  const failures: FailureRecord[] = []
  const a = new Analyzer({...DEFAULT_OPTIONS, ...opts}, (f) => failures.push(f))
  for (const e of [...events].sort((x, y) => x.time - y.time)) a.push(e)
  return {report: a.finish(declared), failures, analyzer: a}
}

/** A site where build A serves until 10:00, both builds 10:00-11:30, then only B. */
function rollout(): AccessEvent[] {
  return [
    ev('00:00', 'bg1', '/', A), ev('00:00', 'bg1', '/_build/app.a1.js', 50_000),
    ev('10:00', 'new1', '/', B, {upstream: '10.1.1.1:8080'}),
    ev('11:30', 'old9', '/', A, {upstream: '10.1.0.3:8080'}),
    ev('20:00', 'bg2', '/', B), ev('20:00', 'bg2', '/_build/app.b1.js', 51_000),
  ]
}

describe('Analyzer: fallback hits and direction', () => {
  it('flags an old page whose asset came back as the new shell (forward skew) during the rollout', () => {
    const {report, failures} = run([...rollout(),
      ev('10:30', 'u1', '/', A), ev('10:30', 'u1', '/_build/app.a1.js', B, {upstream: '10.1.1.2:8080'}),
      ev('10:30', 'u1', '/_build/vendor.a1.js', 80_000),
    ])
    expect(failures).toHaveLength(1)
    expect(failures[0]).toMatchObject({reason: 'fallback', direction: 'oldPageNewPod', path: '/_build/app.a1.js', servingBuild: 'B2', incidentId: 'I1'})
    expect(failures[0]?.pageLoad).toMatchObject({build: 'B1', path: '/'})
    expect(report.incidents).toEqual([expect.objectContaining({
      id: 'I1', kind: 'rollout', deployId: 'D1', affectedUsers: 1, affectedPageLoads: 1, failedRequests: 1,
      byDirection: {oldPageNewPod: 1, newPageOldPod: 0, unknown: 0}, byReason: {fallback: 1, missing: 0, contentType: 0},
    })])
    expect(report.deploys).toEqual([expect.objectContaining({
      id: 'D1', source: 'inferred', start: '2026-11-29T14:10:00.000Z', end: '2026-11-29T14:11:30.000Z', fromBuild: 'B1', toBuild: 'B2',
    })])
  })

  it('flags a new page whose asset came back as the old shell (backward skew)', () => {
    const {report} = run([...rollout(), ev('10:40', 'u2', '/', B), ev('10:40', 'u2', '/_build/app.b1.js', A)])
    expect(report.incidents[0]?.byDirection).toEqual({oldPageNewPod: 0, newPageOldPod: 1, unknown: 0})
  })

  it('counts a 404 on an asset as missing, and takes the serving build from the upstream pod', () => {
    const {report, failures} = run([...rollout(),
      ev('10:50', 'u3', '/', A), ev('10:50', 'u3', '/_build/app.a1.js', 153, {status: 404, upstream: '10.1.1.1:8080'})])
    expect(failures[0]).toMatchObject({reason: 'missing', direction: 'oldPageNewPod', servingBuild: 'B2'})
    expect(report.incidents[0]?.byReason).toEqual({fallback: 0, missing: 1, contentType: 0})
  })

  it('counts text/html on an asset as contentType when the length tells nothing', () => {
    const {failures} = run([...rollout(), ev('10:50', 'u3', '/', A), ev('10:50', 'u3', '/_build/app.a1.js', 1999, {contentType: 'text/html; charset=utf-8'})])
    expect(failures.map((f) => f.reason)).toEqual(['contentType'])
  })

  it('does not flag an asset whose length equals a shell that was last served long ago', () => {
    const {failures} = run([ev('00:00', 'x', '/', A), ev('59:00', 'y', '/', B), ev('59:00', 'y', '/_build/chunk.js', A)])
    expect(failures).toEqual([])
  })

  it('joins shell lengths within --length-tolerance into one build', () => {
    const events = [ev('00:00', 'a', '/', 1832), ev('00:10', 'b', '/', 1835), ev('00:20', 'c', '/', 1830), ev('00:20', 'c', '/_build/x.js', 1834)]
    expect(run(events).report.builds).toHaveLength(3)
    const tolerant = run(events, {lengthTolerance: 5})
    expect(tolerant.report.builds).toEqual([expect.objectContaining({id: 'B1', shellBytes: 1832, shellRequests: 3})])
    expect(tolerant.failures).toHaveLength(1)
  })
})

describe('Analyzer: users, orphans and page loads', () => {
  it('reports asset hits with no page load behind them as orphans, never as users', () => {
    const {report} = run([...rollout(),
      ev('12:00', 'scanner', '/js/app.js', B), ev('12:01', 'scanner', '/static/js/main.js', B),
      ev('12:02', 'crawler', '/_build/app.a1.js', B)])
    expect(report.orphans).toEqual({requests: 3, clients: 2})
    expect(report.affectedUsers).toEqual([])
    expect(report.incidents).toEqual([])
  })

  it('expires page loads after the horizon: a late hit is an orphan', () => {
    const events = [...rollout(), ev('01:00', 'tab', '/', A), ev('40:00', 'tab', '/_build/chunk-x.a1.js', B)]
    expect(run(events).report.orphans.requests).toBe(1)
    expect(run(events, {horizonMs: 60 * 60_000}).report.affectedUsers).toHaveLength(1)
  })

  it('classifies a lazy chunk of an old tab after the deploy ended as a stale client', () => {
    const {report} = run([...rollout(), ev('05:00', 'tab', '/', A), ev('05:05', 'tab', '/_build/app.a1.js', 50_000),
      ev('25:00', 'tab', '/_build/chunk-cart.a1.js', B)])
    expect(report.incidents).toEqual([expect.objectContaining({kind: 'stale-client', deployId: 'D1', affectedUsers: 1, pageLoads: 1, brokenShare: 1})])
  })

  it('calls failures with no deploy around them unattributed', () => {
    const {report} = run([ev('00:00', 'a', '/', A), ev('00:00', 'a', '/_build/gone.js', 153, {status: 404})])
    expect(report.incidents).toEqual([expect.objectContaining({kind: 'unattributed', deployId: null})])
  })

  it('attributes an asset to the page load its referer names', () => {
    const {failures} = run([...rollout(),
      ev('10:20', 'u', '/products/1', A), ev('10:25', 'u', '/', B),
      ev('10:30', 'u', '/_build/app.a1.js', B, {referer: 'https://shop.example.com/products/1?x=1'})])
    expect(failures[0]?.pageLoad).toMatchObject({path: '/products/1', build: 'B1'})
    expect(failures[0]?.direction).toBe('oldPageNewPod')
  })

  it('recognises SPA routes as shells by length, even when the first / of that build comes a little later', () => {
    const {report} = run([ev('00:00', 'a', '/', A), ev('05:00', 'r', '/account', B), ev('05:00', 'r', '/_build/app.b.js', A),
      ev('05:30', 'n', '/', B)])
    expect(report.totals.pageLoads).toBe(3)
    expect(report.builds.map((b) => [b.id, b.firstSeen])).toEqual([['B1', '2026-11-29T14:00:00.000Z'], ['B2', '2026-11-29T14:05:00.000Z']])
    expect(report.affectedUsers).toHaveLength(1)
  })

  it('treats a revalidated shell (304) as a page load of unknown build', () => {
    const {failures, report} = run([...rollout(), ev('10:10', 'c', '/', 0, {status: 304}), ev('10:10', 'c', '/_build/app.a1.js', B)])
    expect(report.totals.pageLoads).toBe(5)
    expect(failures[0]).toMatchObject({direction: 'unknown', pageLoad: expect.objectContaining({build: null})})
  })

  it('counts page loads in the window, plus broken ones that started before it', () => {
    const {report} = run([...rollout(),
      ev('10:10', 'p1', '/', A), ev('10:10', 'p1', '/_build/app.a1.js', B),
      ev('10:20', 'p2', '/', A), ev('10:20', 'p2', '/_build/app.a1.js', 50_000),
      ev('10:30', 'p3', '/', B), ev('10:30', 'p3', '/_build/app.b1.js', A)])
    // window 10:10-10:30: page loads p1, p2, p3 (new1 at 10:00 is outside)
    expect(report.incidents[0]).toMatchObject({pageLoads: 3, affectedPageLoads: 2, brokenShare: 0.6667, windowSeconds: 20})
  })

  it('splits incidents at gaps longer than --incident-gap', () => {
    const events = [ev('00:00', 'a', '/', A), ev('00:00', 'a', '/_build/x.js', 153, {status: 404}),
      ev('04:00', 'b', '/', A), ev('04:00', 'b', '/_build/x.js', 153, {status: 404}),
      ev('20:00', 'c', '/', A), ev('20:00', 'c', '/_build/x.js', 153, {status: 404})]
    expect(run(events).report.incidents.map((i) => i.id)).toEqual(['I1', 'I2'])
    expect(run(events, {incidentGapMs: 60_000}).report.incidents).toHaveLength(3)
  })

  it('drops a record seen twice (same Datadog id) and counts it', () => {
    const {report, analyzer} = run([ev('00:00', 'a', '/', A, {id: 'x1'}), ev('00:00', 'a', '/', A, {id: 'x1'})])
    expect(report.totals.pageLoads).toBe(1)
    expect(analyzer.duplicates).toBe(1)
  })
})

describe('Analyzer: declared deploys', () => {
  it('ties declared deploys to the builds around them and keeps their window', () => {
    const declared: DeclaredDeploy[] = [{source: 'file', start: at('09:55'), end: at('11:40'), service: 'web', version: '2026.11.29-2'}]
    const {report} = run([...rollout(), ev('10:30', 'u', '/', A), ev('10:30', 'u', '/_build/app.a1.js', B)], {}, declared)
    expect(report.deploys).toEqual([expect.objectContaining({
      id: 'D1', source: 'file', start: '2026-11-29T14:09:55.000Z', end: '2026-11-29T14:11:40.000Z',
      fromBuild: 'B1', toBuild: 'B2', version: '2026.11.29-2', affectedUsers: 1, incidentIds: ['I1'], pageLoads: 3,
    })])
  })

  it('takes the build that appears after the deploy began, even when the old one was first seen within the margin before it', () => {
    // The old build is first seen 20 s before the deploy (a short log); the new one after it starts.
    const declared: DeclaredDeploy[] = [{source: 'file', start: at('00:20'), end: at('01:20')}]
    const {report} = run([ev('00:00', 'a', '/', A), ev('00:30', 'b', '/', B), ev('00:40', 'c', '/', A), ev('02:00', 'd', '/', B)], {}, declared)
    expect(report.deploys[0]).toMatchObject({fromBuild: 'B1', toBuild: 'B2'})
  })
})

describe('Analyzer: the answer does not depend on input order', () => {
  it('gives the same report for every order of events within a second', () => {
    const events = [...rollout(),
      ev('10:30', 'u1', '/', A), ev('10:30', 'u1', '/_build/app.a1.js', B), ev('10:30', 'u1', '/_build/vendor.a1.js', 80_000),
      ev('10:30', 'u2', '/', B), ev('10:30', 'u2', '/_build/app.b1.js', A), ev('10:30', 'u2', '/_build/vendor.b1.js', A)]
    const reference = JSON.stringify(run(events).report)
    // Deterministic shuffles: rotate and reverse the same-second block.
    for (let k = 0; k < 12; k++) {
      const shuffled = [...events].sort((x, y) => x.time - y.time || ((x.location.line * (k + 7)) % 13) - ((y.location.line * (k + 7)) % 13))
      const a = new Analyzer(DEFAULT_OPTIONS)
      for (const e of shuffled) a.push(e)
      expect(JSON.stringify(a.finish())).toBe(reference)
    }
  })

  it('refuses events out of time order (the sources sort them)', () => {
    const a = new Analyzer(DEFAULT_OPTIONS)
    a.push(ev('01:00', 'a', '/', A))
    expect(() => a.push(ev('00:00', 'a', '/', A))).toThrow(/out of order/)
  })
})
