import {stripPort} from '../util/host-port'
import {detach} from '../util/detach'
import type {Build, ServedSpan} from './builds'
import {RECENT_EVIDENCE} from '../model/page-census'
import type {BuildEvidenceReport} from '../model/report'
import {namesContent} from './request-kinds'
import type {AssetFit, PageLoad} from './sessions'

/**
 * Which build is this? A shell's length is no build's name: bundlers use fixed-length content
 * hashes, so two builds' shells are usually exactly as long. What names a build is what it serves.
 * This module gathers that evidence while the stream is read (BuildEvidence) and, once it is all
 * in, answers for the page loads, the pods and the failed requests (BuildIdentity):
 *
 * - The content-hashed asset paths a page load asks for are of its build. Assets that pages ask for
 *   together are of one build, unless two core ones (an entry and its stylesheet: together in
 *   nearly every page of each) were never asked for by one page, as two builds' entries never are.
 *   So an asset two builds share (an unchanged vendor chunk) joins one of them and is then marked
 *   shared, and never merges the two; a route's chunk or a font that only some pages load joins
 *   its build.
 * - A pod (upstream address) serves one build: the build of the pages its shells start, else of
 *   the shell lengths it served where a length is one build's alone, else of the assets it answers
 *   with real content. An address whose evidence names one build and later another, without
 *   overlap, was reused by a new pod.
 * - A build is served while its pods answer (any response) and while pages of it start; where its
 *   pods show a gap, it is served in stretches (a build rolled back to).
 * - A shell length names a build only when nearly every page of that length is of one build.
 * - A version the logs carry for a pod labels that pod's build.
 *
 * Where the logs show no asset a page asked for, resolve() returns undefined, and the analysis
 * falls back to shell lengths (lengthIdentity).
 */

/** Asset paths followed per app; beyond this a new path teaches nothing (scanners' junk is bounded). */
const MAX_ASSETS = 20_000
/** Asset pairs counted per app. */
const MAX_PAIRS = 400_000
/** Pods followed per app. */
const MAX_PODS = 10_000
/** Assets remembered per pod. */
const MAX_POD_ASSETS = 4096
/** Assets remembered per page load (at most 30: a page load's signature is a bit per asset of a 32-bit integer). */
const MAX_PAGE_ASSETS = 24
/** An asset that this many pages of another build asked for with that build's assets is shared (a share of the pages, on a small site). */
const SHARED_PAGES = 3
const SHARED_SHARE = 0.05
/** An asset is core to its build when it and another come together in at least this share of the pages of each. */
const CORE_SHARE = 0.8
/** A shell length names a build when at least this share of its pages' own assets are of that build. */
const LENGTH_SHARE = 0.9

interface Times {
  n: number
  first: number
  last: number
}

interface AssetEvidence {
  path: string
  /** Page loads that asked for it (their shells' times); the recent ones of initial loads. */
  pages: Times
  pageRecent: number[]
  /** Answered with real content by no pod the logs name. */
  real: Times
}

interface PodEvidence {
  name: string
  /** Any response. */
  any: Times
  recent: number[]
  versions: Map<string, number>
  /** Shell responses (2xx with a body on a shell path or a route, every agent), read or counted (census.ts). */
  shells: number
  /** When the shells read were served. */
  shellTimes: Times
  /** The lengths of the shells it was read serving. */
  shellLengths: Map<number, Times>
  /** Initial assets of the page loads whose shell this pod served, by asset id. */
  pageAssets: Map<number, Times>
  /** Assets it answered with real content, by asset id. */
  realAssets: Map<number, Times>
}

const newTimes = (): Times => ({n: 0, first: Number.POSITIVE_INFINITY, last: Number.NEGATIVE_INFINITY})

function note(t: Times, time: number, n = 1): void {
  t.n += n
  if (time < t.first) t.first = time
  if (time > t.last) t.last = time
}

/** Keeps the last RECENT_EVIDENCE times of a stream in time order. */
function remember(recent: number[], time: number): void {
  const last = recent.at(-1)
  if (last !== undefined && time < last) return
  if (last === time) return
  if (recent.length === RECENT_EVIDENCE) recent.shift()
  recent.push(time)
}

/** What one app's logs show of its builds, gathered in time order. */
export class BuildEvidence implements AssetFit {
  private readonly assets: AssetEvidence[] = []
  private readonly assetIds = new Map<string, number>()
  /** Page loads that asked for both assets of a pair in their initial load. */
  private readonly together = new PairCounts()
  private readonly pods = new Map<string, PodEvidence>()
  /** Initial assets of page loads by the length of their shell. */
  private readonly lengths = new Map<number, Map<number, number>>()
  /** Versions seen on responses whose pod is not logged. */
  readonly versions = new Map<string, number>()

  private assetId(path: string): number | undefined {
    const id = this.assetIds.get(path)
    if (id !== undefined || this.assets.length >= MAX_ASSETS) return id
    const kept = detach(path)
    this.assetIds.set(kept, this.assets.length)
    this.assets.push({path: kept, pages: newTimes(), pageRecent: [], real: newTimes()})
    return this.assets.length - 1
  }

  private pod(name: string): PodEvidence | undefined {
    const p = this.pods.get(name)
    if (p !== undefined || this.pods.size >= MAX_PODS) return p
    const made: PodEvidence = {name: detach(name), any: newTimes(), recent: [], versions: new Map(), shells: 0, shellTimes: newTimes(), shellLengths: new Map(), pageAssets: new Map(), realAssets: new Map()}
    this.pods.set(made.name, made)
    return made
  }

  /** Any response of a pod (the pod was up and serving its build), with the version it carried. */
  response(upstream: string | undefined, time: number, version: string | undefined): void {
    if (!upstream) {
      if (version !== undefined) this.versions.set(detach(version), (this.versions.get(version) ?? 0) + 1)
      return
    }
    const p = this.pod(upstream)
    if (!p) return
    note(p.any, time)
    remember(p.recent, time)
    if (version !== undefined) p.versions.set(p.versions.has(version) ? version : detach(version), (p.versions.get(version) ?? 0) + 1)
  }

  /** A pod's name as kept here (one copy for every page load and failure that names it), else a copy of its own. */
  podName(upstream: string): string {
    return this.pods.get(upstream)?.name ?? detach(upstream)
  }

  /** An asset path as kept here (one copy for every failure of it), else a copy of its own. */
  assetPath(path: string): string {
    const id = this.assetIds.get(path)
    return id === undefined ? detach(path) : (this.assets[id] as AssetEvidence).path
  }

  /**
   * The pod of this app a census names, or undefined when none answered it. A pod facet's value may
   * be its address alone (`network.destination.ip`) where the logs name it with its port
   * (`upstream_addr`): then the one pod at that address.
   */
  podOf(value: string): string | undefined {
    if (this.pods.has(value)) return value
    let found: string | undefined
    for (const name of this.pods.keys()) {
      if (stripPort(name) !== value) continue
      if (found !== undefined) return undefined
      found = name
    }
    return found
  }

  /**
   * `n` shell-path responses of a pod (2xx with a body): read ones one by one, with their length and
   * time (a length that names one build names the pod's), counted ones (census.ts) by the bucket.
   */
  shells(upstream: string | undefined, n = 1, read?: {bytes: number; time: number}): void {
    const p = upstream ? this.pods.get(upstream) ?? this.pod(upstream) : undefined
    if (!p) return
    p.shells += n
    if (!read) return
    noteIn(p.shellLengths, read.bytes, read.time)
    note(p.shellTimes, read.time)
  }

  /** An asset answered with real content (not a shell, not an error): the answering pod has it. */
  real(path: string, upstream: string | undefined, time: number): void {
    const id = this.assetId(path)
    if (id === undefined) return
    if (!upstream) {
      note((this.assets[id] as AssetEvidence).real, time)
      return
    }
    const p = this.pod(upstream)
    if (p) noteIn(p.realAssets, id, time)
  }

  /**
   * An asset a page load asked for (whatever the answer: a page whose every asset failed still
   * names them), in its initial load or later (a lazy chunk): of the page's build. A later request
   * counts only when its session had no other page load then (`alone`: another tab may have asked);
   * a log stretched in time, or a slow client, makes initial requests look later. Only initial
   * loads time the build's serving near its end: a later chunk says when its tab's shell came, not
   * how often shells did.
   */
  pageAsset(pl: PageLoad, path: string, initial: boolean, alone: boolean): void {
    const id = this.assetId(path)
    if (id === undefined) return
    const n = pl.assetCount
    if (n >= MAX_PAGE_ASSETS || asked(pl, id)) return
    let ids = pl.assetIds
    if (ids === undefined) ids = pl.assetIds = [id, 0, 0, 0]
    else if (n === ids.length) ids = pl.assetIds = ids.concat(ids.slice(0, Math.min(n, MAX_PAGE_ASSETS - n)))
    ids[n] = id
    pl.assetCount = n + 1
    if (!initial && !alone) return
    const mine = pl.signature
    for (let i = 0; i < n; i++) if ((mine & (1 << i)) !== 0) this.together.bump(ids[i] as number, id)
    pl.signature = mine | (1 << n)
    const a = this.assets[id] as AssetEvidence
    note(a.pages, pl.time)
    if (initial) remember(a.pageRecent, pl.time)
    if (pl.shellPod !== undefined) {
      const p = this.pod(pl.shellPod)
      if (p) noteIn(p.pageAssets, id, pl.time)
    }
    if (pl.shellBytes !== undefined) {
      let byAsset = this.lengths.get(pl.shellBytes)
      if (!byAsset) this.lengths.set(pl.shellBytes, (byAsset = new Map()))
      if (byAsset.size < MAX_POD_ASSETS || byAsset.has(id)) byAsset.set(id, (byAsset.get(id) ?? 0) + 1)
    }
  }

  /**
   * Whether an asset request can be of a page load: unless most of what the page load asked for
   * was never asked for by one page together with this asset while the asset has been asked for by
   * pages before, or it asked for this very file already. A new page that asked for nothing yet
   * fits anything; which of a browser's tabs an asset request comes from.
   */
  fits(path: string, pl: PageLoad): boolean {
    const id = this.assetIds.get(path)
    if (id === undefined) return true
    // A document asks for a file once (a module that failed to load stays failed): a second request is another tab's.
    if (asked(pl, id)) return false
    const mine = pl.assetIds
    if (mine === undefined) return true
    const n = pl.assetCount
    const a = this.assets[id] as AssetEvidence
    if (a.pages.n === 0) return true
    let related = 0
    for (let i = 0; i < n; i++) if (this.together.get(mine[i] as number, id) > 0) related++
    return related * 2 >= n
  }

  /**
   * The builds the evidence shows, or undefined when it shows none (no page load asked for an asset
   * that was served): then shell lengths are all there is. `lengthBuilds`: the confirmed shell lengths.
   */
  resolve(lengthBuilds: readonly Build[]): BuildIdentity | undefined {
    // Assets some pod (or a response naming none) answered with real content: paths that exist.
    const served = new Set<number>()
    this.assets.forEach((a, id) => a.real.n > 0 && served.add(id))
    for (const p of this.pods.values()) for (const id of p.realAssets.keys()) served.add(id)
    // Only content-hashed names name a build: a path every build serves (`/main.js`) says nothing.
    const candidates = this.assets.map((a, id) => (a.pages.n > 0 && namesContent(a.path) && served.has(id) ? id : -1)).filter((id) => id >= 0)
    if (candidates.length === 0) return undefined
    const clusters = cluster(candidates, this.together, (id) => (this.assets[id] as AssetEvidence).path, (id) => (this.assets[id] as AssetEvidence).pages.n)
    const shared = sharedAssets(clusters, this.together, (id) => (this.assets[id] as AssetEvidence).pages.n)
    const groups = [...new Set(clusters.values())].map((members) => members.filter((id) => !shared.has(id))).filter((own) => own.length > 0)
    if (groups.length === 0) return undefined
    return new BuildIdentity(this, groups, shared, lengthBuilds)
  }

  /** For BuildIdentity: the evidence itself. */
  get view(): EvidenceView {
    return {assets: this.assets, pods: this.pods, together: this.together, lengths: this.lengths, assetIds: this.assetIds}
  }
}

interface EvidenceView {
  assets: readonly AssetEvidence[]
  pods: ReadonlyMap<string, PodEvidence>
  together: Pairs
  lengths: ReadonlyMap<number, ReadonlyMap<number, number>>
  assetIds: ReadonlyMap<string, number>
}

/** How many page loads asked for both assets of a pair (read side). */
interface Pairs {
  get(a: number, b: number): number
  /** Every pair counted: [lower id, higher id, page loads]. */
  entries(): Iterable<[number, number, number]>
}

/**
 * Page loads per pair of assets, by the lower id and then the higher: small-integer keys, where
 * one key of both ids (a double past 2^31) made every lookup hash a heap number, and `fits` does
 * a lookup per asset of every page load of a session for each asset request. At most `max` pairs.
 */
export class PairCounts implements Pairs {
  private readonly byLow = new Map<number, Map<number, number>>()
  private size = 0

  constructor(private readonly max = MAX_PAIRS) {}

  get(a: number, b: number): number {
    return (a < b ? this.byLow.get(a)?.get(b) : this.byLow.get(b)?.get(a)) ?? 0
  }

  bump(a: number, b: number): void {
    const low = a < b ? a : b
    const high = a < b ? b : a
    let m = this.byLow.get(low)
    const n = m?.get(high)
    if (n !== undefined) {
      m?.set(high, n + 1)
      return
    }
    if (this.size >= this.max) return
    if (!m) this.byLow.set(low, (m = new Map()))
    m.set(high, 1)
    this.size++
  }

  *entries(): IterableIterator<[number, number, number]> {
    for (const [a, m] of this.byLow) for (const [b, n] of m) yield [a, b, n]
  }
}

/** Whether a page load asked for the asset `id` already. */
function asked(pl: PageLoad, id: number): boolean {
  const ids = pl.assetIds
  if (ids === undefined) return false
  for (let i = 0; i < pl.assetCount; i++) if (ids[i] === id) return true
  return false
}

function noteIn(m: Map<number, Times>, id: number, time: number): void {
  let t = m.get(id)
  if (!t) {
    if (m.size >= MAX_POD_ASSETS) return
    m.set(id, (t = newTimes()))
  }
  note(t, time)
}

/**
 * Assets grouped into builds. Pairs asked for together most often join first. Two groups join when
 * more than half the pairs across them were asked for together by some page (a route's chunk or a web font
 * comes with only some of its build's pages, but with its build's entry), and never when they hold
 * two core assets that no page asked for together: a core asset comes with nearly every page of an
 * asset that comes with it nearly every time (entry, stylesheet), and two builds' entries never
 * share a page. Returns each asset's group.
 */
export function cluster(ids: readonly number[], together: Pairs, name: (id: number) => string, pages: (id: number) => number): Map<number, number[]> {
  const inSet = new Set(ids)
  // Ties broken by the paths, so the grouping never depends on the order evidence came in.
  const edges: {a: number; b: number; n: number; label: string}[] = []
  for (const [a, b, n] of together.entries()) {
    if (inSet.has(a) && inSet.has(b)) edges.push({a, b, n, label: [name(a), name(b)].sort().join('\n')})
  }
  const co = (x: number, y: number): number => together.get(x, y)
  const core = coreAssets(together, inSet, pages)
  edges.sort((x, y) => y.n - x.n || cmpText(x.label, y.label))
  const group = new Map<number, number[]>(ids.map((id) => [id, [id]]))
  for (const {a, b} of edges) {
    const ga = group.get(a) as number[]
    const gb = group.get(b) as number[]
    if (ga === gb) continue
    let with_ = 0
    let apart = false
    for (const x of ga) {
      for (const y of gb) {
        if (co(x, y) > 0) with_++
        else if (core.has(x) && core.has(y)) apart = true
      }
    }
    if (apart || with_ * 2 <= ga.length * gb.length) continue
    const merged = [...ga, ...gb]
    for (const id of merged) group.set(id, merged)
  }
  // A group with no core asset (a chunk only some pages ask for, split off) is part of the build
  // whose assets it came with most, of none when it came with none; when no group has a core
  // asset, every group is a build.
  const distinct = [...new Set(group.values())]
  const builds = distinct.filter((g) => g.some((id) => core.has(id)))
  if (builds.length === 0) return group
  for (const g of distinct) {
    if (builds.includes(g)) continue
    let best: number[] | undefined
    let most = 0
    for (const b of builds) {
      let n = 0
      for (const x of g) for (const y of b) n += co(x, y)
      if (n > most) [best, most] = [b, n]
    }
    // Asked for with no build's assets (a chunk only tabs of unknown build loaded): of no build.
    if (!best) {
      for (const id of g) group.delete(id)
      continue
    }
    best.push(...g)
    for (const id of g) group.set(id, best)
  }
  return group
}

/**
 * Core assets: two that come together in nearly every page of each (an entry and its stylesheet).
 * A build's core is asked for by all its fresh page loads; a route's chunk or a web font is not.
 */
function coreAssets(together: Pairs, ids: ReadonlySet<number>, pages: (id: number) => number): Set<number> {
  const core = new Set<number>()
  for (const [a, b, n] of together.entries()) {
    if (ids.has(a) && ids.has(b) && n >= CORE_SHARE * pages(a) && n >= CORE_SHARE * pages(b)) core.add(a).add(b)
  }
  return core
}

/**
 * Assets two groups share: an asset asked for together with most of another group's assets (often
 * enough not to be chance), while some other asset of its own group never was with them: it
 * bridges two builds (an unchanged vendor chunk), where a build's own asset is asked for with at
 * most the shared ones of another.
 */
function sharedAssets(groups: ReadonlyMap<number, number[]>, together: Pairs, pages: (id: number) => number): Set<number> {
  const shared = new Set<number>()
  const co = (x: number, y: number): number => together.get(x, y)
  const distinct = [...new Set(groups.values())]
  for (const [id, mine] of groups) {
    for (const theirs of distinct) {
      if (theirs === mine) continue
      const with_ = theirs.filter((y) => co(id, y) > 0)
      if (with_.length * 2 <= theirs.length) continue
      // By more pages than one tab's request taken for another's would make: a few (a chunk the new
      // build kept is fetched only by its new visitors, the rest have it cached), fewer on a small site.
      const perAsset = with_.reduce((n, y) => n + co(id, y), 0) / with_.length
      const theirPages = Math.max(...theirs.map(pages))
      if (perAsset < Math.max(1, Math.min(SHARED_PAGES, SHARED_SHARE * Math.min(pages(id), theirPages)))) continue
      if (mine.some((x) => x !== id && theirs.some((y) => co(x, y) === 0))) {
        shared.add(id)
        break
      }
    }
  }
  return shared
}

/** When a pod address served which build: one segment per build, in time order. */
interface PodSegment {
  build: Build
  first: number
  last: number
}

/** The answers, once the stream is read: the builds, and which build a page, a pod, an asset is of. */
export class BuildIdentity {
  readonly builds: Build[]
  private readonly assetBuild = new Map<number, Build>()
  private readonly podSegments = new Map<string, PodSegment[]>()
  private readonly lengthBuild = new Map<number, Build>()
  private readonly ownerCache = new Map<string, Build | null | undefined>()
  private readonly pageCache = new WeakMap<PageLoad, Build | null>()

  constructor(private readonly evidence: BuildEvidence, groups: readonly number[][], private readonly shared: ReadonlySet<number>, lengthBuilds: readonly Build[]) {
    const {assets, pods, lengths} = evidence.view
    const firstOf = (own: readonly number[]): number => Math.min(...own.map((id) => Math.min((assets[id] as AssetEvidence).pages.first, (assets[id] as AssetEvidence).real.first)))
    const entryOf = (own: readonly number[]): string => own.map((id) => (assets[id] as AssetEvidence).path).sort(byEntry)[0] as string
    const ordered = [...groups].sort((a, b) => firstOf(a) - firstOf(b) || cmpText(entryOf(a), entryOf(b)))
    this.builds = ordered.map((own, i) => {
      const paths = own.map((id) => (assets[id] as AssetEvidence).path).sort(byEntry)
      const b: Build = {
        index: i, number: i + 1, shellBytes: 0, aheadCount: 0, aheadFirst: Number.POSITIVE_INFINITY, aheadLast: Number.NEGATIVE_INFINITY,
        firstSeen: Number.POSITIVE_INFINITY, lastSeen: Number.NEGATIVE_INFINITY, shellRequests: 0,
        firstServed: Number.POSITIVE_INFINITY, lastServed: Number.NEGATIVE_INFINITY, recent: [], versions: new Map(), pods: new Set(),
        identity: {entry: paths[0] as string, assets: paths, shellLengths: []},
      }
      for (const id of own) this.assetBuild.set(id, b)
      return b
    })

    // Pages of each build: their shells' times.
    for (const b of this.builds) {
      const own = [...this.assetBuild].filter(([, x]) => x === b).map(([id]) => assets[id] as AssetEvidence)
      const recent: number[] = []
      for (const a of own) {
        if (a.pages.n > 0) {
          b.firstSeen = Math.min(b.firstSeen, a.pages.first)
          b.lastSeen = Math.max(b.lastSeen, a.pages.last)
          b.shellRequests = Math.max(b.shellRequests, a.pages.n)
        }
        // An asset answered with real content shows a pod that has it, not a pod of its build (old assets kept).
        recent.push(...a.pageRecent)
      }
      if (Number.isFinite(b.firstSeen)) served(b, b.firstSeen, b.lastSeen)
      b.recent = recent
    }

    // Shell lengths: every length a build's pages had (at least a tenth of them); a length names a
    // build when its pages are nearly all of that build.
    const pagesOf = new Map<Build, number>()
    const votesBy = new Map<number, Map<Build, number>>()
    for (const [bytes, byAsset] of lengths) {
      const votes = new Map<Build, number>()
      for (const [id, n] of byAsset) {
        const b = this.shared.has(id) ? undefined : this.assetBuild.get(id)
        if (b) votes.set(b, (votes.get(b) ?? 0) + n)
      }
      votesBy.set(bytes, votes)
      for (const [b, n] of votes) pagesOf.set(b, (pagesOf.get(b) ?? 0) + n)
      const total = [...votes.values()].reduce((x, y) => x + y, 0)
      const [best] = [...votes].sort((x, y) => y[1] - x[1])
      if (best && best[1] >= LENGTH_SHARE * total) this.lengthBuild.set(bytes, best[0])
    }
    // Pods: the builds of the pages their shells started, else of the assets they served.
    const podShells = new Map<Build, number>()
    const podShellTimes = new Map<Build, Times>()
    const stretches = new Map<Build, ServedSpan[]>()
    for (const p of pods.values()) {
      const segments = this.segmentsOf(p)
      if (segments.length === 0) continue
      this.podSegments.set(p.name, segments)
      segments.forEach((s, i) => {
        const from = i === 0 ? Math.min(p.any.first, s.first) : s.first
        const to = i === segments.length - 1 ? Math.max(p.any.last, s.last) : s.last
        served(s.build, from, to)
        stretches.set(s.build, [...(stretches.get(s.build) ?? []), {first: from, last: to}])
        s.build.pods.add(p.name)
        if (i === segments.length - 1) {
          s.build.recent.push(...p.recent)
          podShells.set(s.build, (podShells.get(s.build) ?? 0) + p.shells)
        }
        // Its first and last shells, in the stretches they fell in.
        const t = p.shellTimes
        for (const time of [t.first, t.last]) {
          if (!Number.isFinite(time) || (segments.length > 1 && (time < from || time > to))) continue
          let times = podShellTimes.get(s.build)
          if (!times) podShellTimes.set(s.build, (times = newTimes()))
          note(times, time, 0)
        }
        if (segments.length === 1) for (const [v, n] of p.versions) s.build.versions.set(v, (s.build.versions.get(v) ?? 0) + n)
      })
    }
    // With no pod logged, a version seen on every response belongs to the one build there is.
    if (this.builds.length === 1 && pods.size === 0) for (const [v, n] of evidence.versions) this.builds[0]?.versions.set(v, n)

    const confirmed = new Map(lengthBuilds.map((b) => [b.shellBytes, b]))
    for (const [bytes, votes] of [...votesBy].sort((x, y) => x[0] - y[0])) {
      for (const [b, n] of votes) if (n >= 0.1 * (pagesOf.get(b) ?? 0)) b.identity?.shellLengths.push(bytes)
    }
    for (const b of this.builds) {
      // The length most of its pages had.
      b.shellBytes = [...(b.identity?.shellLengths ?? [])].sort((x, y) => (votesBy.get(y)?.get(b) ?? 0) - (votesBy.get(x)?.get(b) ?? 0) || x - y)[0] ?? 0
    }
    // A shell length that names one build: what the logs showed of that length (its shells, its
    // fallback bodies, the pods that served it) was that build answering.
    const lengthShells = new Map<Build, number>()
    for (const [bytes, b] of this.lengthBuild) {
      const l = confirmed.get(bytes)
      if (!l || !Number.isFinite(l.firstServed)) continue
      served(b, l.firstServed, l.lastServed)
      b.recent.push(...l.recent)
      lengthShells.set(b, (lengthShells.get(b) ?? 0) + l.shellRequests)
      // Its shells as judged (every agent's, routes too), where its length tells them.
      if (Number.isFinite(l.firstSeen)) [b.firstSeen, b.lastSeen] = [Math.min(b.firstSeen, l.firstSeen), Math.max(b.lastSeen, l.lastSeen)]
      for (const [v, n] of l.versions) if (b.pods.size === 0) b.versions.set(v, (b.versions.get(v) ?? 0) + n)
    }
    // Stretches of being served, where its pods show gaps (a build rolled back to is served again).
    for (const [b, list] of stretches) {
      const spans = mergeSpans(list)
      if (spans.length < 2) continue
      ;(spans[0] as ServedSpan).first = Math.min((spans[0] as ServedSpan).first, b.firstServed)
      ;(spans.at(-1) as ServedSpan).last = Math.max((spans.at(-1) as ServedSpan).last, b.lastServed)
      b.spans = spans
    }
    for (const b of this.builds) {
      // Shell responses: those of its own lengths, else its pods' (a live pull counts both on
      // Datadog's side); with no pod logged and lengths all builds share, its pages' shells.
      const counted = lengthShells.get(b) ?? podShells.get(b)
      if (counted !== undefined) b.shellRequests = counted
      // Where no length of its own tells its shells, its pods' shells do (every agent's, as a length's).
      const shellTimes = lengthShells.has(b) ? undefined : podShellTimes.get(b)
      if (shellTimes) [b.firstSeen, b.lastSeen] = [Math.min(b.firstSeen, shellTimes.first), Math.max(b.lastSeen, shellTimes.last)]
      b.aheadCount = b.shellRequests
      b.recent = [...new Set(b.recent)].filter((t) => t <= b.lastServed).sort((x, y) => x - y).slice(-RECENT_EVIDENCE)
      b.aheadFirst = b.firstServed
      b.aheadLast = b.lastServed
      if (!Number.isFinite(b.firstSeen)) [b.firstSeen, b.lastSeen] = [b.firstServed, b.lastServed]
    }
  }

  /**
   * A page of build `page` had an asset refused at `time` (a fallback body, a 404) by a pod the logs
   * do not name: a pod of another build answered. When no other build is known to be served then,
   * the one nearest in time (the build it replaced, or the one replacing it) was, a little longer or
   * a little earlier than the rest of the logs show: returns it, its serving time extended.
   */
  refused(page: Build, time: number, servedAt: (b: Build, t: number) => boolean): Build | undefined {
    const others = this.builds.filter((b) => b !== page)
    if (others.some((b) => servedAt(b, time))) return undefined
    const away = (b: Build): number => (time < b.firstServed ? b.firstServed - time : time > b.lastServed ? time - b.lastServed : 0)
    const [nearest] = others.sort((a, b) => away(a) - away(b) || (a.number ?? 0) - (b.number ?? 0))
    if (!nearest) return undefined
    served(nearest, time, time)
    if (nearest.spans) {
      const [span] = [...nearest.spans].sort((a, b) => gap(a, time) - gap(b, time))
      if (span) [span.first, span.last] = [Math.min(span.first, time), Math.max(span.last, time)]
    }
    if (time > (nearest.recent.at(-1) ?? Number.NEGATIVE_INFINITY)) nearest.recent = [...nearest.recent, time].slice(-RECENT_EVIDENCE)
    return nearest
  }

  /** What told the builds apart (see BuildEvidenceReport). */
  toldBy(): BuildEvidenceReport {
    return {
      assets: true, pods: this.builds.some((b) => b.pods.size > 0), versions: this.builds.some((b) => b.versions.size > 0),
      shellLengths: this.builds.every((b) => b.identity?.shellLengths.some((l) => this.lengthBuild.get(l) === b)),
    }
  }

  /** The build of a shell length, when one build's pages alone had it. */
  byLength(bytes: number): Build | undefined {
    return this.lengthBuild.get(bytes)
  }

  /** The build a pod served at `time` (an address reused by a new pod serves another build later). */
  podBuildAt(upstream: string | undefined, time: number): Build | undefined {
    if (!upstream) return undefined
    const segments = this.podSegments.get(upstream)
    if (!segments) return undefined
    // Within a segment, its build; between two, the nearer (the new pod's first pages may come a little after its first answers).
    let at = segments[0]
    for (const s of segments) if (gap(s, time) < gap(at as PodSegment, time)) at = s
    return at?.build
  }

  /**
   * The build of a page load: the build most of its own initial assets are of; a page that asked
   * for none the logs place (all cached) is of its shell pod's build, or of its shell's length.
   */
  pageBuild(pl: PageLoad): Build | undefined {
    const cached = this.pageCache.get(pl)
    if (cached !== undefined) return cached ?? undefined
    let build: Build | undefined
    const ids = pl.assetIds
    if (ids) {
      const votes = new Map<Build, number>()
      for (let i = 0; i < pl.assetCount; i++) {
        const id = ids[i] as number
        const b = this.shared.has(id) ? undefined : this.assetBuild.get(id)
        if (b) votes.set(b, (votes.get(b) ?? 0) + 1)
      }
      const ranked = [...votes].sort((x, y) => y[1] - x[1])
      if (ranked[0] && ranked[0][1] > (ranked[1]?.[1] ?? 0)) build = ranked[0][0]
    }
    build ??= this.podBuildAt(pl.shellPod, pl.time) ?? (pl.shellBytes === undefined ? undefined : this.byLength(pl.shellBytes))
    this.pageCache.set(pl, build ?? null)
    return build
  }

  /**
   * The build an asset path belongs to: its own build; for an asset no page placed, the build of
   * the pods that served it; null when several builds have it (a shared chunk), undefined when the
   * logs do not tell.
   */
  owner(path: string): Build | null | undefined {
    if (this.ownerCache.has(path)) return this.ownerCache.get(path)
    const {assetIds, pods} = this.evidence.view
    const id = assetIds.get(path)
    let owner: Build | null | undefined
    if (id !== undefined) {
      if (this.shared.has(id)) owner = null
      else owner = this.assetBuild.get(id)
      if (owner === undefined) {
        const builds = new Set<Build>()
        for (const p of pods.values()) {
          const t = p.realAssets.get(id)
          const b = t ? this.podBuildAt(p.name, t.first) : undefined
          if (b) builds.add(b)
        }
        owner = builds.size === 1 ? [...builds][0] : builds.size > 1 ? null : undefined
      }
    }
    this.ownerCache.set(path, owner)
    return owner
  }

  /** A pod's builds over time, from the pages its shells started, else from the assets it served. */
  private segmentsOf(p: PodEvidence): PodSegment[] {
    const from = (m: ReadonlyMap<number, Times>): PodSegment[] => {
      const byBuild = new Map<Build, PodSegment>()
      for (const [id, t] of m) {
        const b = this.shared.has(id) ? undefined : this.assetBuild.get(id)
        if (!b) continue
        const s = byBuild.get(b)
        if (s) [s.first, s.last] = [Math.min(s.first, t.first), Math.max(s.last, t.last)]
        else byBuild.set(b, {build: b, first: t.first, last: t.last})
      }
      return [...byBuild.values()].sort((a, b) => a.first - b.first)
    }
    const byPages = from(p.pageAssets)
    if (byPages.length > 0) return disjoint(byPages)
    // Its shells' lengths, where a length is one build's alone (a live pull reads a pod's first shell of each length).
    const byLengths: PodSegment[] = []
    for (const [bytes, t] of p.shellLengths) {
      const b = this.lengthBuild.get(bytes)
      if (b) byLengths.push({build: b, first: t.first, last: t.last})
    }
    if (byLengths.length > 0) return disjoint(byLengths.sort((a, b) => a.first - b.first))
    const byAssets = from(p.realAssets)
    // A pod that also serves an older build's files (old assets kept) serves the newest of them.
    if (byAssets.length > 1 && !isDisjoint(byAssets)) return [{...(byAssets.sort((a, b) => (b.build.number ?? 0) - (a.build.number ?? 0))[0] as PodSegment), first: Math.min(...byAssets.map((s) => s.first)), last: Math.max(...byAssets.map((s) => s.last))}]
    return byAssets
  }
}

/** Segments that overlap are one pod serving the build most of them name; ones in sequence are a reused address. */
function disjoint(segments: PodSegment[]): PodSegment[] {
  if (isDisjoint(segments)) return segments
  const main = segments.reduce((a, b) => (b.last - b.first > a.last - a.first ? b : a))
  return [{build: main.build, first: Math.min(...segments.map((s) => s.first)), last: Math.max(...segments.map((s) => s.last))}]
}

function isDisjoint(segments: readonly PodSegment[]): boolean {
  for (let i = 1; i < segments.length; i++) if ((segments[i] as PodSegment).first <= (segments[i - 1] as PodSegment).last) return false
  return true
}

/** Spans that overlap (or touch within a second, the coarsest log resolution) joined, in time order. */
function mergeSpans(list: readonly ServedSpan[]): ServedSpan[] {
  const out: ServedSpan[] = []
  for (const s of [...list].sort((a, b) => a.first - b.first)) {
    const last = out.at(-1)
    if (last && s.first <= last.last + 1000) last.last = Math.max(last.last, s.last)
    else out.push({...s})
  }
  return out
}

const gap = (s: ServedSpan, t: number): number => (t < s.first ? s.first - t : t > s.last ? t - s.last : 0)

function served(b: Build, from: number, to: number): void {
  if (from < b.firstServed) b.firstServed = from
  if (to > b.lastServed) b.lastServed = to
}

/** A build's entry first: scripts before stylesheets, an `index`/`main`/`app` bundle before others, then by path. */
function byEntry(a: string, b: string): number {
  return rank(a) - rank(b) || cmpText(a, b)
}

function rank(path: string): number {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase()
  const script = /\.(?:m?js|cjs)$/.test(name) ? 0 : 2
  return script + (/^(?:index|main|app|entry)[.\-_]/.test(name) ? 0 : 1)
}

function cmpText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * The answers from shell lengths alone, for logs that show no asset a page asked for: each
 * confirmed length is a build, and a page or an asset is of the build its length or pages named.
 */
export function lengthIdentity(builds: readonly Build[], owners: ReadonlyMap<string, Build | null | undefined>): Pick<BuildIdentity, 'builds' | 'pageBuild' | 'owner' | 'podBuildAt' | 'byLength' | 'toldBy'> {
  const confirmed = (b: Build | undefined): Build | undefined => (b?.number === undefined ? undefined : b)
  return {
    builds: [...builds],
    toldBy: () => ({assets: false, pods: builds.some((b) => b.pods.size > 0), versions: builds.some((b) => b.versions.size > 0), shellLengths: builds.length > 0}),
    pageBuild: (pl) => confirmed(pl.build),
    owner: (path) => {
      const o = owners.get(path)
      return o === null ? null : confirmed(o)
    },
    podBuildAt: () => undefined,
    byLength: (bytes) => builds.find((b) => b.shellBytes === bytes),
  }
}

export type Identity = ReturnType<typeof lengthIdentity>

