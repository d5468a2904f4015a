/**
 * How fast each core of this machine runs one fixed piece of JavaScript now, pinned to it with
 * `taskset` (util-linux). A virtual machine's host may give a core's time to other work: on the
 * two-core machine these benchmarks ran on, one core took 1.7-1.8 times the CPU time of the other
 * for the same work for minutes at a time (2026-12-06), and nothing inside the machine showed it
 * (no steal time, a low load average). CPU time measured on such a core is not the machine's own,
 * and a two-thread run waits for it: bench/run.ts notes each core's speed before and after it runs,
 * and a maintainer measuring the test suite's CPU can look first (`npx ts-node --transpile-only
 * bench/core-speed.ts`).
 */
import {spawnSync} from 'node:child_process'
import {cpus} from 'node:os'

/**
 * `iterations` rounds of JSON, regular expressions and objects (300,000: about 0.2 s), timed by the
 * CPU time of the process that runs it, in milliseconds. Self-contained: a pinned child runs its text.
 */
function fixedWork(iterations: number): number {
  const line = '{"a":"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36","b":[1,2,3,{"c":"d"}],"n":12345}'
  let s = 0
  const t0 = process.cpuUsage()
  for (let i = 0; i < iterations; i++) {
    const o = JSON.parse(line) as {a: string}
    s += o.a.length + (/Linux/.test(o.a) ? 1 : 0)
    if (i % 3 === 0) s += JSON.stringify(o).length
  }
  const u = process.cpuUsage(t0)
  // s is read, so that the loop's work is not optimised away (it is never negative).
  return (u.user + u.system) / 1000 + (s < 0 ? 1 : 0)
}

const WORK = `process.stdout.write(String((${fixedWork.toString()})(300000)))`

/** One core's time for the work, in milliseconds (the best of `runs`). */
export interface CoreSpeed {
  core: number
  ms: number
}

/** Each core's time for the work, or undefined where cores cannot be pinned (no taskset, not Linux). */
export function coreSpeeds(runs = 3): CoreSpeed[] | undefined {
  if (process.platform !== 'linux' || spawnSync('taskset', ['--version']).status !== 0) return undefined
  const out: CoreSpeed[] = []
  for (let core = 0; core < cpus().length; core++) {
    let best = Number.POSITIVE_INFINITY
    for (let k = 0; k < runs; k++) {
      const r = spawnSync('taskset', ['-c', String(core), process.execPath, '-e', WORK], {encoding: 'utf8'})
      const ms = Number(r.stdout)
      if (r.status === 0 && Number.isFinite(ms)) best = Math.min(best, ms)
    }
    if (Number.isFinite(best)) out.push({core, ms: best})
  }
  return out.length > 0 ? out : undefined
}

/** `core 0 x1.00, core 1 x1.77` (each against the fastest), or a note that it was not measured. */
export function describeCoreSpeeds(speeds: readonly CoreSpeed[] | undefined): string {
  if (!speeds) return 'core speeds not measured (taskset needs Linux and util-linux)'
  const fastest = Math.min(...speeds.map((s) => s.ms))
  return speeds.map((s) => `core ${s.core} x${(s.ms / fastest).toFixed(2)}`).join(', ')
}

/** Whether a core took at least a fifth longer than the fastest: the host gave its time to other work. */
export function slowCore(speeds: readonly CoreSpeed[] | undefined): boolean {
  if (!speeds) return false
  const fastest = Math.min(...speeds.map((s) => s.ms))
  return speeds.some((s) => s.ms > fastest * 1.2)
}

if (require.main === module) {
  const speeds = coreSpeeds()
  process.stdout.write(`${describeCoreSpeeds(speeds)}${speeds ? ` (${speeds.map((s) => `${s.ms.toFixed(0)} ms`).join(', ')} of CPU time for the same work)` : ''}\n`)
  if (slowCore(speeds)) process.stdout.write('a core runs slow now: CPU times measured on it are the host\'s, not the machine\'s\n')
}
