/*
 * The report formats by name, apart from the renderers: the command reads these at start-up, and
 * the renderers are loaded only for a run that writes their format.
 */

export const FORMATS = ['table', 'json', 'ndjson', 'csv', 'markdown', 'html'] as const
export type Format = (typeof FORMATS)[number]

export const EXTENSIONS: Record<Format, string> = {table: 'txt', json: 'json', ndjson: 'ndjson', csv: 'csv', markdown: 'md', html: 'html'}

/** Formats that list every failed request, so the analysis must hand them over. */
export const NEEDS_FAILURES: readonly Format[] = ['ndjson', 'csv']

/** Where a report goes and in which formats (`--format`, `--output`, `--out-dir`, `--force`). */
export interface OutputPlan {
  formats: Format[]
  /** Write the one format here instead of stdout. */
  output?: string
  /** Write every format to a dated file in this folder. */
  outDir?: string
  /** `output` may replace a file that exists. */
  force?: boolean
}
