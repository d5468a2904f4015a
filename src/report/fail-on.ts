/**
 * What `--fail-on` measures of a report and how a rule is judged (config/fail-on.ts parses the
 * rules; app/analyze-and-report.ts judges them): pure functions of the report.
 */
import type {AnalysisReport} from '../model/report'
import {skippedRecords} from './input-notes'

/** What `--fail-on` can test: `incident`, or a measure compared with a threshold. */
export const MEASURES = {
  'affected-users': (r: AnalysisReport) => r.totals.affectedUsers,
  'broken-page-loads': (r: AnalysisReport) => r.totals.brokenPageLoads,
  'affected-page-loads': (r: AnalysisReport) => r.totals.affectedPageLoads,
  'failed-requests': (r: AnalysisReport) => r.totals.failedRequests,
  'stale-failures': (r: AnalysisReport) => r.totals.byCause['stale-client'],
  incidents: (r: AnalysisReport) => r.incidents.length,
  'broken-share': (r: AnalysisReport) => Math.max(0, ...r.incidents.map((i) => i.brokenShare)),
  'window-seconds': (r: AnalysisReport) => Math.max(0, ...r.deploys.map((d) => d.rolloutWindow?.seconds ?? 0)),
  // Records of the traffic that could not be used (header lines and duplicates are none).
  skipped: (r: AnalysisReport) => skippedRecords(r.input),
  'skipped-share': (r: AnalysisReport) => (r.input.records === 0 ? 0 : skippedRecords(r.input) / r.input.records),
} as const

export type Measure = keyof typeof MEASURES
export const OPS = {'>': (a: number, b: number) => a > b, '>=': (a: number, b: number) => a >= b, '<': (a: number, b: number) => a < b, '<=': (a: number, b: number) => a <= b, '=': (a: number, b: number) => a === b}
export type Op = keyof typeof OPS

export interface FailRule {
  text: string
  measure: Measure
  op: Op
  value: number
}

/** The rules the report breaks, for the exit code and the message. */
export function failedRules(r: AnalysisReport, rules: readonly FailRule[]): FailRule[] {
  return rules.filter((rule) => OPS[rule.op](MEASURES[rule.measure](r), rule.value))
}

/** The value a rule compared (for the message that names it). */
export function measure(r: AnalysisReport, rule: FailRule): number {
  return MEASURES[rule.measure](r)
}
