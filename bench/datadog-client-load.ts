/**
 * Loading the Datadog client at the start of a live pull: the build's bundle of the parts skewscan
 * uses (dist/vendor/datadog-client.js, scripts/build-datadog-client.js) against the same modules
 * required from the package one by one (as client.ts does without a build), and a bare
 * `node -e 0`, measured in the same run as ratios. The runs alternate, so a busy moment weighs on
 * all alike; the median of each is taken. Run alone: `npm run build && npx ts-node
 * --transpile-only bench/datadog-client-load.ts` (BENCH_LOAD_RUNS=11 runs each). Prints its table;
 * no assertion.
 */
import {spawnSync} from 'node:child_process'
import {loadavg} from 'node:os'
import {join} from 'node:path'
import {median} from './log-files'

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

function wall(code: string): number {
  const t0 = process.hrtime.bigint()
  const r = spawnSync(process.execPath, ['-e', code], {cwd: ROOT, encoding: 'utf8', timeout: 60_000})
  if (r.status !== 0) throw new Error(`node -e ${code} failed (${r.status}): ${r.stderr.slice(-500)}`)
  return Number(process.hrtime.bigint() - t0) / 1e9
}

const before = loadavg()[0] as number
const times = cases.map(() => [] as number[])
for (let i = 0; i < RUNS; i++) cases.forEach(([, code], k) => times[k]?.push(wall(code)))
const medians = times.map(median)
const node = medians[0] as number
const bundle = medians[1] as number
console.log(`Load average ${before.toFixed(2)} before, ${(loadavg()[0] as number).toFixed(2)} after; medians of ${RUNS} runs each, alternating.`)
console.log('')
console.log('| load | wall | against node -e 0 | against the bundle |')
console.log('| --- | ---: | ---: | ---: |')
cases.forEach(([name], k) => {
  const t = medians[k] as number
  console.log(`| ${name} | ${(t * 1000).toFixed(0)} ms | ${k === 0 ? '' : `x${(t / node).toFixed(2)}`} | ${k < 2 ? '' : `x${(t / bundle).toFixed(2)}`} |`)
})
