/**
 * Builds and inferred deploys scale near-linearly (issue 25, item 16: 59k builds took 85 s): the
 * wall time of `analyze --json` over 59,000 shell lengths (each served twice in its own second:
 * 59,000 builds, 58,999 inferred deploys) against 5,900, a ratio measured in the same run (about
 * 10 is linear, 100 quadratic). Run alone: `npm run build && npx ts-node --transpile-only bench/builds-scale.ts`.
 * Prints its table; no assertion.
 */
import {analyzeEach, manyBuilds} from './log-files'

const [a, b] = analyzeEach([manyBuilds('builds-5900.log', 5900), manyBuilds('builds-59000.log', 59_000)]).map((m) => m.wall) as [number, number]
console.log(`| analyze --json, 5,900 builds: ${a.toFixed(2)} s | 59,000 builds: ${b.toFixed(2)} s | x${(b / a).toFixed(1)} (10 is linear) |`)
