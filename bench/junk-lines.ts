/**
 * Lines no format reads (issue 25, item 14: 24M one-byte junk lines took 59-181 s and 1-1.5 GB):
 * a rejected line costs a counter, not an object handed to the main thread. Measured in the same
 * run, as ratios: `analyze --json` over 100 real lines and 24 million one-byte junk lines (48 MB,
 * read by the workers) against the same with 2.4 million (a tenth: about 10 is linear for time,
 * about 1 flat for memory), and the cost of a junk line against the cost of a good `combined` line
 * (the same 48 MB of good lines: 480,000 of them). Run alone:
 * `npm run build && npx ts-node --transpile-only bench/junk-lines.ts`. Prints its table; no assertion.
 */
import {analyzeEach, CHROME, logFile, nginx, T0} from './log-files'

type Measure = {wall: number; rssMB: number}

/** 100 good lines, then `junk` lines of one byte each. */
const junkFile = (junk: number): string =>
  logFile(`junk-${junk}.log`, 100 + junk / 1000, (i) => (i < 100 ? nginx(`192.0.2.${i}`, T0 + i * 1000, '/', 1832, CHROME) : 'x\n'.repeat(1000)))

/** `n` good `combined` lines, a browser every second. */
const goodFile = (n: number): string => logFile(`good-${n}.log`, n, (i) => nginx(`10.0.${(i >> 8) & 255}.${i & 255}`, T0 + i * 1000, '/', 1832, CHROME))

const [tenth, full, good] = analyzeEach([junkFile(2_400_000), junkFile(24_000_000), goodFile(480_000)]) as [Measure, Measure, Measure]
console.log('| input | wall | peak RSS |')
console.log('| --- | ---: | ---: |')
console.log(`| 2.4M junk lines (4.8 MB) | ${tenth.wall.toFixed(2)} s | ${tenth.rssMB.toFixed(0)} MB |`)
console.log(`| 24M junk lines (48 MB) | ${full.wall.toFixed(2)} s | ${full.rssMB.toFixed(0)} MB |`)
console.log(`| 480k good combined lines (48 MB) | ${good.wall.toFixed(2)} s | ${good.rssMB.toFixed(0)} MB |`)
console.log(`| 24M junk against 2.4M | x${(full.wall / tenth.wall).toFixed(1)} time | x${(full.rssMB / tenth.rssMB).toFixed(2)} memory |`)
console.log(`| a junk line against a good line | x${((full.wall / 24_000_000) / (good.wall / 480_000)).toFixed(3)} time per line | |`)
