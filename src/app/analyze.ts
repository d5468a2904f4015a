import {promises as fs} from 'node:fs'
import type {Readable} from 'node:stream'
import {finished} from 'node:stream/promises'
import {Analyzer} from '../analysis/analyzer'
import type {RumInput} from '../analysis/rum'
import type {AnalysisOptions} from '../analysis/options'
import type {PageCensus} from '../model/page-census'
import type {AccessEvent} from '../model/access-event'
import type {DeclaredDeploy} from '../model/deploy'
import {EXAMPLES_PER_REASON, type Rejection} from '../model/rejection'
import {type AnalysisReport, type DatadogInputSummary, type FailureRecord, SCHEMA_VERSION, type SkippedLocation} from '../model/report'
import type {NormalizeOptions} from '../normalize/fields'
import {InputError, OrderViolation} from '../sources/errors'
import {FileSource} from '../sources/file/file-source'
import {readableInputs} from '../sources/file/inputs'
import type {RecordSource, SourceStats} from '../sources/source'
import {merge, reorder} from '../sources/order'
import {type SpillOptions, sortedBySpilling} from '../sources/spill-sort'
import {type TimeOutlierOptions, withoutTimeOutliers} from '../sources/time-outliers'
import {openParallel, type ParallelOptions, warmFor} from '../sources/parallel/options'
import type {ParallelReading} from '../sources/parallel/parallel-lines'
import {inertJson, terminalSafe} from '../report/sanitize'
import {errnoWords} from '../util/errno'
import {plural} from '../util/plural'
import {openWhole, type WholeFileStream} from './whole-file'

export interface AnalyzeRequest {
  /** Files to read; `-` reads `stdin`. */
  inputs: string[]
  /** Other sources read alongside the files (the Datadog API). */
  sources?: RecordSource[]
  stdin?: Readable
  normalize: NormalizeOptions
  analysis: AnalysisOptions
  deploysFile?: string
  /** Deploys declared elsewhere (Datadog events), added to the deploy file's. */
  deploys?: DeclaredDeploy[]
  /** The Datadog pull's figures, read once the sources are drained (`input.datadog`). */
  datadogSummary?: () => DatadogInputSummary
  /** Page requests the Datadog pull counts rather than reads (planned before it reads any). */
  census?: () => PageCensus | undefined
  /** Disorder absorbed without sorting a source whole. */
  reorderWindowMs: number
  /** Files of Datadog RUM events read beside the logs (`--rum`): the browsers' crashes joined to the log's failures. */
  rum?: string[]
  /**
   * RUM events pulled once the logs are analysed (`--rum-query`): the pull is told the log's
   * failures, to read the views and resources of the sessions that matter only.
   */
  rumPull?: (failures: readonly FailureRecord[], report: AnalysisReport) => Promise<RumInput>
  /** Writes every flagged request here as NDJSON. */
  failuresFile?: string
  /** Called with every flagged request (for the CSV and NDJSON reports). */
  onFailure?: (f: FailureRecord) => void
  /** Called with notes for the user (stderr): sources re-read sorted, and the like. */
  onNotice?: (message: string) => void
  /** Called now and then while the sources are read: records so far, and the log time reached. */
  /**
   * How far reading has come: after each batch and every PROGRESS_TICK_MS while waiting for one.
   * `bytes` read of the inputs (before gunzip) and `totalBytes`, their size when every one is a file.
   */
  onProgress?: (p: {records: number; time: number | undefined; bytes: number; totalBytes?: number}) => void
  /** Large plain line files are read in worker threads (the default); `false` reads everything on this thread. */
  parallel?: ParallelOptions | false
  /** How a source found out of time order is sorted: in runs of this many events, spilled to disk. */
  spill?: SpillOptions
  /** What makes a record a time outlier (counted apart, never analysed). */
  timeOutliers?: TimeOutlierOptions
}

export async function analyze(req: AnalyzeRequest): Promise<AnalysisReport> {
  const declared = [...(req.deploysFile ? await readDeploys(req.deploysFile, req.onNotice) : []), ...(req.deploys ?? [])].sort((a, b) => a.start - b.start)
  // Read before the logs: an unreadable RUM file fails the run before a long read, not after it.
  const rum = req.rum !== undefined && req.rum.length > 0 ? await rumParts().readRum(req.rum, req.onNotice) : undefined
  // RUM alone, no logs: the browsers' own failures per deploy (the records given, else RUM's versions).
  if (rum !== undefined && req.inputs.length === 0 && (req.sources ?? []).length === 0) return rumParts().rumOnlyReport(rum, declared, {deployMarginMs: req.analysis.deployMarginMs})
  const inputs = await readableInputs(req.inputs, req.stdin, req.onNotice)
  const paths = inputs.paths
  const parallel = openParallel(req.parallel)
  try {
    warmFor(paths.map((p) => p.path), parallel.reading)
    const sortWhole = new Set<string>()
    // A source found out of time order is re-read sorted (in runs spilled to disk when it is large),
    // and the analysis starts over.
    for (;;) {
      try {
        const withBrowsers = rum !== undefined || req.rumPull !== undefined
        const {report, failures} = await runOnce(req, paths, sortWhole, declared, parallel.reading, withBrowsers)
        if (!withBrowsers) return report
        const browsers = rum ?? (await (req.rumPull as NonNullable<AnalyzeRequest['rumPull']>)(failures, report))
        // The flagged requests are handed on once joined: each says what RUM saw of its page load.
        const joined = rumParts().joinRum(report, failures, browsers, {deployMarginMs: req.analysis.deployMarginMs})
        if (req.failuresFile) await writeFailures(req.failuresFile, joined.failures)
        if (req.onFailure) for (const f of joined.failures) req.onFailure(f)
        return joined.report
      } catch (error: unknown) {
        if (!(error instanceof OrderViolation) || sortWhole.has(error.file)) throw error
        sortWhole.add(error.file)
        req.onNotice?.(`${error.file} is not in time order (newest first?): reading it sorted`)
      }
    }
  } finally {
    await parallel.close()
    await inputs.dispose()
  }
}

/**
 * One run over the sources: the report, and the flagged requests when `keep` (or req.onFailure)
 * asks for them. `keep` (a run with RUM) hands them on to neither the failures file nor
 * req.onFailure: the caller does, once they are joined to RUM.
 */
async function runOnce(req: AnalyzeRequest, paths: {name: string; path: string}[], sortWhole: Set<string>, declared: DeclaredDeploy[], parallel: ParallelReading | undefined, keep: boolean): Promise<{report: AnalysisReport; failures: FailureRecord[]}> {
  const failures = req.failuresFile && !keep ? await openFailures(req.failuresFile) : undefined
  let committed = false
  const collected: FailureRecord[] = []
  const collect = keep || req.onFailure !== undefined
  const analyzer = new Analyzer(req.analysis, failures || collect ? (f: FailureRecord) => {
    // As the report's JSON: C1 and bidirectional controls and line separators of log text escaped.
    failures?.out.write(`${inertJson(JSON.stringify(f))}\n`)
    if (collect) collected.push(f)
  } : undefined, req.census?.())
  const sources: RecordSource[] = [...paths.map(({name, path}) => new FileSource(path, name, req.normalize, parallel, 'examples')), ...(req.sources ?? [])]
  // Sources are read interleaved, in batches of whatever size; their skipped records are told
  // source by source, in input order, so the examples do not depend on how reads interleaved.
  const skippedBySource = sources.map(() => new Skipped())
  let streams: AsyncGenerator<AccessEvent[]>[] = []
  let ticker: NodeJS.Timeout | undefined
  try {
    // Files are opened (and checked) before any is read, so a missing one fails fast.
    streams = sources.map((s, i) => {
      const events = eventsOf(s, skippedBySource[i] as Skipped)
      return sortWhole.has(s.displayName) ? sortedBySpilling(events, req.spill) : reorder(events, s.displayName, req.reorderWindowMs)
    })
    let read = 0
    const progress = (): void => {
      let bytes = 0
      let total: number | undefined = 0
      for (const s of sources) {
        const at = s.position?.()
        bytes += at?.bytes ?? 0
        total = at?.total === undefined || total === undefined ? undefined : total + at.total
      }
      req.onProgress?.({records: read, time: analyzer.last, bytes, ...(total === undefined ? {} : {totalBytes: total})})
    }
    // While no batch comes (the first ones, a large file being sorted), the line still moves.
    if (req.onProgress) ticker = setInterval(progress, PROGRESS_TICK_MS).unref()
    const outliers = new Skipped()
    const outliersByFile = new Map<string, number>()
    let firstOutlier: AccessEvent | undefined
    const onOutlier = (e: AccessEvent): void => {
      firstOutlier ??= e
      outliersByFile.set(e.location.file, (outliersByFile.get(e.location.file) ?? 0) + 1)
      outliers.add({reason: 'time-outlier', location: e.location, detail: new Date(e.time).toISOString()})
    }
    for await (const batch of withoutTimeOutliers(merge(streams), onOutlier, req.timeOutliers)) {
      for (const e of batch) analyzer.push(e)
      read += batch.length
      if (req.onProgress) progress()
    }
    const outcome = analyzer.finish(declared)
    const limited = analyzer.appLimit
    if (limited.requests > 0) {
      const first = limited.examples[0]
      req.onNotice?.(`more than ${plural(analyzer.fullApps, 'app')} with page or asset traffic (hosts or upstreams): ${plural(limited.requests, 'request')} of further apps counted apart as app-limit, not analysed${first ? ` (first at ${terminalSafe(first.location.file)}:${first.location.line}, ${terminalSafe(first.matched)})` : ''}; --app or --app-key names the app to analyse`)
    }
    if (firstOutlier) {
      const {file, line} = firstOutlier.location
      req.onNotice?.(`${plural(outliers.total, 'record')} dated far outside the rest of the input counted apart as time-outlier, not analysed (first at ${terminalSafe(file)}:${line}, ${new Date(firstOutlier.time).toISOString()})`)
    }
    if (analyzer.inexactWindows > 0) req.onNotice?.(`page loads of ${plural(analyzer.inexactWindows, 'window')} are counted to the bucket only: the Datadog pull counted, rather than read, page requests at its edges`)
    // Handed over only once the run is final: a source re-read in order starts the analysis over.
    if (req.onFailure && !keep) for (const f of collected) req.onFailure(f)
    const skipped = new Skipped()
    for (const s of skippedBySource) skipped.addAll(s)
    skipped.addAll(outliers)
    for (const {location, matched} of analyzer.duplicateExamples) skipped.add({reason: 'duplicate', location, detail: matched})
    skipped.addCount('duplicate', analyzer.duplicates - analyzer.duplicateExamples.length)
    const limit = analyzer.appLimit
    for (const {location, matched} of limit.examples) skipped.add({reason: 'app-limit', location, detail: matched})
    skipped.addCount('app-limit', limit.requests - limit.examples.length)
    const input = inputSummary(sources.map((s) => s.stats), skipped, analyzer, [outliersByFile, analyzer.setApartByFile])
    if (req.datadogSummary) input.datadog = req.datadogSummary()
    if (failures) await closeFailures(failures, req.failuresFile as string)
    committed = true
    return {report: {schemaVersion: SCHEMA_VERSION, input, ...outcome}, failures: collected}
  } finally {
    clearInterval(ticker)
    // A run that stopped early (a source out of order, a failure) closes every reader: workers stop
    // reading for it, sorted runs spilled to disk are removed. Not awaited: a reader in the middle
    // of a step (a Datadog request) closes once that step is over.
    for (const s of streams) s.return(undefined).catch(() => {})
    // A run that did not finish its failures file (an error, a source re-read sorted) removes it.
    if (failures && !committed) await failures.discard()
  }
}

/** `--failures` of a run with RUM: written whole once the flagged requests are joined to RUM, under a temporary name until then. */
async function writeFailures(file: string, list: readonly FailureRecord[]): Promise<void> {
  const out = await openFailures(file)
  try {
    for (const f of list) out.out.write(`${inertJson(JSON.stringify(f))}\n`)
    await closeFailures(out, file)
  } catch (error: unknown) {
    await out.discard()
    throw error
  }
}

/** Every failure written and on disk, or the write error (a full disk) as an input error: a run never claims a file it did not write. */
async function closeFailures(failures: WholeFileStream, file: string): Promise<void> {
  failures.out.end()
  try {
    await finished(failures.out)
    await failures.commit()
  } catch (error: unknown) {
    throw new InputError(`--failures ${file}: cannot write the failures file: ${errnoWords(error)}`, file)
  }
}

/** How often the progress line hears how far reading has come while no batch arrives. */
const PROGRESS_TICK_MS = 250

async function* eventsOf(source: RecordSource, skipped: Skipped): AsyncGenerator<AccessEvent[]> {
  for await (const batch of source.batches()) {
    for (const r of batch.rejections) skipped.add(r)
    for (const [reason, n] of Object.entries(batch.unlisted ?? {})) skipped.addCount(reason, n)
    if (batch.events.length > 0) yield batch.events
  }
}

class Skipped {
  readonly byReason: Record<string, number> = {}
  readonly examples: SkippedLocation[] = []
  total = 0

  add(r: Rejection): void {
    const n = (this.byReason[r.reason] = (this.byReason[r.reason] ?? 0) + 1)
    this.total++
    if (n <= EXAMPLES_PER_REASON) {
      this.examples.push({reason: r.reason, file: r.location.file, line: r.location.line, ...(r.detail ? {detail: r.detail} : {})})
    }
  }

  /** Another tally's counts, and its examples while this one has room for them. */
  addAll(other: Skipped): void {
    for (const [reason, n] of Object.entries(other.byReason)) this.byReason[reason] = (this.byReason[reason] ?? 0) + n
    this.total += other.total
    for (const e of other.examples) {
      if (this.examples.filter((x) => x.reason === e.reason).length < EXAMPLES_PER_REASON) this.examples.push(e)
    }
  }

  addCount(reason: string, n: number): void {
    if (n === 0) return
    this.byReason[reason] = (this.byReason[reason] ?? 0) + n
    this.total += n
  }
}

/**
 * `setApart`: records of each file that the run skipped after reading them (time outliers,
 * duplicates, app-limit requests): a file's skipped records are those it could not parse and these,
 * so the files' figures add up to the total.
 */
function inputSummary(stats: SourceStats[], skipped: Skipped, a: Analyzer, setApart: ReadonlyMap<string, number>[]): AnalysisReport['input'] {
  const records = stats.reduce((n, s) => n + s.records, 0)
  return {
    records, used: records - skipped.total,
    skipped: {total: skipped.total, byReason: skipped.byReason, examples: skipped.examples, notAccess: skipped.byReason['not-access-line'] ?? 0},
    first: a.first === undefined ? null : new Date(a.first).toISOString(),
    last: a.last === undefined ? null : new Date(a.last).toISOString(),
    sources: stats.map((s) => {
      const apart = setApart.reduce((n, byFile) => n + (byFile.get(s.file) ?? 0), 0)
      return {...s, skipped: s.skipped + apart, ...(apart > 0 ? {setApart: apart} : {})}
    }),
  }
}

async function readDeploys(file: string, notice: AnalyzeRequest['onNotice']): Promise<DeclaredDeploy[]> {
  let text: string
  try {
    text = await fs.readFile(file, 'utf8')
  } catch (error: unknown) {
    throw new InputError(`${file}: cannot read the deploy file (${(error as {code?: string}).code ?? String(error)})`, file)
  }
  // Loaded only for a run with a deploy file (start-up time).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const {DeployFileError, parseDeploys} = require('../sources/deploys/parse-deploys') as typeof import('../sources/deploys/parse-deploys')
  try {
    const {deploys, rejected, format} = parseDeploys(text, file)
    if (rejected.length > 0) {
      const reasons = new Map<string, number>()
      for (const r of rejected) reasons.set(r.reason, (reasons.get(r.reason) ?? 0) + 1)
      notice?.(`${file} (${format}): ${plural(deploys.length, 'deploy')} read, ${plural(rejected.length, 'record')} skipped (${[...reasons].map(([k, n]) => `${k}: ${n}`).join(', ')}; first at record ${(rejected[0]?.index ?? 0) + 1})`)
    }
    // Whatever the format: a deploy source that gave nothing is said, since deploys are then inferred.
    if (deploys.length === 0) notice?.(`${file} (${format}): no deploys in it; deploys are inferred from the logs`)
    return deploys
  } catch (error: unknown) {
    if (error instanceof DeployFileError) throw new InputError(error.message, file)
    throw error
  }
}

/** The RUM parts (reading, joining, RUM alone), loaded only for a run with RUM (start-up time). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const rumParts = (): typeof import('./rum-run') => require('./rum-run') as typeof import('./rum-run')

/** `--failures`: written under a temporary name beside the file, named so once whole (a failed run leaves no truncated file). */
async function openFailures(file: string): Promise<WholeFileStream> {
  try {
    return await openWhole(file)
  } catch (error: unknown) {
    throw new InputError(`--failures ${file}: cannot write the failures file: ${errnoWords(error)}`, file)
  }
}
