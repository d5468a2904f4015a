/**
 * Counting page requests on Datadog's side (see analysis/census.ts): the shell-path requests per
 * app, length and bucket, people's page loads per app and bucket (crawlers and the probe left out
 * by their user agent, as the analysis tells them), and which pods answered which length. A pull
 * then reads page requests only in the buckets where the analysis needs their times.
 */
import type {AppCensus, PageCensus} from '../../model/page-census'
import {AgentClassifier} from '../../util/agent-kind'
import type {TimeRange} from '../../model/time-range'
import {GROUP_LIMIT, groupedSeries, type GroupedSeries} from './aggregate'
import type {DatadogClient} from './client'
import type {SearchScope} from './puller'
import type {QueryBuilder} from './query'

/** What names an app, in the order the analysis looks (apps.ts appSourceOf). */
export const APP_FACETS: Record<'auto' | 'upstream' | 'host' | 'service', readonly string[]> = {
  auto: ['@proxy.name', '@proxy_upstream_name', '@http.url_details.host', 'service'],
  upstream: ['@proxy.name', '@proxy_upstream_name'],
  host: ['@http.url_details.host'],
  service: ['service'],
}

/** The value a group-by gives logs without its facet (an app facet no request carries is skipped). */
export const MISSING = 'skewscan-none'
const AGENT_FACET = '@http.useragent'
/** Apps one census lists at most (nested group-bys multiply: apps × agents ≤ GROUP_LIMIT). */
export const MAX_APPS = 20

/** The shells and page loads counted per app. */
export interface Counted {
  apps: Map<string, AppShells>
  lengths: number[]
  facet: string | null
}

export interface AppShells {
  shells: Map<number, Map<number, number>>
  pageLoads: Map<number, number>
}

/** What an aggregate asks over: the client, the indexes, the range and its bucket. */
export interface Ask {
  client: DatadogClient
  scope: SearchScope
  range: TimeRange
  bucket: {ms: number; interval: string}
  /** The most groups one aggregate lists: Datadog's GROUP_LIMIT; tests make it small. */
  groupLimit?: number
}

/**
 * The shell-path responses per app and length, and people's page loads per app: the app facet is
 * the first of `facets` that every shell-path request carries (one no request carries is skipped;
 * one only some carry cannot name apps as the analysis does: not counted).
 */
export async function countShells(ask: Ask, q: QueryBuilder, facets: readonly string[]): Promise<Counted | {reason: string}> {
  const {client, scope, range, bucket} = ask
  let chosen: {facet: string | null; shells: GroupedSeries} | undefined
  for (const facet of facets) {
    const shells = await groupedSeries(client, scope, q.shellResponses(), range, bucket, [{facet, limit: MAX_APPS, missing: MISSING}, {facet: '@network.bytes_written', limit: Math.floor(GROUP_LIMIT / MAX_APPS)}])
    if (!shells.complete) return {reason: `more than ${MAX_APPS} apps or ${Math.floor(GROUP_LIMIT / MAX_APPS)} shell lengths of one app`}
    const missing = shells.groups.filter((g) => g.by[0] === MISSING).length
    if (missing === 0 || shells.groups.length === 0) {
      chosen = {facet, shells}
      break
    }
    if (missing < shells.groups.length) return {reason: `only some shell requests carry ${facet}, which names their app`}
  }
  // No facet names any app: every request is of the one unnamed app.
  chosen ??= {facet: null, shells: await groupedSeries(client, scope, q.shellResponses(), range, bucket, [{facet: '@network.bytes_written', limit: GROUP_LIMIT}])}
  if (!chosen.shells.complete) return {reason: `more than ${GROUP_LIMIT} shell lengths`}
  const apps = new Map<string, AppShells>()
  const appOf = (name: string): AppShells => {
    let a = apps.get(name)
    if (!a) apps.set(name, (a = {shells: new Map(), pageLoads: new Map()}))
    return a
  }
  const lengths = new Set<number>()
  for (const g of chosen.shells.groups) {
    const [name, bytes] = chosen.facet === null ? ['', Number(g.by[0])] : [g.by[0] as string, Number(g.by[1])]
    if (!Number.isInteger(bytes) || bytes <= 0) continue
    lengths.add(bytes)
    appOf(name).shells.set(bytes, g.counts)
  }
  const loads = await peoplesPageLoads(ask, q.shellPageLoads(), chosen.facet, apps.size)
  if ('reason' in loads) return loads
  for (const [name, series] of loads.apps) {
    const into = appOf(name).pageLoads
    for (const [t, n] of series) into.set(t, (into.get(t) ?? 0) + n)
  }
  return {apps, lengths: [...lengths].sort((a, b) => a - b), facet: chosen.facet}
}

/** Aggregates one count of people's page loads asks at most (the range's pieces). */
export const MAX_LOAD_PIECES = 32

/**
 * People's page loads per app and bucket: grouped by app and user agent, crawlers and the probe
 * left out by the classifier the analysis uses (so both judge every agent alike). Real traffic
 * shows thousands of agents a day, more than one aggregate lists under each app: a piece of the
 * range that lists too many is halved at a bucket boundary and each half counted again, until every
 * piece lists all its agents (the pieces are disjoint, so their counts add up). The app level lists
 * one more app than the shells named, so an app they did not name shows as one too many.
 */
export async function peoplesPageLoads(ask: Ask, query: string, facet: string | null, appsNamed: number): Promise<{apps: Map<string, Map<number, number>>; pieces: number} | {reason: string}> {
  const {client, scope, bucket} = ask
  const appLimit = Math.min(MAX_APPS, appsNamed + 1)
  const agentLimit = Math.floor((ask.groupLimit ?? GROUP_LIMIT) / (facet === null ? 1 : appLimit))
  const levels = [...(facet === null ? [] : [{facet, limit: appLimit}]), {facet: AGENT_FACET, limit: agentLimit, missing: MISSING}]
  const agents = new AgentClassifier()
  const apps = new Map<string, Map<number, number>>()
  // Pieces of the range still to count (a piece one aggregate cannot list is replaced by its halves).
  const uncounted: TimeRange[] = [ask.range]
  let pieces = 0
  for (let piece = uncounted.pop(); piece !== undefined; piece = uncounted.pop()) {
    if (++pieces > MAX_LOAD_PIECES) return {reason: `more than ${agentLimit} user agents load pages of one app in each of ${MAX_LOAD_PIECES} parts of the range`}
    const loads = await groupedSeries(client, scope, query, piece, bucket, levels)
    if (facet !== null && new Set(loads.groups.map((g) => g.by[0])).size >= appLimit) return {reason: `more than ${appLimit - 1} apps load pages`}
    if (!loads.complete) {
      const halves = halved(piece, bucket.ms)
      if (halves === undefined) return {reason: `more than ${agentLimit} user agents load pages of one app in one ${bucket.interval} bucket`}
      uncounted.push(...halves)
      continue
    }
    for (const g of loads.groups) {
      const [name, agent] = facet === null ? ['', g.by[0] as string] : [g.by[0] as string, g.by[1] as string]
      if (agents.kind(agent === MISSING ? '' : agent) !== undefined) continue
      let into = apps.get(name)
      if (!into) apps.set(name, (into = new Map()))
      for (const [t, n] of g.counts) into.set(t, (into.get(t) ?? 0) + n)
    }
  }
  return {apps, pieces}
}

/** A range cut in two at the bucket boundary nearest its middle; undefined when it lies in one bucket. */
export function halved(range: TimeRange, bucketMs: number): [TimeRange, TimeRange] | undefined {
  const first = Math.floor(range.from / bucketMs) * bucketMs
  const buckets = Math.ceil((range.to - first) / bucketMs)
  if (buckets <= 1) return undefined
  const cut = first + Math.floor(buckets / 2) * bucketMs
  return [{from: range.from, to: cut}, {from: cut, to: range.to}]
}

/**
 * Which pods answered which shell length, per bucket: a pod's first shell teaches its build.
 * `query`: what counts as a shell (shell-path responses, and plain routes where those are counted).
 */
export async function shellsByPod(ask: Ask, q: QueryBuilder, podFacet: string, lengths: number, query = q.shellResponses()): Promise<{pods: {pod: string; bytes: number; counts: Map<number, number>}[]} | {reason: string}> {
  const perPod = Math.max(2, lengths + 1)
  const podLimit = Math.floor(GROUP_LIMIT / perPod)
  const r = await groupedSeries(ask.client, ask.scope, query, ask.range, ask.bucket, [{facet: podFacet, limit: podLimit}, {facet: '@network.bytes_written', limit: perPod}])
  if (!r.complete) return {reason: `more than ${podLimit} pods answered shells`}
  return {pods: r.groups.map((g) => ({pod: g.by[0] as string, bytes: Number(g.by[1]), counts: g.counts})).filter((p) => Number.isInteger(p.bytes) && p.bytes > 0)}
}

/** Routes (plain: no dot in the path) answered with a shell's length, per app: every agent's per length, people's page loads. */
export interface CountedRoutes {
  apps: Map<string, {shells: Map<number, Map<number, number>>; pageLoads: Map<number, number>}>
}

/**
 * Plain routes answered 2xx with a shell's length, counted like shell paths: per app (by the facet
 * the shells were counted by) and length, and people's page loads among them per app, in pieces
 * of the range as peoplesPageLoads counts them (so the group limits hold on real agent variety).
 */
export async function countRoutes(ask: Ask, q: QueryBuilder, counted: Counted, lengths: readonly number[]): Promise<CountedRoutes | {reason: string}> {
  const {facet} = counted
  const levels = facet === null
    ? [{facet: '@network.bytes_written', limit: GROUP_LIMIT}]
    : [{facet, limit: MAX_APPS, missing: MISSING}, {facet: '@network.bytes_written', limit: Math.floor(GROUP_LIMIT / MAX_APPS)}]
  const shells = await groupedSeries(ask.client, ask.scope, q.plainRoutes(lengths), ask.range, ask.bucket, levels)
  if (!shells.complete) return {reason: `more than ${MAX_APPS} apps answer routes with a shell's length`}
  const loads = await peoplesPageLoads(ask, q.plainRoutes(lengths), facet, counted.apps.size)
  if ('reason' in loads) return loads
  const apps: CountedRoutes['apps'] = new Map()
  const appOf = (name: string): {shells: Map<number, Map<number, number>>; pageLoads: Map<number, number>} => {
    let a = apps.get(name)
    if (!a) apps.set(name, (a = {shells: new Map(), pageLoads: new Map()}))
    return a
  }
  for (const g of shells.groups) {
    const [name, bytes] = facet === null ? ['', Number(g.by[0])] : [g.by[0] as string, Number(g.by[1])]
    if (Number.isInteger(bytes) && bytes > 0) appOf(name).shells.set(bytes, g.counts)
  }
  for (const [name, series] of loads.apps) appOf(name).pageLoads = series
  return {apps}
}

/**
 * The unread buckets whose plain routes a count cannot stand in for, to be read: where a route of
 * an app and length shows with no shell of that length of that app near enough before it that the
 * analysis surely takes every route of the bucket for that build's shell (one learned at most
 * `lookaheadMs` after the route and served at most `horizonMs` before it, as BuildTracker.matchNear
 * asks), or with none after the bucket (the length's last shells, and so its last time served, are
 * read: a route after them would move it). An app no facet names is always read.
 */
export function unsureRouteBuckets(counted: Counted, routes: CountedRoutes, read: ReadonlySet<number>, bucketMs: number, near: {horizonMs: number; lookaheadMs: number}): Set<number> {
  const out = new Set<number>()
  for (const [name, app] of routes.apps) {
    for (const [bytes, series] of app.shells) {
      const own = counted.facet !== null && name === MISSING ? undefined : counted.apps.get(name)?.shells.get(bytes)
      const times = own ? [...own].filter(([, n]) => n > 0).map(([t]) => t) : []
      const last = times.length === 0 ? Number.NEGATIVE_INFINITY : Math.max(...times)
      for (const [t, n] of series) {
        if (n <= 0 || read.has(t)) continue
        const from = t + bucketMs - near.horizonMs
        const to = t + near.lookaheadMs - bucketMs
        if (last <= t || !times.some((s) => s >= from && s <= to)) out.add(t)
      }
    }
  }
  return out
}

/** The census the analysis takes: every count outside the buckets read (plain routes' too, where they were counted). */
export function censusOf(count: {apps: Map<string, AppShells>}, read: ReadonlySet<number>, bucketMs: number, pods?: readonly {pod: string; counts: Map<number, number>}[], routes?: CountedRoutes): PageCensus {
  const unread = (m: Map<number, number>): [number, number][] => [...m].filter(([t, n]) => n > 0 && !read.has(t)).sort((a, b) => a[0] - b[0])
  const apps: Record<string, AppCensus> = {}
  for (const [name, a] of count.apps) {
    const mine = [...a.shells.keys()]
    const r = routes?.apps.get(name)
    const pageLoads = new Map(a.pageLoads)
    for (const [t, n] of r?.pageLoads ?? []) pageLoads.set(t, (pageLoads.get(t) ?? 0) + n)
    apps[name] = {
      pageLoads: unread(pageLoads),
      shells: mine.map((bytes) => ({bytes, counts: unread(a.shells.get(bytes) as Map<number, number>)})),
      ...(routes ? {routes: [...(r?.shells ?? [])].sort((x, y) => x[0] - y[0]).map(([bytes, m]) => ({bytes, counts: unread(m)}))} : {}),
    }
  }
  const byPod = new Map<string, Map<number, number>>()
  for (const p of pods ?? []) {
    let m = byPod.get(p.pod)
    if (!m) byPod.set(p.pod, (m = new Map()))
    for (const [t, n] of p.counts) m.set(t, (m.get(t) ?? 0) + n)
  }
  const podCounts = [...byPod].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([pod, m]) => ({pod, counts: unread(m)}))
  return {bucketMs, read: [...read].sort((a, b) => a - b), apps, ...(pods ? {pods: podCounts} : {}), ...(routes ? {routes: true} : {})}
}
