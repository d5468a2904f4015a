/**
 * Scanners with a browser's user agent ask for asset-like guesses (`/js/app.js`) that the SPA
 * answers with its shell: failure-looking requests, each of which would open an asset window. The
 * analysis counts such a request as a scanner's when its path was never answered with real content
 * and its page load got no real asset (attribute.ts). Both are decided here on Datadog's side,
 * before a window opens: which candidate paths were ever answered with what the analysis may take
 * for content, and which of the clients asking for the others never were, on any asset path. A
 * candidate bucket holding only such requests needs no window (the candidates stream still reads
 * every one of them, and the analysis counts them as scanners' whatever is read around them).
 */
import {GROUP_LIMIT, groupedSeries} from './aggregate'
import {type Ask, type Counted, MAX_APPS, MISSING} from './census'
import {clientsIn, junkOnlyBuckets, junkPaths, nearShell, scannerBuckets} from './plan'
import {type QueryBuilder, termBatches} from './query'

/** Paths one check of shell-length answers names at most (nested group-bys multiply: paths × apps × lengths ≤ GROUP_LIMIT). */
const PATHS_PER_CHECK = 50
const PATH = '@http.url_details.path'

/** What the analysis is told of sessions and time, as the scanner check needs it. */
export interface ScannerSpec {
  /** Where a request names a session of its own (its page load is then keyed by it, not by address and agent). */
  sessionAttributes: readonly string[]
  horizonMs: number
  lookaheadMs: number
}

export interface Scanners {
  /** Candidate buckets that need no window. */
  buckets: Set<number>
  /** How many junk paths, and the clients found to be scanners. */
  paths: number
  clients: Set<string>
}

/**
 * The candidate buckets of scanners alone. `people`: the people's failure-looking requests
 * (crawlers and the probe left out); `byClient`: those per client address and bucket; `counted`:
 * the shells served per app, length and bucket (the census). A reason instead when a group limit
 * leaves it unknown: then every bucket keeps its window.
 */
export async function findScanners(ask: Ask, q: QueryBuilder, people: string, byClient: ReadonlyMap<string, readonly number[]>, counted: Counted, lengths: readonly number[], spec: ScannerSpec): Promise<Scanners | {reason: string}> {
  const {client, scope, range, bucket} = ask
  const byPath = await groupedSeries(client, scope, people, range, bucket, [{facet: PATH, limit: GROUP_LIMIT}])
  if (!byPath.complete) return {reason: `more than ${GROUP_LIMIT} failure-looking asset paths`}
  const paths = new Map<string, number[]>()
  for (const g of byPath.groups) paths.set(g.by[0] as string, [...g.counts].filter(([, n]) => n > 0).map(([t]) => t))
  // Paths that may have been answered with content: some answer that is neither a shell's length nor HTML, or a shell's length where the analysis may not know that shell yet.
  const served = new Set<string>()
  for (const batch of termBatches(junkPaths(paths.keys(), served), PATHS_PER_CHECK)) {
    const r = await groupedSeries(client, scope, q.servedAt(batch, lengths), range, bucket, [{facet: PATH, limit: batch.length + 1}])
    for (const g of r.groups) served.add(g.by[0] as string)
    if (lengths.length === 0) continue
    const levels = counted.facet === null
      ? [{facet: PATH, limit: batch.length + 1}, {facet: '@network.bytes_written', limit: Math.floor(GROUP_LIMIT / (batch.length + 1))}]
      : [{facet: PATH, limit: batch.length + 1}, {facet: counted.facet, limit: MAX_APPS, missing: MISSING}, {facet: '@network.bytes_written', limit: Math.floor(GROUP_LIMIT / (batch.length + 1) / MAX_APPS)}]
    const s = await groupedSeries(client, scope, q.shellLengthAt(batch, lengths), range, bucket, levels)
    if (!s.complete) return {reason: 'more apps or shell lengths than one aggregate lists'}
    for (const g of s.groups) {
      const [path, app, bytes] = counted.facet === null ? [g.by[0] as string, '', Number(g.by[1])] : [g.by[0] as string, g.by[1] as string, Number(g.by[2])]
      const shells = counted.apps.get(app)?.shells.get(bytes)
      for (const [t, n] of g.counts) if (n > 0 && !nearShell(shells, t, bucket.ms, spec.horizonMs, spec.lookaheadMs)) served.add(path)
    }
  }
  const junk = junkPaths(paths.keys(), served)
  const suspects = clientsIn(byClient, junkOnlyBuckets(paths, junk, bucket.ms), bucket.ms)
  const cleared = new Set<string>()
  if (junk.size > 0) {
    const junkList = [...junk].sort()
    if (termBatches(junkList, junkList.length).length > 1) return {reason: 'too many junk paths to name in one query'}
    for (const batch of termBatches(suspects, GROUP_LIMIT)) {
      const r = await groupedSeries(client, scope, q.notScanners(batch, junkList, spec.sessionAttributes, lengths), range, bucket, [{facet: '@network.client.ip', limit: batch.length + 1}])
      for (const g of r.groups) cleared.add(g.by[0] as string)
    }
  }
  const scanners = new Set(suspects.filter((c) => !cleared.has(c)))
  return {buckets: scannerBuckets(paths, byClient, junk, scanners, bucket.ms), paths: junk.size, clients: scanners}
}

