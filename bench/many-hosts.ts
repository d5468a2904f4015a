/**
 * Many Host values (issue 25, item 4): any client sets Host, and scanners send random ones. Peak
 * RSS of `analyze` over 100,000 distinct hosts against 10,000, as a ratio measured in the same run
 * (apps with no shell or asset traffic are counts; apps with shells are capped at 1000), for junk
 * paths and for shells. Run alone: `npm run build && npx ts-node --transpile-only bench/many-hosts.ts`.
 * Prints its table; no assertion (timing goals live here, never in tests).
 */
import {analyzeEach, logFile, nginx, T0} from './log-files'

/** `hosts` distinct `$host` prefixes ("vcombined"), one request each, a few per second: junk paths (404) or the shell (200). */
function hostsFile(hosts: number, kind: 'junk' | 'shell'): string {
  return logFile(`hosts-${kind}-${hosts}.log`, hosts, (i) => {
    const ip = `198.51.${(i >> 8) & 255}.${i & 255}`
    const ua = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/132.0'
    const line = kind === 'junk' ? nginx(ip, T0 + Math.floor(i / 4) * 1000, `/wp-login.php?i=${i}`, 153, ua, '-', 404) : nginx(ip, T0 + Math.floor(i / 4) * 1000, '/', 1832, ua)
    return `h${i.toString(36)}.scan.example ${line}`
  })
}

for (const kind of ['junk', 'shell'] as const) {
  const [a, b] = analyzeEach([hostsFile(10_000, kind), hostsFile(100_000, kind)]).map((m) => m.rssMB) as [number, number]
  console.log(`| ${kind === 'junk' ? 'junk paths (404)' : 'the shell (200)'} | 10,000 hosts: ${a.toFixed(0)} MB | 100,000 hosts: ${b.toFixed(0)} MB | x${(b / a).toFixed(2)} |`)
}
