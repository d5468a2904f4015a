/**
 * Pure planning of a pull: which time windows hold candidate failures, and how a range is cut into
 * slices that are pulled concurrently. Times are epoch ms; ranges are [from, to).
 */
import type {TimeRange} from '../../model/time-range'
import {looksHashed} from '../../util/hashed-name'

/** Event counts per time bucket, from the aggregate API (bucket start → count). */
export interface BucketCounts {
  bucketMs: number
  counts: ReadonlyMap<number, number>
  /**
   * Set only when these are the counts of the very query the slices will search (same scope),
   * every event of it counted in its bucket: the range they were counted over. A slice holding
   * every bucket it touches whole (as far as that range reaches) then knows its events exactly.
   */
  exact?: TimeRange
}

export interface Slice extends TimeRange {
  /** Upper bound of the events it holds, when counts were known. */
  estimate?: number
  /** This slice's own query, when it differs from its stream's (the pod edges). */
  query?: string
  /**
   * Exactly the events its search returns (an aggregate count of the same query, scope and times;
   * puller.ts SliceTask): set only where the plan knows it, never taken from `estimate`.
   */
  count?: number
}

/**
 * The windows to pull asset requests from: every bucket holding a candidate failure, widened by
 * `padBeforeMs` (the page load behind a failure started up to one horizon earlier, and the requests
 * in between keep it alive) and `padAfterMs`, clipped to the range, overlapping ones merged.
 */
export function planWindows(candidateBuckets: readonly number[], bucketMs: number, padBeforeMs: number, padAfterMs: number, range: TimeRange): TimeRange[] {
  const raw = [...candidateBuckets].sort((a, b) => a - b)
    .map((b) => ({from: Math.max(range.from, b - padBeforeMs), to: Math.min(range.to, b + bucketMs + padAfterMs)}))
    .filter((w) => w.to > w.from)
  const out: TimeRange[] = []
  for (const w of raw) {
    const last = out[out.length - 1]
    if (last && w.from <= last.to) last.to = Math.max(last.to, w.to)
    else out.push({...w})
  }
  return out
}

export interface SliceOptions {
  /** Cut a slice once it holds about this many events (by the counts). */
  targetEvents: number
  /** Without counts: the longest slice. */
  maxSliceMs: number
}

/**
 * Cuts each range into slices: by the counts when known (each slice holds about `targetEvents`, a
 * bucket busier than that is cut evenly), else by time. A slice that is not counted exactly costs
 * one extra request (the empty page that ends a cursor), so slices are only as many as concurrency
 * and memory call for.
 */
export function planSlices(ranges: readonly TimeRange[], counts: BucketCounts | undefined, opts: SliceOptions): Slice[] {
  const out: Slice[] = []
  for (const r of ranges) {
    if (r.to <= r.from) continue
    if (!counts) {
      const n = Math.min(MAX_SLICES, Math.max(1, Math.ceil((r.to - r.from) / opts.maxSliceMs)))
      for (let i = 0; i < n; i++) out.push({from: cut(r, i, n), to: cut(r, i + 1, n)})
      continue
    }
    out.push(...slicesByCounts(r, counts, opts.targetEvents))
  }
  return out
}

/** Slices of a range cut by time: a range of years is cut into longer slices, not into millions. */
const MAX_SLICES = 1024

function cut(r: TimeRange, i: number, n: number): number {
  return i === n ? r.to : r.from + Math.floor(((r.to - r.from) * i) / n)
}

function slicesByCounts(r: TimeRange, {bucketMs, counts, exact: counted}: BucketCounts, target: number): Slice[] {
  // Exact only inside the range counted: beyond it, events no count saw.
  const exact = counted !== undefined && r.from >= counted.from && r.to <= counted.to ? counted : undefined
  const out: Slice[] = []
  let start = r.from
  let acc = 0
  // What the slice being cut holds exactly: the sum of its whole buckets' counts, until a bucket
  // it holds only a part of (a range edge inside a bucket) makes it an estimate.
  let whole: number | undefined = 0
  const push = (s: Slice, n: number | undefined): void => {
    out.push(n === undefined ? s : {...s, count: n})
  }
  // The part of bucket b the counts cover: a slice holding all of it knows its events exactly.
  const covered = (b: number, from: number, to: number): boolean => exact !== undefined && from <= Math.max(b, exact.from) && to >= Math.min(b + bucketMs, exact.to)
  // Only the buckets that hold events: a range of years costs what its counts hold, not its length.
  const first = Math.floor(r.from / bucketMs) * bucketMs
  const buckets = [...counts.keys()].filter((b) => b >= first && b < r.to && (b - first) % bucketMs === 0).sort((a, b) => a - b)
  for (const b of buckets) {
    const from = Math.max(b, r.from)
    const to = Math.min(b + bucketMs, r.to)
    // A bucket partly inside the range counts in proportion (an estimate, used for cutting and ETA).
    const n = ((counts.get(b) ?? 0) * (to - from)) / bucketMs
    const exactly = covered(b, from, to) ? (counts.get(b) ?? 0) : undefined
    if (n > target) {
      if (from > start) push({from: start, to: from, estimate: Math.ceil(acc)}, whole)
      // Cut evenly inside a bucket: each part's share is an estimate.
      const parts = Math.ceil(n / target)
      for (let i = 0; i < parts; i++) out.push({from: cut({from, to}, i, parts), to: cut({from, to}, i + 1, parts), estimate: Math.ceil(n / parts)})
      start = to
      acc = 0
      whole = 0
      continue
    }
    acc += n
    whole = whole === undefined || exactly === undefined ? undefined : whole + exactly
    if (acc >= target) {
      push({from: start, to, estimate: Math.ceil(acc)}, whole)
      start = to
      acc = 0
      whole = 0
    }
  }
  // Buckets the counts list nothing for hold nothing: the last slice's empty tail changes no count.
  if (start < r.to) push({from: start, to: r.to, estimate: Math.ceil(acc)}, whole)
  return out
}

/** A bucket size for per-bucket counts over a range: at most ~1440 buckets, at least a minute. */
export function bucketFor(rangeMs: number): {ms: number; interval: string} {
  const sizes: [number, string][] = [[60_000, '1m'], [300_000, '5m'], [600_000, '10m'], [900_000, '15m'], [1_800_000, '30m'], [3_600_000, '1h'], [7_200_000, '2h'], [14_400_000, '4h'], [43_200_000, '12h'], [86_400_000, '1d']]
  for (const [ms, interval] of sizes) if (rangeMs / ms <= 1440) return {ms, interval}
  return {ms: 86_400_000, interval: '1d'}
}

/**
 * The time a pod's first response and its last `tail` responses fall in, from its requests per
 * bucket: its first non-empty bucket, and the last buckets back to where they hold `tail` requests.
 */
export function podEdges(counts: ReadonlyMap<number, number>, bucketMs: number, tail: number, range: TimeRange): TimeRange[] {
  const times = [...counts].filter(([, n]) => n > 0).map(([t]) => t).sort((a, b) => a - b)
  if (times.length === 0) return []
  let start = times.length - 1
  for (let acc = 0; start > 0; start--) {
    acc += counts.get(times[start] as number) ?? 0
    if (acc >= tail) break
  }
  const first = times[0] as number
  const edges = [{from: first, to: first + bucketMs}, {from: times[start] as number, to: (times[times.length - 1] as number) + bucketMs}]
  return mergeRanges(edges.map((e) => ({from: Math.max(range.from, e.from), to: Math.min(range.to, e.to)})).filter((e) => e.to > e.from))
}

/** One stretch of the pods' edges: which pods have an edge there, and whether it lies in an asset window. */
export interface EdgeSlice extends TimeRange {
  pods: string[]
  inWindow: boolean
}

/**
 * The pods' edges cut where the set of pods or the window changes, adjacent stretches with the
 * same pods and window merged: each becomes one slice with its own query.
 */
export function edgeSlices(pods: readonly {value: string; edges: readonly TimeRange[]}[], windows: readonly TimeRange[] | undefined): EdgeSlice[] {
  const cuts = new Set<number>()
  for (const p of pods) for (const e of p.edges) cuts.add(e.from).add(e.to)
  for (const w of windows ?? []) cuts.add(w.from).add(w.to)
  const points = [...cuts].sort((a, b) => a - b)
  const inside = (rs: readonly TimeRange[], t: number): boolean => rs.some((r) => t >= r.from && t < r.to)
  const out: EdgeSlice[] = []
  for (let i = 0; i + 1 < points.length; i++) {
    const from = points[i] as number
    const to = points[i + 1] as number
    const here = pods.filter((p) => inside(p.edges, from)).map((p) => p.value)
    if (here.length === 0) continue
    const inWindow = windows !== undefined && inside(windows, from)
    const last = out[out.length - 1]
    if (last && last.to === from && last.inWindow === inWindow && last.pods.join('\n') === here.join('\n')) last.to = to
    else out.push({from, to, pods: here, inWindow})
  }
  return out
}

/**
 * Edge slices joined while the joined one would still hold at most `limit` events (by
 * `estimate`, an upper bound): every slice costs a request of its own at least (a page, and the
 * empty one ending its cursor where it is not counted), and a pod's edges are short, so one slice
 * for many of them saves requests. A
 * joined slice reads each of its pods over the whole joined time, which holds nothing outside that
 * pod's life (its edges are its first and last responses): the builds seen stay the same. Only
 * slices on the same side of the windows are joined, with no window between them, so the asset
 * stream's events are never read twice.
 */
export function joinEdgeSlices(slices: readonly EdgeSlice[], windows: readonly TimeRange[] | undefined, estimate: (pods: readonly string[], from: number, to: number) => number, limit: number): EdgeSlice[] {
  const out: EdgeSlice[] = []
  const crossesWindow = (from: number, to: number): boolean => (windows ?? []).some((w) => w.from < to && w.to > from)
  for (const s of slices) {
    const last = out[out.length - 1]
    if (last && last.inWindow === s.inWindow && (s.inWindow || !crossesWindow(last.to, s.from))) {
      const pods = [...new Set([...last.pods, ...s.pods])].sort()
      if (estimate(pods, last.from, s.to) <= limit) {
        last.to = s.to
        last.pods = pods
        continue
      }
    }
    out.push({...s, pods: [...s.pods]})
  }
  return out
}

function mergeRanges(ranges: TimeRange[]): TimeRange[] {
  const out: TimeRange[] = []
  for (const r of [...ranges].sort((a, b) => a.from - b.from)) {
    const last = out[out.length - 1]
    if (last && r.from <= last.to) last.to = Math.max(last.to, r.to)
    else out.push({...r})
  }
  return out
}

/**
 * The buckets (start times) whose page requests a pull reads when it counts the rest: every bucket
 * a window overlaps, and every bucket an edge overlaps with the one before and after it (the
 * analysis learns shells a bucket ahead of judging, and widens deploy windows by a margin).
 */
export function readBuckets(windows: readonly TimeRange[], edges: readonly TimeRange[], bucketMs: number, range: TimeRange): Set<number> {
  const out = new Set<number>()
  const add = (from: number, to: number, pad: number): void => {
    const first = Math.floor(from / bucketMs) * bucketMs - pad * bucketMs
    for (let t = first; t < to + pad * bucketMs; t += bucketMs) if (t + bucketMs > range.from && t < range.to) out.add(t)
  }
  for (const w of windows) if (w.to > w.from) add(w.from, w.to, 0)
  for (const e of edges) add(e.from, Math.max(e.to, e.from + 1), 1)
  return out
}

/** Buckets as time ranges, adjacent ones joined, clipped to the range. */
export function bucketRanges(buckets: ReadonlySet<number>, bucketMs: number, range: TimeRange): TimeRange[] {
  const out: TimeRange[] = []
  for (const t of [...buckets].sort((a, b) => a - b)) {
    const from = Math.max(range.from, t)
    const to = Math.min(range.to, t + bucketMs)
    if (to <= from) continue
    const last = out[out.length - 1]
    if (last && last.to >= from) last.to = Math.max(last.to, to)
    else out.push({from, to})
  }
  return out
}

/** Where the requests of some clients are read: a time range and the clients whose windows overlap in it. */
export interface ClientWindow extends TimeRange {
  clients: string[]
}

/**
 * The windows of each client (its candidate buckets padded as planWindows does), overlapping ones
 * of any clients merged, each with the clients it covers (sorted).
 */
export function clientWindows(byClient: ReadonlyMap<string, readonly number[]>, bucketMs: number, padBeforeMs: number, padAfterMs: number, range: TimeRange): ClientWindow[] {
  const all = [...byClient].flatMap(([client, buckets]) => planWindows(buckets, bucketMs, padBeforeMs, padAfterMs, range).map((w) => ({...w, client})))
    .sort((a, b) => a.from - b.from || (a.client < b.client ? -1 : 1))
  const out: (TimeRange & {set: Set<string>})[] = []
  for (const w of all) {
    const last = out[out.length - 1]
    if (last && w.from <= last.to) {
      last.to = Math.max(last.to, w.to)
      last.set.add(w.client)
    } else out.push({from: w.from, to: w.to, set: new Set([w.client])})
  }
  return out.map((w) => ({from: w.from, to: w.to, clients: [...w.set].sort()}))
}

/**
 * The failure-looking asset paths the analysis can only take for scanners' guesses: no response
 * answered them with real content in the range (`served`, the paths that were), and their names
 * carry no content hash (attribute.ts also takes a hashed-looking name beside served files for a
 * build's missing file, which paths alone cannot tell).
 */
export function junkPaths(candidatePaths: Iterable<string>, served: ReadonlySet<string>): Set<string> {
  const out = new Set<string>()
  for (const p of candidatePaths) if (!served.has(p) && !looksHashed(p)) out.add(p)
  return out
}

/**
 * The buckets where every failure-looking request is at a junk path: their clients are the only
 * ones whose page loads decide whether those buckets need a window.
 */
export function junkOnlyBuckets(byPath: ReadonlyMap<string, readonly number[]>, junk: ReadonlySet<string>, bucketMs: number): Set<number> {
  return onlyBuckets(byPath, (p) => junk.has(p), bucketMs)
}

/** The clients with a failure-looking request in any of these buckets, sorted. */
export function clientsIn(byClient: ReadonlyMap<string, readonly number[]>, buckets: ReadonlySet<number>, bucketMs: number): string[] {
  const out: string[] = []
  for (const [client, times] of byClient) if (times.some((t) => buckets.has(align(t, bucketMs)))) out.push(client)
  return out.sort()
}

/**
 * The candidate buckets no window needs: every failure-looking request in them is at a junk path
 * AND from a scanner (a client never answered real content on any asset path, whose requests there
 * name no session of their own). attribute.ts counts such a request as a scanner's whatever the
 * pull reads around it: its path is unknown, and its page load (the client's, by address and agent)
 * got no real asset. A bucket either grouping lacks is kept.
 */
export function scannerBuckets(byPath: ReadonlyMap<string, readonly number[]>, byClient: ReadonlyMap<string, readonly number[]>, junk: ReadonlySet<string>, scanners: ReadonlySet<string>, bucketMs: number): Set<number> {
  const paths = junkOnlyBuckets(byPath, junk, bucketMs)
  const clients = onlyBuckets(byClient, (c) => scanners.has(c), bucketMs)
  return new Set([...paths].filter((b) => clients.has(b)))
}

/** Times (candidate buckets, as the aggregate gave them) outside the dropped buckets. */
export function withoutBuckets(times: readonly number[], dropped: ReadonlySet<number>, bucketMs: number): number[] {
  return dropped.size === 0 ? [...times] : times.filter((t) => !dropped.has(align(t, bucketMs)))
}

/** Buckets where every group holding a request passes `ok`. */
function onlyBuckets(groups: ReadonlyMap<string, readonly number[]>, ok: (value: string) => boolean, bucketMs: number): Set<number> {
  const good = new Set<number>()
  const bad = new Set<number>()
  for (const [value, times] of groups) for (const t of times) (ok(value) ? good : bad).add(align(t, bucketMs))
  return new Set([...good].filter((b) => !bad.has(b)))
}

function align(t: number, bucketMs: number): number {
  return Math.floor(t / bucketMs) * bucketMs
}

/**
 * Whether the analysis surely takes a response of a shell's length in bucket `b` for a fallback
 * (detect.ts matchNear): a shell of that length was served in its app (`shells`: bucket → count)
 * no longer than the horizon before any time of the bucket, and no later than the look-ahead after
 * it (the analysis has learned it by the time it judges the response).
 */
export function nearShell(shells: ReadonlyMap<number, number> | undefined, b: number, bucketMs: number, horizonMs: number, lookaheadMs: number): boolean {
  if (!shells) return false
  for (const [s, n] of shells) if (n > 0 && s >= b + bucketMs - horizonMs && s + bucketMs <= b + lookaheadMs) return true
  return false
}

/**
 * Of the scanners' buckets, those whose windows stand alone: a window (as planWindows merges them)
 * all of whose buckets are scanners'. A scanner's bucket whose window would join a person's keeps
 * it, so every window around a person's failure stays as it was (what is read there also teaches
 * the builds: the page loads and their assets).
 */
export function aloneScannerBuckets(candidateBuckets: readonly number[], scanners: ReadonlySet<number>, bucketMs: number, padBeforeMs: number, padAfterMs: number, range: TimeRange): Set<number> {
  const out = new Set<number>()
  if (scanners.size === 0) return out
  // The windows as planWindows makes them, from the times as the aggregate gave them.
  const sorted = [...candidateBuckets].sort((a, b) => a - b)
  let group: number[] = []
  let end = Number.NEGATIVE_INFINITY
  const close = (): void => {
    if (group.length > 0 && group.every((b) => scanners.has(b))) for (const b of group) out.add(b)
    group = []
  }
  for (const t of sorted) {
    const from = Math.max(range.from, t - padBeforeMs)
    const to = Math.min(range.to, t + bucketMs + padAfterMs)
    if (to <= from) continue
    if (from > end) close()
    group.push(align(t, bucketMs))
    end = Math.max(end, to)
  }
  close()
  return out
}
