/**
 * Start-up (issue 26): `skewscan --version`, `--help`, `analyze --help` and `help export` against a bare
 * `node -e 0` measured in the same run, as ratios; the goal is at most 2x for each. The runs
 * alternate (node, then each command, again and again), so a busy moment weighs on all alike; the
 * median of each is taken. skewscan is started through bin/run.js's #! line, as an installed
 * `skewscan` is. Run alone: `npm run build && npx ts-node --transpile-only bench/startup.ts`
 * (BENCH_STARTUP_RUNS=11 runs each). Prints its table; no assertion. What start-up loads is held
 * by a count in test/integration/installed-cli.test.ts, not by a time.
 */
import {spawnSync} from 'node:child_process'
import {loadavg} from 'node:os'
import {median, RUN} from './log-files'

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 11)
const cases: [string, string, string[]][] = [
  ['node -e 0', process.execPath, ['-e', '0']],
  ['skewscan --version', RUN, ['--version']],
  ['skewscan --help', RUN, ['--help']],
  ['skewscan analyze --help', RUN, ['analyze', '--help']],
  ['skewscan help export', RUN, ['help', 'export']],
]

function wall(cmd: string, args: string[]): number {
  const t0 = process.hrtime.bigint()
  const r = spawnSync(cmd, args, {encoding: 'utf8', env: {...process.env, TZ: 'UTC'}, timeout: 60_000})
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr.slice(-500)}`)
  return Number(process.hrtime.bigint() - t0) / 1e9
}

const before = loadavg()[0] as number
const times = cases.map(() => [] as number[])
for (let i = 0; i < RUNS; i++) cases.forEach(([, cmd, args], k) => times[k]?.push(wall(cmd, args)))
const medians = times.map(median)
const node = medians[0] as number
console.log(`Load average ${before.toFixed(2)} before, ${(loadavg()[0] as number).toFixed(2)} after; medians of ${RUNS} runs each, alternating.`)
console.log('')
console.log('| what | wall | against node -e 0 | at most 2x |')
console.log('| --- | ---: | ---: | --- |')
cases.forEach(([name], k) => {
  const t = medians[k] as number
  console.log(`| ${name} | ${(t * 1000).toFixed(0)} ms | ${k === 0 ? '' : `x${(t / node).toFixed(2)}`} | ${k === 0 ? '' : t <= 2 * node ? 'yes' : '**no**'} |`)
})
