/**
 * What the test suite costs, and how much of it was the host's: runs `npm test` (its CPU per test
 * file logged as SKEWSCAN_CPU_LOG does) while each core's speed is sampled every few seconds: about
 * 30 ms of a fixed Python loop pinned to the core, timed by its thread's CPU time. (Python, not
 * Node: V8 tiers code down in a process that sleeps between samples, and its samples 5 s apart
 * took 1.7 times as long as 2 s apart; an interpreter's loop takes the same time, alone on its core
 * or sharing it with the tests.) A virtual machine's host may give a core's time to other work for
 * minutes on end, and the suite's CPU-seconds grow with it (on 2026-12-06 one run took 380 CPU-s
 * with the cores near their best and another 517 CPU-s with both about 1.5 times slower). Prints
 * the wall time and CPU-seconds, the mean slowdown of the cores the suite ran on against the
 * fastest sample this machine has shown (kept in bench/out/sampler-reference.json, this run's
 * included), and both divided by it: an estimate of the run on idle cores.
 *
 *   npx ts-node --transpile-only bench/suite-cost.ts [--cpus LIST] [LOG]
 *
 * LOG: the per-file CPU log (default bench/out/suite-cpu.log). --cpus runs the suite on those cores
 * alone (taskset's list, `0` or `0,1`): on the one core the samples show at its best, the CPU-seconds
 * are those of an idle core, measured rather than estimated (the wall time is then a one-core run's).
 */
import {spawn, spawnSync} from 'node:child_process'
import {closeSync, mkdirSync, openSync, readFileSync, rmSync} from 'node:fs'
import {cpus} from 'node:os'
import {join} from 'node:path'
import {bestSeen} from './core-speed'
import {OUT} from './generate'

/** The sampler: `python3 -c SAMPLER CORE EVERY_MS` prints `<unix ms> <core> <ms>` a sample until killed. */
const SAMPLER = `
import os, sys, time
core, every = int(sys.argv[1]), float(sys.argv[2]) / 1000
os.sched_setaffinity(0, {core})
while True:
    t0 = time.thread_time()
    s = 0
    for i in range(300000): s += i * i % 7
    sys.stdout.write('%d %d %.2f\\n' % (time.time() * 1000, core, (time.thread_time() - t0) * 1000))
    sys.stdout.flush()
    time.sleep(every)
`

/** How often each core is sampled. */
const EVERY_MS = 5000

function main(): void {
  const time = '/usr/bin/time'
  const python = spawnSync('python3', ['--version'], {encoding: 'utf8'})
  if (python.status !== 0 || spawnSync(time, ['true']).status !== 0) throw new Error('needs python3 and GNU time (/usr/bin/time)')
  mkdirSync(OUT, {recursive: true})
  const args = process.argv.slice(2)
  const at = args.indexOf('--cpus')
  const pinned = at === -1 ? undefined : args.splice(at, 2)[1]
  if (at !== -1 && (pinned === undefined || !/^\d+(,\d+)*$/.test(pinned))) throw new Error('--cpus takes a list of cores: 0 or 0,1')
  const log = args[0] ?? join(OUT, 'suite-cpu.log')
  const samplesFile = join(OUT, 'suite-core-samples.txt')
  const timeFile = join(OUT, 'suite-time.txt')
  for (const f of [log, samplesFile, timeFile]) rmSync(f, {force: true})
  const out = openSync(samplesFile, 'a')
  const samplers = cpus().map((_, core) => spawn('python3', ['-c', SAMPLER, String(core), String(EVERY_MS)], {stdio: ['ignore', out, 'inherit']}))
  let r
  try {
    const npmTest = ['npm', 'test']
    r = spawnSync(time, ['-o', timeFile, '-f', '%e %U %S', ...(pinned === undefined ? npmTest : ['taskset', '-c', pinned, ...npmTest])], {stdio: 'inherit', env: {...process.env, SKEWSCAN_CPU_LOG: log}})
  } finally {
    for (const s of samplers) s.kill()
    closeSync(out)
  }
  const [wall, user, sys] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)?.split(' ').map(Number) ?? []
  // Each sample against the fastest this machine's sampler has shown (this run's included: the host
  // may slow every core for a whole run), averaged over the cores the suite ran on (all, or --cpus).
  const samples = readFileSync(samplesFile, 'utf8').split('\n').filter((l) => l !== '').map((l) => l.split(' ').map(Number))
  const fastest = bestSeen(join(OUT, 'sampler-reference.json'), python.stdout.trim(), samples.length > 0 ? Math.min(...samples.map(([, , ms]) => ms as number)) : undefined) ?? 1
  const slowdownOn = (cores: readonly number[]): number => {
    const mine = samples.filter(([, core]) => cores.includes(core as number)).map(([, , ms]) => (ms as number) / fastest)
    return mine.length === 0 ? 1 : mine.reduce((a, b) => a + b, 0) / mine.length
  }
  const all = cpus().map((_, core) => core)
  const slowdown = slowdownOn(pinned === undefined ? all : pinned.split(',').map(Number))
  const perCore = all.map((core) => `core ${core} x${slowdownOn([core]).toFixed(2)}`).join(', ')
  const wallSeconds = wall ?? Number.NaN
  const cpuSeconds = (user ?? 0) + (sys ?? 0)
  const where = pinned === undefined ? '' : ` on core${pinned.includes(',') ? 's' : ''} ${pinned} alone`
  process.stdout.write(`\nnpm test${where}: exit ${r.status}, ${wallSeconds.toFixed(1)} s wall, ${cpuSeconds.toFixed(1)} CPU-s; the cores it ran on were at x${slowdown.toFixed(2)} of this machine's fastest sample, ${fastest.toFixed(1)} ms (${perCore}; ${samples.length} samples): about ${(wallSeconds / slowdown).toFixed(0)} s and ${(cpuSeconds / slowdown).toFixed(0)} CPU-s on idle cores. Per test file: ${log}\n`)
  process.exitCode = r.status ?? 1
}

if (require.main === module) main()
