import type {InputSummary} from '../model/report'
import {pluralCount} from '../util/plural'
import {terminalSafe} from './sanitize'

/** Skips that lose no record of the traffic: a format's header lines, records read twice, and lines that were no request (error log, notices). */
const NOT_LOST: ReadonlySet<string> = new Set(['header-line', 'duplicate', 'not-access-line'])

/** Lines that were no request (an error log's, a controller's notices), read among the traffic. */
export const notAccessLines = (input: Pick<InputSummary, 'skipped'>): number => input.skipped.notAccess ?? input.skipped.byReason['not-access-line'] ?? 0

/** Records skipped that were traffic: every skip but header lines, duplicates and lines that were no request. */
export function skippedRecords(input: InputSummary): number {
  let n = 0
  for (const [reason, count] of Object.entries(input.skipped.byReason)) if (!NOT_LOST.has(reason)) n += count
  return n
}

/** Places where reading stopped before the end of an input (a gzip cut short, a document never closed). */
export const lostInputs = (input: Pick<InputSummary, 'skipped'>): number => input.skipped.byReason['truncated-input'] ?? 0

/**
 * What a run that lost input says on stderr: where each input ends early. The rest of such an input
 * was never read, so nothing tells how much traffic is missing from the report.
 */
export function lostInputNote(input: Pick<InputSummary, 'skipped'>): string | undefined {
  const lost = lostInputs(input)
  if (lost === 0) return undefined
  const places = input.skipped.examples.filter((e) => e.reason === 'truncated-input')
    .map((e) => `${terminalSafe(e.file)} line ${e.line}${e.detail ? ` (${terminalSafe(e.detail)})` : ''}`)
  const more = lost > places.length ? `, and ${lost - places.length} more` : ''
  return `Input lost: reading stopped early at ${places.join('; ')}${more}. What follows was not read: the report counts only what was.`
}

/** What a run that skipped records of the traffic says on stderr: how many, why, and where the first are. */
export function skippedNote(input: InputSummary): string | undefined {
  const skipped = skippedRecords(input)
  if (skipped === 0) return undefined
  const reasons = Object.entries(input.skipped.byReason).filter(([r]) => !NOT_LOST.has(r) && r !== 'truncated-input').sort((a, b) => b[1] - a[1])
  if (reasons.length === 0) return undefined
  const first = input.skipped.examples.find((e) => !NOT_LOST.has(e.reason) && e.reason !== 'truncated-input')
  const where = first ? `; first at ${terminalSafe(first.file)}:${first.line}` : ''
  const n = reasons.reduce((sum, [, c]) => sum + c, 0)
  return `${pluralCount(n, 'record')} of ${input.records.toLocaleString('en-US')} skipped (${reasons.map(([r, c]) => `${r} ${c}`).join(', ')}${where}); skewscan parse FILE --rejected shows each.${unreadFiles(input)}`
}

/**
 * Files a format claimed whose every record it rejected: most often a log written with a format of
 * its own (nginx's `log_format` with fields moved or added), which --log-format or --field reads.
 */
function unreadFiles(input: InputSummary): string {
  // Records set apart after reading (a file that is a copy of another: all duplicates) were read.
  const none = input.sources.filter((s) => s.records > 0 && s.skipped - (s.setApart ?? 0) === s.records && !s.format.includes('datadog'))
  if (none.length === 0) return ''
  const names = none.slice(0, 3).map((s) => `${terminalSafe(s.file)} (as ${terminalSafe(s.format)})`).join(', ')
  const more = none.length > 3 ? ` and ${none.length - 3} more` : ''
  return ` Nothing of ${names}${more} was read: if it was written with a format of its own, give it (nginx: --log-format '<the log_format from nginx.conf>'; JSON: --field path=… --field status=… --field time=… --field bytes=…).`
}
