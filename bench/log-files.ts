/**
 * What the benchmarks share: the CLI they measure, nginx `combined` lines written into bench/out/
 * (a file is made once and kept), and the median and peak-memory measures of a run.
 */
import {spawnSync} from 'node:child_process'
import {closeSync, existsSync, mkdirSync, openSync, readFileSync, writeSync} from 'node:fs'
import {loadavg} from 'node:os'
import {join} from 'node:path'
import {OUT} from './generate'

/** The CLI measured (BENCH_BIN: another build's bin/run.js). */
export const RUN = process.env.BENCH_BIN ?? join(__dirname, '..', 'bin', 'run.js')
export const REPEAT = Number(process.env.BENCH_REPEAT ?? 3)
/** The small input whose analyze is the fixed cost of an offline run, and how many lines it has (for the tables). */
export const SMALL_FIXTURE = join(__dirname, '..', 'fixtures', 'quiet', 'ingress.log')
export const smallFixtureLines = (): number => readFileSync(SMALL_FIXTURE, 'utf8').split('\n').filter((l) => l !== '').length
export const T0 = Date.UTC(2026, 10, 29, 14, 0, 0)
export const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36'

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const p2 = (n: number): string => String(n).padStart(2, '0')

/** nginx's `$time_local` of a time (UTC). */
export function timeLocal(ms: number): string {
  const d = new Date(ms)
  return `${p2(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} +0000`
}

/** One `combined` line (with its newline): a GET answered `status` with `bytes`. */
export function nginx(ip: string, ms: number, path: string, bytes: number, ua: string, referer = '-', status = 200): string {
  return `${ip} - - [${timeLocal(ms)}] "GET ${path} HTTP/1.1" ${status} ${bytes} "${referer}" "${ua}"\n`
}

/** bench/out/`file`, written once from `count` pieces of text (a line or a few each), in 1 MB writes. */
export function logFile(file: string, count: number, text: (i: number) => string): string {
  mkdirSync(OUT, {recursive: true})
  const path = join(OUT, file)
  if (existsSync(path)) return path
  const fd = openSync(path, 'w')
  let buf = ''
  for (let i = 0; i < count; i++) {
    buf += text(i)
    if (buf.length > 1 << 20) {
      writeSync(fd, buf)
      buf = ''
    }
  }
  writeSync(fd, buf)
  closeSync(fd)
  return path
}

/** `n` shell lengths, each served twice in its own second: n builds (and n - 1 inferred deploys). */
export function manyBuilds(file: string, n: number): string {
  return logFile(file, n, (i) => nginx(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, T0 + i * 1000, '/', 2000 + i, CHROME).repeat(2))
}

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

/** Wall time, in seconds, of a command run to its end (it must exit 0); TZ=UTC. */
export function wallOf(cmd: string, args: string[], cwd?: string): number {
  const t0 = process.hrtime.bigint()
  const r = spawnSync(cmd, args, {cwd, encoding: 'utf8', env: {...process.env, TZ: 'UTC'}, timeout: 60_000})
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr.slice(-500)}`)
  return Number(process.hrtime.bigint() - t0) / 1e9
}

/**
 * Each measure taken `runs` times, alternating (a, b, c, a, b, c, ...) so that a busy moment weighs
 * on all alike: the median of each, and the line that says the load around them.
 */
export function alternating(runs: number, measures: (() => number)[]): {medians: number[]; loadLine: string} {
  const before = loadavg()[0] as number
  const times = measures.map(() => [] as number[])
  for (let i = 0; i < runs; i++) measures.forEach((measure, k) => times[k]?.push(measure()))
  const loadLine = `Load average ${before.toFixed(2)} before, ${(loadavg()[0] as number).toFixed(2)} after; medians of ${runs} runs each, alternating.`
  return {medians: times.map(median), loadLine}
}

/**
 * A markdown table of medians against the first (the baseline, a bare `node -e 0`): a row per case
 * with its wall time and ratio, and a last column of the caller's.
 */
export function ratioTable(header: [string, string], names: string[], medians: number[], last: (k: number, t: number) => string): string {
  const base = medians[0] as number
  const rows = names.map((name, k) => {
    const t = medians[k] as number
    return `| ${name} | ${(t * 1000).toFixed(0)} ms | ${k === 0 ? '' : `x${(t / base).toFixed(2)}`} | ${last(k, t)} |`
  })
  return [`| ${header[0]} | wall | against node -e 0 | ${header[1]} |`, '| --- | ---: | ---: | ---: |', ...rows].join('\n')
}

/** The wall time (s) and peak RSS (MB, from GNU time) of one command; throws when it fails. */
export function measure(cmd: string, args: string[]): {wall: number; rssMB: number; stdout: string} {
  const t0 = process.hrtime.bigint()
  const r = spawnSync('/usr/bin/time', ['-f', '%M', cmd, ...args], {encoding: 'utf8', maxBuffer: 1 << 30, env: {...process.env, TZ: 'UTC'}})
  const wall = Number(process.hrtime.bigint() - t0) / 1e9
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr.slice(-500)}`)
  return {wall, rssMB: Number(r.stderr.trim().split('\n').at(-1)) / 1024, stdout: r.stdout}
}

/** Commands run in turn (a, b, a, b, ...), `REPEAT` times: the median wall time and peak RSS of each, and the first run's stdout. */
export function interleaved(commands: [string, string[]][]): {wall: number; rssMB: number; stdout: string}[] {
  const runs: ReturnType<typeof measure>[][] = commands.map(() => [])
  for (let i = 0; i < REPEAT; i++) commands.forEach(([cmd, args], k) => runs[k]?.push(measure(cmd, args)))
  return runs.map((rs) => ({wall: median(rs.map((r) => r.wall)), rssMB: median(rs.map((r) => r.rssMB)), stdout: rs[0]?.stdout ?? ''}))
}

/** `analyze --json` of each file, in turn (see interleaved). */
export const analyzeEach = (files: string[]): {wall: number; rssMB: number}[] => interleaved(files.map((f) => [process.execPath, [RUN, 'analyze', '--json', f]]))
