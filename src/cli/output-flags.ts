import * as Flags from '@oclif/core/flags'

/** Where a report goes, shared by the commands that write one. */
export const outputFlags = {
  format: Flags.string({multiple: true, description: 'table (default), json, ndjson (failed requests), csv (failed requests), markdown, html; several, comma-separated, with --out-dir', helpGroup: 'OUTPUT'}),
  output: Flags.string({char: 'o', description: 'write the report to this file instead of stdout', helpGroup: 'OUTPUT'}),
  'out-dir': Flags.string({description: 'write each format to a dated file in this folder (for cron and CI); prints a one-line summary on stderr', helpGroup: 'OUTPUT'}),
  'fail-on': Flags.string({description: 'exit 1 when: incident, or MEASURE>N (>=, <, <=, =) with MEASURE affected-users, broken-page-loads (crashed), affected-page-loads, failed-requests, stale-failures, incidents, broken-share, window-seconds (comma-separated: any)', helpGroup: 'OUTPUT'}),
}
