/*
 * Reports for the renderer property tests (test/property/renderers.test.ts), shaped as the tool
 * makes them: the real analysis run over the bad-input corpus's scenario (two apps, two builds,
 * fallback hits, a deploy file) with the text of every logged field an arbitrary string; and, for
 * speed, one such report with its strings swapped for others.
 */
import fc from 'fast-check'
import {Analyzer} from '../../src/analysis/analyzer'
import {joinRum} from '../../src/analysis/rum'
import {DEFAULT_OPTIONS} from '../../src/analysis/options'
import type {AccessEvent} from '../../src/model/access-event'
import type {DeclaredDeploy} from '../../src/model/deploy'
import type {RumEvent} from '../../src/model/rum'
import {type AnalysisReport, type FailureRecord, SCHEMA_VERSION} from '../../src/model/report'
import {SCENARIO} from './bad-input-corpus'
import {hostileString} from './hostile'

/** What an attacker (or a broken log) controls: every free-text field a log or a deploy file carries. */
export interface LoggedText {
  apps: [string, string]
  /** One per browser of the scenario. */
  clients: string[]
  agents: string[]
  /** Put into every asset path (`/_build/<text>A_main.js`) and every route. */
  path: string
  referer: string
  pod: string
  version: string
  service: string
  /** An explicit session key (a cookie), or none (sessions are client and agent). */
  session: string | null
  file: string
  detail: string
  deploy: {service: string; version: string; description: string}
}

const BROWSERS = [...new Set(SCENARIO.map((e) => e.ip))]

export const loggedText: fc.Arbitrary<LoggedText> = fc.record({
  apps: fc.tuple(hostileString, hostileString),
  clients: fc.array(hostileString, {minLength: BROWSERS.length, maxLength: BROWSERS.length}),
  agents: fc.array(hostileString, {minLength: BROWSERS.length, maxLength: BROWSERS.length}),
  path: hostileString, referer: hostileString, pod: hostileString, version: hostileString, service: hostileString,
  session: fc.option(hostileString, {nil: null}), file: hostileString, detail: hostileString,
  deploy: fc.record({service: hostileString, version: hostileString, description: hostileString}),
})

/** Plain text in every field: the report the swaps start from. */
export const PLAIN: LoggedText = {
  apps: ['default-web-8080', 'default-shop-8080'], clients: BROWSERS, agents: BROWSERS.map((_, i) => `Mozilla/5.0 (X11; Linux x86_64) Firefox/12${i}.0`),
  path: 'v1/', referer: 'https://app.example.com/', pod: '10.244.1.3:8080', version: 'v1', service: 'web', session: null,
  file: 'ingress.log', detail: 'the line is not valid JSON', deploy: {service: 'web', version: 'v2', description: 'Deploy web v2'},
}

/**
 * The scenario's requests for both apps, every logged text field from `t`. Agents keep a browser's
 * prefix (an agent of a crawler is no user); request ids differ per app (the same id, path,
 * status, bytes and client under two apps is a copy, see analysis.test.ts).
 */
export function scenarioEvents(t: LoggedText): AccessEvent[] {
  const out: AccessEvent[] = []
  t.apps.forEach((app, a) => SCENARIO.forEach((e, i) => {
    const b = BROWSERS.indexOf(e.ip)
    out.push({
      time: e.t * 1000, resolutionMs: 1000, method: e.method, path: e.path === '/' ? '/' : e.path.replace('/_build/', `/_build/${t.path}`), status: e.status, bytes: e.bytes,
      clientIp: t.clients[b] ?? '', userAgent: `Mozilla/5.0 (X11; Linux x86_64) ${t.agents[b] ?? ''}`, referer: t.referer,
      upstream: `${t.pod}${e.upstream ?? ''}`, upstreamName: app, version: t.version, service: t.service, requestId: `${a}:${e.id}`,
      ...(t.session === null ? {} : {session: `${t.session}${b}`}), location: {file: t.file, line: i + 1},
    })
  }))
  return out.sort((x, y) => x.time - y.time)
}

/** A deploy file's rows: the rollout of the scenario for the first app, and one that matches no app. */
export function declaredDeploys(t: LoggedText): DeclaredDeploy[] {
  const at = (k: number): number => ((SCENARIO[k]?.t ?? 0) * 1000)
  return [
    {start: at(3), end: at(9), source: 'file', app: t.apps[0], service: t.deploy.service, version: t.deploy.version, description: t.deploy.description},
    {start: at(0) - 3_600_000, source: 'file', service: `${t.deploy.service}-other`, description: t.deploy.description},
  ]
}

/** The real analysis of the scenario written with `t`: its report (with the HTML detail) and its flagged requests. */
export function analysedReport(t: LoggedText): {report: AnalysisReport; failures: FailureRecord[]} {
  const failures: FailureRecord[] = []
  const analyzer = new Analyzer({...DEFAULT_OPTIONS, detail: true}, (f) => failures.push(f))
  const events = scenarioEvents(t)
  for (const e of events) analyzer.push(e)
  const outcome = analyzer.finish(declaredDeploys(t))
  const first = analyzer.first === undefined ? null : new Date(analyzer.first).toISOString()
  const last = analyzer.last === undefined ? null : new Date(analyzer.last).toISOString()
  const examples = [
    {reason: 'invalid-json', file: t.file, line: 3, detail: t.detail},
    {reason: 'truncated-input', file: `${t.file}.gz`, line: 12, detail: `input ends early: ${t.detail}`},
  ]
  const report: AnalysisReport = {
    schemaVersion: SCHEMA_VERSION,
    input: {
      records: events.length + 2, used: events.length, skipped: {total: 2, byReason: {'invalid-json': 1, 'truncated-input': 1}, examples},
      first, last, sources: [{file: t.file, format: 'nginx', records: events.length + 1, skipped: 1}, {file: `${t.file}.gz`, format: 'cri/nginx', records: 1, skipped: 1}],
    },
    ...outcome,
  }
  // As a run with RUM gives them: the report with its RUM sections, each flagged request with its page load's RUM view.
  return joinRum(report, failures, {events: rumEvents(t, failures), input: rumInput(t)}, {deployMarginMs: DEFAULT_OPTIONS.deployMarginMs})
}

/**
 * What the browsers of the scenario would have told RUM, in the same hostile text: a view and a
 * crash per failed page load (the account, version and session are logged text), and one failed
 * lazy load no log failure explains, its message naming the hostile path.
 */
function rumEvents(t: LoggedText, failures: readonly FailureRecord[]): RumEvent[] {
  const events: RumEvent[] = []
  const seen = new Set<number>()
  for (const f of failures) {
    if (seen.has(f.pageLoad.id)) continue
    seen.add(f.pageLoad.id)
    const common = {session: `${t.session ?? t.detail}${f.pageLoad.id}`, view: `${t.detail}${f.pageLoad.id}`, clientIp: f.clientIp, userAgent: f.userAgent, user: t.deploy.description, version: t.version, location: {file: t.file, line: events.length + 1}}
    const time = Date.parse(f.pageLoad.time)
    events.push({kind: 'view', time, loadingType: 'initial_load', ...common})
    events.push({kind: 'error', time: time + 50, error: {message: `Uncaught SyntaxError: Unexpected token '<'\n    at ${t.detail}`, url: `https://x${f.path}`, path: f.path}, ...common})
  }
  const last = Date.parse(failures[failures.length - 1]?.time ?? '2026-11-29T14:00:00.000Z')
  events.push({kind: 'error', time: last + 1000, session: t.referer, view: t.pod, user: t.service, version: t.version, location: {file: t.file, line: events.length + 1},
    error: {message: `TypeError: Failed to fetch dynamically imported module: https://x/${t.path}`, path: `/${t.path}`}})
  return events.sort((a, b) => a.time - b.time)
}

function rumInput(t: LoggedText): NonNullable<AnalysisReport['rum']>['input'] {
  return {files: [{file: t.file, records: 3, used: 2, ignored: 0, skipped: 1}], views: 1, resources: 0, errors: 1,
    skipped: {total: 1, byReason: {'invalid-json': 1}, examples: [{reason: 'invalid-json', file: t.file, line: 3, detail: t.detail}]}}
}

/** Keys whose strings the tool makes (times, kinds, ids) or that name a kind of thing: kept by `swapped`. */
const MADE_BY_THE_TOOL = new Set(['start', 'end', 'first', 'last', 'firstSeen', 'lastSeen', 'firstServed', 'lastServed', 'knownBy', 'time', 'firstFailure', 'lastFailure',
  'cause', 'sources', 'source', 'outcome', 'phase', 'asset', 'direction', 'format', 'reason', 'kind', 'bytesCount', 'fix', 'basis', 'inPlace'])
/** Ids the tool numbers (D1, B2, I3): swapped only when asked. */
const IDS = new Set(['id', 'deployId', 'incidentId', 'incidentIds', 'fromBuild', 'toBuild', 'build', 'servingBuild'])

/**
 * A copy of a report or failure list with every free-text string replaced by one of `pool`, the
 * same text always by the same one (so an app, a session or a build named in two places stays one),
 * and the ids too when `ids`. An unmatched deploy's reason is text a person reads: replaced. Object
 * keys stay (byReason's are reasons).
 */
export function swapped<T>(value: T, pool: readonly string[], ids = false): T {
  const seen = new Map<string, string>()
  const swap = (s: string): string => seen.get(s) ?? (seen.set(s, pool[seen.size % pool.length] ?? ''), seen.get(s) as string)
  // `key`: the member a value is (an array's elements are its member's); `owner`: the member its object is.
  const walk = (v: unknown, key: string, owner: string): unknown => {
    if (typeof v === 'string') {
      if (IDS.has(key)) return ids ? swap(v) : v
      if (key === 'reason' && owner === 'unmatchedDeploys') return swap(v)
      return MADE_BY_THE_TOOL.has(key) ? v : swap(v)
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, key, owner))
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k, key)]))
    return v
  }
  return walk(value, '', '') as T
}
