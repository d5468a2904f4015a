import type {DeclaredDeploy} from '../model/deploy'
import type {DeploySource} from '../model/report'
import {type Build, type Episode, episodes, mainVersion} from './builds'

/** One rollout as declared: the deploy records (markers, Kubernetes events, deploy-file rows) that describe it, fused. */
export interface Rollout {
  start: number
  /** When it finished; absent when no record says (then the builds bound it). */
  end?: number
  sources: DeploySource[]
  service?: string
  namespace?: string
  deployment?: string
  app?: string
  version?: string
  fromVersion?: string
  description?: string
  /** What each source kind called the version (a marker's tag, a replica set): two rollouts of one kind with two versions are two. */
  versions: Map<DeploySource, string>
}

/** A deploy window of one app, tied to the builds it replaced and introduced. */
export interface ResolvedDeploy {
  sources: DeploySource[]
  app: string
  start: number
  end: number
  from: Build | undefined
  to: Build | undefined
  service?: string
  version?: string
  description?: string
}

/** Records of one rollout may start or end this far apart (a CI marker and the Kubernetes API's clock). */
const JOIN_TOLERANCE_MS = 2000

/** Who a record is about: the app it names, else its service, else its Deployment. */
function identity(d: {app?: string; service?: string; deployment?: string}): string {
  return (d.app ?? d.service ?? d.deployment ?? '').toLowerCase()
}

/**
 * Fuses deploy records into rollouts: a marker of a rollout's start and the marker of its end
 * (same aggregation key, else same version, else the next end); then markers, Kubernetes rollouts
 * and deploy-file rows of one app that overlap in time become one rollout whose window covers them
 * all, unless two records of the same kind name different versions (two deploys back to back).
 */
export function fuseRollouts(declared: readonly DeclaredDeploy[]): Rollout[] {
  const windows = [...pairMarkers(declared.filter((d) => d.source === 'marker')), ...declared.filter((d) => d.source !== 'marker')]
    .sort((a, b) => a.start - b.start || sourceRank(a.source) - sourceRank(b.source))
  const rollouts: Rollout[] = []
  for (const d of windows) {
    const end = d.end ?? d.start
    const joinable = rollouts.filter((r) => identity(r) === identity(d) && !conflicts(r, d) &&
      d.start <= (r.end ?? r.start) + JOIN_TOLERANCE_MS && end >= r.start - JOIN_TOLERANCE_MS)
    // The one whose window holds the record's start, else the nearest.
    const target = joinable.sort((a, b) => distance(a, d.start) - distance(b, d.start))[0]
    if (target) join(target, d)
    else rollouts.push(join({start: d.start, sources: [], versions: new Map()}, d))
  }
  return rollouts.sort((a, b) => a.start - b.start)
}

function sourceRank(s: DeclaredDeploy['source']): number {
  return s === 'file' ? 0 : s === 'marker' ? 1 : 2
}

function distance(r: Rollout, t: number): number {
  const end = r.end ?? r.start
  return t < r.start ? r.start - t : t > end ? t - end : 0
}

function conflicts(r: Rollout, d: DeclaredDeploy): boolean {
  const mine = d.version === undefined ? undefined : r.versions.get(d.source)
  return mine !== undefined && mine !== d.version
}

function join(r: Rollout, d: DeclaredDeploy): Rollout {
  if (d.start < r.start) r.start = d.start
  if (d.end !== undefined && (r.end === undefined || d.end > r.end)) r.end = d.end
  if (!r.sources.includes(d.source)) r.sources.push(d.source)
  if (d.version !== undefined && !r.versions.has(d.source)) r.versions.set(d.source, d.version)
  // A marker's or a file's version (v2.14.4) says more than a replica set's name.
  const version = r.versions.get('marker') ?? r.versions.get('file') ?? r.versions.get('kubernetes')
  if (version !== undefined) r.version = version
  for (const k of ['service', 'namespace', 'deployment', 'app', 'fromVersion', 'description'] as const) {
    const v = d[k]
    if (v !== undefined && r[k] === undefined) r[k] = v
  }
  return r
}

/**
 * Start and end markers of one rollout as one record: by aggregation key when they carry one, else
 * an end marker closes the open start of the same identity and version (or, versions unnamed, the
 * latest open one). A marker with no phase, or an unmatched one, stays a moment of its own.
 */
function pairMarkers(markers: readonly DeclaredDeploy[]): DeclaredDeploy[] {
  const out: DeclaredDeploy[] = []
  const byKey = new Map<string, DeclaredDeploy>()
  const open: DeclaredDeploy[] = []
  for (const m of [...markers].sort((a, b) => a.start - b.start)) {
    const keyed = m.key === undefined ? undefined : byKey.get(`${identity(m)}|${m.key}`)
    if (keyed) {
      merge(keyed, m)
      continue
    }
    if (m.phase === 'end') {
      const i = findLastIndex(open, (o) => identity(o) === identity(m) && (m.version === undefined || o.version === undefined || o.version === m.version))
      if (i !== -1) {
        const [started] = open.splice(i, 1) as [DeclaredDeploy]
        merge(started, m)
        continue
      }
    }
    const record: DeclaredDeploy = {...m}
    if (m.phase === 'end') record.end = m.start
    delete record.phase
    out.push(record)
    if (m.key !== undefined) byKey.set(`${identity(m)}|${m.key}`, record)
    if (m.phase === 'start') open.push(record)
  }
  return out
}

function merge(into: DeclaredDeploy, m: DeclaredDeploy): void {
  if (m.phase === 'end' || m.start > into.start) into.end = Math.max(into.end ?? m.start, m.start)
  if (m.phase === 'start' && m.start < into.start) into.start = m.start
  for (const k of ['service', 'version', 'namespace', 'deployment', 'description'] as const) if (into[k] === undefined && m[k] !== undefined) into[k] = m[k]
}

function findLastIndex<T>(a: readonly T[], f: (x: T) => boolean): number {
  for (let i = a.length - 1; i >= 0; i--) if (f(a[i] as T)) return i
  return -1
}

/** An app as deploy records are matched to it. */
export interface AppIdentity {
  name: string
  source: 'upstream' | 'host' | 'service' | 'key' | 'none'
  /** Confirmed builds: an app with none shows no deploy to match. */
  builds: number
}

/**
 * The app a rollout belongs to, or why none: the app it names; a `--deploy-app` mapping; the
 * ingress upstream `namespace-name-port` of its Deployment or service; a host or service of that
 * name; else, a record that names nothing, the only app with builds.
 */
export function matchApp(r: Rollout, apps: readonly AppIdentity[], mapping: Readonly<Record<string, string>> = {}): {app: string} | {reason: string} {
  const names = [r.app, r.service, r.deployment].filter((n): n is string => n !== undefined)
  for (const n of names) {
    const mapped = mapping[n]
    if (mapped !== undefined) return apps.some((a) => a.name === mapped) ? {app: mapped} : {reason: `--deploy-app maps ${n} to ${mapped}, which has no traffic in the logs`}
  }
  if (r.app !== undefined) {
    const app = apps.find((a) => a.name === r.app)
    return app ? {app: app.name} : {reason: `names app ${r.app}, which has no traffic in the logs`}
  }
  if (names.length === 0) {
    const withBuilds = apps.filter((a) => a.builds > 0)
    if (withBuilds.length === 1) return {app: (withBuilds[0] as AppIdentity).name}
    return {reason: withBuilds.length === 0 ? 'no app in the logs shows a build' : `names no service or Deployment, and ${withBuilds.length} apps show builds (give the record a service, or --deploy-app)`}
  }
  const lower = names.map((n) => n.toLowerCase())
  const found = apps.filter((a) => lower.some((n) => appNamed(a, n, r.namespace?.toLowerCase())))
  if (found.length === 1) return {app: (found[0] as AppIdentity).name}
  if (found.length > 1) {
    // The ingress upstream is the most specific name.
    const upstreams = found.filter((a) => a.source === 'upstream')
    if (upstreams.length === 1) return {app: (upstreams[0] as AppIdentity).name}
    return {reason: `matches ${found.length} apps (${found.map((a) => a.name).join(', ')}); map it with --deploy-app ${names[0]}=APP`}
  }
  // One unnamed app (logs without upstream, host or service): the records are about it.
  if (apps.length === 1 && apps[0]?.source === 'none') return {app: apps[0].name}
  return {reason: `no app in the logs is named ${names.join(' or ')} (apps: ${apps.map((a) => a.name || '-').join(', ') || 'none'}); map it with --deploy-app ${names[0]}=APP`}
}

function appNamed(a: AppIdentity, n: string, namespace: string | undefined): boolean {
  const name = a.name.toLowerCase()
  if (name === n || name.replace(/@[\w-]+$/, '') === n) return true
  if (a.source === 'upstream') {
    // Istio and Envoy name clusters `outbound|<port>|<subset>|<service>.<namespace>.svc.cluster.local`.
    const cluster = /^(?:outbound|inbound)\|\d*\|[^|]*\|([^.|]+)\.([^.|]+)/.exec(name)
    if (cluster) return cluster[1] === n && (namespace === undefined || cluster[2] === namespace)
    // ingress-nginx names upstreams `<namespace>-<service>-<port>`; Traefik its services the same, with `@<provider>` after.
    const m = /^(.*)-(\d+)$/.exec(name.replace(/@[\w-]+$/, ''))
    const base = m ? (m[1] as string) : name
    if (namespace !== undefined ? base === `${namespace}-${n}` : base.endsWith(`-${n}`) || base === n) return true
  }
  if (a.source === 'host') return name.split('.')[0] === n
  return false
}

/**
 * A declared rollout on one app's builds: the build named by version tag when logs carry one, else
 * the first build to appear once the rollout began (or just before: clocks differ), replacing the
 * older build that was still served last. Without an end, the rollout ends when the old build was
 * last served (and before the next one starts). A rollout that brought no new build while the old
 * one is served on past its end is a restart: from that build to itself.
 */
export function resolveRollout(r: Rollout, app: string, builds: readonly Build[], nextStart: number, marginMs: number): ResolvedDeploy {
  // By the stretches each build was served: a build rolled back to is served again from the rollout on.
  const all = episodes(builds)
  const candidates = all.filter((e) => e.first < nextStart)
  const named = byVersion(builds, r.version)
  const toEpisode = (named ? nearest(all.filter((e) => e.build === named), r.start) : undefined) ??
    candidates.filter((e) => e.first >= r.start).sort((a, b) => a.first - b.first)[0] ??
    candidates.filter((e) => e.first >= r.start - marginMs && e.first < r.start && e.last >= r.start).sort((a, b) => b.first - a.first)[0]
  const to = named ?? toEpisode?.build
  const before = toEpisode?.first ?? r.start
  const fromNamed = byVersion(builds, r.fromVersion)
  const fromEpisode = all.filter((e) => e.build !== to && (fromNamed === undefined || e.build === fromNamed) && e.first < before).sort((a, b) => b.last - a.last)[0]
  const from = fromNamed ?? fromEpisode?.build
  // No new build, and the one served before is still served once the rollout is over: new pods of
  // the same build (`kubectl rollout restart`), a deploy from a build to itself.
  const servedOn = (b: Build | undefined): boolean => b !== undefined && all.some((e) => e.build === b && e.first <= r.start && e.last > (r.end ?? r.start) + marginMs)
  const restart = (to === undefined || to === from) && servedOn(from)
  const end = r.end ?? (restart ? r.start : Math.max(r.start, fromEpisode && to ? Math.min(fromEpisode.last, nextStart) : r.start))
  return {
    sources: r.sources, app, start: r.start, end: Math.max(end, r.start), from, to: restart ? from : to,
    ...(r.service ? {service: r.service} : {}), ...(r.version ? {version: r.version} : {}), ...(r.description ? {description: r.description} : {}),
  }
}

/** The stretch that starts nearest a time. */
function nearest(list: readonly Episode[], t: number): Episode | undefined {
  return [...list].sort((a, b) => Math.abs(a.first - t) - Math.abs(b.first - t))[0]
}

function byVersion(builds: readonly Build[], version: string | undefined): Build | undefined {
  if (!version) return undefined
  return builds.find((b) => b.versions.has(version))
}

/**
 * Deploys of one app inferred from its builds: wherever a build starts being served (a new one, or
 * one rolled back to), the rollout runs from the first time the logs show it answering (its pods,
 * its pages, its shell's length as a fallback body) to the last time they show the build it
 * replaced (for a stop-and-start deploy, from that last time to the new one's first). New pods of
 * the build already served (a restart, a scale-out) start no stretch of their own: no deploy.
 * `ordered`: the builds' stretches (episodes), when the caller has them already.
 */
export function inferDeploys(app: string, builds: readonly Build[], ordered: readonly Episode[] = episodes(builds)): ResolvedDeploy[] {
  const deploys: ResolvedDeploy[] = []
  // Of the stretches before the current one (kept as it goes, so each is looked at once): each
  // build's last time served, the stretch served last (the first of equals) and the one served last
  // among the other builds'. The build being replaced is one of those two.
  const lastOf = new Map<Build, number>()
  let top: Episode | undefined
  let second: Episode | undefined
  for (let i = 1; i < ordered.length; i++) {
    const prev = ordered[i - 1] as Episode
    lastOf.set(prev.build, Math.max(lastOf.get(prev.build) ?? Number.NEGATIVE_INFINITY, prev.last))
    if (!top) {
      top = prev
    } else if (prev.last > top.last) {
      if (prev.build !== top.build) second = top
      top = prev
    } else if (prev.build !== top.build && (!second || prev.last > second.last)) {
      second = prev
    }
    const next = ordered[i] as Episode
    // The build being replaced: of the other builds served before, the one still served last.
    const from = top.build !== next.build ? top : second
    const again = lastOf.get(next.build) ?? Number.NEGATIVE_INFINITY
    // Served again after a gap while no other build outlived it (pods restarted): no deploy.
    if (!from || again >= from.last) continue
    const to = next.build
    const start = Math.min(next.first, from.last)
    const end = Math.max(next.first, Math.min(from.last, next.last))
    const version = mainVersion(to)
    deploys.push({sources: ['inferred'], app, start, end, from: from.build, to, ...(version ? {version} : {})})
  }
  return deploys
}
