/**
 * What really happened, accumulated request by request from the simulation (never from the logs):
 * which pod and build answered, which shell each page load got, who sent what. `finish()` applies the
 * product's definitions (design.md, the report contract of schemaVersion 3) to it: people versus
 * crawlers, the probe and scanners; page loads and their phases; each failure's cause (from which
 * pods were live), deploy, direction and page-load outcome; incidents, deploys, users and totals.
 *
 * Times are the written ones (floored to the second with resolution `s`); whether a pod of a build
 * was live is decided at the request's exact time.
 */
import {isbot} from 'isbot'
import type {Cluster} from './cluster'
import {assetKind, directoryOf, isAssetPath, isDocumentPath, isShellPath, isSourceMap} from './paths'
import type {
  AssetKind,
  Direction,
  FailureCause,
  FailureReason,
  LoadPhase,
  PageLoadOutcome,
  SimParams,
  SimRequest,
  Truth,
  TruthApp,
  TruthBuild,
  TruthPodChange,
  TruthDeploy,
  TruthFailure,
  TruthIncident,
  TruthNonUserCounts,
  TruthPod,
  TruthUser,
} from './types'

/** A page load's request this long after its previous one is a lazy load (the product's default `--lazy-gap`). */
export const LAZY_GAP_MS = 3000
export const PROBE_AGENT = 'skewscan-probe/'

export const iso = (ms: number): string => new Date(ms).toISOString()

/** Who sent a request by its user agent, as the product tells: a person (undefined), a crawler or bot (isbot), or skewscan's probe. */
export function agentKind(userAgent: string): 'crawler' | 'probe' | undefined {
  if (userAgent.startsWith(PROBE_AGENT)) return 'probe'
  return userAgent !== '' && isbot(userAgent) ? 'crawler' : undefined
}

const OUTCOMES: readonly PageLoadOutcome[] = ['crashed', 'lazyChunkFailed', 'unstyled', 'degraded']
const emptyOutcomes = (): Record<PageLoadOutcome, number> => ({crashed: 0, lazyChunkFailed: 0, unstyled: 0, degraded: 0})
const emptyDirections = (): Record<Direction, number> => ({oldPageNewPod: 0, newPageOldPod: 0, unknown: 0})
const emptyCauses = (): Record<FailureCause, number> => ({rollout: 0, 'stale-client': 0, unattributed: 0})
const emptyReasons = (): Record<FailureReason, number> => ({fallback: 0, missing: 0, contentType: 0})
const seconds = (ms: number): number => Math.round(ms) / 1000
const share = (n: number, d: number): number => (d === 0 ? 0 : Math.round((n / d) * 10_000) / 10_000)
const byIdNumber = (a: string, b: string): number => Number(a.slice(1)) - Number(b.slice(1))
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** What the logs can show of one build: its shells, the pods that served them, the last responses. */
interface Evidence {
  shellPathResponses: number
  firstShellPath: number | undefined
  docFirst: number | undefined
  docLast: number | undefined
  docShells: number
  pods: Set<string>
  lastPodResponse: number | undefined
  lastShell: number | undefined
}

interface PageLoadRecord {
  id: number
  time: number
  build: string
  session: string
  /** Its last request so far (the shell, then its asset requests). */
  last: number
  lazy: boolean
}

interface RawFailure {
  r: SimRequest
  pageLoad: PageLoadRecord
  reason: FailureReason
  phase: LoadPhase
  asset: AssetKind
}

class Tally {
  requests = 0
  failedRequests = 0
  readonly clients = new Set<string>()
}

/** Everything kept per app while the requests stream by. */
class AppAccumulator {
  requests = 0
  readonly evidence = new Map<string, Evidence>()
  readonly pageLoads = new Map<number, PageLoadRecord>()
  readonly pageLoadTimes: number[] = []
  /** Asset paths answered with real content, and their directories. */
  readonly served = new Set<string>()
  readonly servedDirs = new Set<string>()
  readonly failures: RawFailure[] = []
  readonly noPageLoad: {path: string; session: string}[] = []
  readonly crawlers = new Tally()
  readonly probe = new Tally()
  readonly buildAssets = new Set<string>()

  constructor(readonly cluster: Cluster) {
    for (const b of cluster.builds) for (const a of [b.main, b.vendor, b.css, b.font, ...Object.values(b.chunks)]) this.buildAssets.add(a.path)
  }

  evidenceOf(build: string): Evidence {
    let e = this.evidence.get(build)
    if (!e) {
      e = {shellPathResponses: 0, firstShellPath: undefined, docFirst: undefined, docLast: undefined, docShells: 0, pods: new Set(), lastPodResponse: undefined, lastShell: undefined}
      this.evidence.set(build, e)
    }
    return e
  }

  /** A path some build served as real content, or a content-hashed file of a build in a directory with served assets. */
  known(path: string): boolean {
    return this.served.has(path) || (this.buildAssets.has(path) && this.servedDirs.has(directoryOf(path)))
  }
}

interface Attributed {
  f: RawFailure
  app: AppAccumulator
  cause: FailureCause
  deploy: number | undefined
  direction: Direction
  rank: number
}

export class TruthCollector {
  private requests = 0
  private firstTime: number | undefined
  private lastTime: number | undefined
  private readonly apps = new Map<string, AppAccumulator>()
  private readonly agents = new Map<string, 'crawler' | 'probe' | undefined>()
  private sourceMapFailures = 0

  constructor(
    private readonly params: SimParams,
    private readonly clusters: Cluster[],
  ) {
    for (const c of clusters) this.apps.set(c.app.service, new AppAccumulator(c))
  }

  private agent(userAgent: string): 'crawler' | 'probe' | undefined {
    if (!this.agents.has(userAgent)) this.agents.set(userAgent, agentKind(userAgent))
    return this.agents.get(userAgent)
  }

  onRequest(r: SimRequest): void {
    this.requests++
    this.firstTime ??= r.time
    this.lastTime = r.time
    const app = this.apps.get(r.app) as AppAccumulator
    app.requests++
    const time = r.time
    const session = `${r.clientIp} ${r.userAgent}`
    const kind = this.agent(r.userAgent)
    const tally = kind === 'crawler' ? app.crawlers : kind === 'probe' ? app.probe : undefined
    if (tally) {
      tally.requests++
      tally.clients.add(session)
    }
    const ev = app.evidenceOf(r.servingBuild)
    ev.lastPodResponse = time
    const asset = isAssetPath(r.path)
    const doc = !asset && isDocumentPath(r.path)
    const ok = r.status >= 200 && r.status < 300
    if (r.response === 'shell' && ok && r.bytes > 0) {
      if (isShellPath(r.path) && !asset) {
        ev.shellPathResponses++
        ev.firstShellPath ??= time
      }
      if (doc) {
        ev.docFirst ??= time
        ev.docLast = time
        ev.docShells++
        ev.pods.add(r.upstream)
      }
      if (doc || asset) ev.lastShell = time
    }
    if (r.role === 'page' && r.actor === 'browser' && kind === undefined) {
      if (r.pageLoadId === undefined) throw new Error('page request without a page load')
      app.pageLoads.set(r.pageLoadId, {id: r.pageLoadId, time, build: r.servingBuild, session, last: time, lazy: false})
      app.pageLoadTimes.push(time)
    }
    if (!asset) return
    if (r.response === 'asset' && ok) {
      app.served.add(r.path)
      app.servedDirs.add(directoryOf(r.path))
    }
    // The page's requests (its asset requests, not DevTools' source maps): more than the lazy gap after the previous one, the initial load is over.
    const pl = r.pageLoadId !== undefined && r.role !== 'map' && kind === undefined ? app.pageLoads.get(r.pageLoadId) : undefined
    if (pl) {
      if (time - pl.last > LAZY_GAP_MS) pl.lazy = true
      if (time > pl.last) pl.last = time
    }
    const reason: FailureReason | undefined =
      r.response === 'shell' && ok ? 'fallback' : r.status === 404 || r.status === 410 ? 'missing' : undefined
    if (!reason) return
    if (isSourceMap(r.path)) {
      this.sourceMapFailures++
      return
    }
    if (tally) {
      tally.failedRequests++
      return
    }
    if (!pl) {
      app.noPageLoad.push({path: r.path, session})
      return
    }
    app.failures.push({r, pageLoad: pl, reason, phase: pl.lazy ? 'lazy' : 'initial', asset: assetKind(r.path)})
  }

  finish(): Truth {
    const {params} = this
    const gapMs = params.incidentGapSeconds * 1000
    const marginMs = params.deployMarginSeconds * 1000
    const accs = [...this.apps.values()].sort((a, b) => cmp(a.cluster.app.upstreamName, b.cluster.app.upstreamName))
    const nameOf = (a: AppAccumulator): string => a.cluster.app.upstreamName

    // Builds: what each build served (its assets, its pods), numbered per app by its first shell;
    // a dynamic shell's builds too, though its length varies (the report's length-based fields for
    // those are left to the analysis: see test/integration/truth.test.ts).
    const buildId = new Map<AppAccumulator, Map<string, string>>()
    const builds: TruthBuild[] = []
    for (const a of accs) {
      const ids = new Map<string, string>()
      buildId.set(a, ids)
      const confirmed = a.cluster.builds
        .filter((b) => (a.evidence.get(b.key)?.shellPathResponses ?? 0) >= 2)
        .sort((x, y) => (a.evidence.get(x.key)?.firstShellPath as number) - (a.evidence.get(y.key)?.firstShellPath as number) || x.shellBytes - y.shellBytes)
      confirmed.forEach((b, i) => {
        const id = `B${i + 1}`
        ids.set(b.key, id)
        const e = a.evidence.get(b.key) as Evidence
        builds.push({
          id, app: nameOf(a), key: b.key, version: b.version, replicaSet: b.replicaSet, shellBytes: b.shellBytes,
          firstSeen: iso(e.docFirst as number), lastSeen: iso(e.docLast as number), lastServed: iso(e.lastPodResponse as number),
          lastShellServed: iso(e.lastShell as number), shellRequests: e.docShells, pods: e.pods.size,
        })
      })
    }
    const reportBuild = (a: AppAccumulator, key: string): string | null => buildId.get(a)?.get(key) ?? null

    // Deploys of every app, numbered by start time (then app).
    const allDeploys = accs.flatMap((a) => a.cluster.deploys.map((d) => ({a, d})))
      .sort((x, y) => x.d.start - y.d.start || cmp(nameOf(x.a), nameOf(y.a)))
    const deployIndex = new Map(allDeploys.map(({d}, i) => [d, i]))

    // Attribution of every failure of a person.
    const attributed: Attributed[] = []
    const scanners = {requests: 0, clients: 0}
    const orphans = {requests: 0, clients: 0}
    for (const a of accs) {
      const scannerClients = new Set<string>()
      const orphanClients = new Set<string>()
      for (const o of a.noPageLoad) {
        if (a.known(o.path)) {
          orphans.requests++
          orphanClients.add(o.session)
        } else {
          scanners.requests++
          scannerClients.add(o.session)
        }
      }
      for (const f of a.failures) {
        if (!a.known(f.r.path)) {
          scanners.requests++
          scannerClients.add(`${f.r.clientIp} ${f.r.userAgent}`)
          continue
        }
        attributed.push(this.attribute(a, f, reportBuild, deployIndex))
      }
      scanners.clients += scannerClients.size
      orphans.clients += orphanClients.size
    }
    attributed.sort((x, y) => x.f.r.time - y.f.r.time || x.f.r.seq - y.f.r.seq)

    // Incidents: per app, deploy and cause, split where consecutive failures are more than the gap apart.
    interface Group {a: AppAccumulator; cause: FailureCause; deploy: number | undefined; list: Attributed[]}
    const groups: Group[] = []
    const open = new Map<string, Group>()
    for (const x of attributed) {
      const k = `${nameOf(x.app)}|${x.deploy ?? '-'}|${x.cause}`
      const g = open.get(k)
      const prev = g?.list[g.list.length - 1]
      if (g && prev && x.f.r.time - prev.f.r.time <= gapMs) g.list.push(x)
      else {
        const fresh: Group = {a: x.app, cause: x.cause, deploy: x.deploy, list: [x]}
        groups.push(fresh)
        open.set(k, fresh)
      }
    }
    groups.sort((x, y) => (x.list[0] as Attributed).f.r.time - (y.list[0] as Attributed).f.r.time || cmp(nameOf(x.a), nameOf(y.a)) || x.cause.localeCompare(y.cause))
    const incidentOf = new Map<Attributed, string>()
    groups.forEach((g, i) => {
      for (const x of g.list) incidentOf.set(x, `I${i + 1}`)
    })

    const deployId = (i: number | undefined): string | null => (i === undefined ? null : `D${i + 1}`)
    const worst = (list: readonly Attributed[]): Map<PageLoadRecord, number> => {
      const m = new Map<PageLoadRecord, number>()
      for (const x of list) {
        const had = m.get(x.f.pageLoad)
        if (had === undefined || x.rank < had) m.set(x.f.pageLoad, x.rank)
      }
      return m
    }
    const outcomes = (m: Map<PageLoadRecord, number>): Record<PageLoadOutcome, number> => {
      const out = emptyOutcomes()
      for (const r of m.values()) out[OUTCOMES[r] as PageLoadOutcome]++
      return out
    }
    const countIn = (times: readonly number[], from: number, to: number): number => upperBound(times, to) - lowerBound(times, from)
    const pageLoadsIn = (a: AppAccumulator, from: number, to: number, affected: Iterable<PageLoadRecord>): number => {
      let outside = 0
      for (const pl of affected) if (pl.time < from || pl.time > to) outside++
      return countIn(a.pageLoadTimes, from, to) + outside
    }
    const sessionOf = (x: Attributed): string => `${x.f.r.clientIp} ${x.f.r.userAgent}`

    const incidents: TruthIncident[] = groups.map((g, i) => {
      const first = g.list[0] as Attributed
      const last = g.list[g.list.length - 1] as Attributed
      const start = first.f.r.time
      const end = last.f.r.time
      const pls = worst(g.list)
      const byOutcome = outcomes(pls)
      const byDirection = emptyDirections()
      const byReason = emptyReasons()
      for (const x of g.list) {
        byDirection[x.direction]++
        byReason[x.f.reason]++
      }
      const pageLoads = pageLoadsIn(g.a, start, end, pls.keys())
      return {
        id: `I${i + 1}`, app: nameOf(g.a), cause: g.cause, deployId: deployId(g.deploy), start: iso(start), end: iso(end),
        windowSeconds: seconds(end - start), affectedUsers: new Set(g.list.map(sessionOf)).size, affectedPageLoads: pls.size, byOutcome,
        brokenPageLoads: byOutcome.crashed, pageLoads, brokenShare: share(byOutcome.crashed, pageLoads), failedRequests: g.list.length,
        byDirection, byReason,
      }
    })

    const deploys: TruthDeploy[] = allDeploys.map(({a, d}, i) => {
      const mine = attributed.filter((x) => x.deploy === i)
      const pls = worst(mine)
      const byDirection = emptyDirections()
      const byCause = emptyCauses()
      for (const x of mine) {
        byDirection[x.direction]++
        byCause[x.cause]++
      }
      const race = mine.filter((x) => x.cause === 'rollout').map((x) => x.f.r.time)
      const from = a.cluster.builds.find((b) => b.key === d.fromBuild)
      const to = a.cluster.builds.find((b) => b.key === d.toBuild)
      if (!from || !to) throw new Error('deploy of an unknown build')
      return {
        id: `D${i + 1}`, app: nameOf(a), service: a.cluster.app.service, namespace: a.cluster.app.namespace, start: iso(d.start), end: iso(d.end),
        windowSeconds: seconds(d.end - d.start), fromBuild: reportBuild(a, d.fromBuild), toBuild: reportBuild(a, d.toBuild),
        version: to.version, fromVersion: from.version, fromReplicaSet: from.replicaSet, toReplicaSet: to.replicaSet,
        incidentIds: [...new Set(mine.map((x) => incidentOf.get(x) as string))].sort(byIdNumber),
        affectedUsers: new Set(mine.map(sessionOf)).size, affectedPageLoads: pls.size, byOutcome: outcomes(pls),
        pageLoads: pageLoadsIn(a, d.start - marginMs, d.end + marginMs, pls.keys()), failedRequests: mine.length, byCause, byDirection,
        rolloutWindow: race.length > 0
          ? {start: iso(Math.min(...race)), end: iso(Math.max(...race)), seconds: seconds(Math.max(...race) - Math.min(...race))}
          : null,
      }
    })

    // People with failures, per app and session.
    const people = new Map<string, {a: AppAccumulator; list: Attributed[]}>()
    for (const x of attributed) {
      const k = `${nameOf(x.app)}\u0000${sessionOf(x)}`
      const p = people.get(k)
      if (p) p.list.push(x)
      else people.set(k, {a: x.app, list: [x]})
    }
    const affectedUsers: TruthUser[] = [...people.values()].map(({a, list}) => {
      const first = list[0] as Attributed
      const last = list[list.length - 1] as Attributed
      const pls = worst(list)
      return {
        app: nameOf(a), session: sessionOf(first), clientIp: first.f.r.clientIp, userAgent: first.f.r.userAgent,
        firstFailure: iso(first.f.r.time), lastFailure: iso(last.f.r.time), brokenPageLoads: outcomes(pls).crashed,
        affectedPageLoads: pls.size, failedRequests: list.length,
        incidentIds: [...new Set(list.map((x) => incidentOf.get(x) as string))].sort(byIdNumber),
      }
    }).sort((x, y) => y.failedRequests - x.failedRequests || cmp(x.firstFailure, y.firstFailure) || cmp(x.app, y.app) || cmp(x.session, y.session))

    const all = worst(attributed)
    const totalOutcomes = outcomes(all)
    const byCause = emptyCauses()
    for (const x of attributed) byCause[x.cause]++

    const apps: TruthApp[] = accs.map((a) => {
      const mine = attributed.filter((x) => x.app === a)
      return {
        name: nameOf(a), service: a.cluster.app.service, namespace: a.cluster.app.namespace, host: a.cluster.app.host, requests: a.requests,
        pageLoads: a.pageLoadTimes.length, builds: buildId.get(a)?.size ?? 0, deploys: a.cluster.deploys.length,
        shellLengthVaries: a.cluster.app.dynamicShell, affectedUsers: new Set(mine.map(sessionOf)).size, brokenPageLoads: outcomes(worst(mine)).crashed,
      }
    })

    const tallies = (pick: (a: AppAccumulator) => Tally): TruthNonUserCounts => ({
      requests: accs.reduce((n, a) => n + pick(a).requests, 0),
      clients: accs.reduce((n, a) => n + pick(a).clients.size, 0),
      failedRequests: accs.reduce((n, a) => n + pick(a).failedRequests, 0),
    })

    const failures: TruthFailure[] = attributed.map((x) => {
      const r = x.f.r
      return {
        time: iso(r.time), app: nameOf(x.app), requestId: r.requestId, session: sessionOf(x), clientIp: r.clientIp, userAgent: r.userAgent,
        path: r.path, status: r.status, bytes: r.bytes, reason: x.f.reason, asset: x.f.asset, phase: x.f.phase, cause: x.cause,
        deployId: deployId(x.deploy), incidentId: incidentOf.get(x) as string, direction: x.direction,
        pageBuild: reportBuild(x.app, x.f.pageLoad.build), servingBuild: reportBuild(x.app, r.servingBuild),
        pageBuildKey: x.f.pageLoad.build, servingBuildKey: r.servingBuild, pageLoadId: x.f.pageLoad.id, pageLoadTime: iso(x.f.pageLoad.time),
      }
    })

    const pods: TruthPod[] = this.clusters.flatMap((c) => c.pods.map((p) => ({
      app: c.app.upstreamName, name: p.name, ip: p.ip, build: p.build,
      start: Number.isFinite(p.start) ? iso(p.start) : null, stop: Number.isFinite(p.stop) ? iso(p.stop) : null,
    })))

    const podChanges: TruthPodChange[] = accs.flatMap((a) => a.cluster.podChanges.map((c) => ({
      app: nameOf(a), service: a.cluster.app.service, namespace: a.cluster.app.namespace, kind: c.kind, build: reportBuild(a, c.build) ?? c.build,
      fromReplicaSet: c.fromReplicaSet, toReplicaSet: c.toReplicaSet, fromReplicas: c.fromReplicas, replicas: c.replicas, start: iso(c.start), end: iso(c.end),
      pageLoads: pageLoadsIn(a, c.start - marginMs, c.end + marginMs, []),
    })))

    return {
      schemaVersion: 3,
      params,
      timeRange: this.firstTime === undefined || this.lastTime === undefined ? null : {start: iso(this.firstTime), end: iso(this.lastTime)},
      requestsTotal: this.requests,
      totals: {
        pageLoads: accs.reduce((n, a) => n + a.pageLoadTimes.length, 0), brokenPageLoads: totalOutcomes.crashed, affectedPageLoads: all.size,
        byOutcome: totalOutcomes, affectedUsers: people.size, failedRequests: attributed.length, byCause,
      },
      apps,
      builds,
      deploys,
      incidents,
      affectedUsers,
      nonUser: {
        crawlers: tallies((a) => a.crawlers),
        probe: tallies((a) => a.probe),
        scanners: {requests: scanners.requests, clients: scanners.clients, failedRequests: scanners.requests},
        sourceMaps: {failedRequests: this.sourceMapFailures},
      },
      orphans,
      pods,
      ...(podChanges.length > 0 ? {podChanges} : {}),
      failures,
    }
  }

  /**
   * Cause, deploy and direction of one failure, from the pods: `rollout` when a pod of the page's
   * build was live at that moment and a pod of another build too (the race: the deploy between the
   * two builds); `stale-client` when no pod of the page's build was live any more and one of a later
   * build was (the deploy that retired the page's build); else `unattributed`.
   */
  private attribute(
    a: AppAccumulator, f: RawFailure, reportBuild: (a: AppAccumulator, key: string) => string | null, deployIndex: Map<unknown, number>,
  ): Attributed {
    const t = f.r.exactTime
    const page = f.pageLoad.build
    const serving = f.r.servingBuild
    const live = a.cluster.pods.filter((p) => p.start <= t && t < p.stop)
    const pageLive = live.some((p) => p.build === page)
    const otherLive = live.some((p) => p.build !== page)
    // A build that replaced the page's: one of a deploy from the page's build that began by then
    // (a build rolled back to counts, though it was built first).
    const retiring = a.cluster.deploys.filter((d) => d.fromBuild === page && d.start <= t).at(-1)
    const away = (d: {start: number; end: number}): number => Math.max(0, d.start - t, t - d.end)
    let cause: FailureCause = 'unattributed'
    let deploy: unknown
    if (pageLive && otherLive) {
      cause = 'rollout'
      // Between the two builds; of a deploy and its rollback, the one whose window holds it.
      deploy = a.cluster.deploys.filter((d) => (d.fromBuild === page && d.toBuild === serving) || (d.fromBuild === serving && d.toBuild === page))
        .sort((x, y) => away(x) - away(y))[0]
    } else if (!pageLive && otherLive && retiring) {
      cause = 'stale-client'
      deploy = retiring
    }
    if (cause !== 'unattributed' && deploy === undefined) throw new Error(`no deploy for the ${cause} failure ${f.r.requestId}`)
    const p = reportBuild(a, page)
    const s = reportBuild(a, serving)
    // Relative to the deploy: its old build's page on its new build's pod is forward (a rollback's new build is the older one).
    const plan = deploy as {fromBuild: string; toBuild: string} | undefined
    const direction: Direction = p === null || s === null || p === s ? 'unknown'
      : plan && plan.fromBuild === page && plan.toBuild === serving ? 'oldPageNewPod'
        : plan && plan.toBuild === page && plan.fromBuild === serving ? 'newPageOldPod'
          : Number(p.slice(1)) < Number(s.slice(1)) ? 'oldPageNewPod' : 'newPageOldPod'
    const rank = f.asset === 'script' ? (f.phase === 'initial' ? 0 : 1) : f.asset === 'stylesheet' ? 2 : 3
    return {f, app: a, cause, deploy: deploy === undefined ? undefined : deployIndex.get(deploy), direction, rank}
  }
}

function lowerBound(a: readonly number[], x: number): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if ((a[mid] as number) < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

function upperBound(a: readonly number[], x: number): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if ((a[mid] as number) <= x) lo = mid + 1
    else hi = mid
  }
  return lo
}
