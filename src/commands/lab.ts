import {Flags} from '../cli/oclif'
import {compareStrategies, runLab} from '../app/lab'
import {BaseCommand} from '../cli/base-command'
import {renderCompare} from '../lab/compare'
import {compareSettings, labSettings} from '../lab/options'
import {renderLabEvent, renderLabReport} from '../lab/render'
import type {CompareReport, LabReport} from '../lab/report'
import {interruptSignal} from '../probe/interrupt'
import {outputFlags} from '../cli/output-flags'
import {tableWidth} from '../config/output-options'
import {plural} from '../util/plural'

/** Flags of one lab run; --compare decides these itself. */
const ONE_RUN = ['compare']

export default class Lab extends BaseCommand {
  static override summary = 'Run a local rolling deploy on loopback (pods, a load balancer, simulated browsers) and watch it break pages'
  static override description = `Starts pods serving builds with content-hashed bundles behind a load balancer of its own on 127.0.0.1, deploys new builds on a timetable, and sends simulated browsers through it. Writes the balancer's access log (Datadog NDJSON, optionally ingress-nginx lines), the deploy windows and the browsers' Datadog RUM events, for skewscan analyze; probe it with skewscan probe. Pod starts and stops go to stderr as they happen; the summary of what the browsers got goes to stdout at the end (--json: as JSON).

--compare runs every strategy (round-robin, cookie affinity, old assets kept, 404 for missing, blue/green) at once with the same browsers, and prints one table.`

  static override usage = [
    '<%= command.id %> [--once] [FLAGS]',
    '<%= command.id %> --compare [--replicas N] [--step 2s] [--every 2s] [--tail 3s] [--browsers 24] [--latency 0ms] [--seed 1] [--json]',
  ]

  static override examples = [
    '<%= config.bin %> <%= command.id %> --log lab.ndjson --deploys-out deploys.json --once',
    '<%= config.bin %> <%= command.id %> --log lab.ndjson --deploys-out deploys.json --rum-out rum.json --rum-sample-rate 80 --once',
    '<%= config.bin %> <%= command.id %> --affinity cookie --step 5s --port 8080',
    '<%= config.bin %> <%= command.id %> --compare',
    '<%= config.bin %> <%= command.id %> --compare --step 1s --json',
  ]

  static override enableJsonFlag = true
  static override flags = {
    replicas: Flags.integer({default: 3, min: 1, max: 20, description: 'pods per build'}),
    step: Flags.string({description: 'rolling: time per pod; blue/green: time to the switch and from it to the old pods\' stop [default: 10s; 2s with --compare]'}),
    deploys: Flags.integer({default: 1, min: 0, max: 20, exclusive: ONE_RUN, description: 'consecutive deploys'}),
    every: Flags.string({description: 'calm before the first deploy and between deploys [default: 20s; 2s with --compare]'}),
    tail: Flags.string({description: 'with --once: keep serving this long after the last deploy [default: 5s; 3s with --compare]'}),
    strategy: Flags.string({default: 'rolling', options: ['rolling', 'blue-green'], exclusive: ONE_RUN, description: 'blue-green: start all new pods, switch the balancer at once, then stop the old ones'}),
    affinity: Flags.string({default: 'none', options: ['none', 'cookie'], exclusive: ONE_RUN, description: 'cookie: ingress-nginx INGRESSCOOKIE affinity (a pod keeps its sessions while it lives)'}),
    'keep-old-assets': Flags.boolean({default: false, exclusive: ONE_RUN, description: 'new pods also serve the previous build\'s bundles'}),
    'distinct-shell-lengths': Flags.boolean({default: false, exclusive: ONE_RUN, description: 'give each build\'s index.html a length of its own (by default all have one length, as real bundlers make them)'}),
    missing: Flags.string({default: 'fallback', options: ['fallback', '404'], exclusive: ONE_RUN, description: 'what a pod answers for an asset it does not have: its shell (SPA fallback) or 404'}),
    port: Flags.integer({default: 0, min: 0, max: 65535, exclusive: ONE_RUN, description: 'the balancer\'s port on 127.0.0.1 (0: any free port)'}),
    once: Flags.boolean({default: false, exclusive: ONE_RUN, description: 'exit after the last deploy (and --tail)'}),
    duration: Flags.string({default: '1h', exclusive: ONE_RUN, description: 'exit after this long in any case'}),
    browsers: Flags.integer({min: 0, max: 500, description: 'simulated browsers going through the balancer [default: 8; 24 with --compare]'}),
    seed: Flags.integer({default: 1, description: 'seed of builds, browsers and routing choices'}),
    latency: Flags.string({default: '0ms', description: 'delay added to every pod response (widens the races)'}),
    service: Flags.string({default: 'web', exclusive: ONE_RUN, description: 'service name in the log and the deploys file'}),
    log: Flags.string({exclusive: ONE_RUN, description: 'write the balancer\'s access log here (Datadog Logs API v2 NDJSON, millisecond timestamps)'}),
    'ingress-log': Flags.string({exclusive: ONE_RUN, description: 'also write ingress-nginx access lines here'}),
    'deploys-out': Flags.string({exclusive: ONE_RUN, description: 'write the deploy windows here (JSON list, as analyze --deploys reads)'}),
    'rum-out': Flags.string({exclusive: ONE_RUN, description: 'write the Datadog RUM events the browsers would have sent here (a RUM events search API response, as analyze --rum reads)'}),
    'rum-sample-rate': Flags.integer({min: 0, max: 100, exclusive: ONE_RUN, dependsOn: ['rum-out'], description: 'percent of the browsers\' sessions RUM samples [default: 100]'}),
    compare: Flags.boolean({default: false, description: 'run every strategy with the same simulated browsers and print one table'}),
    wide: outputFlags.wide,
    columns: outputFlags.columns,
  }

  async run(): Promise<LabReport | CompareReport> {
    const {flags} = await this.parse(Lab)
    const interrupt = interruptSignal()
    try {
      if (flags.compare) {
        const settings = compareSettings(flags)
        this.notice(`Comparing strategies: one rolling deploy of ${plural(settings.replicas, 'pod')}, ${settings.stepMs / 1000} s per pod, ${plural(settings.browsers, 'browser')} each, all on 127.0.0.1…`)
        const report = await compareStrategies({...settings, signal: interrupt.signal})
        this.print(renderCompare(report.strategies, tableWidth(flags, process.stdout)))
        return report
      }
      const report = await runLab({
        ...labSettings(flags), signal: interrupt.signal,
        ...(flags.log ? {logFile: flags.log} : {}), ...(flags['ingress-log'] ? {ingressLogFile: flags['ingress-log']} : {}),
        ...(flags['deploys-out'] ? {deploysFile: flags['deploys-out']} : {}), ...(flags['rum-out'] ? {rumFile: flags['rum-out']} : {}),
        onListening: (url) => this.notice(`Lab balancer listening on ${url}  (probe it: skewscan probe ${url}; Ctrl-C stops the lab)`),
        onEvent: (e) => this.notice(renderLabEvent(e)),
      })
      this.print(renderLabReport(report))
      return report
    } finally {
      interrupt.dispose()
    }
  }
}
