/**
 * The join of RUM views to the log's page loads (analysis/rum.ts) on cases made to tell the ways
 * apart: browsers behind one address (NAT), RUM without addresses, a view that joins nothing, a
 * classic script's 404 that throws nothing, a lazy error that names no URL, a route the SPA opened
 * itself, and the scopes (deploy, incident, all) each finding goes to.
 */
import {joinRum} from '../../../src/analysis/rum'
import type {AnalysisReport, DeployReport, FailureRecord, IncidentReport} from '../../../src/model/report'
import type {RumEvent} from '../../../src/model/rum'

const T0 = Date.parse('2026-11-30T07:18:30.000Z')
const iso = (ms: number): string => new Date(ms).toISOString()
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0'

let pageLoadIds = 0
/** A failed request of the log: `at` ms after T0, of a page load that started at `page` ms. */
function failure(over: Partial<FailureRecord> & {at: number; page: number; pageLoadId: number}): FailureRecord {
  const {at, page, pageLoadId, ...rest} = over
  return {
    time: iso(T0 + at), app: 'web', cause: 'rollout', deployId: 'D1', incidentId: 'I1', reason: 'fallback', direction: 'oldPageNewPod', asset: 'script', phase: 'initial',
    method: 'GET', path: '/_build/index.aaaa1111.js', status: 200, bytes: 3385, session: `10.0.0.1 ${CHROME}`, clientIp: '10.0.0.1', userAgent: CHROME, service: null,
    pageLoad: {id: pageLoadId, time: iso(T0 + page), path: '/', build: 'B1'}, servingBuild: 'B2', source: {file: 'access.log', line: 1}, ...rest,
  }
}

let line = 0
function rum(kind: RumEvent['kind'], at: number, over: Partial<RumEvent> = {}): RumEvent {
  return {kind, time: T0 + at, session: 's1', view: 'v1', clientIp: '10.0.0.1', userAgent: CHROME, version: 'v1.0.0', location: {file: 'rum.json', line: ++line}, ...over}
}
const view = (at: number, over: Partial<RumEvent> = {}): RumEvent => rum('view', at, {loadingType: 'initial_load', ...over})
const resource = (at: number, path: string, over: Partial<RumEvent> & {status?: number} = {}): RumEvent => {
  const {status, ...rest} = over
  return rum('resource', at, {resource: {url: `https://web.test${path}`, path, type: path.endsWith('.css') ? 'css' : 'js', status: status ?? 200, size: 3385}, ...rest})
}
const error = (at: number, message: string, over: Partial<RumEvent> = {}, url?: string): RumEvent =>
  rum('error', at, {error: {message, source: 'source', ...(url === undefined ? {} : {url, path: new URL(url).pathname})}, ...over})

const CRASH = 'Uncaught SyntaxError: Unexpected token \'<\''

function deploy(over: Partial<DeployReport> = {}): DeployReport {
  return {
    id: 'D1', app: 'web', sources: ['marker'], start: iso(T0), end: iso(T0 + 10_000), windowSeconds: 10, fromBuild: 'B1', toBuild: 'B2', incidentIds: ['I1'],
    affectedUsers: 1, affectedPageLoads: 1, byOutcome: {crashed: 1, lazyChunkFailed: 0, unstyled: 0, degraded: 0}, pageLoads: 4, failedRequests: 1,
    byCause: {rollout: 1, 'stale-client': 0, unattributed: 0}, byDirection: {oldPageNewPod: 1, newPageOldPod: 0, unknown: 0}, rolloutWindow: null, ...over,
  }
}

function incident(over: Partial<IncidentReport> = {}): IncidentReport {
  return {
    id: 'I1', app: 'web', cause: 'rollout', deployId: 'D1', start: iso(T0), end: iso(T0 + 10_000), windowSeconds: 10, affectedUsers: 1, affectedPageLoads: 1,
    byOutcome: {crashed: 1, lazyChunkFailed: 0, unstyled: 0, degraded: 0}, brokenPageLoads: 1, pageLoads: 4, brokenShare: 0.25, failedRequests: 1,
    byDirection: {oldPageNewPod: 1, newPageOldPod: 0, unknown: 0}, byReason: {fallback: 1, missing: 0, contentType: 0}, top: {paths: [], statuses: [], browsers: []}, ...over,
  }
}

function report(over: Partial<AnalysisReport> = {}): AnalysisReport {
  return {
    schemaVersion: 3,
    input: {records: 10, used: 10, skipped: {total: 0, byReason: {}, examples: []}, first: iso(T0 - 60_000), last: iso(T0 + 60_000), sources: []},
    totals: {pageLoads: 4, brokenPageLoads: 1, affectedPageLoads: 1, byOutcome: {crashed: 1, lazyChunkFailed: 0, unstyled: 0, degraded: 0}, affectedUsers: 1, failedRequests: 1, byCause: {rollout: 1, 'stale-client': 0, unattributed: 0}},
    apps: [], builds: [], deploys: [deploy()], unmatchedDeploys: [], incidents: [incident()], affectedUsers: [],
    nonUser: {crawlers: {requests: 0, clients: 0, failedRequests: 0}, probe: {requests: 0, clients: 0, failedRequests: 0}, scanners: {requests: 0, clients: 0, failedRequests: 0}, sourceMaps: {failedRequests: 0}},
    orphans: {requests: 0, clients: 0}, advice: [], ...over,
  }
}

const INPUT = {files: [], views: 0, resources: 0, errors: 0, skipped: {total: 0, byReason: {}, examples: []}}
const joined = (failures: FailureRecord[], events: RumEvent[], r = report()): AnalysisReport =>
  joinRum(r, failures, {events: [...events].sort((a, b) => a.time - b.time), input: INPUT}, {deployMarginMs: 60_000}).report

beforeEach(() => {
  pageLoadIds = 0
  line = 0
})

describe('RUM joined to the log', () => {
  it('a crash the log saw: confirmed, by address and asset, its account and version counted on its deploy and incident', () => {
    const r = joined([failure({at: 120, page: 0, pageLoadId: ++pageLoadIds})], [
      view(2, {user: 'acct-1'}), resource(100, '/_build/index.aaaa1111.js', {user: 'acct-1'}), error(130, CRASH, {user: 'acct-1'}, 'https://web.test/_build/index.aaaa1111.js'),
    ])
    expect(r.rum).toMatchObject({crashedPageLoads: 1, confirmed: 1, unconfirmed: 0, unexplained: 0, accounts: 1, accountIds: ['acct-1'], sessions: 1, joins: {addressAndAsset: 1, asset: 0, address: 0, none: 0}})
    expect(r.rum?.versions).toEqual([{version: 'v1.0.0', crashedPageLoads: 1, lazyFailures: 0}])
    expect(r.deploys[0]?.rum).toMatchObject({crashedPageLoads: 1, confirmed: 1, accountIds: ['acct-1']})
    expect(r.incidents[0]?.rum).toMatchObject({crashedPageLoads: 1, confirmed: 1})
    // One RUM page load of the log's four in the span.
    expect(r.rum?.coverage).toBe(0.25)
  })

  it('two browsers behind one address (NAT): each view joins the page load of its own asset and user agent', () => {
    const a = failure({at: 120, page: 0, pageLoadId: ++pageLoadIds, path: '/_build/index.aaaa1111.js'})
    const b = failure({at: 150, page: 40, pageLoadId: ++pageLoadIds, path: '/_build/index.bbbb2222.js', userAgent: FIREFOX, session: `10.0.0.1 ${FIREFOX}`, incidentId: 'I1'})
    const r = joined([a, b], [
      view(0, {view: 'va', session: 'sa', user: 'acct-a'}), view(40, {view: 'vb', session: 'sb', userAgent: FIREFOX, user: 'acct-b'}),
      // Listed the other way round: B's error first, naming its own asset.
      error(130, CRASH, {view: 'vb', session: 'sb', userAgent: FIREFOX, user: 'acct-b'}, 'https://web.test/_build/index.bbbb2222.js'),
      error(131, CRASH, {view: 'va', session: 'sa', user: 'acct-a'}, 'https://web.test/_build/index.aaaa1111.js'),
    ], report({details: {bucketSeconds: 60, timeline: [], brokenPageLoads: [a, b].map((f) => ({
      id: f.pageLoad.id, app: 'web', session: f.session, clientIp: f.clientIp, userAgent: f.userAgent, time: f.pageLoad.time, path: '/', build: 'B1', outcome: 'crashed' as const, incidentIds: ['I1'], requests: [],
    }))}}))
    expect(r.rum).toMatchObject({crashedPageLoads: 2, confirmed: 2, accountIds: ['acct-a', 'acct-b'], sessions: 2, joins: {addressAndAsset: 2}})
    expect(r.details?.brokenPageLoads.map((p) => [p.id, p.rum?.view, p.rum?.user, p.rum?.join, p.rum?.crashed])).toEqual([[1, 'va', 'acct-a', 'address+asset', true], [2, 'vb', 'acct-b', 'address+asset', true]])
  })

  it('RUM without client addresses joins by the asset both saw; a view with neither address nor asset in common is unexplained', () => {
    const r = joined([failure({at: 120, page: 0, pageLoadId: ++pageLoadIds})], [
      view(0, {clientIp: undefined}), error(130, CRASH, {clientIp: undefined}, 'https://web.test/_build/index.aaaa1111.js'),
      view(200, {view: 'v2', session: 's2', clientIp: '10.9.9.9', user: 'acct-9'}), error(300, CRASH, {view: 'v2', session: 's2', clientIp: '10.9.9.9', user: 'acct-9'}, 'https://web.test/_build/other.cccc3333.js'),
    ])
    expect(r.rum).toMatchObject({crashedPageLoads: 2, confirmed: 1, unexplained: 1, joins: {addressAndAsset: 0, asset: 1, address: 0, none: 1}})
    expect(r.rum?.unexplainedExamples).toEqual([{time: iso(T0 + 300), session: 's2', view: 'v2', message: CRASH, url: '/_build/other.cccc3333.js', user: 'acct-9'}])
    // Unexplained, yet in the deploy's window: counted on the deploy, on no incident.
    expect(r.deploys[0]?.rum).toMatchObject({crashedPageLoads: 2, unexplained: 1})
    expect(r.incidents[0]?.rum).toMatchObject({crashedPageLoads: 1, unexplained: 0})
  })

  it('a classic script answered 404 throws nothing: its failed resource is the crash', () => {
    const r = joined([failure({at: 120, page: 0, pageLoadId: ++pageLoadIds, status: 404, reason: 'missing'})], [
      view(0), resource(100, '/_build/index.aaaa1111.js', {status: 404}), resource(101, '/_build/index.aaaa1111.css', {status: 404}),
    ])
    expect(r.rum).toMatchObject({crashedPageLoads: 1, confirmed: 1, lazyFailures: 0, unexplained: 0})
  })

  it('a lazy load\'s error naming no URL (Safari) claims the failed chunk beside it: a lazy failure, not a crash', () => {
    const lazy = failure({at: 9000, page: 0, pageLoadId: ++pageLoadIds, phase: 'lazy', path: '/_build/settings.dddd4444.js', status: 404, reason: 'missing'})
    const r = joined([lazy], [view(0), resource(8990, '/_build/settings.dddd4444.js', {status: 404}), error(9000, 'TypeError: Importing a module script failed.')])
    expect(r.rum).toMatchObject({crashedPageLoads: 0, lazyFailures: 1, unexplained: 0, joins: {addressAndAsset: 1}})
  })

  it('a lazy import the log timed inside the initial load (sooner than the lazy gap) is explained by that script\'s failure', () => {
    const early = failure({at: 900, page: 0, pageLoadId: ++pageLoadIds, phase: 'initial', path: '/_build/settings.dddd4444.js'})
    const r = joined([early], [view(0), error(900, 'TypeError: Failed to fetch dynamically imported module: https://web.test/_build/settings.dddd4444.js')])
    expect(r.rum).toMatchObject({crashedPageLoads: 0, lazyFailures: 1, unexplained: 0, joins: {addressAndAsset: 1}})
    expect(r.deploys[0]?.rum?.lazyFailures).toBe(1)
  })

  it('a lazy load that failed in a route the SPA opened minutes later (its own route_change view): the page load\'s, joined through it', () => {
    const lazy = failure({at: 300_000, page: 0, pageLoadId: ++pageLoadIds, phase: 'lazy', path: '/_build/settings.dddd4444.js'})
    const r = joined([lazy], [
      view(0, {user: 'acct-1'}), view(299_000, {view: 'v-route', loadingType: 'route_change', user: 'acct-1'}),
      error(300_000, 'TypeError: Failed to fetch dynamically imported module: https://web.test/_build/settings.dddd4444.js', {view: 'v-route', user: 'acct-1'}),
    ], report({deploys: [deploy({end: iso(T0 + 400_000)})]}))
    expect(r.rum).toMatchObject({lazyFailures: 1, unexplained: 0, accountIds: ['acct-1'], joins: {addressAndAsset: 1, none: 0}})
    // One page load RUM saw (the route is none).
    expect(r.rum?.coverage).toBe(0.25)
  })

  it('crash words in a route the SPA opened itself are a failed lazy load', () => {
    const lazy = failure({at: 9000, page: 0, pageLoadId: ++pageLoadIds, phase: 'lazy', path: '/_build/settings.dddd4444.js'})
    const r = joined([lazy], [view(0, {loadingType: 'route_change'}), error(9000, CRASH, {}, 'https://web.test/_build/settings.dddd4444.js')])
    expect(r.rum).toMatchObject({crashedPageLoads: 0, lazyFailures: 1, unexplained: 0})
  })

  it('a crashed page load of the log that RUM saw without any error: unconfirmed; errors of other kinds are no failure', () => {
    const r = joined([failure({at: 120, page: 0, pageLoadId: ++pageLoadIds})], [
      view(0), resource(100, '/_build/index.aaaa1111.js'), error(500, 'TypeError: Failed to fetch'), error(501, 'Script error.'),
    ])
    expect(r.rum).toMatchObject({crashedPageLoads: 0, confirmed: 0, unconfirmed: 1, unexplained: 0, accounts: 0, sessions: 0})
    expect(r.deploys[0]?.rum?.unconfirmed).toBe(1)
  })

  it('a RUM export longer than the logs: views hurt beyond the logs\' span are counted apart, not as unexplained', () => {
    // The logs span T0 - 1 min to T0 + 1 min; the second crash is two hours later.
    const r = joined([failure({at: 120, page: 0, pageLoadId: ++pageLoadIds})], [
      view(0), error(130, CRASH, {}, 'https://web.test/_build/index.aaaa1111.js'),
      view(7_200_000, {view: 'v2', session: 's2', user: 'acct-late'}), error(7_200_100, CRASH, {view: 'v2', session: 's2', user: 'acct-late'}, 'https://web.test/_build/index.aaaa1111.js'),
    ])
    expect(r.rum).toMatchObject({crashedPageLoads: 1, confirmed: 1, unexplained: 0, outsideLogs: 1, accountIds: [], joins: {none: 0}})
  })

  it('a failed lazy load no log failure explains is listed at the time it failed, not its page\'s', () => {
    const r = joined([failure({at: 120, page: 0, pageLoadId: ++pageLoadIds})], [
      view(0), error(130, CRASH, {}, 'https://web.test/_build/index.aaaa1111.js'),
      error(9000, 'TypeError: Failed to fetch dynamically imported module: https://web.test/_build/other.eeee5555.js'),
    ])
    expect(r.rum).toMatchObject({crashedPageLoads: 1, confirmed: 1, lazyFailures: 1, unexplained: 1})
    expect(r.rum?.unexplainedExamples.map((e) => [e.time, e.url])).toEqual([[iso(T0 + 9000), '/_build/other.eeee5555.js']])
  })

  it('a view and a page load further apart than the join window are not joined', () => {
    const r = joined([failure({at: 120, page: 0, pageLoadId: ++pageLoadIds})], [view(61_000), error(61_100, CRASH, {}, 'https://web.test/_build/index.aaaa1111.js')])
    expect(r.rum).toMatchObject({crashedPageLoads: 1, confirmed: 0, unexplained: 1, joins: {none: 1}})
  })

  it('the builds are named by the versions of the pages joined to them', () => {
    const r = joined([failure({at: 120, page: 0, pageLoadId: ++pageLoadIds})], [view(0, {version: 'v2.13.1'}), error(130, CRASH, {version: 'v2.13.1'}, 'https://web.test/_build/index.aaaa1111.js')],
      report({builds: [{id: 'B1', app: 'web', knownBy: 'assets', entry: '/_build/index.aaaa1111.js', shellBytes: 3385, shellLengths: [3385], firstSeen: iso(T0), lastSeen: iso(T0), firstServed: iso(T0), lastServed: iso(T0), shellRequests: 3, versions: []}]}))
    expect(r.builds[0]?.rumVersion).toBe('v2.13.1')
  })
})
