import {Args, Flags} from '../cli/oclif'
import {parseInputs, type ParsedRecord} from '../app/parse'
import {analysisFlags} from '../cli/analysis-flags'
import {BaseCommand} from '../cli/base-command'
import {appSourceOf, normalizeSettings} from '../config/analyze-options'
import {tableWidth} from '../config/output-options'
import {ConfigError} from '../config/parse'
import {parsedJsonLine, parsedTable} from '../report/parsed'
import {terminalSafe} from '../report/sanitize'
import {pluralCount} from '../util/plural'
import {lostInputNote} from '../report/input-notes'
import {EXIT} from '../cli/exit-codes'
import type {SkippedLocation} from '../model/report'

const {'session-key': sessionKey, field, 'log-format': logFormat, 'app-key': appKey, 'trusted-proxies': trustedProxies} = analysisFlags

/** Rows a table shows by default: it is a quick look; NDJSON has them all. */
const TABLE_ROWS = 200

export default class Parse extends BaseCommand {
  static override summary = 'Show how skewscan reads a log: every record as read, every rejected line with its reason'
  static override description = `Reads the files as analyze does (every format, plain or gzip, container wrappers; - for stdin) and prints each record as the tool read it, one NDJSON line each: file, line, time, app, method, path, status, bytes (and whether the format counts headers in them), client, user agent, referer, upstream, request id, vhost, session, timings and unknown extra fields. Each rejected line is printed with its reason instead. A summary per file goes to stderr.

Exit codes: 0 read; 2 usage error or unreadable input; 3 an input ended early (a gzip cut short: what follows the cut was not read).`

  static override examples = [
    '<%= config.bin %> <%= command.id %> access.log | head',
    '<%= config.bin %> <%= command.id %> access.log --rejected | jq -r .rejected | sort | uniq -c',
    '<%= config.bin %> <%= command.id %> ingress.log.gz --format table',
  ]

  static override strict = false
  static override args = {file: Args.string({description: 'log files to read (plain or gzip); - reads standard input', required: true})}
  static override flags = {
    format: Flags.string({options: ['ndjson', 'table'], default: 'ndjson', description: 'ndjson: every record; table: a quick look at the first --limit'}),
    rejected: Flags.boolean({description: 'only the rejected lines'}),
    limit: Flags.integer({min: 1, description: `print at most this many records (table default: ${TABLE_ROWS})`}),
    wide: Flags.boolean({default: false, exclusive: ['columns'], description: 'the table at its full width'}),
    columns: Flags.integer({min: 40, max: 1000, description: 'fit the table to this many columns'}),
    'session-key': sessionKey, field, 'log-format': logFormat, 'app-key': appKey, 'trusted-proxies': trustedProxies,
  }

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(Parse)
    if (argv.length === 0) throw new ConfigError('Give log files to read (see --help)')
    const run = await parseInputs({
      inputs: argv as string[], stdin: process.stdin, normalize: normalizeSettings(flags), appSource: appSourceOf(flags['app-key']),
      onNotice: (m) => this.notice(m),
    })
    const table = flags.format === 'table'
    const limit = flags.limit ?? (table ? TABLE_ROWS : Number.POSITIVE_INFINITY)
    const rows: ParsedRecord[] = []
    let shown = 0
    let more = 0
    /** Where inputs ended early. */
    const cuts: SkippedLocation[] = []
    for await (const batch of run.batches) {
      for (const r of batch) {
        if ('rejection' in r && r.rejection.reason === 'truncated-input') cuts.push({reason: 'truncated-input', file: r.file, line: r.line, detail: r.rejection.detail})
        if (flags.rejected && !('rejection' in r)) continue
        if (shown >= limit) {
          more++
          continue
        }
        shown++
        if (table) rows.push(r)
        else this.print(parsedJsonLine(r))
      }
    }
    if (table) this.print(parsedTable(rows, tableWidth({...flags, output: undefined, 'out-dir': undefined}, process.stdout)))
    for (const s of run.stats) {
      this.notice(`${terminalSafe(s.file)}: ${s.format}, ${pluralCount(s.records, 'record')}, ${s.records - s.skipped} read, ${s.skipped} rejected`)
    }
    if (more > 0) this.notice(`${pluralCount(more, 'more record')} not shown (--limit ${limit})`)
    const note = lostInputNote({skipped: {total: cuts.length, byReason: {'truncated-input': cuts.length}, examples: cuts.slice(0, 3)}})
    if (note) {
      this.notice(note)
      this.setExitCode(EXIT.SOURCE)
    }
  }
}
