import {Analyzer} from '../../../src/analysis/analyzer'
import {DEFAULT_OPTIONS, type AnalysisOptions} from '../../../src/analysis/options'
import type {AccessEvent} from '../../../src/model/access-event'
import type {DeclaredDeploy} from '../../../src/model/deploy'
import type {FailureRecord} from '../../../src/model/report'
import {EXAMPLES_PER_REASON} from '../../../src/model/rejection'
import {copyKeyOf} from '../../../src/util/copy-key'

const A = 1832 // build A's shell length
const B = 1851 // build B's shell length
const C = 1869 // build C's shell length
const BASE = Date.parse('2026-11-29T14:00:00Z')
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'

/** `mm:ss` after 14:00 UTC, or a number of seconds. */
const at = (t: string | number): number => {
  if (typeof t === 'number') return BASE + t * 1000
  const [m, s] = t.split(':').map(Number)
  return BASE + ((m ?? 0) * 60 + (s ?? 0)) * 1000
}

let line = 0
/** A client address per name (a person is an address and a browser's user agent). */
function ipOf(who: string): string {
  let h = 0
  for (const c of who) h = (h * 31 + c.charCodeAt(0)) >>> 0
  return `10.${(h >>> 16) & 255}.${(h >>> 8) & 255}.${h & 255}`
}
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'

function ev(t: string | number, who: string, path: string, bytes: number, extra: Partial<AccessEvent> = {}): AccessEvent {
  return {
    time: at(t), resolutionMs: 1000, method: 'GET', path, status: 200, bytes, clientIp: ipOf(who),
    userAgent: CHROME, location: {file: 'test', line: ++line}, ...extra,
  }
}

function run(events: AccessEvent[], opts: Partial<AnalysisOptions> = {}, declared: DeclaredDeploy[] = []) {
  const failures: FailureRecord[] = []
  const a = new Analyzer({...DEFAULT_OPTIONS, ...opts}, (f) => failures.push(f))
  for (const e of [...events].sort((x, y) => x.time - y.time)) a.push(e)
  return {report: a.finish(declared), failures, analyzer: a}
}

/** A site where build A serves until 10:00, both builds 10:00-11:30, then only B; real assets of each build. */
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
    expect(failures[0]).toMatchObject({reason: 'fallback', cause: 'rollout', deployId: 'D1', direction: 'oldPageNewPod', path: '/_build/app.a1.js', servingBuild: 'B2', incidentId: 'I1', asset: 'script', phase: 'initial'})
    expect(failures[0]?.pageLoad).toMatchObject({build: 'B1', path: '/'})
    expect(report.incidents).toEqual([expect.objectContaining({
      id: 'I1', cause: 'rollout', deployId: 'D1', affectedUsers: 1, affectedPageLoads: 1, brokenPageLoads: 1, failedRequests: 1,
      byOutcome: {crashed: 1, lazyChunkFailed: 0, unstyled: 0, degraded: 0},
      byDirection: {oldPageNewPod: 1, newPageOldPod: 0, unknown: 0}, byReason: {fallback: 1, missing: 0, contentType: 0},
    })])
    expect(report.deploys).toEqual([expect.objectContaining({
      id: 'D1', sources: ['inferred'], start: '2026-11-29T14:10:00.000Z', end: '2026-11-29T14:11:30.000Z', fromBuild: 'B1', toBuild: 'B2',
      rolloutWindow: {start: '2026-11-29T14:10:30.000Z', end: '2026-11-29T14:10:30.000Z', seconds: 0},
    })])
  })

  it('flags a new page whose asset came back as the old shell (backward skew)', () => {
    const {report} = run([...rollout(), ev('10:40', 'u2', '/', B), ev('10:40', 'u2', '/_build/app.b1.js', A)])
    expect(report.incidents[0]?.byDirection).toEqual({oldPageNewPod: 0, newPageOldPod: 1, unknown: 0})
  })

  it('counts a 404 on an asset as missing, and takes the serving build from the upstream pod', () => {
    const {report, failures} = run([...rollout(),
      ev('10:50', 'u3', '/', A), ev('10:50', 'u3', '/_build/app.a1.js', 153, {status: 404, upstream: '10.1.1.1:8080'})])
    expect(failures[0]).toMatchObject({reason: 'missing', direction: 'oldPageNewPod', servingBuild: 'B2', cause: 'rollout'})
    expect(report.incidents[0]?.byReason).toEqual({fallback: 0, missing: 1, contentType: 0})
  })

  it('takes the serving build of a 404 with no pod logged from the one other build served then', () => {
    const {failures} = run([...rollout(), ev('10:50', 'u3', '/', A), ev('10:50', 'u3', '/_build/app.a1.js', 153, {status: 404})])
    expect(failures[0]).toMatchObject({servingBuild: 'B2', direction: 'oldPageNewPod'})
  })

  it('counts text/html on an asset as contentType when the length tells nothing', () => {
    const {failures} = run([...rollout(), ev('10:50', 'u3', '/', A), ev('10:50', 'u3', '/_build/app.a1.js', 1999, {contentType: 'text/html; charset=utf-8'})])
    expect(failures.map((f) => f.reason)).toEqual(['contentType'])
  })

  it('does not flag an asset whose length equals a shell that was last served long ago', () => {
    const {failures} = run([ev('00:00', 'x', '/', A), ev('00:05', 'x', '/', A), ev('59:00', 'y', '/', B), ev('59:05', 'y', '/', B), ev('59:00', 'y', '/_build/chunk.js', A)])
    expect(failures).toEqual([])
  })

  it('joins shell lengths within --length-tolerance into one build', () => {
    const events = [ev('00:00', 'a', '/', 1832), ev('00:10', 'b', '/', 1835), ev('00:20', 'c', '/', 1830), ev('00:30', 'c', '/', 1832),
      ev('00:35', 'c', '/_build/app.js', 50_000), ev('00:36', 'c', '/_build/x.js', 1834)]
    // Without tolerance only 1832 recurs: one build, and 1834 is no shell.
    expect(run(events).report.builds.map((b) => b.shellBytes)).toEqual([1832])
    const tolerant = run(events, {lengthTolerance: 5})
    expect(tolerant.report.builds).toEqual([expect.objectContaining({id: 'B1', shellBytes: 1832, shellRequests: 4})])
    expect(tolerant.failures).toHaveLength(1)
  })
})

describe('Analyzer: a build is a shell length that recurs', () => {
  it('a length seen once on / is no build: no phantom deploy, no failure of that length', () => {
    const {report, failures} = run([...rollout(), ev('05:00', 'odd', '/', 2500), ev('06:00', 'u', '/', A), ev('06:00', 'u', '/_build/app.a1.js', 2500)])
    expect(report.builds.map((b) => b.shellBytes)).toEqual([A, B])
    expect(report.deploys).toHaveLength(1)
    expect(failures).toEqual([])
  })

  it('a homepage whose length varies per request has no builds, and says so; its 404s are still found', () => {
    const events: AccessEvent[] = []
    for (let i = 0; i < 40; i++) events.push(ev(i * 10, `v${i}`, '/', 5000 + i * 7))
    events.push(ev(200, 'u', '/', 5300), ev(200, 'u', '/_build/app.x.js', 150, {status: 404}), ev(201, 'u', '/_build/ok.x.js', 9000))
    const {report, failures} = run(events)
    expect(report.builds).toEqual([])
    expect(report.deploys).toEqual([])
    expect(report.apps).toEqual([expect.objectContaining({shellLengthVaries: true, pageLoads: 41})])
    expect(failures).toEqual([expect.objectContaining({reason: 'missing', cause: 'unattributed', pageLoad: expect.objectContaining({build: null})})])
  })
})

describe('Analyzer: only people are users', () => {
  it('counts crawlers apart (by the isbot list): their old-asset fallbacks are no failures, their page loads no page loads', () => {
    const {report} = run([...rollout(),
      ev('12:00', 'bot', '/', B, {userAgent: GOOGLEBOT}), ev('12:01', 'bot', '/_build/app.a1.js', B, {userAgent: GOOGLEBOT})])
    expect(report.nonUser.crawlers).toEqual({requests: 2, clients: 1, failedRequests: 1})
    expect(report.totals).toMatchObject({pageLoads: 4, failedRequests: 0, affectedUsers: 0})
    expect(report.incidents).toEqual([])
  })

  it('counts skewscan\'s own probe apart', () => {
    const probe = {userAgent: 'skewscan-probe/0.1.0'}
    const {report} = run([...rollout(), ev('10:30', 'p', '/', A, probe), ev('10:30', 'p', '/_build/app.a1.js', B, probe)])
    expect(report.nonUser.probe).toEqual({requests: 2, clients: 1, failedRequests: 1})
    expect(report.affectedUsers).toEqual([])
  })

  it('counts requests for asset paths no build ever served as a scanner\'s, even with a browser\'s user agent and a page load', () => {
    const {report, failures} = run([...rollout(),
      ev('10:30', 'scan', '/', B), ev('10:30', 'scan', '/static/js/main.js', B), ev('10:31', 'scan', '/js/app.js', B),
      // A content-hashed chunk beside served assets is real, though never served in this log: a stale tab's.
      ev('15:00', 'tab', '/', A, {status: 304, bytes: 0}), ev('15:00', 'tab', '/_build/app.a1.js', 50_000), ev('25:00', 'tab', '/_build/chunk-cart.a1b2c3d4.js', B)])
    expect(report.nonUser.scanners).toEqual({requests: 2, clients: 1, failedRequests: 2})
    expect(failures.map((f) => f.path)).toEqual(['/_build/chunk-cart.a1b2c3d4.js'])
  })

  // A scanner with a browser's user agent asks `HEAD /js/app.js` first: the SPA answers its shell's
  // headers, 200 with no body. Then it (and another address later) GETs the path and gets the shell.
  const headThenFallback = (probe: Partial<AccessEvent>): AccessEvent[] => [...rollout(),
    ev('10:30', 'scan', '/', B), ev('10:30', 'scan', '/js/app.js', 0, probe), ev('10:31', 'scan', '/js/app.js', B), ev('10:31', 'scan', '/static/js/main.js', B),
    ev('12:00', 'scan2', '/', B), ev('12:00', 'scan2', '/js/app.js', B),
    // A person's real failures beside them: a stale tab's chunk, and an old page's asset answered by the new shell.
    ev('15:00', 'tab', '/', A, {status: 304, bytes: 0}), ev('15:00', 'tab', '/_build/app.a1.js', 50_000), ev('25:00', 'tab', '/_build/chunk-cart.a1b2c3d4.js', B),
    ev('10:45', 'u1', '/', A), ev('10:45', 'u1', '/_build/app.a1.js', B, {upstream: '10.1.1.2:8080'}), ev('10:45', 'u1', '/_build/vendor.a1.js', 80_000),
  ]

  it.each([
    ['a HEAD answered 200 with no body', {method: 'HEAD'}],
    ['a HEAD that logged bytes (headers counted)', {method: 'HEAD', bytes: 312}],
    ['a GET answered 200 with 0 bytes', {}],
  ])('%s is no evidence that an asset path exists: the scanner\'s later fallback hits stay a scanner\'s', (_what, probe) => {
    const {report, failures} = run(headThenFallback(probe))
    expect(report.nonUser.scanners).toEqual({requests: 3, clients: 2, failedRequests: 3})
    expect(failures.map((f) => [f.path, f.cause])).toEqual([['/_build/app.a1.js', 'rollout'], ['/_build/chunk-cart.a1b2c3d4.js', 'stale-client']])
    expect(report.affectedUsers).toHaveLength(2)
  })

  it('a GET answered 200 with a body still shows the path exists: fallback hits on it later are a person\'s', () => {
    const {report, failures} = run(headThenFallback({bytes: 4_000}))
    expect(report.nonUser.scanners).toEqual({requests: 0, clients: 0, failedRequests: 0})
    expect(failures.filter((f) => f.path === '/js/app.js')).toHaveLength(2)
  })

  it('an asset revalidated (GET 304, no body) still shows real content: a returning visitor\'s missing file is a person\'s failure', () => {
    const {report, failures} = run([...rollout(),
      ev('12:00', 'back', '/', B), ev('12:01', 'back', '/_build/app.b1.js', 0, {status: 304}), ev('12:02', 'back', '/config.js', 153, {status: 404})])
    expect(report.nonUser.scanners).toEqual({requests: 0, clients: 0, failedRequests: 0})
    expect(failures.map((f) => [f.path, f.reason])).toEqual([['/config.js', 'missing']])
  })

  it('a log without byte counts keeps its 2xx asset answers as evidence (0 is no length there)', () => {
    // A Datadog export without network.bytes_written: only 404s tell failures, and only revalidated
    // shells (304) page loads. A page that got its other assets is a person's, its missing file a
    // failure, not a scanner's probe.
    const none = {bytesNotLogged: true as const}
    const {report, failures} = run([
      ev('04:00', 'bg', '/_build/app.a1.js', 0, none), // an asset request opens the app (a revalidated shell does not)
      ev('05:00', 'p', '/', 0, {...none, status: 304}), ev('05:01', 'p', '/_build/app.a1.js', 0, none), ev('05:02', 'p', '/_build/lazy.js', 0, {...none, status: 404}),
    ])
    expect(report.nonUser.scanners).toEqual({requests: 0, clients: 0, failedRequests: 0})
    expect(failures.map((f) => [f.path, f.reason])).toEqual([['/_build/lazy.js', 'missing']])
  })

  it('reports asset hits of people with no page load behind them as orphans, never as users', () => {
    const {report} = run([...rollout(), ev('12:02', 'visitor', '/_build/app.a1.js', B)])
    expect(report.orphans).toEqual({requests: 1, clients: 1})
    expect(report.affectedUsers).toEqual([])
  })

  it('never counts a source map answered with the shell as a failure', () => {
    const {report} = run([...rollout(), ev('10:30', 'dev', '/', A), ev('10:30', 'dev', '/_build/app.a1.js', 50_000), ev('10:31', 'dev', '/_build/app.a1.js.map', B)])
    expect(report.nonUser.sourceMaps).toEqual({failedRequests: 1})
    expect(report.totals.failedRequests).toBe(0)
  })

  it('a favicon or robots.txt answered with the shell is no page load; a route is', () => {
    const {report} = run([...rollout(), ev('05:00', 'f', '/favicon.ico', A), ev('05:00', 'f', '/robots.txt', A), ev('05:01', 'f', '/account', A)])
    expect(report.totals.pageLoads).toBe(5)
  })
})

describe('Analyzer: page-load outcomes', () => {
  it('crashed (a script at load), unstyled (only a stylesheet), lazy chunk failed (a script later), degraded (an image)', () => {
    const {report, failures} = run([...rollout(),
      ev('10:10', 's', '/', A), ev('10:10', 's', '/_build/app.a1.js', B),
      ev('10:20', 'c', '/', A), ev('10:20', 'c', '/_build/app.a1.js', 50_000), ev('10:20', 'c', '/_build/app.a1.css', B),
      ev('10:30', 'l', '/', A), ev('10:30', 'l', '/_build/app.a1.js', 50_000), ev('10:50', 'l', '/_build/chunk-cart.a1.js', B),
      ev('11:00', 'i', '/', A), ev('11:00', 'i', '/_build/app.a1.js', 50_000), ev('11:00', 'i', '/assets/logo.a1.png', B)])
    expect(report.totals).toMatchObject({brokenPageLoads: 1, affectedPageLoads: 4, byOutcome: {crashed: 1, lazyChunkFailed: 1, unstyled: 1, degraded: 1}})
    expect(failures.map((f) => [f.clientIp, f.asset, f.phase])).toEqual([
      [ipOf('s'), 'script', 'initial'], [ipOf('c'), 'stylesheet', 'initial'], [ipOf('l'), 'script', 'lazy'], [ipOf('i'), 'other', 'initial'],
    ])
    expect(report.affectedUsers.find((u) => u.clientIp === ipOf('s'))).toMatchObject({brokenPageLoads: 1, affectedPageLoads: 1})
    expect(report.affectedUsers.find((u) => u.clientIp === ipOf('c'))).toMatchObject({brokenPageLoads: 0, affectedPageLoads: 1})
  })

  it('a request more than --lazy-gap after the page\'s previous one is a lazy load', () => {
    const events = [...rollout(), ev('10:10', 'g', '/', A), ev('10:12', 'g', '/_build/app.a1.js', B)]
    expect(run(events).failures[0]?.phase).toBe('initial')
    expect(run(events, {lazyGapMs: 1000}).failures[0]?.phase).toBe('lazy')
  })
})

describe('Analyzer: the cause is what the logs show of the page\'s build', () => {
  it('a lazy chunk of an old tab after its build stopped being served is a stale client of the deploy that retired it, inside the deploy margin or not', () => {
    // A served about every minute until 11:30; the tab's chunk fails at 14:00, within 10 minutes of the deploy.
    const steady = Array.from({length: 11}, (_, i) => ev(i * 60 + 30, `v${i}`, '/', A))
    const {report} = run([...rollout(), ...steady, ev('05:00', 'tab', '/', A), ev('05:05', 'tab', '/_build/app.a1.js', 50_000),
      ev('14:00', 'tab', '/_build/chunk-cart.a1b2c3d4.js', B)], {deployMarginMs: 10 * 60_000})
    expect(report.incidents).toEqual([expect.objectContaining({cause: 'stale-client', deployId: 'D1', affectedUsers: 1, pageLoads: 1,
      byOutcome: {crashed: 0, lazyChunkFailed: 1, unstyled: 0, degraded: 0}})])
    expect(report.deploys[0]).toMatchObject({byCause: {rollout: 0, 'stale-client': 1, unattributed: 0}, rolloutWindow: null})
  })

  it('calls failures with no other build around them unattributed', () => {
    // A page's own missing file (its other assets came): a person's failure, whatever its name.
    const {report} = run([ev('00:00', 'a', '/', A), ev('00:00', 'a', '/_build/app.js', 50_000), ev('00:00', 'a', '/_build/gone.js', 153, {status: 404}), ev('00:10', 'b', '/', A)])
    expect(report.incidents).toEqual([expect.objectContaining({cause: 'unattributed', deployId: null})])
  })

  it('two deploys give incidents of their own, and a stale tab of the first failing during the second stays the first\'s', () => {
    const events = [
      ...Array.from({length: 19}, (_, i) => ev(i * 30, `a${i}`, '/', A)),
      ev('00:00', 'a', '/', A), ev('00:05', 'a', '/_build/app.a1.js', 50_000), ev('09:50', 'a2', '/', A),
      ev('10:00', 'b', '/', B), ev('10:10', 'b', '/', B), ev('10:20', 'b', '/_build/app.b1.js', 51_000),
      // D1 race: an A page gets B's shell.
      ev('09:55', 'r1', '/', A), ev('09:55', 'r1', '/_build/vendor.a1.js', 80_000), ev('09:55', 'r1', '/_build/app.a1.js', B),
      ev('12:00', 'c', '/', C), ev('12:00', 'b3', '/', B), ev('12:30', 'c2', '/', C), ev('20:00', 'c3', '/', C),
      // D2 race: a B page gets C's shell; meanwhile the A tab (build gone since 09:55) lazy-loads: stale, of D1.
      ev('12:10', 'r2', '/', B), ev('12:10', 'r2', '/_build/vendor.b1.js', 81_000), ev('12:10', 'r2', '/_build/app.b1.js', C),
      ev('12:15', 'a', '/_build/chunk-cart.a1b2c3d4.js', C),
    ]
    const {report, failures} = run(events)
    expect(report.deploys.map((d) => [d.id, d.fromBuild, d.toBuild])).toEqual([['D1', 'B1', 'B2'], ['D2', 'B2', 'B3']])
    expect(failures.map((f) => [f.path, f.cause, f.deployId])).toEqual([
      ['/_build/app.a1.js', 'rollout', 'D1'], ['/_build/app.b1.js', 'rollout', 'D2'], ['/_build/chunk-cart.a1b2c3d4.js', 'stale-client', 'D1'],
    ])
    expect(report.incidents.map((i) => [i.id, i.cause, i.deployId])).toEqual([['I1', 'rollout', 'D1'], ['I2', 'rollout', 'D2'], ['I3', 'stale-client', 'D1']])
  })

  it('finds fallback bodies of a new build whose first shell was logged minutes later (a quiet site)', () => {
    const events = [ev('00:00', 'a', '/', A), ev('00:10', 'a', '/_build/app.a1.js', 50_000), ev('03:00', 'a', '/', A),
      ev('04:00', 'u', '/', A), ev('04:00', 'u', '/_build/app.a1.js', B), ev('05:00', 'old', '/', A),
      ev('09:00', 'b', '/', B), ev('09:30', 'b', '/', B)]
    const {failures, report} = run(events)
    expect(failures).toEqual([expect.objectContaining({path: '/_build/app.a1.js', servingBuild: 'B2', cause: 'rollout', direction: 'oldPageNewPod'})])
    // The fallback body shows B served from 04:00: the inferred rollout starts there.
    expect(report.deploys[0]).toMatchObject({start: '2026-11-29T14:04:00.000Z', end: '2026-11-29T14:05:00.000Z'})
  })
})

describe('Analyzer: apps', () => {
  const web = {upstreamName: 'default-web-80'}
  const shop = {upstreamName: 'default-shop-80'}
  it('keeps builds, deploys and incidents per app: two apps deploying a minute apart are two rollouts, not one build sequence', () => {
    const events = [
      ev('00:00', 'w', '/', A, web), ev('00:10', 'w', '/', A, web), ev('10:00', 'w', '/', B, web), ev('10:40', 'w2', '/', A, web), ev('20:00', 'w', '/', B, web),
      ev('00:00', 's', '/', 3000, shop), ev('00:10', 's', '/', 3000, shop), ev('11:00', 's', '/', 3100, shop), ev('11:40', 's2', '/', 3000, shop), ev('20:00', 's', '/', 3100, shop),
      ev('10:30', 'u', '/', A, web), ev('10:30', 'u', '/_build/vendor.a1.js', 80_000, web), ev('10:30', 'u', '/_build/app.a1.js', B, web),
      ev('11:30', 'v', '/', 3000, shop), ev('11:30', 'v', '/_build/vendor.s1.js', 70_000, shop), ev('11:30', 'v', '/_build/shop.a1.js', 3100, shop),
    ]
    const {report} = run(events)
    expect(report.apps.map((a) => [a.name, a.source, a.builds, a.deploys, a.affectedUsers])).toEqual([['default-shop-80', 'upstream', 2, 1, 1], ['default-web-80', 'upstream', 2, 1, 1]])
    expect(report.deploys.map((d) => [d.id, d.app, d.fromBuild, d.toBuild])).toEqual([['D1', 'default-web-80', 'B1', 'B2'], ['D2', 'default-shop-80', 'B1', 'B2']])
    expect(report.incidents.map((i) => [i.id, i.app, i.deployId])).toEqual([['I1', 'default-web-80', 'D1'], ['I2', 'default-shop-80', 'D2']])
    const only = run(events, {app: 'default-shop-80'}).report
    expect(only.apps.map((a) => a.name)).toEqual(['default-shop-80'])
    expect(only.totals.affectedUsers).toBe(1)
  })

  it('names the app by upstream, else virtual host, else service; --app-key chooses', () => {
    const one = (extra: Partial<AccessEvent>, opts: Partial<AnalysisOptions> = {}) => run([ev('00:00', 'a', '/', A, extra), ev('00:01', 'a', '/', A, extra)], opts).report.apps.map((a) => [a.name, a.source])
    expect(one({upstreamName: 'default-web-80', vhost: 'web.example.com', service: 'ingress-nginx'})).toEqual([['default-web-80', 'upstream']])
    expect(one({vhost: 'web.example.com', service: 'ingress-nginx'})).toEqual([['web.example.com', 'host']])
    expect(one({service: 'web'})).toEqual([['web', 'service']])
    expect(one({})).toEqual([[null, 'none']])
    expect(one({upstreamName: 'default-web-80', vhost: 'web.example.com'}, {appSource: 'host'})).toEqual([['web.example.com', 'host']])
  })
})

describe('Analyzer: page loads and incidents', () => {
  it('expires page loads after the horizon: a late hit is an orphan', () => {
    const events = [...rollout(), ev('01:00', 'tab', '/', A), ev('01:00', 'tab', '/_build/app.a1.js', 50_000), ev('40:00', 'tab', '/_build/chunk-x.a1b2c3d4.js', B)]
    expect(run(events).report.orphans.requests).toBe(1)
    expect(run(events, {horizonMs: 60 * 60_000}).report.affectedUsers).toHaveLength(1)
  })

  it('attributes an asset to the page load its referer names', () => {
    const {failures} = run([...rollout(),
      ev('10:20', 'u', '/products/1', A), ev('10:25', 'u', '/', B),
      ev('10:30', 'u', '/_build/app.a1.js', B, {referer: 'https://shop.example.com/products/1?x=1'})])
    expect(failures[0]?.pageLoad).toMatchObject({path: '/products/1', build: 'B1'})
    expect(failures[0]?.direction).toBe('oldPageNewPod')
  })

  it('recognises SPA routes as shells by length, even when the first / of that build comes a little later', () => {
    const {report} = run([ev('00:00', 'a', '/', A), ev('00:10', 'a', '/', A), ev('00:10', 'a', '/_build/app.a.js', 50_000), ev('05:00', 'r', '/account', B), ev('05:00', 'r', '/_build/app.a.js', A),
      ev('05:30', 'n', '/', B), ev('05:40', 'n', '/', B)])
    expect(report.totals.pageLoads).toBe(5)
    expect(report.builds.map((b) => [b.id, b.firstSeen])).toEqual([['B1', '2026-11-29T14:00:00.000Z'], ['B2', '2026-11-29T14:05:00.000Z']])
    expect(report.affectedUsers).toHaveLength(1)
  })

  it('a revalidated shell (304) is a page load of the build its assets belong to', () => {
    const {failures, report} = run([...rollout(), ev('10:10', 'c', '/', 0, {status: 304}), ev('10:10', 'c', '/_build/app.a1.js', B)])
    expect(report.totals.pageLoads).toBe(5)
    // app.a1.js was fetched by an A page: the failure is an A page's.
    expect(failures[0]).toMatchObject({direction: 'oldPageNewPod', pageLoad: expect.objectContaining({build: 'B1'}), cause: 'rollout'})
  })

  it('counts page loads in the window, plus broken ones that started before it', () => {
    const {report} = run([...rollout(),
      ev('10:10', 'p1', '/', A), ev('10:10', 'p1', '/_build/app.a1.js', B),
      ev('10:20', 'p2', '/', A), ev('10:20', 'p2', '/_build/app.a1.js', 50_000),
      ev('10:30', 'p3', '/', B), ev('10:30', 'p3', '/_build/app.b1.js', A)])
    // window 10:10-10:30: page loads p1, p2, p3 (new1 at 10:00 is outside)
    expect(report.incidents[0]).toMatchObject({pageLoads: 3, affectedPageLoads: 2, brokenPageLoads: 2, brokenShare: 0.6667, windowSeconds: 20})
  })

  it('splits incidents at gaps longer than --incident-gap', () => {
    const page = (t: string, who: string): AccessEvent[] => [ev(t, who, '/', A), ev(t, who, '/_build/app.js', 50_000), ev(t, who, '/_build/x.js', 153, {status: 404})]
    const events = [...page('00:00', 'a'), ...page('04:00', 'b'), ...page('20:00', 'c')]
    expect(run(events).report.incidents.map((i) => i.id)).toEqual(['I1', 'I2'])
    expect(run(events, {incidentGapMs: 60_000}).report.incidents).toHaveLength(3)
  })

  it('drops a record seen twice (same Datadog id) and counts it', () => {
    const {report, analyzer} = run([ev('00:00', 'a', '/', A, {id: 'x1'}), ev('00:00', 'a', '/', A, {id: 'x1'})])
    expect(report.totals.pageLoads).toBe(1)
    expect(analyzer.duplicates).toBe(1)
    expect(analyzer.duplicateExamples).toEqual([{location: {file: 'test', line: line}, matched: `same event id as line ${line - 1}: x1`}])
  })

  it('says what a dropped proxy copy shared with the record read before it: request id, time, path, status, bytes, client, pod', () => {
    const copy = {requestId: '529a007902362a5f51385a5fa7049884', upstream: '172.17.0.5:8080'}
    const {analyzer} = run([ev('00:07', 'a', '/_build/app.js', 59, copy), ev('00:07', 'a', '/_build/app.js', 59, copy)])
    expect(analyzer.duplicates).toBe(1)
    const [dup] = analyzer.duplicateExamples
    expect(dup?.matched).toBe(`same request id, time, path, status, bytes, client and pod as line ${line - 1} (request id 529a007902362a5f513…)`)
    expect(dup?.matched.length).toBeLessThanOrEqual(120)
  })

  it('a request id again with another path, status, bytes, client, pod, app or host is another request; a copy of any of them is a copy of that one', () => {
    const r = {requestId: 'r1', upstream: '10.0.0.1:80'}
    const first = line + 1
    const events = [
      ev('00:07', 'a', '/_build/app.js', 59, r),
      ev('00:07', 'a', '/_build/vendor.js', 59, r),
      ev('00:07', 'a', '/_build/app.js', 59, {...r, status: 404}),
      ev('00:07', 'a', '/_build/app.js', 60, r),
      ev('00:07', 'b', '/_build/app.js', 59, r),
      ev('00:07', 'a', '/_build/app.js', 59, {...r, upstream: '10.0.0.2:80'}),
      ev('00:07', 'a', '/_build/app.js', 59, {...r, upstreamName: 'default-shop-80'}),
      ev('00:07', 'a', '/_build/app.js', 59, {...r, vhost: 'shop.example.com'}),
      // A copy of the sixth (another pod): the copy of a later one of the same request id.
      ev('00:07', 'a', '/_build/app.js', 59, {...r, upstream: '10.0.0.2:80'}),
    ]
    const {analyzer} = run(events)
    expect(analyzer.duplicates).toBe(1)
    expect(analyzer.duplicateExamples.map((d) => [d.location.line, d.matched.match(/as line (\d+)/)?.[1]])).toEqual([[first + 8, String(first + 5)]])
  })
})

/** Two different ids whose copy keys meet (util/copy-key.ts hashes them to 29 bits: some tens of thousands of ids hold a pair). */
function idsOfOneKey(kind: 'id' | 'requestId'): [string, string] {
  const seen = new Map<number, string>()
  for (let i = 0; i < 1_000_000; i++) {
    const id = `r${i}`
    const key = copyKeyOf(kind === 'id' ? {id} : {requestId: id})
    const other = seen.get(key)
    if (other !== undefined) return [other, id]
    seen.set(key, id)
  }
  throw new Error('no two ids of one copy key among a million')
}

describe('Analyzer: copies by their copy keys', () => {
  it('two event ids or two request ids of one copy key are two records; a copy of either is a copy of that one', () => {
    for (const kind of ['id', 'requestId'] as const) {
      const [x, y] = idsOfOneKey(kind)
      expect(x).not.toBe(y)
      const first = line + 1
      const {report, analyzer} = run([
        ev('00:07', 'a', '/', A, {[kind]: x}),
        ev('00:07', 'b', '/', A, {[kind]: y}),
        ev('00:07', 'b', '/', A, {[kind]: y}),
      ])
      expect(report.totals.pageLoads).toBe(2)
      expect(analyzer.duplicates).toBe(1)
      expect(analyzer.duplicateExamples.map((d) => [d.location.line, d.matched.match(/as line (\d+)/)?.[1]])).toEqual([[first + 2, String(first + 1)]])
    }
  })

  it('an event id and a request id of one text are never copies of each other, whatever their keys', () => {
    const {analyzer} = run([ev('00:07', 'a', '/', A, {id: 'same'}), ev('00:07', 'a', '/', A, {requestId: 'same'})])
    expect(analyzer.duplicates).toBe(0)
  })

  it('in a second of a thousand records and their copies, each copy is found as its own record\'s, however many came between; the next second remembers none of them', () => {
    const first = line + 1
    const events = Array.from({length: 1000}, (_, i) => ev('00:07', `u${i}`, '/_build/app.js', 59, {id: `e${i}`}))
    // Copies from other clients (an event id is the record whatever it says): not judged next to their records.
    for (let i = 0; i < 1000; i++) events.push(ev('00:07', `z${i}`, '/_build/app.js', 59, {id: `e${i}`}))
    // The same ids a second later: other records (a copy is of one time).
    events.push(ev('00:08', 'u0', '/_build/app.js', 59, {id: 'e0'}), ev('00:08', 'u999', '/_build/app.js', 59, {id: 'e999'}))
    const {analyzer} = run(events)
    expect(analyzer.duplicates).toBe(1000)
    // Which of two copies is kept follows the order records of one second are judged in (by client): each pair either way round.
    const pairs = analyzer.duplicateExamples.map((d) => [d.location.line, Number(d.matched.match(/as line (\d+)/)?.[1])].sort((x, y) => x - y))
    expect(pairs).toHaveLength(Math.min(1000, EXAMPLES_PER_REASON))
    for (const [x, y] of pairs) {
      expect([(x as number) - first, (y as number) - (x as number)]).toEqual([expect.any(Number), 1000])
      // The earlier of the two is one of the thousand records of the second.
      expect((x as number) - first).toBeGreaterThanOrEqual(0)
      expect((x as number) - first).toBeLessThan(1000)
    }
  })

  it('an event that brings its copy key (a packing reader\'s) is keyed alike with one that does not', () => {
    const keyed = (e: AccessEvent): AccessEvent => ({...e, copyKey: copyKeyOf(e)}) as AccessEvent
    const r = {requestId: '529a007902362a5f51385a5fa7049884'}
    const {analyzer} = run([keyed(ev('00:07', 'a', '/_build/app.js', 59, r)), ev('00:07', 'a', '/_build/app.js', 59, r), keyed(ev('00:08', 'a', '/', A, {id: 'e1'})), ev('00:08', 'a', '/', A, {id: 'e1'})])
    expect(analyzer.duplicates).toBe(2)
  })
})

describe('Analyzer: declared deploys', () => {
  it('ties declared deploys to the builds around them and keeps their window', () => {
    const declared: DeclaredDeploy[] = [{source: 'file', start: at('09:55'), end: at('11:40'), service: 'web', version: '2026.11.29-2'}]
    const {report} = run([...rollout(), ev('10:30', 'u', '/', A), ev('10:30', 'u', '/_build/app.a1.js', B)], {}, declared)
    expect(report.deploys).toEqual([expect.objectContaining({
      id: 'D1', sources: ['file'], start: '2026-11-29T14:09:55.000Z', end: '2026-11-29T14:11:40.000Z',
      fromBuild: 'B1', toBuild: 'B2', version: '2026.11.29-2', affectedUsers: 1, incidentIds: ['I1'], pageLoads: 3,
    })])
  })

  it('fuses a rollout\'s start and finish markers and its Kubernetes rollout into one deploy', () => {
    const declared: DeclaredDeploy[] = [
      {source: 'marker', phase: 'start', start: at('09:58'), service: 'web', version: 'v2', key: 'web-2', description: 'Deploy web v2 started'},
      {source: 'kubernetes', start: at('10:00'), end: at('11:20'), service: 'web', deployment: 'web', version: 'web-5b8c', fromVersion: 'web-4a7d'},
      {source: 'marker', phase: 'end', start: at('11:35'), service: 'web', version: 'v2', key: 'web-2', description: 'Deploy web v2 finished'},
    ]
    const {report} = run([...rollout(), ev('10:30', 'u', '/', A), ev('10:30', 'u', '/_build/app.a1.js', B)], {}, declared)
    expect(report.deploys).toEqual([expect.objectContaining({
      id: 'D1', sources: ['marker', 'kubernetes'], start: '2026-11-29T14:09:58.000Z', end: '2026-11-29T14:11:35.000Z', version: 'v2', fromBuild: 'B1', toBuild: 'B2',
    })])
    expect(report.unmatchedDeploys).toEqual([])
  })

  it('lists deploy records that match no app\'s traffic, never drops them', () => {
    const declared: DeclaredDeploy[] = [{source: 'file', start: at('10:00'), end: at('11:00'), service: 'billing'}]
    const {report} = run([...rollout().map((e) => ({...e, upstreamName: 'default-web-80'}))], {}, declared)
    expect(report.unmatchedDeploys).toEqual([expect.objectContaining({service: 'billing', reason: expect.stringMatching(/no app in the logs is named billing.*--deploy-app billing=APP/)})])
    // Unmatched: the app's deploys are inferred.
    expect(report.deploys).toEqual([expect.objectContaining({sources: ['inferred'], app: 'default-web-80'})])
    const mapped = run([...rollout().map((e) => ({...e, upstreamName: 'default-web-80'}))], {deployApps: {billing: 'default-web-80'}}, declared).report
    expect(mapped.deploys).toEqual([expect.objectContaining({sources: ['file'], service: 'billing', app: 'default-web-80'})])
  })

  it('takes the build that appears after the deploy began, even when the old one was first seen within the margin before it', () => {
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
