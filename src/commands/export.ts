import {Flags} from '../cli/oclif'
import {ExportInterrupted, exportLogs, type ExportResult} from '../app/export'
import {analysisFlags} from '../cli/analysis-flags'
import {BaseCommand} from '../cli/base-command'
import {datadogFlags, pullFlag} from '../cli/datadog-flags'
import {pullHooks} from '../cli/progress'
import {pullSummaryLine} from '../report/pull-summary'
import {exportSettings} from '../config/datadog'
import {pluralCount} from '../util/plural'

const {'asset-pattern': assetPattern, 'default-asset-patterns': defaultAssetPatterns, 'shell-path': shellPath, 'length-tolerance': lengthTolerance, horizon, lookahead, field} = analysisFlags

export default class Export extends BaseCommand {
  static override summary = 'Write Datadog logs of a time range to NDJSON (or .ndjson.gz) that analyze reads offline'
  static override description = `Pulls the requests the analysis reads (GET page and asset requests matching --query) from the Datadog Logs API and writes them, one log per line, as Datadog sent them. Ctrl-C or a failure keeps what was written; --resume continues without gaps or duplicates.

Keys: DD_API_KEY or DATADOG_API_KEY, and DD_APP_KEY or DATADOG_APP_KEY (with logs_read_data).
Exit codes: 0 done; 2 usage or configuration error; 3 Datadog failed (after retries); 130 interrupted.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> --from 2026-11-29T14:00:00Z --to 2026-11-29T16:00:00Z --query "service:ingress-nginx" -o incident.ndjson.gz',
    '<%= config.bin %> <%= command.id %> --resume -o incident.ndjson.gz',
    '<%= config.bin %> <%= command.id %> --since 24h --query "service:ingress-nginx" --pull windows -o day.ndjson',
  ]

  static override enableJsonFlag = true
  static override flags = {
    ...datadogFlags,
    pull: pullFlag('narrowed'),
    output: Flags.string({char: 'o', required: true, description: 'file to write (.gz: gzip); a state file FILE.export-state.json sits next to it until the export completes'}),
    resume: Flags.boolean({description: 'continue the interrupted export of --output (its query, range and plan are taken from its state file)'}),
    force: Flags.boolean({description: 'overwrite --output if it exists'}),
    'asset-pattern': assetPattern, 'default-asset-patterns': defaultAssetPatterns, 'shell-path': shellPath,
    'length-tolerance': lengthTolerance, horizon, lookahead, field,
  }

  async run(): Promise<ExportResult> {
    const {flags} = await this.parse(Export)
    const settings = exportSettings(flags, process.env, Date.now())
    // Ctrl-C stops the pull and keeps what was written; a second one exits at once.
    const controller = new AbortController()
    const onSigint = (): void => {
      if (controller.signal.aborted) process.exit(130)
      controller.abort()
    }
    process.on('SIGINT', onSigint)
    try {
      const result = await exportLogs({...settings, hooks: {...pullHooks((m, c) => this.notice(m, c), process.stderr.isTTY === true), signal: controller.signal}})
      this.notice(`Exported ${pluralCount(result.events, 'event')} to ${result.file}${result.resumed ? ` (${result.written} in this run)` : ''} in ${result.seconds}s. ${pullSummaryLine(result.datadog)}`)
      return result
    } catch (error: unknown) {
      if (!(error instanceof ExportInterrupted)) throw error
      this.notice(error.message)
      return this.exit(130)
    } finally {
      process.removeListener('SIGINT', onSigint)
    }
  }
}
