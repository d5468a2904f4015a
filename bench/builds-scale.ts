/**
 * Builds and inferred deploys scale near-linearly (issue 25, item 16: 59k builds took 85 s): the
 * wall time of `analyze --json` over 59,000 shell lengths (each served twice in its own second:
 * 59,000 builds, 58,999 inferred deploys) against 5,900, a ratio measured in the same run (about
 * 10 is linear, 100 quadratic). Run alone: `npm run build && npx ts-node --transpile-only bench/builds-scale.ts`.
 * Prints its table; no assertion.
 */
import {spawnSync} from 'node:child_process'
import {closeSync, existsSync, mkdirSync, openSync, writeSync} from 'node:fs'
import {join} from 'node:path'

const RUN = process.env.BENCH_BIN ?? join(__dirname, '..', 'bin', 'run.js')
const OUT = join(__dirname, 'out')
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3)
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const p2 = (n: number): string => String(n).padStart(2, '0')
const T0 = Date.UTC(2026, 10, 29, 14, 0, 0)

function manyBuilds(n: number): string {
  mkdirSync(OUT, {recursive: true})
  const path = join(OUT, `builds-${n}.log`)
  if (existsSync(path)) return path
  const fd = openSync(path, 'w')
  let buf = ''
  for (let i = 0; i < n; i++) {
    const d = new Date(T0 + i * 1000)
    const at = `${p2(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} +0000`
    const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`
    buf += `${ip} - - [${at}] "GET / HTTP/1.1" 200 ${2000 + i} "-" "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0"\n`.repeat(2)
    if (buf.length > 1 << 20) {
      writeSync(fd, buf)
      buf = ''
    }
  }
  writeSync(fd, buf)
  closeSync(fd)
  return path
}

function wall(file: string): number {
  const started = process.hrtime.bigint()
  const r = spawnSync(process.execPath, [RUN, 'analyze', '--json', file], {encoding: 'utf8', maxBuffer: 1 << 30})
  if (r.status !== 0) throw new Error(`analyze ${file} exited ${r.status}: ${r.stderr.slice(-500)}`)
  return Number(process.hrtime.bigint() - started) / 1e9
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const small = manyBuilds(5900)
const large = manyBuilds(59_000)
const s: number[] = []
const l: number[] = []
for (let i = 0; i < REPEAT; i++) {
  s.push(wall(small))
  l.push(wall(large))
}
const [a, b] = [median(s), median(l)]
console.log(`| analyze --json, 5,900 builds: ${a.toFixed(2)} s | 59,000 builds: ${b.toFixed(2)} s | x${(b / a).toFixed(1)} (10 is linear) |`)
