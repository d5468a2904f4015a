import type {
  AffectedUserReport, AnalysisReport, AppReport, BuildEvidenceReport, BuildReport, DeployAdvice, DeployReport, Direction, FailureCause, FailureReason, FailureRecord,
  IncidentReport, PageLoadOutcome, ReportDetails, UnmatchedDeployReport,
} from '../model/report'
import {type AdviceFailure, adviseDeploy} from './advice'
import type {AppState, NonUserTally} from './apps'
import type {AppAttribution, Attributed} from './attribute'
import {type Build, buildId, mainVersion} from './builds'
import type {ResolvedDeploy, Rollout} from './deploys'
import type {Incident} from './incidents'
import type {AnalysisOptions} from './options'
import {pageLoadsInWindow} from './page-load-timeline'
import {type CountedFailure, topFailures} from './top-failures'
import type {PageLoad} from './sessions'
import type {TrafficHistogram} from './traffic'
import {cmp} from '../util/compare'

export type Outcome = Omit<AnalysisReport, 'schemaVersion' | 'input'>

/** One app after attribution: everything the report is made of. */
export interface AppResult {
  state: AppState
  builds: Build[]
  deploys: ResolvedDeploy[]
  attribution: AppAttribution
  incidents: Incident[]
  /** What told its builds apart. */
  evidence: BuildEvidenceReport
}

const iso = (t: number): string => new Date(t).toISOString()
const seconds = (ms: number): number => Math.round(ms) / 1000
const share = (n: number, d: number): number => (d === 0 ? 0 : Math.round((n / d) * 10_000) / 10_000)
const appName = (name: string): string | null => (name === '' ? null : name)

const OUTCOMES: readonly PageLoadOutcome[] = ['crashed', 'lazyChunkFailed', 'unstyled', 'degraded']
export const emptyOutcomes = (): Record<PageLoadOutcome, number> => ({crashed: 0, lazyChunkFailed: 0, unstyled: 0, degraded: 0})
export const emptyDirections = (): Record<Direction, number> => ({oldPageNewPod: 0, newPageOldPod: 0, unknown: 0})
const emptyCauses = (): Record<FailureCause, number> => ({rollout: 0, 'stale-client': 0, unattributed: 0})
const emptyReasons = (): Record<FailureReason, number> => ({fallback: 0, missing: 0, contentType: 0})

/** What one failed request does to its page: a failed script at load crashes it, later breaks a route; a stylesheet unstyles it. */
function outcomeRank(app: AppState, f: Attributed): number {
  const kind = app.failures.kinds[f.index]
  if (kind === 'script') return app.failures.phases[f.index] === 'initial' ? 0 : 1
  return kind === 'stylesheet' ? 2 : 3
}

/** The page loads hit by some failures, each once, with the worst outcome among its failures there. */
class PageLoadOutcomes {
  private readonly ranks = new Map<PageLoad, number>()

  add(app: AppState, f: Attributed): void {
    const pl = app.failures.pageLoads[f.index] as PageLoad
    const rank = outcomeRank(app, f)
    const had = this.ranks.get(pl)
    if (had === undefined || rank < had) this.ranks.set(pl, rank)
  }

  get size(): number {
    return this.ranks.size
  }

  counts(): Record<PageLoadOutcome, number> {
    const out = emptyOutcomes()
    for (const r of this.ranks.values()) out[OUTCOMES[r] as PageLoadOutcome]++
    return out
  }

  times(): number[] {
    return [...this.ranks.keys()].map((pl) => pl.time)
  }

  outcomeOf(pl: PageLoad): PageLoadOutcome | undefined {
    const r = this.ranks.get(pl)
    return r === undefined ? undefined : OUTCOMES[r]
  }

  entries(): [PageLoad, PageLoadOutcome][] {
    return [...this.ranks].map(([pl, r]) => [pl, OUTCOMES[r] as PageLoadOutcome])
  }
}

/** What some failures of one app add up to: page loads and their outcomes, people, directions, causes, reasons, the race. */
class FailureTally {
  readonly pageLoads = new PageLoadOutcomes()
  readonly users = new Set<string>()
  readonly byDirection = emptyDirections()
  readonly byCause = emptyCauses()
  readonly byReason = emptyReasons()
  count = 0
  /** First and last failure of the rollout race among them. */
  raceStart = Number.POSITIVE_INFINITY
  raceEnd = Number.NEGATIVE_INFINITY

  constructor(private readonly app: AppState) {}

  add(f: Attributed): void {
    const store = this.app.failures
    this.pageLoads.add(this.app, f)
    this.users.add(store.sessions[f.index] as string)
    this.byDirection[f.direction]++
    this.byCause[f.cause]++
    this.byReason[store.reasons[f.index] as FailureReason]++
    this.count++
    if (f.cause === 'rollout') {
      if (f.time < this.raceStart) this.raceStart = f.time
      if (f.time > this.raceEnd) this.raceEnd = f.time
    }
  }
}

export interface ReportInput {
  apps: AppResult[]
  unmatched: {rollout: Rollout; reason: string}[]
  traffic: TrafficHistogram | undefined
  /** Crawlers and the probe at apps kept as counts (no shell or asset traffic). */
  countedNonUsers?: {crawlers: NonUserTally; probe: NonUserTally}
  options: AnalysisOptions
  onFailure?: (f: FailureRecord) => void
}

/** The report of the analysis: apps, builds, deploys, incidents, users and what was not people. */
export function buildReport(input: ReportInput): Outcome {
  const {apps, options} = input
  const counted = input.countedNonUsers
  const deploys = apps.flatMap((a) => a.deploys.map((d) => ({d, app: a}))).sort((x, y) => x.d.start - y.d.start || cmpNames(x.app, y.app))
  const deployIds = new Map(deploys.map(({d}, i) => [d, `D${i + 1}`]))
  const incidents = apps.flatMap((a) => a.incidents.map((inc) => ({inc, app: a})))
    .sort((x, y) => x.inc.start - y.inc.start || cmpNames(x.app, y.app) || x.inc.cause.localeCompare(y.inc.cause))
  const incidentIds = new Map(incidents.map(({inc}, i) => [inc, `I${i + 1}`]))
  const incidentOf = new Map<Attributed, Incident>()
  for (const {inc} of incidents) for (const f of inc.failures) incidentOf.set(f, inc)

  const incidentReports: IncidentReport[] = incidents.map(({inc, app}) => {
    const t = new FailureTally(app.state)
    for (const f of inc.failures) t.add(f)
    const byOutcome = t.pageLoads.counts()
    const pageLoads = pageLoadsInWindow(app.state.timeline, inc.start, inc.end, t.pageLoads.times())
    return {
      id: incidentIds.get(inc) as string, app: appName(app.state.name), cause: inc.cause, deployId: inc.deploy ? (deployIds.get(inc.deploy) ?? null) : null,
      start: iso(inc.start), end: iso(inc.end), windowSeconds: seconds(inc.end - inc.start),
      affectedUsers: t.users.size, affectedPageLoads: t.pageLoads.size, byOutcome, brokenPageLoads: byOutcome.crashed,
      pageLoads, brokenShare: share(byOutcome.crashed, pageLoads), failedRequests: t.count, byDirection: t.byDirection, byReason: t.byReason,
      top: topFailures(inc.failures.map((f) => countedFailure(app.state, f.index))),
    }
  })

  const deployReports: DeployReport[] = deploys.map(({d, app}) => {
    const mine = app.incidents.filter((inc) => inc.deploy === d)
    const t = new FailureTally(app.state)
    for (const inc of mine) for (const f of inc.failures) t.add(f)
    const {raceStart, raceEnd} = t
    return {
      id: deployIds.get(d) as string, app: appName(app.state.name), sources: d.sources, start: iso(d.start), end: iso(d.end), windowSeconds: seconds(d.end - d.start),
      fromBuild: buildId(d.from), toBuild: buildId(d.to),
      ...(d.service ? {service: d.service} : {}), ...(d.version ? {version: d.version} : {}), ...(d.description ? {description: d.description} : {}),
      incidentIds: mine.map((inc) => incidentIds.get(inc) as string).sort(byIdNumber), affectedUsers: t.users.size,
      affectedPageLoads: t.pageLoads.size, byOutcome: t.pageLoads.counts(),
      pageLoads: pageLoadsInWindow(app.state.timeline, d.start - options.deployMarginMs, d.end + options.deployMarginMs, t.pageLoads.times()),
      failedRequests: t.count, byCause: t.byCause, byDirection: t.byDirection,
      rolloutWindow: raceStart <= raceEnd ? {start: iso(raceStart), end: iso(raceEnd), seconds: seconds(raceEnd - raceStart)} : null,
    }
  })

  const advice = deploys.flatMap(({d, app}, i) => deployAdvice(app, d, deployReports[i] as DeployReport))

  const buildReports: BuildReport[] = apps.flatMap((a) => a.builds.map((b) => {
    const version = mainVersion(b)
    const known = b.identity
    return {
      id: buildId(b) as string, app: appName(a.state.name), knownBy: known ? 'assets' : 'shell-length',
      entry: known?.entry ?? null,
      shellBytes: b.shellBytes, shellLengths: known ? [...known.shellLengths] : [b.shellBytes],
      // A build is confirmed from shell responses, so it was judged serving one (unless it was a HEAD).
      firstSeen: iso(Number.isFinite(b.firstSeen) ? b.firstSeen : b.aheadFirst), lastSeen: iso(Number.isFinite(b.lastSeen) ? b.lastSeen : b.aheadLast),
      firstServed: iso(Number.isFinite(b.firstServed) ? b.firstServed : b.aheadFirst),
      lastServed: iso(Number.isFinite(b.lastServed) ? b.lastServed : b.aheadLast), shellRequests: b.shellRequests, ...(b.pods.size > 0 ? {pods: b.pods.size, podAddresses: firstPods(b.pods)} : {}),
      ...(version ? {version} : {}), versions: [...b.versions.keys()].sort(),
    }
  }))

  // People: every kept failure, by app and session.
  const all = new PageLoadOutcomes()
  const totalsByCause = emptyCauses()
  interface Person {app: AppResult; session: string; first: number; last: number; failed: number; pls: PageLoadOutcomes; incidents: Set<string>}
  const people = new Map<string, Person>()
  let failedRequests = 0
  for (const a of apps) {
    for (const f of a.attribution.failures) {
      all.add(a.state, f)
      totalsByCause[f.cause]++
      failedRequests++
      const session = a.state.failures.sessions[f.index] as string
      const key = `${a.state.name}\u0000${session}`
      let p = people.get(key)
      if (!p) people.set(key, (p = {app: a, session, first: f.time, last: f.time, failed: 0, pls: new PageLoadOutcomes(), incidents: new Set()}))
      p.last = f.time
      p.failed++
      p.pls.add(a.state, f)
      const inc = incidentOf.get(f)
      if (inc) p.incidents.add(incidentIds.get(inc) as string)
    }
  }
  const affectedUsers: AffectedUserReport[] = [...people.values()]
    .sort((x, y) => y.failed - x.failed || x.first - y.first || cmpNames(x.app, y.app) || cmp(x.session, y.session))
    .map((p) => {
      const who = p.app.state.people.get(p.session)
      return {
        app: appName(p.app.state.name), session: p.session, clientIp: who?.clientIp ?? '', userAgent: who?.userAgent ?? '',
        firstFailure: iso(p.first), lastFailure: iso(p.last), brokenPageLoads: p.pls.counts().crashed, affectedPageLoads: p.pls.size,
        failedRequests: p.failed, incidentIds: [...p.incidents].sort(byIdNumber),
      }
    })

  const appReports: AppReport[] = apps.filter((a) => a.state.pageLoads > 0 || a.attribution.failures.length > 0 || a.builds.length > 0).map((a) => {
    const mine = affectedUsers.filter((u) => u.app === appName(a.state.name))
    const shells = a.state.builds.shellResponses
    // Whether the shell's length is a fingerprint at all: most shell responses come at a recurring length.
    const inBuilds = a.state.builds.confirm().reduce((n, b) => n + b.aheadCount, 0)
    return {
      name: appName(a.state.name), source: a.state.source, requests: a.state.requests, pageLoads: a.state.pageLoads,
      builds: a.builds.length, deploys: a.deploys.length, shellLengthVaries: shells >= 20 && inBuilds < shells / 2,
      affectedUsers: mine.length, brokenPageLoads: mine.reduce((n, u) => n + u.brokenPageLoads, 0), buildEvidence: a.evidence,
    }
  })

  const unmatchedDeploys: UnmatchedDeployReport[] = input.unmatched.map(({rollout: r, reason}) => ({
    sources: r.sources, start: iso(r.start), end: iso(r.end ?? r.start),
    ...(r.service ? {service: r.service} : {}), ...(r.version ? {version: r.version} : {}), ...(r.description ? {description: r.description} : {}), reason,
  }))

  const sum = (f: (a: AppResult) => number): number => apps.reduce((n, a) => n + f(a), 0)
  const byOutcome = all.counts()
  if (input.onFailure) emitFailures(apps, deployIds, incidentOf, incidentIds, input.onFailure)
  return {
    ...(options.detail ? {details: details(apps, input.traffic, incidentOf, incidentIds)} : {}),
    totals: {
      pageLoads: sum((a) => a.state.pageLoads), brokenPageLoads: byOutcome.crashed, affectedPageLoads: all.size, byOutcome,
      affectedUsers: people.size, failedRequests, byCause: totalsByCause,
    },
    apps: appReports, builds: buildReports, deploys: deployReports, unmatchedDeploys, incidents: incidentReports, affectedUsers, advice,
    nonUser: {
      crawlers: {requests: sum((a) => a.state.crawlers.requests) + (counted?.crawlers.requests ?? 0), clients: sum((a) => a.state.crawlers.clientCount) + (counted?.crawlers.clientCount ?? 0), failedRequests: sum((a) => a.state.crawlers.failedRequests)},
      probe: {requests: sum((a) => a.state.probe.requests) + (counted?.probe.requests ?? 0), clients: sum((a) => a.state.probe.clientCount) + (counted?.probe.clientCount ?? 0), failedRequests: sum((a) => a.state.probe.failedRequests)},
      scanners: {requests: sum((a) => a.attribution.scanners.requests), clients: sum((a) => a.attribution.scanners.clients.size), failedRequests: sum((a) => a.attribution.scanners.requests)},
      sourceMaps: {failedRequests: sum((a) => a.state.sourceMapFailures)},
    },
    orphans: {requests: sum((a) => a.attribution.orphans.requests), clients: sum((a) => a.attribution.orphans.clients.size)},
  }
}

/** The advice for one deploy with failures (none for a deploy without). */
function deployAdvice(app: AppResult, d: ResolvedDeploy, r: DeployReport): DeployAdvice[] {
  const store = app.state.failures
  const list: AdviceFailure[] = []
  const minutes: number[] = []
  for (const inc of app.incidents) {
    if (inc.deploy !== d) continue
    for (const f of inc.failures) {
      minutes.push(f.time)
      const pl = store.pageLoads[f.index] as PageLoad
      list.push({
        cause: f.cause, direction: f.direction, reason: store.reasons[f.index] as FailureReason, phase: store.phases[f.index] ?? 'initial',
        asset: store.kinds[f.index] ?? 'other', pageLoad: pl.id, session: store.sessions[f.index] as string, pageAgeMs: Math.max(0, f.time - pl.time),
      })
    }
  }
  if (list.length === 0) return []
  const pods = d.from !== undefined && d.from.pods.size > 0 ? d.from.pods.size : null
  const seen = app.state.sessions.affinity.around(minutes)
  const samePod = seen.assetRequests === 0 ? null : {assetRequests: seen.assetRequests, share: share(seen.samePod, seen.assetRequests)}
  return [{deployId: r.id, app: r.app, ...adviseDeploy(list, {pods, windowSeconds: r.windowSeconds, raceSeconds: r.rolloutWindow?.seconds ?? null, samePod})}]
}

/** A failed request as the top lists count it: its path, status, session and the session's user agent. */
function countedFailure(app: AppState, index: number): CountedFailure {
  const store = app.failures
  const session = store.sessions[index] as string
  return {path: store.paths[index] as string, status: store.statuses[index] as number, session, userAgent: app.people.get(session)?.userAgent ?? ''}
}

/** Pods listed per build at most: a build's replicas, not every pod a long history rotated through. */
const PODS_LISTED = 10

function firstPods(pods: ReadonlySet<string>): string[] {
  return [...pods].sort(cmp).slice(0, PODS_LISTED)
}

function cmpNames(a: AppResult, b: AppResult): number {
  return cmp(a.state.name, b.state.name)
}

function byIdNumber(a: string, b: string): number {
  return Number(a.slice(1)) - Number(b.slice(1))
}

/** Every person's failed request, in time order (then by app), as `--failures` writes them. */
function emitFailures(
  apps: readonly AppResult[], deployIds: ReadonlyMap<ResolvedDeploy, string>, incidentOf: ReadonlyMap<Attributed, Incident>,
  incidentIds: ReadonlyMap<Incident, string>, onFailure: (f: FailureRecord) => void,
): void {
  const all = apps.flatMap((a) => a.attribution.failures.map((f) => ({a, f})))
  all.sort((x, y) => x.f.time - y.f.time || cmpNames(x.a, y.a) || x.f.index - y.f.index)
  for (const {a, f} of all) {
    const s = a.state.failures
    const detail = s.details?.[f.index]
    const pl = s.pageLoads[f.index] as PageLoad
    const session = s.sessions[f.index] as string
    const who = a.state.people.get(session)
    const inc = incidentOf.get(f)
    onFailure({
      time: iso(f.time), app: appName(a.state.name), cause: f.cause, deployId: f.deploy ? (deployIds.get(f.deploy) ?? null) : null,
      incidentId: inc ? (incidentIds.get(inc) as string) : '', reason: s.reasons[f.index] as FailureReason, direction: f.direction,
      asset: s.kinds[f.index] ?? 'other', phase: s.phases[f.index] ?? 'initial',
      method: detail?.method ?? 'GET', path: s.paths[f.index] as string, status: detail?.status ?? 0, bytes: detail?.bytes ?? 0,
      session, clientIp: who?.clientIp ?? '', userAgent: who?.userAgent ?? '', service: detail?.service ?? null,
      pageLoad: {id: pl.id, time: iso(pl.time), path: pl.path, build: buildId(f.pageBuild)},
      servingBuild: buildId(f.serving), ...(detail?.upstream ? {upstream: detail.upstream} : {}), ...(detail?.requestId ? {requestId: detail.requestId} : {}),
      source: {file: detail?.location.file ?? '', line: detail?.location.line ?? 0},
    })
  }
}

function details(apps: readonly AppResult[], traffic: TrafficHistogram | undefined, incidentOf: ReadonlyMap<Attributed, Incident>, incidentIds: ReadonlyMap<Incident, string>): ReportDetails {
  const rows: ReportDetails['brokenPageLoads'] = []
  for (const a of apps) {
    const pls = new PageLoadOutcomes()
    const ids = new Map<PageLoad, Set<string>>()
    for (const f of a.attribution.failures) {
      pls.add(a.state, f)
      const pl = a.state.failures.pageLoads[f.index] as PageLoad
      let set = ids.get(pl)
      if (!set) ids.set(pl, (set = new Set()))
      const inc = incidentOf.get(f)
      if (inc) set.add(incidentIds.get(inc) as string)
    }
    for (const [pl, outcome] of pls.entries()) {
      const who = a.state.people.get(pl.session)
      rows.push({
        id: pl.id, app: appName(a.state.name), session: pl.session, clientIp: who?.clientIp ?? '', userAgent: who?.userAgent ?? '',
        time: iso(pl.time), path: pl.path, build: buildId(pl.build), outcome, incidentIds: [...(ids.get(pl) ?? [])].sort(byIdNumber),
        requests: (pl.requests ?? []).map((r) => ({time: iso(r.time), path: r.path, status: r.status, bytes: r.bytes, build: buildId(r.build), reason: r.reason ?? null, ...(r.pod ? {pod: r.pod} : {})})),
      })
    }
  }
  return {
    bucketSeconds: (traffic?.bucketMs ?? 10_000) / 1000,
    timeline: (traffic?.series() ?? []).map((s) => ({
      app: appName(s.service), buckets: s.buckets.map((b) => ({start: iso(b.start), requests: b.requests, pageLoads: b.pageLoads, failures: b.failures})),
    })),
    brokenPageLoads: rows.sort((x, y) => Date.parse(x.time) - Date.parse(y.time) || x.id - y.id),
  }
}
