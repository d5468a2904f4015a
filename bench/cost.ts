/**
 * The cost of hostile input (issue 14): a run's time and memory follow what it keeps and reads,
 * never a field's size or how many things the input names. Each case is a ratio against a
 * baseline measured in the same run: the table of 20,000 builds against the table of 200; the
 * peak memory of 5 MB user agents against the same lines with normal ones, set beside what a bare
 * readline pass over the same two files grows by. Run by `npm run bench` (after its other cases),
 * or alone: `npm run build && npx ts-node --transpile-only bench/cost.ts` (it then rewrites only its
 * own section of bench/RESULTS.md).
 */
import {existsSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import type {AnalysisReport} from '../src/model/report'
import {CHROME, interleaved, logFile, manyBuilds, measure, median, nginx, REPEAT, RUN, T0} from './log-files'

/* The renderers of the build measured (BENCH_BIN: another build's bin/run.js, such as a copy of the
 * tree built elsewhere, which no test run rebuilds under the benchmark). */
/* eslint-disable @typescript-eslint/no-require-imports */
const DIST = join(dirname(RUN), '..', 'dist')
const {renderTable} = require(join(DIST, 'report', 'table')) as typeof import('../src/report/table')
const {renderMarkdown} = require(join(DIST, 'report', 'markdown')) as typeof import('../src/report/markdown')
const {renderHtml} = require(join(DIST, 'report', 'html')) as typeof import('../src/report/html')
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * `browsers` browsers of two builds, three requests each (a shell, its script, a chunk that half of
 * them get the other build's shell for): user agents of `uaBytes` (0: a normal one), each
 * browser's differing only in its last characters.
 */
function agents(file: string, browsers: number, uaBytes: number): string {
  const filler = 'a1 '.repeat(Math.ceil(uaBytes / 3))
  return logFile(file, browsers, (b) => {
    const tail = ` s${String(b).padStart(6, '0')}`
    const ua = uaBytes > 0 ? `${CHROME} ${filler.slice(0, uaBytes - CHROME.length - 1 - tail.length)}${tail}` : `${CHROME}${tail}`
    const build = b % 2
    const ip = `192.0.2.${b % 250}`
    const ms = T0 + b * 1000
    return nginx(ip, ms, '/', 1832 + build * 19, ua) +
      nginx(ip, ms, `/assets/index-${build}a2b3c4d.js`, 50_000, ua, 'https://shop.example/') +
      nginx(ip, ms, `/assets/chunk-${build}e6f7a8b.js`, (b >> 1) % 2 === 0 ? 20_000 : 1832 + (1 - build) * 19, ua, 'https://shop.example/')
  })
}

type Measure = ReturnType<typeof measure>

/** The median time of rendering a report, in this process (warmed up by the first runs). */
function renderTime(render: () => string, times = 7): {ms: number; chars: number} {
  let chars = 0
  const ms: number[] = []
  for (let i = 0; i < times; i++) {
    const t0 = process.hrtime.bigint()
    chars = render().length
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6)
  }
  return {ms: median(ms), chars}
}

const READLINE = join(__dirname, 'readline-baseline.js')
const fmt = (n: number, d = 2): string => n.toFixed(d)

export interface CostResults {
  rows: string[]
  targets: [string, boolean, string][]
}

export function costCases(say: (row: string) => void = () => {}): CostResults {
  const rows: string[] = []
  const targets: [string, boolean, string][] = []
  const row = (s: string): void => {
    rows.push(s)
    say(s)
  }

  // Rendering: the same renderers over the reports of 200 and of 20,000 builds (and as many deploys).
  const few = manyBuilds('cost-builds-200.log', 200)
  const lots = manyBuilds('cost-builds-20k.log', 20_000)
  const [json200, json20k, table20k] = interleaved([[RUN, ['analyze', few, '--json']], [RUN, ['analyze', lots, '--json']], [RUN, ['analyze', lots]]]) as [Measure, Measure, Measure]
  const r200 = JSON.parse(json200.stdout) as AnalysisReport
  const r20k = JSON.parse(json20k.stdout) as AnalysisReport
  const renderers: [string, (r: AnalysisReport) => string][] = [
    ['table', (r) => renderTable(r, {topSessions: 10, width: 100})],
    ['markdown', (r) => renderMarkdown(r)],
    ['html', (r) => renderHtml(r, {generatedAt: new Date(0), version: 'bench'})],
  ]
  // The bar: JSON.stringify of the same report, linear in what it holds (what --json does).
  const bar = renderTime(() => JSON.stringify(r20k))
  row(`| JSON.stringify of the report of 20,000 builds (baseline) | ${fmt(bar.ms, 1)} ms | | ${fmt(bar.chars / 1000, 1)}k chars |`)
  for (const [name, render] of renderers) {
    const a = renderTime(() => render(r200))
    const b = renderTime(() => render(r20k))
    row(`| ${name} report of 200 builds and 199 deploys | ${fmt(a.ms, 1)} ms | | ${fmt(a.chars / 1000, 1)}k chars |`)
    row(`| ${name} report of 20,000 builds and 19,999 deploys | ${fmt(b.ms, 1)} ms | x${fmt(b.ms / a.ms)} of 200 | ${fmt(b.chars / 1000, 1)}k chars |`)
    targets.push([`${name} of 20,000 builds: at most the time of JSON.stringify of its report, and at most 2x the size of the one of 200`, b.ms <= bar.ms && b.chars <= a.chars * 2,
      `x${fmt(b.ms / bar.ms)} of JSON.stringify; ${fmt(b.chars / 1000, 1)}k vs ${fmt(a.chars / 1000, 1)}k chars`])
  }
  row(`| analyze 20,000 builds (40k lines) --json | ${fmt(json20k.wall)} s | | ${fmt(json20k.rssMB, 0)} MB |`)
  row(`| analyze 20,000 builds (40k lines), table | ${fmt(table20k.wall)} s | x${fmt(table20k.wall / json20k.wall)} | ${fmt(table20k.rssMB, 0)} MB |`)
  targets.push(['the table of 20,000 builds costs at most 1.3x the JSON of the same run', table20k.wall <= json20k.wall * 1.3, `x${fmt(table20k.wall / json20k.wall)}`])

  // Memory: 33 lines of 5 MB user agents (165 MB) against the same 33 lines with normal ones.
  const huge = agents('cost-agents-5mb.log', 11, 5_000_000)
  const normal = agents('cost-agents-normal.log', 11, 0)
  const mb = statSync(huge).size / 1e6
  const [ours5, oursN, rl5, rlN] = interleaved([[RUN, ['analyze', huge]], [RUN, ['analyze', normal]], ['node', [READLINE, huge]], ['node', [READLINE, normal]]]) as [Measure, Measure, Measure, Measure]
  row(`| analyze 33 lines with normal user agents | ${fmt(oursN.wall)} s | | ${fmt(oursN.rssMB, 0)} MB |`)
  row(`| analyze 33 lines with 5 MB user agents (${fmt(mb, 0)} MB) | ${fmt(ours5.wall)} s | x${fmt(ours5.rssMB / oursN.rssMB)} RSS | ${fmt(ours5.rssMB, 0)} MB |`)
  row(`| readline baseline, 33 lines with normal user agents | ${fmt(rlN.wall)} s | | ${fmt(rlN.rssMB, 0)} MB |`)
  row(`| readline baseline, 33 lines with 5 MB user agents | ${fmt(rl5.wall)} s | x${fmt(rl5.rssMB / rlN.rssMB)} RSS | ${fmt(rl5.rssMB, 0)} MB |`)
  const growth = (ours5.rssMB - oursN.rssMB) / Math.max(1, rl5.rssMB - rlN.rssMB)
  targets.push(['5 MB user agents grow peak RSS at most 2x what they grow a bare readline pass by (memory follows a line read, not what is kept)', growth <= 2,
    `+${fmt(ours5.rssMB - oursN.rssMB, 0)} MB vs +${fmt(rl5.rssMB - rlN.rssMB, 0)} MB (x${fmt(growth)})`])
  const held = JSON.stringify(JSON.parse(measure(RUN, ['analyze', huge, '--json']).stdout)).length
  targets.push(['the report of 5 MB user agents holds no copy of one (JSON under 100 kB)', held < 100_000, `${fmt(held / 1000, 1)} kB`])
  return {rows, targets}
}

/** The section this file writes into bench/RESULTS.md (replaced on each run, alone or by run.ts). */
export function costSection({rows, targets}: CostResults): string {
  return [
    SECTION, '',
    `Produced by \`npm run bench\`, or alone by \`npm run build && npx ts-node --transpile-only bench/cost.ts\` (BENCH_BIN=path/to/bin/run.js measures another build). Medians of ${REPEAT} runs of each command, run in turn; render times are medians of 7 renders in one process over the reports \`analyze --json\` made. Inputs: nginx lines generated into bench/out/ (see bench/cost.ts).`, '',
    '| what | time | ratio | size or peak RSS |', '| --- | ---: | ---: | ---: |', ...rows, '',
    '| target | met | measured |', '| --- | --- | --- |', ...targets.map(([t, ok, m]) => `| ${t} | ${ok ? 'yes' : '**no**'} | ${m} |`), '',
  ].join('\n')
}

export const SECTION = '## Cost of hostile input'

if (require.main === module) {
  const results = costCases((s) => process.stdout.write(`${s}\n`))
  const file = join(__dirname, 'RESULTS.md')
  const old = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n'
  // Only this file's section is replaced: the sections after it (bench/datadog-pull.ts) stay.
  const at = old.indexOf(SECTION)
  const end = at === -1 ? -1 : old.indexOf('\n## ', at + SECTION.length)
  writeFileSync(file, at === -1 ? `${old.trimEnd()}\n\n${costSection(results)}` : `${old.slice(0, at)}${costSection(results)}${end === -1 ? '' : `\n${old.slice(end + 1)}`}`)
  process.stdout.write(`\n${results.targets.map(([t, ok, m]) => `${ok ? 'met    ' : 'NOT MET'} ${t}: ${m}`).join('\n')}\nwritten to bench/RESULTS.md\n`)
}
