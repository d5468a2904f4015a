import type {AnalysisReport} from '../model/report'
import {ConfigError} from './parse'
import {skippedRecords} from '../report/input-notes'

/** What `--fail-on` can test: `incident`, or a measure compared with a threshold. */
const MEASURES = {
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

type Measure = keyof typeof MEASURES
const OPS = {'>': (a: number, b: number) => a > b, '>=': (a: number, b: number) => a >= b, '<': (a: number, b: number) => a < b, '<=': (a: number, b: number) => a <= b, '=': (a: number, b: number) => a === b}
type Op = keyof typeof OPS

export interface FailRule {
  text: string
  measure: Measure
  op: Op
  value: number
}

/** `incident`, `affected-users>10`, `broken-share>=0.05`, …; several separated by commas (any one fails the run). */
export function parseFailOn(spec: string): FailRule[] {
  return spec.split(',').map((part) => part.trim()).filter((p) => p !== '').map((text) => {
    if (text === 'incident') return {text, measure: 'incidents', op: '>', value: 0}
    const m = /^([a-z-]+)\s*(>=|<=|>|<|=)\s*(\d+(?:\.\d+)?)$/.exec(text)
    if (!m || !((m[1] ?? '') in MEASURES)) {
      throw new ConfigError(`--fail-on: "${text}" must be "incident" or MEASURE>N with MEASURE one of ${Object.keys(MEASURES).join(', ')} (e.g. affected-users>10, broken-share>=0.05)`)
    }
    return {text, measure: m[1] as Measure, op: m[2] as Op, value: Number(m[3])}
  })
}

/** The rules the report breaks, for the exit code and the message. */
export function failedRules(r: AnalysisReport, rules: readonly FailRule[]): FailRule[] {
  return rules.filter((rule) => OPS[rule.op](MEASURES[rule.measure](r), rule.value))
}

/** The value a rule compared (for the message that names it). */
export function measure(r: AnalysisReport, rule: FailRule): number {
  return MEASURES[rule.measure](r)
}
