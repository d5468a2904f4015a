import {Flags} from '../cli/oclif'
import {compare} from '../app/compare'
import {analysisFlags} from '../cli/analysis-flags'
import {BaseCommand} from '../cli/base-command'
import {analyzeSettings} from '../config/analyze-options'
import {compareSettings} from '../config/compare-options'
import {writeOutput} from '../app/deliver'
import {outputFlags} from '../cli/output-flags'
import {tableWidth} from '../config/output-options'
import type {CompareReport} from '../model/compare'
import type {InputSummary} from '../model/report'
import {renderCompareHtml, renderCompareMarkdown, renderCompareTable} from '../report/compare'

export default class Compare extends BaseCommand {
  static override summary = 'Did the fix work? Broken share, users and window per deploy, before and after a fix'
  static override description = `Splits deploys before and after --fix-date (one set of logs), or compares labelled sets of logs (--set NAME=FILES, e.g. before and after turning on cookie affinity), and puts the measured broken share beside the residual that cookie affinity alone would leave (about 1/pods of the race, per the write-up this tool grew from).

Exit codes: 0 ran; 2 usage error or unreadable input; 3 a source failed, or an input ended early (--allow-lost-input exits 0).`

  static override examples = [
    '<%= config.bin %> <%= command.id %> month.ndjson.gz --deploys deploys.json --fix-date 2026-11-15T00:00:00Z',
    '<%= config.bin %> <%= command.id %> --set round-robin=before/access.log --set affinity=after/access.log',
    '<%= config.bin %> <%= command.id %> logs/*.log --fix-date 2026-11-15 --format markdown',
  ]

  static override enableJsonFlag = true
  static override strict = false
  static override flags = {
    ...analysisFlags,
    'fix-date': Flags.string({description: 'when the fix went live: deploys before it against deploys after it'}),
    set: Flags.string({multiple: true, description: 'a labelled set of log files, NAME=FILE[,FILE...]; give two or more instead of FILE arguments'}),
    pods: Flags.integer({min: 1, description: 'replicas per deploy, when the logs name no upstream pods'}),
    format: Flags.string({description: 'table (default), json, markdown or html', helpGroup: 'OUTPUT'}),
    output: Flags.string({char: 'o', description: 'write the report to this file instead of stdout', helpGroup: 'OUTPUT'}),
    force: outputFlags.force,
    wide: outputFlags.wide,
    columns: outputFlags.columns,
    'allow-lost-input': outputFlags['allow-lost-input'],
  }

  async run(): Promise<CompareReport> {
    const {argv, flags} = await this.parse(Compare)
    const settings = compareSettings(argv as string[], flags)
    const inputs: InputSummary[] = []
    const report = await compare({
      base: {...analyzeSettings(flags), stdin: process.stdin, deploysFile: flags.deploys, onNotice: (m) => this.notice(m)},
      inputs: settings.inputs, fixDate: settings.fixDate, sets: settings.sets, pods: flags.pods, onInput: (i) => inputs.push(i),
    })
    const text = settings.format === 'json' ? `${JSON.stringify(report, null, 2)}\n`
      : settings.format === 'markdown' ? renderCompareMarkdown(report)
        : settings.format === 'html' ? renderCompareHtml(report, new Date(), this.config.version) : renderCompareTable(report, tableWidth(flags, process.stdout))
    if (flags.output) await writeOutput(flags.output, text, flags.force)
    else this.print(text)
    this.tellInput(inputs, flags['allow-lost-input'])
    return report
  }
}
