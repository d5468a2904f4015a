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
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {cpus} from 'node:os'
import {dirname, join} from 'node:path'

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

/**
 * Where the fastest time for the work seen on this machine is kept, per Node version (the work's
 * cost is V8's): bench/out/ is the machine's own, not the repository's. The cores were compared
 * only with each other at first; on 2026-12-06 both took 1.7 times their usual 190-200 ms for a
 * while (335-347 ms), and the comparison said x1.04 and x1.00: a benchmark run then looked clean
 * while GoAccess, jq and skewscan all ran half as long again.
 */
export const REFERENCE_FILE = join(__dirname, 'out', 'core-reference.json')

/**
 * The fastest time for a fixed piece of work seen on this machine, kept in `file` under `key` (the
 * runtime's version: the work's cost is the runtime's), `now` included: written down when it is
 * faster. Undefined when neither is known. bench/suite-cost.ts keeps its sampler's best so too.
 */
export function bestSeen(file: string, key: string, now: number | undefined): number | undefined {
  let saved: number | undefined
  try {
    const ref = JSON.parse(readFileSync(file, 'utf8')) as {key?: unknown; ms?: unknown}
    if (ref.key === key && typeof ref.ms === 'number' && ref.ms > 0) saved = ref.ms
  } catch {
    // none yet, or unreadable: this run's time is the reference
  }
  if (now === undefined || (saved !== undefined && saved <= now)) return saved
  try {
    mkdirSync(dirname(file), {recursive: true})
    writeFileSync(file, `${JSON.stringify({key, ms: now})}\n`)
  } catch {
    // a read-only checkout: the reference is this run's alone
  }
  return now
}

/** The machine's best time for the work: the fastest any core took here with this Node version, these `speeds` included. */
export function machineBest(speeds: readonly CoreSpeed[] | undefined, file = REFERENCE_FILE): number | undefined {
  return bestSeen(file, `node ${process.version}`, speeds && speeds.length > 0 ? Math.min(...speeds.map((s) => s.ms)) : undefined)
}

/**
 * `core 0 x1.00, core 1 x1.77 (194 ms, 343 ms; x1.00, x1.77 of this machine's best, 194 ms)`: each
 * core against the fastest now, then against the fastest seen here (`best`, see machineBest), or
 * a note that it was not measured.
 */
export function describeCoreSpeeds(speeds: readonly CoreSpeed[] | undefined, best?: number): string {
  if (!speeds) return 'core speeds not measured (taskset needs Linux and util-linux)'
  const fastest = Math.min(...speeds.map((s) => s.ms))
  const now = speeds.map((s) => `core ${s.core} x${(s.ms / fastest).toFixed(2)}`).join(', ')
  const ms = speeds.map((s) => `${s.ms.toFixed(0)} ms`).join(', ')
  if (best === undefined) return `${now} (${ms})`
  return `${now} (${ms}; ${speeds.map((s) => `x${(s.ms / best).toFixed(2)}`).join(', ')} of this machine's best, ${best.toFixed(0)} ms)`
}

/**
 * Whether a core took at least a fifth longer than the fastest core now, or than this machine's
 * best (`best`): the host gave its time to other work, one core's or all of them.
 */
export function slowCore(speeds: readonly CoreSpeed[] | undefined, best?: number): boolean {
  if (!speeds) return false
  const reference = Math.min(...speeds.map((s) => s.ms), best ?? Number.POSITIVE_INFINITY)
  return speeds.some((s) => s.ms > reference * 1.2)
}

if (require.main === module) {
  const speeds = coreSpeeds()
  const best = machineBest(speeds)
  process.stdout.write(`${describeCoreSpeeds(speeds, best)}: CPU time for the same work\n`)
  if (slowCore(speeds, best)) process.stdout.write('a core runs slow now: CPU times measured on it are the host\'s, not the machine\'s\n')
}
