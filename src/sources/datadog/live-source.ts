/**
 * `analyze --from/--since`: Datadog logs as a RecordSource. Each pulled item is normalised from its
 * wire JSON by the same functions that read an export, so a live run and an export of the same logs
 * give the same report.
 */
import type {DatadogConnection} from './connection'
import type {TimeRange} from '../../config/time-range'
import type {AccessEvent} from '../../model/access-event'
import type {DeclaredDeploy} from '../../model/deploy'
import type {Rejection} from '../../model/rejection'
import type {DatadogInputSummary} from '../../model/report'
import {normalizeObject} from '../file/records'
import type {NormalizeOptions} from '../../normalize/fields'
import {SourceError} from '../errors'
import type {RecordSource, SourceBatch, SourceStats} from '../source'
import {pullDeployEvents} from './deploy-events'
import type {PageCensus} from '../../analysis/census'
import {DatadogPull, type PullHooks, type PullSpec, type PullTuning} from './pull'
import type {PullEstimate} from './estimate'

export const DATADOG_SOURCE_NAME = 'datadog'

export class DatadogLogSource implements RecordSource {
  readonly displayName = DATADOG_SOURCE_NAME
  readonly stats: SourceStats = {file: DATADOG_SOURCE_NAME, format: 'datadog-logs-api', records: 0, skipped: 0}
  private read = false

  constructor(private readonly pull: DatadogPull, private readonly normalize: NormalizeOptions) {}

  async *batches(): AsyncGenerator<SourceBatch> {
    // The pull is merged in time order, so the analysis never asks to re-read it; re-pulling
    // silently would double the API cost.
    if (this.read) throw new SourceError('the Datadog pull was asked to be read twice', DATADOG_SOURCE_NAME)
    this.read = true
    let line = 0
    for await (const batch of this.pull.pulled()) {
      const events: AccessEvent[] = []
      const rejections: Rejection[] = []
      for (const {item} of batch) {
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
      yield {events, rejections}
    }
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
  const spec: PullSpec = {...req.spec}
  const pull = new DatadogPull(req.connection, spec, req.tuning, hooks)
  let deploys: DeclaredDeploy[] = []
  if (req.deployQuery !== undefined) {
    const r = await pullDeployEvents(pull.client, req.deployQuery, req.deployRange ?? req.spec.range, hooks.onNotice)
    deploys = r.deploys
    pull.deployEvents = {api: r.api, events: r.events, deploys: r.deploys.length, ...(r.fallbackReason ? {fallbackReason: r.fallbackReason} : {})}
    // Page loads of the deploys' windows are counted exactly only where page requests are read.
    spec.deployTimes = deploys.flatMap((d) => (d.end === undefined ? [d.start] : [d.start, d.end]))
  }
  await pull.plan()
  return {source: new DatadogLogSource(pull, req.normalize), deploys, summary: () => pull.summary(), estimate: () => pull.estimate(), census: () => pull.census()}
}
