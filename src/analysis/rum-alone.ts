import type {DeclaredDeploy} from '../model/deploy'
import {type AnalysisReport, type RumDeployFindings, SCHEMA_VERSION} from '../model/report'
import {fuseRollouts} from './deploys'
import {type Found, findings, type RumInput, viewsOf, type View} from './rum'

/**
 * RUM without access logs (`analyze --rum FILE` alone): the browsers' crashes, failed lazy loads,
 * accounts and versions, per deploy. The deploys are the records given (fused as the log analysis
 * fuses them), else the version changes RUM saw: per service, each version from the first page
 * that carried it, replacing the one before until that one's last page. A failure in a deploy's
 * window (with the margin) is the deploy's; a page of the version a deploy retired that fails after
 * it is a stale tab of that deploy. Nothing is confirmed or unexplained: there is no log to hold it
 * against. Pure: the events, the records and the margin come in.
 */
export function rumOnlyReport(rum: RumInput, declared: readonly DeclaredDeploy[], options: {deployMarginMs: number}): AnalysisReport {
  const views = viewsOf(rum.events)
  const deploys: RumDeploy[] = (declared.length > 0 ? declaredDeploys(declared, views) : inferredDeploys(views))
    .sort((a, b) => a.start - b.start || cmp(a.service ?? '', b.service ?? '')).map((d, i) => ({...d, id: `D${i + 1}`}))
  const found: Found[] = []
  for (const v of views) {
    // No log to explain a failure against: none is counted as unexplained.
    if (v.crash) found.push({view: v, kind: 'crash', time: v.crash.time, explained: true, confirmed: false, deployId: deployOf(deploys, v, v.time, options.deployMarginMs), incidentId: null, message: v.crash.message, path: v.crash.path})
    for (const l of v.lazy.values()) found.push({view: v, kind: 'lazy', time: l.time, explained: true, confirmed: false, deployId: deployOf(deploys, v, l.time, options.deployMarginMs), incidentId: null, message: l.message, path: l.path})
  }
  const times = rum.events.map((e) => e.time)
  const iso = (t: number): string => new Date(t).toISOString()
  const rumDeploys: RumDeployFindings[] = deploys.map((d) => ({
    id: d.id, service: d.service, sources: d.sources, start: iso(d.start), end: iso(d.end), fromVersion: d.fromVersion, toVersion: d.toVersion,
    ...findings(found.filter((f) => f.deployId === d.id), 0, null),
  }))
  const zero = {requests: 0, clients: 0, failedRequests: 0}
  return {
    schemaVersion: SCHEMA_VERSION,
    input: {records: 0, used: 0, skipped: {total: 0, byReason: {}, examples: []}, first: times.length > 0 ? iso(Math.min(...times)) : null, last: times.length > 0 ? iso(Math.max(...times)) : null, sources: []},
    totals: {pageLoads: 0, brokenPageLoads: 0, affectedPageLoads: 0, byOutcome: {crashed: 0, lazyChunkFailed: 0, unstyled: 0, degraded: 0}, affectedUsers: 0, failedRequests: 0, byCause: {rollout: 0, 'stale-client': 0, unattributed: 0}},
    apps: [], builds: [], deploys: [], unmatchedDeploys: [], incidents: [], affectedUsers: [],
    nonUser: {crawlers: zero, probe: zero, scanners: zero, sourceMaps: {failedRequests: 0}}, orphans: {requests: 0, clients: 0}, advice: [],
    rum: {...findings(found, 0, null), input: rum.input, joins: {addressAndAsset: 0, asset: 0, address: 0, none: 0}, unexplainedExamples: [], withoutLogs: true, deploys: rumDeploys},
  }
}

/** A deploy of RUM alone: numbered D1, D2, … in time order once all are known. */
interface RumDeploy {
  id: string
  service: string | null
  sources: RumDeployFindings['sources']
  start: number
  end: number
  fromVersion: string | null
  toVersion: string | null
}

/** The deploy records, fused into rollouts; each version they do not name, from the pages RUM saw before and after. */
function declaredDeploys(declared: readonly DeclaredDeploy[], views: readonly View[]): Omit<RumDeploy, 'id'>[] {
  const services = [...new Set(views.map((v) => v.service ?? null))]
  return fuseRollouts(declared).map((r) => {
    const named = (r.app ?? r.service ?? r.deployment)?.toLowerCase()
    // The RUM service the record names; the only one there is when it names none RUM knows.
    const service = services.find((s) => s !== null && s.toLowerCase() === named) ?? (services.length === 1 ? (services[0] as string | null) : (r.service ?? null))
    const end = r.end ?? r.start
    const own = views.filter((v) => (v.service ?? null) === service && v.version !== undefined)
    // A record's version counts when the pages carried it (a Kubernetes event names a ReplicaSet, not the app's version).
    const known = new Set(own.map((v) => v.version))
    const before = own.filter((v) => v.time < r.start).pop()?.version ?? null
    const to = r.version !== undefined && known.has(r.version) ? r.version : (own.find((v) => v.time > end && v.version !== before)?.version ?? null)
    const from = r.fromVersion !== undefined && known.has(r.fromVersion) ? r.fromVersion : before
    return {service, sources: r.sources, start: r.start, end, fromVersion: from, toVersion: to}
  })
}

/** Per service, a deploy per version after the first: from its first page to the last page of the one before (never past the next version's first). */
function inferredDeploys(views: readonly View[]): Omit<RumDeploy, 'id'>[] {
  const byService = new Map<string | null, Map<string, {first: number; last: number}>>()
  for (const v of views) {
    if (v.version === undefined || !v.initial) continue
    const service = v.service ?? null
    const versions = byService.get(service) ?? new Map<string, {first: number; last: number}>()
    byService.set(service, versions)
    const seen = versions.get(v.version)
    if (seen) seen.last = Math.max(seen.last, v.time)
    else versions.set(v.version, {first: v.time, last: v.time})
  }
  const out: Omit<RumDeploy, 'id'>[] = []
  for (const [service, versions] of byService) {
    const ordered = [...versions].sort((a, b) => a[1].first - b[1].first)
    for (let i = 1; i < ordered.length; i++) {
      const [from, was] = ordered[i - 1] as [string, {first: number; last: number}]
      const [to, is] = ordered[i] as [string, {first: number; last: number}]
      const next = ordered[i + 1]?.[1].first ?? Infinity
      out.push({service, sources: ['inferred'], start: is.first, end: Math.max(is.first, Math.min(was.last, next)), fromVersion: from, toVersion: to})
    }
  }
  return out
}

/**
 * The deploy a failure of a page at `time` belongs to. The page's version says which deploys it can
 * be of (the one that replaced it: an old page, or a stale tab; the one that brought it: a new page
 * meeting an old pod); of those, the one whose window holds the time, else the nearest. A page of no
 * known version: the deploy whose window (with the margin) holds the time, the nearest start first.
 */
function deployOf(deploys: readonly RumDeploy[], v: View, time: number, marginMs: number): string | null {
  const service = v.service ?? null
  const own = deploys.filter((d) => d.service === null || service === null || d.service === service)
  const mine = v.version === undefined ? [] : own.filter((d) => d.fromVersion === v.version || d.toVersion === v.version)
  const distance = (d: RumDeploy): number => (time < d.start ? d.start - time : time > d.end ? time - d.end : 0)
  if (mine.length > 0) return ([...mine].sort((a, b) => distance(a) - distance(b) || a.start - b.start)[0] as RumDeploy).id
  const near = own.filter((d) => time >= d.start - marginMs && time <= d.end + marginMs).sort((a, b) => Math.abs(time - a.start) - Math.abs(time - b.start))
  return near[0]?.id ?? null
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
