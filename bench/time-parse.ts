/**
 * Why access-log times are parsed by hand (issue 26): nginx's `$time_local` is read once per log
 * line, on the hot path, so the hand-written parser in normalize/ is measured against date-fns
 * `parse` with the same format, over the same 1M distinct strings, alternately, in one process. The
 * two must agree on every string (checked before timing). Run:
 * `npx ts-node --transpile-only bench/time-parse.ts`. Prints its table; no assertion.
 */
import {parse} from 'date-fns/parse'
import {parseNginxTime} from '../src/normalize/access-line'

const N = 1_000_000
const ROUNDS = 3
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const OFFSETS = ['+0000', '+0100', '-0500', '+0530']
const pad = (n: number): string => String(n).padStart(2, '0')

/** `29/Nov/2026:14:02:10 +0100`, a second apart from one string to the next, in four offsets. */
const inputs = Array.from({length: N}, (_, i) => {
  const d = new Date(Date.UTC(2026, 10, 1) + i * 1000)
  return `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} ${OFFSETS[i % OFFSETS.length]}`
})
const REFERENCE = new Date(0)
const withDateFns = (s: string): number => parse(s, 'dd/MMM/yyyy:HH:mm:ss xx', REFERENCE).getTime()

for (let i = 0; i < N; i += 997) {
  const s = inputs[i] as string
  if (parseNginxTime(s) !== withDateFns(s)) throw new Error(`the parsers disagree on ${s}: ${parseNginxTime(s)} against ${withDateFns(s)}`)
}

const time = (f: (s: string) => number | undefined): number => {
  const t0 = process.hrtime.bigint()
  let sum = 0
  for (const s of inputs) sum += f(s) ?? 0
  if (sum === 0) throw new Error('nothing parsed')
  return Number(process.hrtime.bigint() - t0) / 1e9
}
const hand: number[] = []
const fns: number[] = []
for (let r = 0; r < ROUNDS; r++) {
  hand.push(time(parseNginxTime))
  fns.push(time(withDateFns))
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const [h, f] = [median(hand), median(fns)]
console.log(`| parser | 1M \`$time_local\` strings | per string |`)
console.log('| --- | ---: | ---: |')
console.log(`| normalize/ parseNginxTime (hand-written) | ${(h * 1000).toFixed(0)} ms | ${((h / N) * 1e9).toFixed(0)} ns |`)
console.log(`| date-fns parse(s, 'dd/MMM/yyyy:HH:mm:ss xx') | ${(f * 1000).toFixed(0)} ms | ${((f / N) * 1e9).toFixed(0)} ns |`)
console.log(`| date-fns against hand-written | x${(f / h).toFixed(1)} | |`)
