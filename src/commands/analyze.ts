import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {analyze} from '../app/analyze'
import {analysisFlags} from '../cli/analysis-flags'
import {BaseCommand} from '../cli/base-command'
import {datadogFlags} from '../cli/datadog-flags'
import {pullHooks, pullSummaryLine, readHooks} from '../cli/progress'
import {EXIT} from '../cli/exit-codes'
import {outputFlags} from '../cli/output-flags'
import {analyzeSettings} from '../config/analyze-options'
import {liveRequest, wantsDatadog} from '../config/datadog'
import {failedRules, measure} from '../config/fail-on'
import {outputSettings, tableWidth} from '../config/output-options'
import {ConfigError} from '../config/parse'
import type {AnalysisReport, FailureRecord} from '../model/report'
import {NEEDS_FAILURES} from '../report/format-names'
import type {PullPlanView} from '../report/pull-plan'

export default class Analyze extends BaseCommand {
  static override summary = 'Find stale-bundle failures (assets answered with the app shell) in access logs, per app, deploy and cause'
  static override description = `Reads exported access logs (Datadog API JSON/NDJSON, Log Explorer CSV; nginx, ingress-nginx, Traefik, Envoy/Istio, Caddy, AWS ALB and CloudFront, Google Cloud load balancer logs, bare or in Docker/CRI container logs; plain or gzip; - for stdin; skewscan parse shows how a file is read), finds asset requests that got the SPA's index.html or a 404 during and after deploys, and reports how many users got a broken page, for how long, after which deploy.

Each failure is tied to its app (the ingress upstream, else the host, else the service), its deploy, and its cause: the rollout race (the page's build still served beside another) or a stale tab (its build no longer served). Crawlers, skewscan's probe and scanners are counted apart, never as users.

Exit codes: 0 ran; 1 a --fail-on condition was met; 2 usage error or unreadable input; 3 a source failed, or an input ended early (a gzip cut short: the report counts what was read; --allow-lost-input exits 0); 127 unknown command.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> access.log',
    '<%= config.bin %> <%= command.id %> export.csv --deploys deploys.json --json > report.json',
    'zcat logs/*.gz | <%= config.bin %> <%= command.id %> - --session-key cookie:INGRESSCOOKIE --failures failed.ndjson',
    '<%= config.bin %> <%= command.id %> pages.json --format html --output report.html',
    '<%= config.bin %> <%= command.id %> day.ndjson.gz --format markdown,json --out-dir reports/ --fail-on "affected-users>10"',
    '<%= config.bin %> <%= command.id %> --from 2026-11-29T14:00:00Z --to 2026-11-29T16:00:00Z --query "service:ingress-nginx" --deploy-query "source:(kubernetes OR deployment) kube_deployment:web"',
  ]

  static override enableJsonFlag = true
  static override strict = false
  static override args = {file: Args.string({description: 'log files to read (plain or gzip); - reads standard input; optional with --from/--since (Datadog)'})}
  static override flags = {
    ...analysisFlags,
    ...outputFlags,
    ...datadogFlags,
    failures: Flags.string({description: 'write every failed request of a person to this file as NDJSON (app, cause, deploy, incident, reason, page load, request id)'}),
    top: Flags.integer({default: 10, min: 0, description: 'how many of the most affected sessions to list'}),
    workers: Flags.integer({hidden: true, min: 0, description: 'worker threads reading large plain files (default: cores - 1); 0 reads everything on the main thread'}),
    spool: Flags.string({description: 'with --from/--since: keep the pulled logs in this directory until the report is made; a pull that failed or was interrupted continues from there when run again with the same query, range (--from/--to: --since moves) and --pull; another is refused', helpGroup: 'DATADOG'}),
    plan: Flags.boolean({description: 'with --from/--since: say what the pull will cost (events in the range, events and requests it takes, time at the rate limit) and stop; a live run on a terminal says it first', helpGroup: 'DATADOG'}),
  }

  async run(): Promise<AnalysisReport | PullPlanView> {
    const {argv, flags} = await this.parse(Analyze)
    const settings = analyzeSettings(flags)
    const {plan, failOn} = outputSettings(flags)
    if (this.jsonEnabled() && flags.format) this.notice(`--json prints the report as JSON to stdout; --format ${flags.format.join(',')} is not used (leave out --json, or use --format json)`)
    if (argv.length === 0 && !wantsDatadog(flags)) throw new ConfigError('Give log files to read, or --from/--since to read from Datadog (see --help)')
    // The HTML report keeps every broken page load's requests and the traffic timeline.
    const analysis = {...settings.analysis, detail: plan.formats.includes('html')}
    // Modules loaded only when used (start-up time): an offline run never loads the Datadog code, a
    // --json run no renderer. `require`, not `import()`, which would bypass ts-node in dev mode.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const live = wantsDatadog(flags) ? await (require('../sources/datadog/live-source') as typeof import('../sources/datadog/live-source'))
      .openDatadogLogs({...liveRequest(flags, process.env, Date.now(), {...settings, analysis}), ...(flags.spool === undefined || flags.plan ? {} : {spool: flags.spool})}, pullHooks((m, c) => this.notice(m, c), process.stderr.isTTY === true)) : undefined
    if (flags.plan && !live) throw new ConfigError('--plan says what a Datadog pull will cost: give --from or --since')
    if (flags.spool !== undefined && !wantsDatadog(flags)) throw new ConfigError('--spool keeps a Datadog pull: give --from or --since')
    if (live && (flags.plan || process.stderr.isTTY === true)) {
      const {query, from, to} = live.summary()
      const view: PullPlanView = {query, from, to, estimate: await live.estimate()}
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const {renderPullPlan} = require('../report/pull-plan') as typeof import('../report/pull-plan')
      if (flags.plan) {
        this.print(renderPullPlan(view))
        return view
      }
      this.notice(renderPullPlan(view).trimEnd())
    }
    const failures: FailureRecord[] = []
    const reading = readHooks((m, c) => this.notice(m, c), process.stderr.isTTY === true && !live)
    const report = await analyze({
      ...settings, analysis,
      inputs: argv as string[], stdin: process.stdin, deploysFile: flags.deploys, failuresFile: flags.failures,
      onFailure: plan.formats.some((f) => NEEDS_FAILURES.includes(f)) ? (f) => failures.push(f) : undefined,
      sources: live ? [live.source] : undefined, deploys: live?.deploys, datadogSummary: live?.summary, census: live?.census, onNotice: (m) => reading.note(m), onProgress: reading.onProgress,
      parallel: flags.workers === undefined ? undefined : flags.workers === 0 ? false : {workers: flags.workers},
    })
    reading.done()
    if (report.input.datadog) this.notice(pullSummaryLine(report.input.datadog))
    if (report.input.records === 0) this.notice('The input holds no records: the report is empty.')
    if (!this.jsonEnabled()) {
      /* eslint-disable @typescript-eslint/no-require-imports */
      const {deliver} = require('../app/deliver') as typeof import('../app/deliver')
      const {headline} = require('../report/table') as typeof import('../report/table')
      /* eslint-enable @typescript-eslint/no-require-imports */
      const width = tableWidth(flags, process.stdout)
      const out = await deliver(report, plan, {failures, generatedAt: new Date(), version: this.config.version, topSessions: flags.top, ...(width ? {width} : {})})
      this.print(out.stdout)
      if (out.written.length > 0) this.notice(`${headline(report)} Wrote ${out.written.join(', ')}`)
    }
    const broken = failedRules(report, failOn)
    if (broken.length > 0) {
      this.notice(`--fail-on: ${broken.map((r) => `${r.text} (measured ${measure(report, r)})`).join(', ')}`)
      this.setExitCode(EXIT.FINDINGS)
    }
    this.tellInput([report.input], flags['allow-lost-input'])
    return report
  }
}
