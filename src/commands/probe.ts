import {Args, Flags} from '@oclif/core'
import {probe} from '../app/probe'
import {BaseCommand} from '../cli/base-command'
import {EXIT} from '../cli/exit-codes'
import {interruptSignal} from '../probe/interrupt'
import {probeSettings} from '../probe/options'
import {barrageJson, renderBarrage, renderProbeSummary} from '../probe/render'
import type {ProbeSummary} from '../probe/types'

export default class Probe extends BaseCommand {
  static override summary = 'Check a live site for stale-bundle failures: barrages of page + assets, every few hundred ms'
  static override description = `Every --interval: fetch the page, find every script and stylesheet it names (a real HTML parser: <script src>, modules, modulepreload, preload, stylesheets, <base href>), fetch them all concurrently and classify each: ok, html-for-asset (text/html, a body starting with <, or the page's own length), missing (4xx), error. Run it during a deploy. One line per barrage, then a summary when it stops (--count, --duration or Ctrl-C).

Exit codes: 0 ran; 1 a barrage failed and --fail-on failure given; 2 usage error; 3 the page never loaded.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> https://shop.example.com/ --duration 5m',
    '<%= config.bin %> <%= command.id %> http://127.0.0.1:8080/ --interval 100ms --sticky --fail-on failure',
    '<%= config.bin %> <%= command.id %> https://shop.example.com/ --count 20 --header "Authorization: Bearer $TOKEN" --json',
    '<%= config.bin %> <%= command.id %> https://shop.example.com/ --ndjson | jq -c \'select(.verdict != "all-ok")\'',
  ]

  static override enableJsonFlag = true
  static override args = {url: Args.string({description: 'the page to probe (http or https)', required: true})}
  static override flags = {
    interval: Flags.string({default: '300ms', description: 'time from one barrage\'s start to the next one\'s'}),
    duration: Flags.string({description: 'stop after this long (e.g. 5m)'}),
    count: Flags.integer({min: 1, description: 'stop after this many barrages'}),
    timeout: Flags.string({default: '5s', description: 'per request, redirects included'}),
    header: Flags.string({multiple: true, description: 'a request header, "Name: value" (repeatable)'}),
    cookie: Flags.string({multiple: true, description: 'a cookie to send, name=value (repeatable)'}),
    sticky: Flags.boolean({default: false, description: 'keep cookies across barrages like a browser (Set-Cookie from the page and assets): tests session affinity'}),
    concurrency: Flags.integer({default: 6, min: 1, max: 64, description: 'asset requests in flight at once'}),
    ndjson: Flags.boolean({default: false, exclusive: ['json'], description: 'one JSON line per barrage on stdout, then one summary line'}),
    'fail-on': Flags.string({options: ['failure'], description: 'exit 1 when any barrage failed'}),
  }

  async run(): Promise<ProbeSummary> {
    const {args, flags} = await this.parse(Probe)
    const settings = probeSettings(args.url, flags)
    const interrupt = interruptSignal()
    const summary = await probe({
      ...settings, userAgent: `skewscan-probe/${this.config.version}`, signal: interrupt.signal,
      onBarrage: (b, info) => {
        if (flags.ndjson) this.print(barrageJson(b, info))
        else if (this.jsonEnabled()) this.notice(renderBarrage(b, info).trimEnd())
        else this.print(renderBarrage(b, info))
      },
    }).finally(interrupt.dispose)
    if (flags.ndjson) this.print(`${JSON.stringify({type: 'summary', ...summary})}\n`)
    else this.print(renderProbeSummary(summary))
    if (summary.barrages > 0 && summary.pageErrors === summary.barrages) {
      this.notice(`The page never loaded (${summary.barrages} attempts): check the URL and that the site is up.`)
      this.setExitCode(EXIT.SOURCE)
    } else if (flags['fail-on'] === 'failure' && summary.failedBarrages > 0) this.setExitCode(EXIT.FINDINGS)
    return summary
  }
}
