import {Args, Flags} from '../cli/oclif'
import {analyzeAndReport} from '../app/analyze-and-report'
import {analysisFlags} from '../cli/analysis-flags'
import {BaseCommand} from '../cli/base-command'
import {datadogFlags} from '../cli/datadog-flags'
import {pullHooks, readHooks} from '../cli/progress'
import type {Cursor} from '../cli/stderr'
import {EXIT} from '../cli/exit-codes'
import {outputFlags} from '../cli/output-flags'
import {analyzeSettings} from '../config/analyze-options'
import {analyzePull, rumPullRequest} from '../config/datadog'
import {outputSettings, tableWidth} from '../config/output-options'
import type {AnalysisReport} from '../model/report'
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
    '<%= config.bin %> <%= command.id %> access.log --rum rum-events.json --json',
    '<%= config.bin %> <%= command.id %> day.ndjson.gz --format markdown,json --out-dir reports/ --fail-on "affected-users>10"',
    '<%= config.bin %> <%= command.id %> --from 2026-11-29T14:00:00Z --to 2026-11-29T16:00:00Z --query "service:ingress-nginx" --deploy-query "source:(kubernetes OR deployment) kube_deployment:web"',
    '<%= config.bin %> <%= command.id %> --since 2h --query "service:ingress-nginx" --rum-query "service:web @application.id:a1b2c3d4-0000-4000-8000-00000000ab01"',
  ]

  static override enableJsonFlag = true
  static override strict = false
  static override args = {file: Args.string({description: 'log files to read (plain or gzip); - reads standard input; optional with --from/--since (Datadog)'})}
  static override flags = {
    ...analysisFlags,
    ...outputFlags,
    ...datadogFlags,
    rum: Flags.string({multiple: true, multipleNonGreedy: true, description: 'Datadog RUM events (the RUM search API\'s JSON pages or NDJSON, plain or gzip; repeat for several files): the browsers\' own crashes, lazy-load failures and signed-in accounts, joined to the log\'s failures', helpGroup: 'ANALYSIS'}),
    failures: Flags.string({description: 'write every failed request of a person to this file as NDJSON (app, cause, deploy, incident, reason, page load, request id)'}),
    top: Flags.integer({default: 10, min: 0, description: 'how many of the most affected sessions to list'}),
    workers: Flags.integer({hidden: true, min: 0, description: 'worker threads reading large plain files (default: cores - 1); 0 reads everything on the main thread'}),
    spool: Flags.string({description: 'with --from/--since: keep the pulled logs in this directory until the report is made; a pull that failed or was interrupted continues from there when run again with the same query, range (--from/--to: --since moves) and --pull; another is refused', helpGroup: 'DATADOG'}),
    'rum-query': Flags.string({description: 'with --from/--since: also read the browsers\' RUM events of that range from Datadog, e.g. "service:web @application.id:<id>": page loads counted, errors and failed scripts read, and the views and resources of the sessions they and the log\'s failed page loads name (as --rum reads a file; not with --rum)', helpGroup: 'DATADOG'}),
    plan: Flags.boolean({description: 'with --from/--since: say what the pull will cost (events in the range, events and requests it takes, time at the rate limit) and stop; a live run on a terminal says it first', helpGroup: 'DATADOG'}),
  }

  async run(): Promise<AnalysisReport | PullPlanView> {
    const {argv, flags} = await this.parse(Analyze)
    const settings = analyzeSettings(flags)
    const {plan, failOn} = outputSettings(flags)
    if (this.jsonEnabled() && flags.format) this.notice(`--json prints the report as JSON to stdout; --format ${flags.format.join(',')} is not used (leave out --json, or use --format json)`)
    // The HTML report keeps every broken page load's requests and the traffic timeline.
    const analysis = {...settings.analysis, detail: plan.formats.includes('html')}
    const datadog = analyzePull(argv as string[], flags, process.env, Date.now(), {...settings, analysis})
    const datadogRum = rumPullRequest(flags, datadog)
    const tty = process.stderr.isTTY === true
    const notice = (m: string, c?: Cursor): void => this.notice(m, c)
    const outcome = await analyzeAndReport({
      ...settings, analysis, inputs: argv as string[], stdin: process.stdin, deploysFile: flags.deploys, failuresFile: flags.failures, rum: flags.rum,
      parallel: flags.workers === undefined ? undefined : flags.workers === 0 ? false : {workers: flags.workers},
      datadog, datadogRum, planOnly: flags.plan, failOn,
      output: {plan, deliver: !this.jsonEnabled(), version: this.config.version, topSessions: flags.top, width: tableWidth(flags, process.stdout)},
    }, {notice, print: (t) => this.print(t), tty, pull: pullHooks(notice, tty), reading: readHooks(notice, tty && !datadog)})
    if ('plan' in outcome) return outcome.plan
    if (outcome.findings) this.setExitCode(EXIT.FINDINGS)
    this.tellInput([outcome.report.input], flags['allow-lost-input'])
    return outcome.report
  }
}
