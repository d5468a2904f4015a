/**
 * `npm run bench`: throughput, memory and start-up of `skewscan analyze`, each as a ratio against a
 * baseline measured in the same run on the same machine (never an absolute timed assertion).
 * Inputs are generated deterministically into bench/out/ (nothing large is committed). Results are
 * printed and written to bench/RESULTS.md with a description of the machine.
 */
import {spawnSync} from 'node:child_process'
import {closeSync, createReadStream, createWriteStream, existsSync, openSync, readFileSync, readSync, renameSync, statSync, writeFileSync} from 'node:fs'
import {pipeline} from 'node:stream/promises'
import {createGzip} from 'node:zlib'
import {cpus, loadavg, totalmem} from 'node:os'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {coreSpeeds, describeCoreSpeeds, machineBest, slowCore} from './core-speed'
import {costCases, costSection} from './cost'
import {datadogPullCases, datadogPullSection, realisticDayCases, realisticDaySection} from './datadog-pull'
import {generate, OUT} from './generate'
import {REPEAT, RUN, SMALL_FIXTURE, smallFixtureLines} from './log-files'
import {generateRepeated} from './repeat-capture'

const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined

interface Measure {
  wall: number
  cpu: number
  rssMB: number
}

/**
 * Runs a command to completion: CPU time and peak RSS from GNU time, wall time from the clock here
 * (GNU time gives it in hundredths of a second only, too coarse for start-up).
 */
function measure(cmd: string, args: string[]): Measure {
  if (!TIME) throw new Error('bench needs GNU time (/usr/bin/time, Debian package "time") for peak RSS')
  const t0 = process.hrtime.bigint()
  const r = spawnSync(TIME, ['-f', '%e %U %S %M', cmd, ...args], {encoding: 'utf8', maxBuffer: 1 << 30, env: {...process.env, TZ: 'UTC'}})
  const wall = Number(process.hrtime.bigint() - t0) / 1e9
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr.slice(-500)}`)
  const [, user, sys, rss] = (r.stderr.trim().split('\n').at(-1) ?? '').split(' ').map(Number)
  return {wall, cpu: (user ?? 0) + (sys ?? 0), rssMB: (rss ?? 0) / 1024}
}

/** A newest-first copy of a line file (as a Log Explorer export comes), written once. */
async function reversed(path: string, name: string): Promise<string> {
  const out = join(OUT, name)
  if (existsSync(out) && statSync(out).size === statSync(path).size) return out
  const lines: string[] = []
  for await (const line of createInterface({input: createReadStream(path), crlfDelay: Infinity})) if (line) lines.push(line)
  const w = createWriteStream(out)
  for (let i = lines.length - 1; i >= 0; i--) if (!w.write(`${lines[i]}\n`)) await new Promise<void>((resolve) => w.once('drain', () => resolve()))
  await new Promise<void>((resolve) => w.end(() => resolve()))
  return out
}

/** A gzip copy (fastest level) of a file, written once. */
async function gzipped(path: string, name: string): Promise<string> {
  const out = join(OUT, name)
  if (existsSync(out) && statSync(out).size > 0) return out
  await pipeline(createReadStream(path), createGzip({level: 1}), createWriteStream(`${out}.part`))
  renameSync(`${out}.part`, out)
  return out
}

/**
 * The median wall and CPU time and the median peak RSS, each on its own (a run's peak RSS depends
 * on when the garbage collector happened to run: it varies by some 5% between runs).
 */
function medianOf(runs: Measure[]): Measure {
  const mid = <K extends keyof Measure>(k: K): number => (runs.map((r) => r[k]).sort((a, b) => a - b)[Math.floor(runs.length / 2)] as number)
  return {wall: mid('wall'), cpu: mid('cpu'), rssMB: mid('rssMB')}
}

/** A row of the results table: what was run, its wall and CPU time, its throughput over `n` items and its peak RSS. */
function measuredRow(what: string, m: Measure, n: number, unit = 'events'): string {
  return `| ${what} | ${fmt(m.wall)} s | ${fmt(m.cpu)} s | ${fmt(n / m.wall / 1000, 1)}k ${unit}/s | ${fmt(m.rssMB, 0)} MB |`
}

/** REPEAT runs of one command: their medians (see medianOf). */
function median(cmd: string, args: string[]): Measure {
  return medianOf(Array.from({length: REPEAT}, () => measure(cmd, args)))
}

/**
 * Commands compared with each other, run in turn (a, b, a, b, ...) `times` times, and the medians
 * of each: a machine that slows down or speeds up during the benchmark (other work on it) then
 * weighs on every command alike, where running each one's repeats in a block skews their ratio.
 */
function interleaved(commands: [string, string[]][], times: number): Measure[] {
  const runs: Measure[][] = commands.map(() => [])
  for (let i = 0; i < times; i++) commands.forEach(([cmd, args], k) => runs[k]?.push(measure(cmd, args)))
  return runs.map(medianOf)
}

function which(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0
}

const fmt = (n: number, d = 2): string => n.toFixed(d)

/**
 * The results written, followed by the sections of the previous RESULTS.md that this run does not
 * write (those other benchmarks put there: many hosts, builds at scale, start-up, ...), in their order.
 */
export function withOtherSections(md: string, previous: string): string {
  const headings = new Set(md.split('\n').filter((l) => l.startsWith('## ')))
  const kept = previous.split(/\n(?=## )/).slice(1).filter((section) => !headings.has(section.split('\n')[0] as string))
  return [md.trimEnd(), ...kept.map((section) => section.trimEnd())].join('\n\n') + '\n'
}

/** The lines of a file (its newlines), counted in 1 MB reads. */
function lineCount(path: string): number {
  const fd = openSync(path, 'r')
  const buf = Buffer.alloc(1 << 20)
  let n = 0
  try {
    for (let got = readSync(fd, buf); got > 0; got = readSync(fd, buf)) for (let at = buf.indexOf(10); at !== -1 && at < got; at = buf.indexOf(10, at + 1)) n++
  } finally {
    closeSync(fd)
  }
  return n
}

/** jq on text lines: each one's combined fields by a regular expression, the requests answered 200. */
const TEXT_JQ = 'capture("^(?<ip>\\\\S+) \\\\S+ \\\\S+ \\\\[(?<time>[^]]+)\\\\] \\"(?<request>[^\\"]*)\\" (?<status>[0-9]+) (?<bytes>[0-9-]+)") | select(.status == "200") | .request'

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0
  const coresBefore = coreSpeeds()
  const inputs = await generate()
  const dd200k = inputs.dd200k as string
  const dd2m = inputs.dd2m as string
  const ingress = inputs.ingress1m as string
  const rows: string[] = []
  const targets: [string, boolean, string][] = []
  const say = (s: string): void => {
    rows.push(s)
    process.stdout.write(`${s}\n`)
  }

  // Throughput (issue 28), on two kinds of file in each format: the simulator's traffic (a deploy
  // every 30 minutes) and a real capture laid end to end (a deploy a minute, the same builds coming
  // back). Each against a bare one-core parse of the same file, jq, and for text lines GoAccess,
  // run in turn (interleaved: a machine that slows down weighs on all alike).
  const repeated = await generateRepeated()
  const kinds = [
    {what: 'Datadog NDJSON, simulated traffic', path: dd200k, json: true},
    {what: 'Datadog NDJSON, a real capture end to end', path: repeated.ddCaptures, json: true},
    {what: 'ingress-nginx lines, simulated traffic', path: ingress, json: false},
    {what: 'combined lines, a real capture end to end', path: repeated.combinedCaptures, json: false},
  ]
  const hasJq = which('jq')
  const hasGoaccess = which('goaccess')
  let ours: Measure | undefined
  for (const {what, path, json} of kinds) {
    const n = lineCount(path)
    const size = statSync(path).size / 1e6
    const unit = json ? 'events' : 'lines'
    const commands: [string, [string, string[]]][] = [
      [json ? 'readline + JSON.parse (one core)' : 'readline + a combined regex (one core)', ['node', [join(__dirname, json ? 'baseline.js' : 'text-baseline.js'), path]]],
      ['skewscan analyze --json', [RUN, ['analyze', path, '--json']]],
    ]
    if (hasJq) commands.push(['jq', ['jq', json ? ['-c', 'select(.attributes.attributes.http.status_code==200) | .id', path] : ['-R', '-c', TEXT_JQ, path]]])
    if (!json && hasGoaccess) commands.push(['GoAccess --log-format=COMBINED', ['goaccess', ['--log-format=COMBINED', '-o', join(OUT, 'goaccess.json'), path]]])
    // skewscan's reading alone: what analyze costs beyond it is the analysis and the hand-off.
    commands.push(["skewscan's parse alone (one core, no analysis)", ['node', [join(__dirname, 'parse-only.js'), path]]])
    const measured = interleaved(commands.map(([, c]) => c), REPEAT)
    const analyze = measured[1] as Measure
    commands.forEach(([name], k) => {
      const m = measured[k] as Measure
      const vs = k === 0 ? '' : ` (x${fmt(m.wall / analyze.wall)} of analyze)`
      say(measuredRow(`${what}, ${fmt(n / 1000, 0)}k ${unit} (${fmt(size, 0)} MB): ${name}${k === 1 ? '' : vs}`, m, n, unit))
    })
    // analyze at least `times` as fast as the command named `prefix` (not measured when not installed).
    const against = (prefix: string, times: number, label: string, missing: string): void => {
      const k = commands.findIndex(([name]) => name.startsWith(prefix))
      const other = measured[k]
      targets.push([`${what}: analyze at least ${times}x ${label}`, other !== undefined && other.wall / analyze.wall >= times, other ? `x${fmt(other.wall / analyze.wall)}` : `${missing}: not measured`])
    }
    against('readline', 1.5, 'the one-core parse', '')
    against('jq', 2, 'jq', 'jq not installed')
    if (!json) against('GoAccess', 5, 'GoAccess', 'goaccess not installed (Debian package goaccess)')
    if (path === dd200k) ours = analyze
    if (path === ingress) targets.push(['raw nginx lines at least 300k lines/s', n / analyze.wall >= 300_000, `${fmt(n / analyze.wall / 1000, 0)}k lines/s`])
  }
  if (!ours) throw new Error('no 200k measure')
  // The single-thread path on the same file, for comparison (the hidden --workers 0).
  const plain = median(RUN, ['analyze', dd200k, '--json', '--workers', '0'])
  say(measuredRow('Datadog NDJSON, simulated traffic: skewscan analyze --json --workers 0 (one thread)', plain, 200_000))

  // Memory: flat in the input size. And throughput on the large file, where fixed costs (start-up,
  // compiling the hot code in each thread) weigh less.
  const mb2m = statSync(dd2m).size / 1e6
  const base2m = measure('node', [join(__dirname, 'baseline.js'), dd2m])
  say(measuredRow(`Datadog NDJSON 2M events (${fmt(mb2m, 0)} MB): readline + JSON.parse baseline`, base2m, 2_000_000))
  const big = median(RUN, ['analyze', dd2m, '--json'])
  say(measuredRow('Datadog NDJSON 2M events: skewscan analyze --json', big, 2_000_000))
  targets.push(['analyze at least as fast as readline + JSON.parse on the 2M-event file (ratio >= 1.0)', base2m.wall >= big.wall, `ratio ${fmt(base2m.wall / big.wall)}`])
  targets.push(['peak RSS on 2M events at most 1.2x the peak on 200k', big.rssMB <= ours.rssMB * 1.2, `${fmt(big.rssMB, 0)} MB vs ${fmt(ours.rssMB, 0)} MB (x${fmt(big.rssMB / ours.rssMB)})`])
  targets.push(['peak RSS on 2M events under 300 MB', big.rssMB < 300, `${fmt(big.rssMB, 0)} MB`])
  // The analysis keeps the sessions of one --horizon (30 minutes by default): the 200k file spans 25
  // minutes, less than one, the 2M file four hours. With a horizon shorter than both, the ratio
  // shows what grows with the input beyond the horizon's sessions (information, not a target).
  const shortHorizon = ['--json', '--horizon', '10m']
  const small10 = median(RUN, ['analyze', dd200k, ...shortHorizon])
  const big10 = median(RUN, ['analyze', dd2m, ...shortHorizon])
  say(measuredRow('Datadog NDJSON 200k events: skewscan analyze --json --horizon 10m', small10, 200_000))
  say(measuredRow(`Datadog NDJSON 2M events: skewscan analyze --json --horizon 10m (x${fmt(big10.rssMB / small10.rssMB)} the peak RSS on 200k)`, big10, 2_000_000))

  // The same file gzipped (how exports are often kept): streamed to the workers.
  const gz = await gzipped(dd200k, 'dd-200k.ndjson.gz')
  const gzr = median(RUN, ['analyze', gz, '--json'])
  say(measuredRow(`Datadog NDJSON 200k events gzipped (${fmt(statSync(gz).size / 1e6, 0)} MB): skewscan analyze --json`, gzr, 200_000))

  // Newest-first (a Log Explorer export's order): found out of order, then sorted in runs spilled to disk.
  const newest = await reversed(dd200k, 'dd-200k-newest.ndjson')
  const nf = median(RUN, ['analyze', newest, '--json'])
  say(measuredRow('Datadog NDJSON 200k events newest-first: skewscan analyze --json', nf, 200_000))

  // Start-up against node -e 0.
  // Runs of a fraction of a second: more of them, since one stray scheduling delay weighs more.
  const [node0, help, tiny] = interleaved([['node', ['-e', '0']], [RUN, ['--help']], [RUN, ['analyze', SMALL_FIXTURE, '--json']]], Math.max(REPEAT, 11)) as [Measure, Measure, Measure]
  say(`| start-up: node -e 0 | ${fmt(node0.wall)} s | ${fmt(node0.cpu)} s | | ${fmt(node0.rssMB, 0)} MB |`)
  say(`| start-up: skewscan --help | ${fmt(help.wall)} s | ${fmt(help.cpu)} s | x${fmt(help.wall / node0.wall, 1)} | ${fmt(help.rssMB, 0)} MB |`)
  say(`| start-up: skewscan analyze on a ${smallFixtureLines()}-line fixture | ${fmt(tiny.wall)} s | ${fmt(tiny.cpu)} s | x${fmt(tiny.wall / node0.wall, 1)} | ${fmt(tiny.rssMB, 0)} MB |`)
  targets.push(['skewscan --help at most 3x node -e 0', help.wall <= node0.wall * 3, `x${fmt(help.wall / node0.wall, 1)}`])
  targets.push(['fixed cost of an offline run at most 3x node -e 0', tiny.wall <= node0.wall * 3, `x${fmt(tiny.wall / node0.wall, 1)}`])

  // Hostile input: huge lists and huge fields, each against its own baseline (bench/cost.ts).
  const cost = costCases((s) => process.stdout.write(`${s}\n`))
  // A live Datadog pull of a day with 1, 3 and 10 deploys: pulled share and requests (bench/datadog-pull.ts).
  const pull = await datadogPullCases((s) => process.stdout.write(`${s}\n`))
  // The realistic day of issue 27 in its three variants (bench/datadog-pull.ts).
  const realistic = await realisticDayCases((s) => process.stdout.write(`${s}\n`))

  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${fmt(totalmem() / 2 ** 30, 0)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`
  const version = (cmd: string, arg: string): string => (spawnSync(cmd, [arg], {encoding: 'utf8'}).stdout ?? '').split('\n')[0]?.trim().replace(/\.$/, '') || 'not installed'
  const tools = `jq: ${hasJq ? version('jq', '--version') : 'not installed'}; GoAccess: ${hasGoaccess ? version('goaccess', '--version') : 'not installed'}`
  const coresAfter = coreSpeeds()
  // The machine's best, both measurements of this run included (one read of the reference, one write at most).
  const best = machineBest([...(coresBefore ?? []), ...(coresAfter ?? [])])
  const load = `load average ${fmt(loadBefore)} before the run and ${fmt(loadavg()[0] ?? 0)} after it (other work on the machine adds noise); each core's time for one fixed piece of work against the fastest's, and against this machine's best (bench/core-speed.ts: the host may give a core's time, or every core's, to other work, whatever the load average says): ${describeCoreSpeeds(coresBefore, best)} before, ${describeCoreSpeeds(coresAfter, best)} after${slowCore(coresBefore, best) || slowCore(coresAfter, best) ? ' (slow cores: the figures below are partly the host\'s)' : ''}`
  const md = [
    '# Benchmark results', '', `Machine: ${machine}; ${load}. ${tools}. Medians of ${REPEAT} runs (wall time, CPU time and peak RSS each on its own; the 2M baseline runs once; on each file of the first four, the one-core parse, analyze, jq and GoAccess run in turn, as do the start-up runs, ${Math.max(REPEAT, 11)} each). skewscan is started through bin/run.js's #! line, as an installed \`skewscan\` is. skewscan's parse alone is bench/parse-only.js: the file cut into the ranges a run cuts, each parsed and packed for the analysis as a worker does, on one core. Wall time from the clock, CPU (user + system, worker threads included) and peak RSS from GNU time. The one-core parse of NDJSON is bench/baseline.js (readline + JSON.parse), of text lines bench/text-baseline.js (readline + one regular expression for the combined fields); the real capture laid end to end is bench/repeat-capture.ts (rr-3, a minute apart, request ids made unique). Produced by \`npm run bench\`.`, '',
    '| what | wall | CPU | throughput | peak RSS |', '| --- | ---: | ---: | ---: | ---: |', ...rows, '',
    '| target | met | measured |', '| --- | --- | --- |', ...targets.map(([t, ok, m]) => `| ${t} | ${ok ? 'yes' : '**no**'} | ${m} |`), '',
    costSection(cost),
    datadogPullSection(pull),
    realisticDaySection(realistic),
  ].join('\n')
  const file = join(__dirname, 'RESULTS.md')
  writeFileSync(file, withOtherSections(md, existsSync(file) ? readFileSync(file, 'utf8') : ''))
  targets.push(...cost.targets)
  process.stdout.write(`\n${targets.map(([t, ok, m]) => `${ok ? 'met    ' : 'NOT MET'} ${t}: ${m}`).join('\n')}\nwritten to bench/RESULTS.md\n`)
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  })
}
