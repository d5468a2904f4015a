import {Args, Flags} from '../cli/oclif'
import {probe} from '../app/probe'
import {BaseCommand} from '../cli/base-command'
import {EXIT} from '../cli/exit-codes'
import {interruptSignal} from '../probe/interrupt'
import {DEFAULT_DURATION_MS, DEFAULT_GIVE_UP_AFTER, MIN_INTERVAL_MS, probeSettings} from '../probe/options'
import {barrageJson, renderBarrage, renderProbeSummary, summaryJson} from '../probe/render'
import type {ProbeSummary} from '../probe/types'
import {terminalSafe} from '../report/sanitize'

const DEFAULT_BOUND = `${DEFAULT_DURATION_MS / 3_600_000}h`

export default class Probe extends BaseCommand {
  static override summary = 'Check a live site for stale-bundle failures: barrages of page + assets, every few hundred ms'
  static override description = `Every --interval: fetch the page, find every script and stylesheet it names (a real HTML parser: <script src>, modules, modulepreload, preload, stylesheets, <base href>), fetch them all concurrently and classify each: ok, html-for-asset (text/html, a body starting with <, or the page's own length), missing (4xx), error. Run it during a deploy. One line per barrage, then a summary when it stops (--count, --duration or Ctrl-C).

Bounds: --interval is at least ${MIN_INTERVAL_MS}ms; barrages never overlap (one slower than --interval delays the next) and at most --concurrency requests are in flight, the page's included. Without --count or --duration it stops after ${DEFAULT_BOUND}. It gives up after --give-up-after (${DEFAULT_GIVE_UP_AFTER}) barrages in a row where the page got no answer at all (connection refused, DNS failure, timeout; an HTTP error is an answer).

Exit codes: 0 ran; 1 a barrage failed and --fail-on failure given; 2 usage error; 3 the page never loaded, or the probe gave up on a site that did not answer.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> https://shop.example.com/ --duration 5m',
    '<%= config.bin %> <%= command.id %> http://127.0.0.1:8080/ --interval 100ms --sticky --fail-on failure',
    '<%= config.bin %> <%= command.id %> https://shop.example.com/ --count 20 --header "Authorization: Bearer $TOKEN" --json',
    '<%= config.bin %> <%= command.id %> https://shop.example.com/ --ndjson | jq -c \'select(.verdict != "all-ok")\'',
  ]

  static override enableJsonFlag = true
  static override args = {url: Args.string({description: 'the page to probe (http or https)', required: true})}
  static override flags = {
    interval: Flags.string({default: '300ms', description: `time from one barrage's start to the next one's (at least ${MIN_INTERVAL_MS}ms; a slower barrage delays the next, never overlaps it)`}),
    duration: Flags.string({description: `stop after this long (e.g. 5m); without it or --count: ${DEFAULT_BOUND}`}),
    count: Flags.integer({min: 1, description: 'stop after this many barrages'}),
    timeout: Flags.string({default: '5s', description: 'per request, redirects included'}),
    header: Flags.string({multiple: true, description: 'a request header, "Name: value" (repeatable)'}),
    cookie: Flags.string({multiple: true, description: 'a cookie to send, name=value (repeatable)'}),
    sticky: Flags.boolean({default: false, description: 'keep cookies across barrages like a browser (Set-Cookie from the page and assets): tests session affinity'}),
    concurrency: Flags.integer({default: 6, min: 1, max: 64, description: 'requests in flight at once (the page is fetched alone, then the assets)'}),
    'give-up-after': Flags.integer({default: DEFAULT_GIVE_UP_AFTER, min: 0, description: 'stop, exit 3, after this many barrages in a row got no answer for the page (refused, DNS, timeout); 0: never'}),
    ndjson: Flags.boolean({default: false, exclusive: ['json'], description: 'one JSON line per barrage on stdout, then one summary line'}),
    'fail-on': Flags.string({options: ['failure'], description: 'exit 1 when any barrage failed'}),
  }

  async run(): Promise<ProbeSummary> {
    const {args, flags} = await this.parse(Probe)
    const settings = probeSettings(args.url, flags)
    const interrupt = interruptSignal()
    /** The page's error in the last barrage, for the message when the probe gives up. */
    const last = {pageError: null as string | null}
    const summary = await probe({
      ...settings, userAgent: `skewscan-probe/${this.config.version}`, signal: interrupt.signal,
      onBarrage: (b, info) => {
        last.pageError = b.page.error
        if (flags.ndjson) this.print(barrageJson(b, info))
        else if (this.jsonEnabled()) this.notice(renderBarrage(b, info).trimEnd())
        else this.print(renderBarrage(b, info))
      },
    }).finally(interrupt.dispose)
    if (flags.ndjson) this.print(summaryJson(summary))
    else this.print(renderProbeSummary(summary))
    if (summary.stoppedBy === 'unreachable') {
      this.notice(`Gave up: the page did not answer ${settings.giveUpAfter} barrages in a row (last: ${terminalSafe(last.pageError ?? 'no answer')}): check the URL and that the site is up (--give-up-after sets how many, 0 never gives up).`)
      this.setExitCode(EXIT.SOURCE)
    } else if (summary.barrages > 0 && summary.pageErrors === summary.barrages) {
      this.notice(`The page never loaded (${summary.barrages} attempts): check the URL and that the site is up.`)
      this.setExitCode(EXIT.SOURCE)
    } else if (flags['fail-on'] === 'failure' && summary.failedBarrages > 0) this.setExitCode(EXIT.FINDINGS)
    if (summary.stoppedBy === 'duration' && settings.durationMs === undefined) this.notice(`Stopped after ${DEFAULT_BOUND}, the bound without --count or --duration (give --duration to run longer).`)
    return summary
  }
}
