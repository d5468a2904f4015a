import {Flags} from './oclif'

/** Where a report goes, shared by the commands that write one. */
export const outputFlags = {
  format: Flags.string({multiple: true, description: 'table (default), json, ndjson (failed requests), csv (failed requests), markdown, html; several, comma-separated, with --out-dir', helpGroup: 'OUTPUT'}),
  output: Flags.string({char: 'o', description: 'write the report to this file instead of stdout', helpGroup: 'OUTPUT'}),
  'out-dir': Flags.string({description: 'write each format to a dated file in this folder (for cron and CI); prints a one-line summary on stderr', helpGroup: 'OUTPUT'}),
  force: Flags.boolean({default: false, description: 'let --output replace a file that exists', helpGroup: 'OUTPUT'}),
  wide: Flags.boolean({default: false, exclusive: ['columns'], description: 'tables at their full width, every column (default: fit the terminal)', helpGroup: 'OUTPUT'}),
  columns: Flags.integer({min: 40, max: 1000, description: 'fit tables to this many columns (default: the terminal\'s width; none when piped)', helpGroup: 'OUTPUT'}),
  'fail-on': Flags.string({description: 'exit 1 when: incident, or MEASURE>N (>=, <, <=, =) with MEASURE affected-users, broken-page-loads (crashed), affected-page-loads, failed-requests, stale-failures, incidents, broken-share, window-seconds, skipped, skipped-share (comma-separated: any)', helpGroup: 'OUTPUT'}),
  'allow-lost-input': Flags.boolean({default: false, description: 'exit 0, not 3, when an input ends early (a gzip cut short): the report still counts only what was read', helpGroup: 'OUTPUT'}),
}
