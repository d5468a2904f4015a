import type {RecordLocation} from './access-event'

/**
 * Why a record was skipped. Reasons are stable identifiers: they appear as keys in the JSON
 * output (`input.skipped.byReason`) and in the summary table.
 */
export type RejectReason =
  | 'invalid-json'
  | 'not-an-object'
  | 'unknown-format'
  | 'missing-time'
  | 'bad-time'
  | 'missing-path'
  | 'missing-status'
  | 'bad-status'
  | 'bad-bytes'
  | 'missing-bytes'
  | 'unparsed-message'
  | 'line-too-long'
  | 'binary'
  | 'bad-csv-row'
  | 'duplicate'
  | 'header-line'
  | 'truncated-input'
  /** A line `--log-format` does not match. */
  | 'log-format-mismatch'
  /** A line that is no request (an error log line, a controller notice): not traffic, never counted as skipped traffic. */
  | 'not-access-line'
  /** A record dated far outside the rest of the input (a day of silence from it, and a handful at most): no evidence of anything. */
  | 'time-outlier'
  /** A request of an app beyond the apps analysed in full (1000 with shell or asset traffic): counted, not analysed. */
  | 'app-limit'

/**
 * Rejections of one reason shown as examples (the report's `input.skipped.examples`); a reader that
 * need not list every rejection (a parsing worker) keeps this many per reason and counts the rest.
 */
export const EXAMPLES_PER_REASON = 3

/** Rejections counted but not listed one by one, by reason (see EXAMPLES_PER_REASON). */
export type UnlistedRejections = Partial<Record<RejectReason, number>>

export interface Rejection {
  reason: RejectReason
  location: RecordLocation
  /** A short, already-truncated description for humans. */
  detail?: string
}
