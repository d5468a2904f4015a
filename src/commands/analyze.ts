import {Args, Flags} from '@oclif/core'
import {analyze} from '../app/analyze'
import {analysisFlags} from '../cli/analysis-flags'
import {BaseCommand} from '../cli/base-command'
import {EXIT} from '../cli/exit-codes'
import {analyzeSettings} from '../config/analyze-options'
import type {AnalysisReport} from '../model/report'
import {renderTable} from '../report/table'

export default class Analyze extends BaseCommand {
  static override summary = 'Find stale-bundle failures (assets answered with the app shell) in access logs'
  static override description = `Reads exported access logs (Datadog API JSON/NDJSON, Log Explorer CSV, nginx and ingress-nginx lines, nginx JSON; plain or gzip; - for stdin), finds asset requests that got the SPA's index.html or a 404 during and after deploys, and reports how many users got a broken page, for how long, after which deploy.

Exit codes: 0 ran; 1 incidents found and --fail-on incident given; 2 usage error or unreadable input; 3 a source failed.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> fixtures/rolling-round-robin/ingress.log',
    '<%= config.bin %> <%= command.id %> export.csv --deploys deploys.json --json > report.json',
    'zcat logs/*.gz | <%= config.bin %> <%= command.id %> - --session-key cookie:INGRESSCOOKIE --failures failed.ndjson',
    '<%= config.bin %> <%= command.id %> pages.json --fail-on incident',
  ]

  static override enableJsonFlag = true
  static override strict = false
  static override args = {file: Args.string({description: 'log files to read (plain or gzip); - reads standard input', required: true})}
  static override flags = {
    ...analysisFlags,
    failures: Flags.string({description: 'write every flagged request to this file as NDJSON (reason, page load, request id)'}),
    'fail-on': Flags.string({options: ['incident'], description: 'exit 1 when incidents are found'}),
    top: Flags.integer({default: 10, min: 0, description: 'how many of the most affected sessions to list'}),
  }

  async run(): Promise<AnalysisReport> {
    const {argv, flags} = await this.parse(Analyze)
    const settings = analyzeSettings(flags)
    const report = await analyze({
      ...settings, inputs: argv as string[], stdin: process.stdin, deploysFile: flags.deploys,
      failuresFile: flags.failures, onNotice: (m) => this.notice(m),
    })
    if (report.input.records === 0) this.notice('The input holds no records: the report is empty.')
    this.print(renderTable(report, {topSessions: flags.top}))
    if (flags['fail-on'] === 'incident' && report.incidents.length > 0) this.setExitCode(EXIT.FINDINGS)
    return report
  }
}
