/**
 * Start-up (issue 26): `skewscan --version`, `--help`, `analyze --help` and `help export` against a bare
 * `node -e 0` measured in the same run, as ratios; the goal is at most 2x for each. And an analyze of
 * a small fixture: the fixed cost of a command that oclif runs. The runs
 * alternate (node, then each command, again and again), so a busy moment weighs on all alike; the
 * median of each is taken. skewscan is started through bin/run.js's #! line, as an installed
 * `skewscan` is. Run alone: `npm run build && npx ts-node --transpile-only bench/startup.ts`
 * (BENCH_STARTUP_RUNS=11 runs each). Prints its table; no assertion. What start-up loads is held
 * by a count in test/integration/installed-cli.test.ts, not by a time.
 */
import {alternating, ratioTable, RUN, SMALL_FIXTURE, smallFixtureLines, wallOf} from './log-files'

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 11)
/** Each case: its name, command and arguments, and whether the goal of at most 2x applies. */
const cases: [string, string, string[], boolean][] = [
  ['node -e 0', process.execPath, ['-e', '0'], false],
  ['skewscan --version', RUN, ['--version'], true],
  ['skewscan --help', RUN, ['--help'], true],
  ['skewscan analyze --help', RUN, ['analyze', '--help'], true],
  ['skewscan help export', RUN, ['help', 'export'], true],
  // A command: oclif runs it, loaded as one file (dist/cli/oclif.js, scripts/build-oclif.js). No
  // goal of 2x (it reads and analyses its file); the figure to compare between builds (BENCH_BIN).
  [`skewscan analyze on a ${smallFixtureLines()}-line fixture`, RUN, ['analyze', SMALL_FIXTURE, '--json'], false],
]

const {medians, loadLine} = alternating(RUNS, cases.map(([, cmd, args]) => () => wallOf(cmd, args)))
const node = medians[0] as number
console.log(`${loadLine}\n`)
console.log(ratioTable(['what', 'at most 2x'], cases.map(([name]) => name), medians, (k, t) => (cases[k]?.[3] !== true ? '' : t <= 2 * node ? 'yes' : '**no**')))
