/**
 * Many Host values (issue 25, item 4): any client sets Host, and scanners send random ones. Peak
 * RSS of `analyze` over 100,000 distinct hosts against 10,000, as a ratio measured in the same run
 * (apps with no shell or asset traffic are counts; apps with shells are capped at 1000), for junk
 * paths and for shells. Run alone: `npm run build && npx ts-node --transpile-only bench/many-hosts.ts`.
 * Prints its table; no assertion (timing goals live here, never in tests).
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

/** `hosts` distinct `$host` prefixes ("vcombined"), one request each, a few per second: junk paths (404) or the shell (200). */
function hostsFile(hosts: number, kind: 'junk' | 'shell'): string {
  mkdirSync(OUT, {recursive: true})
  const path = join(OUT, `hosts-${kind}-${hosts}.log`)
  if (existsSync(path)) return path
  const fd = openSync(path, 'w')
  let buf = ''
  for (let i = 0; i < hosts; i++) {
    const d = new Date(T0 + Math.floor(i / 4) * 1000)
    const at = `${p2(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} +0000`
    const request = kind === 'junk' ? `"GET /wp-login.php?i=${i} HTTP/1.1" 404 153` : '"GET / HTTP/1.1" 200 1832'
    buf += `h${i.toString(36)}.scan.example 198.51.${(i >> 8) & 255}.${i & 255} - - [${at}] ${request} "-" "Mozilla/5.0 (X11; Linux x86_64) Firefox/132.0"\n`
    if (buf.length > 1 << 20) {
      writeSync(fd, buf)
      buf = ''
    }
  }
  writeSync(fd, buf)
  closeSync(fd)
  return path
}

/** Peak RSS (MB) of one `analyze --json` over `file`, from GNU time. */
function peakMB(file: string): number {
  const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, RUN, 'analyze', '--json', file], {encoding: 'utf8', maxBuffer: 1 << 30})
  if (r.status !== 0) throw new Error(`analyze ${file} exited ${r.status}: ${r.stderr.slice(-500)}`)
  return Number(r.stderr.trim().split('\n').at(-1)) / 1024
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

for (const kind of ['junk', 'shell'] as const) {
  const small = hostsFile(10_000, kind)
  const large = hostsFile(100_000, kind)
  const s: number[] = []
  const l: number[] = []
  for (let i = 0; i < REPEAT; i++) {
    s.push(peakMB(small))
    l.push(peakMB(large))
  }
  const [a, b] = [median(s), median(l)]
  console.log(`| ${kind === 'junk' ? 'junk paths (404)' : 'the shell (200)'} | 10,000 hosts: ${a.toFixed(0)} MB | 100,000 hosts: ${b.toFixed(0)} MB | x${(b / a).toFixed(2)} |`)
}
