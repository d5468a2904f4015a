import type {ByteCount, ParseOutcome} from '../../model/parse-outcome'

export type {ByteCount} from '../../model/parse-outcome'

interface FormatInfo {
  /** Stable identifier: shown as the file's format, in `parse` output and docs/formats.md. */
  readonly id: string
  /** What a person calls it: `AWS Application Load Balancer access log`. */
  readonly name: string
  readonly bytes: ByteCount
}

/** A line-oriented text format (one access record per line). */
export interface TextFormat extends FormatInfo {
  /** Cheap, bounded shape check on one line (no full parse): used to tell a file's format from its first lines. */
  looksLike(line: string): boolean
  /**
   * Parses one line without its newline. Never throws: a line that is not a record comes back as
   * `{ok: false, reason, detail}` with a short detail (at most 120 characters, never the whole line).
   * Comment and header lines of the format (`#Version:`, `#Fields:`) are rejected with the
   * reason `header-line`.
   */
  parse(line: string): ParseOutcome
}

/** A JSON format (one record per JSON object: NDJSON lines, or the items of an array). */
export interface JsonFormat extends FormatInfo {
  /** Cheap check that an object is a record of this format (its distinctive keys). */
  looksLike(obj: Record<string, unknown>): boolean
  /** Parses one object. Never throws; rejects as TextFormat.parse does. */
  parse(obj: Record<string, unknown>): ParseOutcome
}
