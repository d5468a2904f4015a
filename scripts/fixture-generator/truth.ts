/**
 * What really happened, accumulated request by request from the simulation (never from the logs):
 * which page loads broke, which bots hit fallbacks, which builds were served when. `finish()` then
 * applies the definitions (incidents, kinds, directions) to the written timestamps.
 */
import type {Cluster} from './cluster'
import {isAssetPath} from './paths'
import type {
  Direction,
  FailureReason,
  SimParams,
  SimRequest,
  Truth,
  TruthBuild,
  TruthDeploy,
  TruthFailure,
  TruthIncident,
  TruthPod,
  TruthUser,
} from './types'

interface RawFailure {
  seq: number
  time: number
  requestId: string
  clientIp: string
  userAgent: string
  browserId: number
  pageLoadId: number
  path: string
  status: number
  bytes: number
  reason: FailureReason
  pageBuild: string
  servingBuild: string
}

interface PageLoadRecord {
  id: number
  time: number
  build: string
}

interface Seen {
  firstSeq: number
  first: number
  last: number
}

export const iso = (ms: number): string => new Date(ms).toISOString()

export class TruthCollector {
  private requests = 0
  private firstTime: number | undefined
  private lastTime: number | undefined
  /** Shells served to non-asset GETs, per build key. */
  private readonly shellSeen = new Map<string, Seen>()
  /** Any shell response (including fallbacks), per build key: the numbering tie-breaker. */
  private readonly anyShellSeq = new Map<string, number>()
  private readonly pageLoads: PageLoadRecord[] = []
  private readonly failures: RawFailure[] = []
  private orphanRequests = 0
  private readonly orphanClients = new Set<string>()

  constructor(
    private readonly params: SimParams,
    private readonly cluster: Cluster,
  ) {}

  onRequest(r: SimRequest): void {
    this.requests++
    this.firstTime ??= r.time
    this.lastTime = r.time
    const asset = isAssetPath(r.path)
    if (r.response === 'shell') {
      if (!this.anyShellSeq.has(r.servingBuild)) this.anyShellSeq.set(r.servingBuild, r.seq)
      if (!asset && r.method === 'GET') {
        const s = this.shellSeen.get(r.servingBuild)
        if (s) s.last = r.time
        else this.shellSeen.set(r.servingBuild, {firstSeq: r.seq, first: r.time, last: r.time})
      }
    }
    if (r.role === 'page') {
      if (r.pageLoadId === undefined) throw new Error('page request without a page load')
      this.pageLoads.push({id: r.pageLoadId, time: r.time, build: r.servingBuild})
    }
    if (!asset) return
    let reason: FailureReason | undefined
    if (r.response === 'shell') reason = 'fallback'
    else if (r.status === 404 || r.status === 410) reason = 'missing'
    if (!reason) return
    if (r.actor === 'browser') {
      if (r.browserId === undefined || r.pageLoadId === undefined || r.pageBuild === undefined) {
        throw new Error(`browser asset request ${r.requestId} without a page load`)
      }
      this.failures.push({
        seq: r.seq,
        time: r.time,
        requestId: r.requestId,
        clientIp: r.clientIp,
        userAgent: r.userAgent,
        browserId: r.browserId,
        pageLoadId: r.pageLoadId,
        path: r.path,
        status: r.status,
        bytes: r.bytes,
        reason,
        pageBuild: r.pageBuild,
        servingBuild: r.servingBuild,
      })
    } else {
      this.orphanRequests++
      this.orphanClients.add(`${r.clientIp}\t${r.userAgent}`)
    }
  }

  finish(): Truth {
    const {params, cluster} = this
    const service = params.service
    const gapMs = params.incidentGapSeconds * 1000
    const marginMs = params.deployMarginSeconds * 1000

    // Builds: numbered in order of their first shell response (to a page request; any shell as a fallback).
    const shellFirst = new Map<string, number>()
    for (const b of cluster.builds) {
      const s = this.shellSeen.get(b.key)?.firstSeq ?? this.anyShellSeq.get(b.key)
      if (s !== undefined) shellFirst.set(b.key, s)
    }
    const rank = (key: string): number => shellFirst.get(key) ?? Number.MAX_SAFE_INTEGER
    const index = new Map(cluster.builds.map((b, i) => [b.key, i]))
    const order = [...cluster.builds].sort(
      (a, b) => rank(a.key) - rank(b.key) || (index.get(a.key) as number) - (index.get(b.key) as number),
    )
    const rankOf = new Map<string, number>()
    const idOf = new Map<string, string>()
    order.forEach((b, i) => {
      rankOf.set(b.key, i)
      idOf.set(b.key, `B${i + 1}`)
    })
    const bid = (key: string): string => idOf.get(key) as string
    const builds: TruthBuild[] = order.map((b) => {
      const s = this.shellSeen.get(b.key)
      return {
        id: bid(b.key),
        key: b.key,
        version: b.version,
        replicaSet: b.replicaSet,
        shellBytes: b.shellBytes,
        firstSeen: s ? iso(s.first) : null,
        lastSeen: s ? iso(s.last) : null,
      }
    })
    const byKey = new Map(cluster.builds.map((b) => [b.key, b]))
    const deploys: TruthDeploy[] = cluster.deploys.map((d, i) => {
      const from = byKey.get(d.fromBuild)
      const to = byKey.get(d.toBuild)
      if (!from || !to) throw new Error('deploy of an unknown build')
      return {
        id: `D${i + 1}`,
        service,
        start: iso(d.start),
        end: iso(d.end),
        fromBuild: bid(d.fromBuild),
        toBuild: bid(d.toBuild),
        version: to.version,
        fromVersion: from.version,
        fromReplicaSet: from.replicaSet,
        toReplicaSet: to.replicaSet,
      }
    })
    const pods: TruthPod[] = cluster.pods.map((p) => ({
      name: p.name,
      ip: p.ip,
      build: bid(p.build),
      start: Number.isFinite(p.start) ? iso(p.start) : null,
      stop: Number.isFinite(p.stop) ? iso(p.stop) : null,
    }))

    const direction = (page: string, serving: string): Direction => {
      const a = rankOf.get(page) as number
      const b = rankOf.get(serving) as number
      if (a < b) return 'oldPageNewPod'
      if (a > b) return 'newPageOldPod'
      return 'unknown'
    }

    // Incidents: failures in time order, split where the gap exceeds incidentGap.
    const groups: RawFailure[][] = []
    for (const f of this.failures) {
      const g = groups[groups.length - 1]
      const prev = g?.[g.length - 1]
      if (g && prev && f.time - prev.time <= gapMs) g.push(f)
      else groups.push([f])
    }
    const shellTimes = this.pageLoads.map((p) => p.time)
    const pageLoadTime = new Map(this.pageLoads.map((p) => [p.id, p.time]))
    const incidentOf = new Map<number, string>()
    const incidents: TruthIncident[] = groups.map((g, i) => {
      const id = `I${i + 1}`
      const start = (g[0] as RawFailure).time
      const end = (g[g.length - 1] as RawFailure).time
      const users = new Set(g.map((f) => f.browserId))
      const broken = new Set(g.map((f) => f.pageLoadId))
      const byDirection: Record<Direction, number> = {oldPageNewPod: 0, newPageOldPod: 0, unknown: 0}
      const byReason = {fallback: 0, missing: 0, contentType: 0}
      for (const f of g) {
        incidentOf.set(f.seq, id)
        byDirection[direction(f.pageBuild, f.servingBuild)]++
        byReason[f.reason]++
      }
      let pageLoads = upperBound(shellTimes, end) - lowerBound(shellTimes, start)
      for (const pl of broken) {
        const t = pageLoadTime.get(pl) as number
        if (t < start || t > end) pageLoads++
      }
      let kind: TruthIncident['kind'] = 'unattributed'
      let deployId: string | null = null
      const overlapping = cluster.deploys.findIndex((d) => start <= d.end + marginMs && end >= d.start - marginMs)
      if (overlapping >= 0) {
        kind = 'rollout'
        deployId = `D${overlapping + 1}`
      } else {
        let latest = -1
        cluster.deploys.forEach((d, j) => {
          if (d.end < start) latest = j
        })
        const pageBuilds = new Set(g.map((f) => f.pageBuild))
        const allGone = [...pageBuilds].every((b) => {
          const s = this.shellSeen.get(b)
          return s !== undefined && s.last < start
        })
        if (latest >= 0 && allGone) {
          kind = 'stale-client'
          deployId = `D${latest + 1}`
        }
      }
      return {
        id,
        service,
        start: iso(start),
        end: iso(end),
        windowSeconds: (end - start) / 1000,
        affectedUsers: users.size,
        affectedPageLoads: broken.size,
        failedRequests: g.length,
        byDirection,
        byReason,
        pageLoads,
        brokenShare: Math.round((broken.size / pageLoads) * 10000) / 10000,
        kind,
        deployId,
      }
    })

    const failures: TruthFailure[] = this.failures.map((f) => ({
      time: iso(f.time),
      requestId: f.requestId,
      service,
      clientIp: f.clientIp,
      userAgent: f.userAgent,
      path: f.path,
      status: f.status,
      bytes: f.bytes,
      reason: f.reason,
      direction: direction(f.pageBuild, f.servingBuild),
      pageBuild: bid(f.pageBuild),
      servingBuild: bid(f.servingBuild),
      pageLoadId: f.pageLoadId,
      incidentId: incidentOf.get(f.seq) as string,
    }))

    const users = new Map<number, {f: RawFailure[]}>()
    for (const f of this.failures) {
      const u = users.get(f.browserId)
      if (u) u.f.push(f)
      else users.set(f.browserId, {f: [f]})
    }
    // Map order is insertion order: users come out sorted by their first failure.
    const affectedUsers: TruthUser[] = [...users.values()].map(({f}) => {
      const first = f[0] as RawFailure
      const last = f[f.length - 1] as RawFailure
      return {
        clientIp: first.clientIp,
        userAgent: first.userAgent,
        firstFailure: iso(first.time),
        lastFailure: iso(last.time),
        brokenPageLoads: new Set(f.map((x) => x.pageLoadId)).size,
        failedRequests: f.length,
        incidentIds: [...new Set(f.map((x) => incidentOf.get(x.seq) as string))].sort(
          (a, b) => Number(a.slice(1)) - Number(b.slice(1)),
        ),
      }
    })

    return {
      schemaVersion: 1,
      params,
      service,
      timeRange:
        this.firstTime === undefined || this.lastTime === undefined
          ? null
          : {start: iso(this.firstTime), end: iso(this.lastTime)},
      requestsTotal: this.requests,
      pageLoadsTotal: this.pageLoads.length,
      brokenPageLoadsTotal: new Set(this.failures.map((f) => f.pageLoadId)).size,
      failedRequestsTotal: this.failures.length,
      builds,
      deploys,
      pods,
      incidents,
      affectedUsers,
      orphans: {requests: this.orphanRequests, clients: this.orphanClients.size},
      failures,
    }
  }
}

function lowerBound(a: number[], x: number): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if ((a[mid] as number) < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

function upperBound(a: number[], x: number): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if ((a[mid] as number) <= x) lo = mid + 1
    else hi = mid
  }
  return lo
}
