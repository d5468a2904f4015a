/**
 * `skewscan analyze` as one use case: the Datadog pull when one is asked for (its cost said first
 * on a terminal, or alone with --plan), the RUM pull beside it (`--rum-query`: its counts made
 * before any log is pulled, its reads once the log's failures are known), the analysis, the reports
 * delivered and the --fail-on rules judged. The command turns flags into this request and picks the
 * exit code from the outcome.
 */
import type {AnalysisReport, FailureRecord} from '../model/report'
import type {FailRule} from '../report/fail-on'
import {failedRules, measure} from '../report/fail-on'
import {NEEDS_FAILURES, type OutputPlan} from '../report/format-names'
import type {PullPlanView} from '../report/pull-plan'
import {pullSummaryLine} from '../report/pull-summary'
import type {LiveRequest} from '../sources/datadog/live-source'
import type {PullHooks} from '../sources/datadog/pull'
import type {DatadogRumPull, RumPullRequest} from '../sources/datadog/rum-pull'
import {analyze, type AnalyzeRequest} from './analyze'

export interface AnalyzeAndReportRequest extends Omit<AnalyzeRequest, 'sources' | 'deploys' | 'datadogSummary' | 'census' | 'onFailure' | 'onNotice' | 'onProgress' | 'rumPull'> {
  /** The Datadog pull read beside the files (`--from`/`--since`). */
  datadog?: LiveRequest
  /** `--rum-query`: the RUM events of the pull's range, read from Datadog (sources/datadog/rum-pull.ts). */
  datadogRum?: RumPullRequest
  /** `--plan`: say what the pull will cost, and stop. */
  planOnly?: boolean
  output: {
    plan: OutputPlan
    /** False under `--json`: the report is then the command's return value, no rendered format. */
    deliver: boolean
    version: string
    topSessions: number
    width?: number
  }
  failOn: readonly FailRule[]
}

/** Where the use case speaks: the command's stdout and stderr, and its progress lines. */
export interface AnalyzeAndReportIo {
  /** A line for the user (stderr). */
  notice(message: string): void
  /** Data (stdout). */
  print(text: string): void
  /** stderr is a terminal: a live pull says its cost before it starts. */
  tty: boolean
  pull: PullHooks
  reading: {onProgress: (p: {records: number; time: number | undefined}) => void; note: (message: string) => void; done: () => void}
}

export type AnalyzeAndReportOutcome = {plan: PullPlanView} | {report: AnalysisReport; findings: boolean}

export async function analyzeAndReport(req: AnalyzeAndReportRequest, io: AnalyzeAndReportIo): Promise<AnalyzeAndReportOutcome> {
  const {datadog, datadogRum, planOnly, output, failOn, ...files} = req
  // Modules loaded only when used (start-up time): an offline run never loads the Datadog code, a
  // --json run no renderer. `require`, not `import()`, which would bypass ts-node in dev mode.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const live = datadog ? await (require('../sources/datadog/live-source') as typeof import('../sources/datadog/live-source')).openDatadogLogs(datadog, io.pull) : undefined
  const rum = datadogRum ? await openRum(datadogRum, io.pull) : undefined
  if (live && (planOnly || io.tty)) {
    const {query, from, to} = live.summary()
    const view: PullPlanView = {query, from, to, estimate: await live.estimate(), ...(rum ? {rum: await rum.estimate()} : {})}
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const {renderPullPlan} = require('../report/pull-plan') as typeof import('../report/pull-plan')
    if (planOnly) {
      io.print(renderPullPlan(view))
      return {plan: view}
    }
    io.notice(renderPullPlan(view).trimEnd())
  }
  const failures: FailureRecord[] = []
  const report = await analyze({
    ...files,
    onFailure: output.plan.formats.some((f) => NEEDS_FAILURES.includes(f)) ? (f) => failures.push(f) : undefined,
    sources: live ? [live.source] : undefined, deploys: live?.deploys, datadogSummary: live?.summary, census: live?.census,
    ...(rum ? {rumPull: (f: readonly FailureRecord[]) => rum.pull(f, isBrowserFailure)} : {}),
    onNotice: (m) => io.reading.note(m), onProgress: io.reading.onProgress,
  })
  io.reading.done()
  if (report.input.datadog) io.notice(pullSummaryLine(report.input.datadog))
  const rumSummary = rum?.summary()
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  if (rumSummary) io.notice((require('../sources/datadog/rum-pull') as typeof import('../sources/datadog/rum-pull')).rumSummaryLine(rumSummary))
  if (report.input.records === 0 && report.rum?.withoutLogs !== true) io.notice('The input holds no records: the report is empty.')
  if (output.deliver) {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const {deliver} = require('./deliver') as typeof import('./deliver')
    const {headline} = require('../report/table') as typeof import('../report/table')
    /* eslint-enable @typescript-eslint/no-require-imports */
    const out = await deliver(report, output.plan, {failures, generatedAt: new Date(), version: output.version, topSessions: output.topSessions, ...(output.width ? {width: output.width} : {})})
    io.print(out.stdout)
    if (out.written.length > 0) io.notice(`${headline(report)} Wrote ${out.written.join(', ')}`)
  }
  const broken = failedRules(report, failOn)
  if (broken.length > 0) io.notice(`--fail-on: ${broken.map((r) => `${r.text} (measured ${measure(report, r)})`).join(', ')}`)
  return {report, findings: broken.length > 0}
}

/** Whether a browser error is one the analysis counts (analysis/rum-errors), loaded with the RUM pull only. */
function isBrowserFailure(message: string, type?: string): boolean {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const {browserFailureOf} = require('../analysis/rum-errors') as typeof import('../analysis/rum-errors')
  return browserFailureOf(message, type) !== undefined
}

/** The RUM pull, its counts made (a key that may not read RUM fails here, before any log is pulled). */
async function openRum(req: RumPullRequest, hooks: PullHooks): Promise<DatadogRumPull> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const {DatadogRumPull} = require('../sources/datadog/rum-pull') as typeof import('../sources/datadog/rum-pull')
  const pull = new DatadogRumPull(req, hooks)
  await pull.open()
  return pull
}
