/**
 * `analyze --from/--since`: Datadog logs as a RecordSource. Each pulled item is normalised from its
 * wire JSON by the same functions that read an export, so a live run and an export of the same logs
 * give the same report.
 */
import type {DatadogConnection} from './connection'
import type {TimeRange} from '../../model/time-range'
import type {AccessEvent} from '../../model/access-event'
import type {DeclaredDeploy} from '../../model/deploy'
import type {Rejection} from '../../model/rejection'
import type {DatadogInputSummary} from '../../model/report'
import {normalizeObject} from '../file/records'
import type {NormalizeOptions} from '../../normalize/fields'
import {ConfigError} from '../../errors/config-error'
import {SourceError} from '../errors'
import {errnoWords, isSystemError} from '../../util/errno'
import type {RecordSource, SourceBatch, SourceStats} from '../source'
import {promises as fs} from 'node:fs'
import {join} from 'node:path'
import {FileSource} from '../file/file-source'
import {pullDeployEvents} from './deploy-events'
import {PullFile, type PullFileState, readPullState} from './pull-file'
import {pluralCount} from '../../util/plural'
import type {PageCensus} from '../../model/page-census'
import {DatadogPull, type PullHooks, type PullSpec, type PullTuning} from './pull'
import type {PullEstimate} from './estimate'

export const DATADOG_SOURCE_NAME = 'datadog'

export class DatadogLogSource implements RecordSource {
  readonly displayName = DATADOG_SOURCE_NAME
  readonly stats: SourceStats = {file: DATADOG_SOURCE_NAME, format: 'datadog-logs-api', records: 0, skipped: 0}
  private read = false
  /** Events read back from the spool, pulled by an earlier run. */
  replayed = 0

  /** `spool`: the pull is written there as it comes, and what an earlier run wrote is read back first. */
  constructor(private readonly pull: DatadogPull, private readonly normalize: NormalizeOptions, private readonly spool?: Spool) {}

  async *batches(): AsyncGenerator<SourceBatch> {
    // The pull is merged in time order, so the analysis never asks to re-read it; re-pulling
    // silently would double the API cost.
    if (this.read) throw new SourceError('the Datadog pull was asked to be read twice', DATADOG_SOURCE_NAME)
    this.read = true
    let line = 0
    const normalized = (items: readonly Record<string, unknown>[]): SourceBatch => {
      const events: AccessEvent[] = []
      const rejections: Rejection[] = []
      for (const item of items) {
        line++
        this.stats.records++
        const location = {file: DATADOG_SOURCE_NAME, line}
        // As a line of an export is read: an item of no known shape is rejected with a bounded detail.
        const out = normalizeObject(item, this.normalize)
        if (out.ok) events.push({...out.event, location})
        else {
          this.stats.skipped++
          rejections.push({reason: out.reason, location, ...(out.detail ? {detail: out.detail} : {})})
        }
      }
      return {events, rejections}
    }
    const spool = this.spool
    if (!spool) {
      for await (const batch of this.pull.pulled()) yield normalized(batch.map((p) => p.item))
      return
    }
    // What an earlier run wrote is read back as any export is read.
    const written = new FileSource(spool.file.path, DATADOG_SOURCE_NAME, this.normalize, undefined, 'examples')
    yield* written.batches()
    this.replayed = written.stats.records
    this.stats.records += written.stats.records
    this.stats.skipped += written.stats.skipped
    line = written.stats.records
    try {
      for await (const batch of this.pull.pulled(spool.file.resumePoint)) {
        await spool.file.add(batch)
        yield normalized(batch.map((p) => p.item))
      }
    } catch (error: unknown) {
      // What was pulled is a time-ordered prefix: kept for the next run (an interrupted run keeps its last flush).
      await spool.file.close(false).catch(() => undefined)
      // The spool's own file failed (a full disk): the user's directory, not the source.
      if (isSystemError(error)) throw spoolError(spool.dir, 'write the pull', error)
      const kept = `${pluralCount(spool.file.state.written.events, 'event')} pulled so far ${spool.file.state.written.events === 1 ? 'is' : 'are'} kept in ${spool.dir}: run the same command again to continue where it stopped`
      if (error instanceof SourceError) throw new SourceError(`${error.message}\n${kept}.`, error.file)
      throw error
    }
    await spool.file.close(true)
    await spool.remove()
  }
}

export interface LiveRequest {
  connection: DatadogConnection
  spec: PullSpec
  tuning: PullTuning
  normalize: NormalizeOptions
  /** `--deploy-query`, searched over `deployRange`. */
  deployQuery?: string
  deployRange?: TimeRange
  /** `--spool DIR`: the pull is kept there until the report is made, and continued from there after a failure. */
  spool?: string
}

export interface LiveLogs {
  source: DatadogLogSource
  /** From `--deploy-query`; empty without it. */
  deploys: DeclaredDeploy[]
  summary: () => DatadogInputSummary
  /** What the planned pull will cost (one search request when the search limit is not known yet). */
  estimate: () => Promise<PullEstimate>
  /** Page requests the pull counts rather than reads, for the analysis. */
  census: () => PageCensus | undefined
}

/**
 * Connects, reads the deploy events, and plans the pull (aggregate counts), so that notices about
 * fallbacks come before the analysis and a bad key fails before any log is pulled.
 */
export async function openDatadogLogs(req: LiveRequest, hooks: PullHooks = {}): Promise<LiveLogs> {
  let kept: PullFileState | undefined
  if (req.spool !== undefined) {
    // Before anything is pulled: a spool that cannot be made fails at once, not after the plan.
    await fs.mkdir(req.spool, {recursive: true}).catch((error: unknown) => {
      throw spoolError(req.spool as string, 'make the directory', error)
    })
    kept = await readPullState(join(req.spool, SPOOL_STATE), 'analyze --spool')
    if (kept) checkSameSpool(req.spool, kept.spec, req.spec)
    if (kept) {
      const {query, range} = kept.spec
      hooks.onNotice?.(`Continuing the pull kept in ${req.spool} (${query}, ${new Date(range.from).toISOString()} to ${new Date(range.to).toISOString()}): ${pluralCount(kept.written.events, 'event')} already pulled`)
    }
  }
  const spec: PullSpec = kept?.spec ?? {...req.spec}
  const pull = new DatadogPull(req.connection, spec, req.tuning, hooks)
  if (kept) pull.use(kept.plan)
  let deploys: DeclaredDeploy[] = []
  if (req.deployQuery !== undefined) {
    const r = await pullDeployEvents(pull.client, req.deployQuery, req.deployRange ?? req.spec.range, hooks.onNotice)
    deploys = r.deploys
    pull.deployEvents = {api: r.api, events: r.events, deploys: r.deploys.length, ...(r.fallbackReason ? {fallbackReason: r.fallbackReason} : {})}
    // Page loads of the deploys' windows are counted exactly only where page requests are read.
    if (!kept) spec.deployTimes = deploys.flatMap((d) => (d.end === undefined ? [d.start] : [d.start, d.end]))
  }
  const plan = await pull.plan()
  const spool = req.spool === undefined ? undefined : await Spool.open(req.spool, kept ?? {version: 1, spec, plan, gzip: true, written: {bytes: 0, events: 0, lastTime: null, idsAtLastTime: []}})
    .catch((error: unknown) => {
      throw isSystemError(error) ? spoolError(req.spool as string, 'write the pull', error) : error
    })
  const source = new DatadogLogSource(pull, req.normalize, spool)
  const summary = (): DatadogInputSummary => ({...pull.summary(), ...(source.replayed > 0 ? {resumed: {events: source.replayed}} : {})})
  return {source, deploys, summary, estimate: () => pull.estimate(), census: () => pull.census()}
}

/**
 * A spool continues only the pull it was started for: another query, range, pull mode or scope
 * would read back events of one and pull the rest of the other, and report the mix. (`--since`
 * moves with the clock: a run that should continue gives the range explicitly.)
 */
function checkSameSpool(dir: string, kept: PullSpec, asked: PullSpec): void {
  const iso = (ms: number): string => new Date(ms).toISOString()
  const scope = (s: PullSpec['scope']): string => `${(s.indexes ?? []).join(',') || '(all)'}${s.storageTier ? ` ${s.storageTier}` : ''}`
  const diffs: string[] = []
  if (kept.query !== asked.query) diffs.push(`--query "${kept.query}", not "${asked.query}"`)
  if (kept.range.from !== asked.range.from || kept.range.to !== asked.range.to) diffs.push(`--from ${iso(kept.range.from)} --to ${iso(kept.range.to)}, not ${iso(asked.range.from)} to ${iso(asked.range.to)}`)
  if (kept.mode !== asked.mode) diffs.push(`--pull ${kept.mode}, not ${asked.mode}`)
  if (scope(kept.scope) !== scope(asked.scope)) diffs.push(`indexes and storage tier ${scope(kept.scope)}, not ${scope(asked.scope)}`)
  if (diffs.length === 0) return
  throw new ConfigError(`--spool ${dir} holds an interrupted pull of another query or range: it was started with ${diffs.join('; ')}. `
    + `To continue it, run again with --query "${kept.query}" --from ${iso(kept.range.from)} --to ${iso(kept.range.to)} --pull ${kept.mode} (--since moves with the clock); `
    + `to start this pull instead, remove ${dir} or give another --spool directory`)
}

/** `--spool DIR` cannot be used: a configuration error (exit 2), naming the flag and the error in words. */
function spoolError(dir: string, what: string, error: unknown): ConfigError {
  const code = (error as {code?: string}).code
  const words = code === 'EEXIST' || code === 'ENOTDIR' ? `it or a folder above it is a file, not a directory (${code})` : errnoWords(error)
  return new ConfigError(`--spool ${dir}: cannot ${what}: ${words}; give --spool a directory skewscan can write`)
}

const SPOOL_FILE = 'pull.ndjson.gz'
const SPOOL_STATE = 'pull-state.json'

/** `--spool DIR`: the pull file and its state, in a directory of the user's. */
class Spool {
  private constructor(readonly dir: string, readonly file: PullFile) {}

  static async open(dir: string, state: PullFileState): Promise<Spool> {
    await fs.mkdir(dir, {recursive: true})
    return new Spool(dir, await PullFile.open(join(dir, SPOOL_FILE), join(dir, SPOOL_STATE), state, Date.now))
  }

  /** The report is made: the pull is no longer needed. */
  async remove(): Promise<void> {
    await fs.rm(this.file.path, {force: true})
    await fs.rmdir(this.dir).catch(() => undefined)
  }
}
