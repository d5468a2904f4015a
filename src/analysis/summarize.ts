import type {DeclaredDeploy} from '../model/deploy'
import type {AffectedUserReport, AnalysisReport, BuildReport, DeployReport, IncidentKind, IncidentReport, ReportDetails} from '../model/report'
import type {AffectedSession, Analyzer} from './analyzer'
import {buildId, mainVersion} from './builds'
import {inferDeploys, resolveDeclared, type ResolvedDeploy} from './deploys'
import {emptyDirections, type IncidentAccumulator, incidentId, pageLoadsInWindow} from './incidents'
import type {AnalysisOptions} from './options'
import type {PageLoad} from './sessions'

export type Outcome = Omit<AnalysisReport, 'schemaVersion' | 'input'>

const iso = (t: number): string => new Date(t).toISOString()
const seconds = (ms: number): number => Math.round(ms) / 1000
const share = (n: number, d: number): number => (d === 0 ? 0 : Math.round((n / d) * 10_000) / 10_000)

/** Turns the analyzer's state into the report: deploys resolved, incidents classified. */
export function summarize(a: Analyzer, declared: readonly DeclaredDeploy[], options: AnalysisOptions): Outcome {
  const builds = a.builds.seen()
  const deploys = (declared.length > 0 ? resolveDeclared(declared, builds, options.deployMarginMs) : inferDeploys(builds))
    .sort((x, y) => x.start - y.start)
  const incidents = a.clusterer.incidents
  const kinds = incidents.map((inc) => classify(inc, deploys, options.deployMarginMs))

  const incidentReports: IncidentReport[] = incidents.map((inc, i) => {
    const {kind, deploy} = kinds[i] ?? {kind: 'unattributed' as const, deploy: undefined}
    const pageLoads = pageLoadsInWindow(a.timeline, inc.service, inc.start, inc.end, inc.pageLoads.times)
    return {
      id: incidentId(inc), kind, deployId: deploy ? deployId(deploys, deploy) : null, service: inc.service || null,
      start: iso(inc.start), end: iso(inc.end), windowSeconds: seconds(inc.end - inc.start),
      affectedUsers: inc.users.length, affectedPageLoads: inc.pageLoads.size, pageLoads,
      brokenShare: share(inc.pageLoads.size, pageLoads), failedRequests: inc.failedRequests,
      byDirection: {...inc.byDirection}, byReason: {...inc.byReason},
    }
  })

  const deployReports: DeployReport[] = deploys.map((d, di) => {
    const mine = incidents.filter((_, i) => kinds[i]?.deploy === d)
    const users = new Set<AffectedSession>()
    // The deploy's broken page loads (one may break in several of its incidents): their start times by id.
    const pageLoads = new Map<number, number>()
    const byDirection = emptyDirections()
    let failedRequests = 0
    for (const inc of mine) {
      for (const u of inc.users) users.add(u)
      const {ids, times} = inc.pageLoads
      for (let i = 0; i < ids.length; i++) pageLoads.set(ids[i] as number, times[i] as number)
      for (const k of Object.keys(byDirection) as (keyof typeof byDirection)[]) byDirection[k] += inc.byDirection[k]
      failedRequests += inc.failedRequests
    }
    const service = d.service
    return {
      id: `D${di + 1}`, source: d.source, start: iso(d.start), end: iso(d.end), windowSeconds: seconds(d.end - d.start),
      fromBuild: buildId(d.from), toBuild: buildId(d.to),
      ...(service ? {service} : {}), ...(d.version ? {version: d.version} : {}), ...(d.description ? {description: d.description} : {}),
      incidentIds: mine.map(incidentId), affectedUsers: users.size, affectedPageLoads: pageLoads.size,
      pageLoads: pageLoadsInWindow(a.timeline, undefined, d.start - options.deployMarginMs, d.end + options.deployMarginMs, pageLoads.values()),
      failedRequests, byDirection,
    }
  })

  const buildReports: BuildReport[] = builds.map((b) => {
    const version = mainVersion(b)
    return {
      id: buildId(b) ?? '', shellBytes: b.shellBytes, firstSeen: iso(b.firstSeen), lastSeen: iso(b.lastSeen),
      shellRequests: b.shellRequests, ...(b.pods.size > 0 ? {pods: b.pods.size} : {}), ...(version ? {version} : {}),
    }
  })

  const affectedUsers: AffectedUserReport[] = [...a.affected.values()]
    .sort((x, y) => y.failedRequests - x.failedRequests || x.firstFailure - y.firstFailure || (x.key < y.key ? -1 : 1))
    .map((u) => ({
      session: u.key, clientIp: u.clientIp, userAgent: u.userAgent, firstFailure: iso(u.firstFailure),
      lastFailure: iso(u.lastFailure), brokenPageLoads: u.brokenPageLoads, failedRequests: u.failedRequests,
      incidentIds: [...u.incidents].sort((x, y) => x - y).map((i) => `I${i + 1}`),
    }))

  return {
    ...(options.detail ? {details: details(a, incidents)} : {}),
    totals: {pageLoads: a.pageLoads, brokenPageLoads: a.brokenPageLoads, affectedUsers: a.affected.size, failedRequests: a.failedRequests},
    builds: buildReports, deploys: deployReports, incidents: incidentReports, affectedUsers,
    orphans: {requests: a.orphanRequests, clients: a.orphanClients.size},
  }
}

function details(a: Analyzer, incidents: readonly IncidentAccumulator[]): ReportDetails {
  const pageLoads = new Map<PageLoad, Set<number>>()
  for (const inc of incidents) {
    for (const pl of inc.pageLoads.kept ?? []) {
      let ids = pageLoads.get(pl)
      if (!ids) pageLoads.set(pl, (ids = new Set()))
      ids.add(inc.index)
    }
  }
  return {
    bucketSeconds: a.traffic.bucketMs / 1000,
    timeline: a.traffic.series().map((s) => ({
      service: s.service || null, buckets: s.buckets.map((b) => ({start: iso(b.start), requests: b.requests, pageLoads: b.pageLoads, failures: b.failures})),
    })),
    brokenPageLoads: [...pageLoads].sort(([x], [y]) => x.time - y.time || x.id - y.id).map(([pl, ids]) => {
      const user = a.affected.get(pl.session)
      return {
        id: pl.id, session: pl.session, clientIp: user?.clientIp ?? '', userAgent: user?.userAgent ?? '', time: iso(pl.time), path: pl.path,
        build: buildId(pl.build), incidentIds: [...ids].sort((x, y) => x - y).map((i) => `I${i + 1}`),
        requests: (pl.requests ?? []).map((r) => ({time: iso(r.time), path: r.path, status: r.status, bytes: r.bytes, build: buildId(r.build), reason: r.reason ?? null})),
      }
    }),
  }
}

function deployId(deploys: readonly ResolvedDeploy[], d: ResolvedDeploy): string {
  return `D${deploys.indexOf(d) + 1}`
}

const sameService = (d: ResolvedDeploy, service: string): boolean => !d.service || !service || d.service === service

/**
 * rollout: the incident overlaps a deploy window (with margin). stale-client: it comes after a
 * deploy ended and every failing page was of a build no longer served (old tabs loading lazy
 * chunks). Anything else is unattributed.
 */
function classify(inc: IncidentAccumulator, deploys: readonly ResolvedDeploy[], marginMs: number): {kind: IncidentKind; deploy: ResolvedDeploy | undefined} {
  const candidates = deploys.filter((d) => sameService(d, inc.service))
  const overlapping = candidates.find((d) => inc.start <= d.end + marginMs && inc.end >= d.start - marginMs)
  if (overlapping) return {kind: 'rollout', deploy: overlapping}
  const before = candidates.filter((d) => d.end + marginMs < inc.start).at(-1)
  const pageBuilds = inc.pageLoads.builds
  const retired = pageBuilds.length > 0 && pageBuilds.every((b) => b !== undefined && b.lastSeen < inc.start)
  if (before && retired) return {kind: 'stale-client', deploy: before}
  return {kind: 'unattributed', deploy: undefined}
}
