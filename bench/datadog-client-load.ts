/**
 * Loading the Datadog client at the start of a live pull: the build's bundle of the parts skewscan
 * uses (dist/vendor/datadog-client.js, scripts/build-datadog-client.js) against the same modules
 * required from the package one by one (as client.ts does without a build), and a bare
 * `node -e 0`, measured in the same run as ratios. The runs alternate, so a busy moment weighs on
 * all alike; the median of each is taken. Run alone: `npm run build && npx ts-node
 * --transpile-only bench/datadog-client-load.ts` (BENCH_LOAD_RUNS=11 runs each). Prints its table;
 * no assertion.
 */
import {join} from 'node:path'
import {alternating, ratioTable, wallOf} from './log-files'

const ROOT = join(__dirname, '..')
const RUNS = Number(process.env.BENCH_LOAD_RUNS ?? 11)
const CLIENT = '@datadog/datadog-api-client/dist'
const PACKAGE = ['logger.js', 'packages/datadog-api-client-common/index.js', 'packages/datadog-api-client-v2/apis/LogsApi.js', 'packages/datadog-api-client-v2/apis/EventsApi.js']
  .map((p) => `require('${CLIENT}/${p}')`).join(';')
const cases: [string, string][] = [
  ['node -e 0', '0'],
  ['the bundle (dist/vendor/datadog-client.js)', `require('./dist/vendor/datadog-client.js')`],
  ['the package\'s modules, one by one', PACKAGE],
]

const {medians, loadLine} = alternating(RUNS, cases.map(([, code]) => () => wallOf(process.execPath, ['-e', code], ROOT)))
const bundle = medians[1] as number
console.log(`${loadLine}\n`)
console.log(ratioTable(['load', 'against the bundle'], cases.map(([name]) => name), medians, (k, t) => (k < 2 ? '' : `x${(t / bundle).toFixed(2)}`)))
