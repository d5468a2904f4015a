/**
 * What a live Datadog pull of a day costs (issue 16): a day of two apps' traffic built from the real
 * captures (test/helpers/datadog-day.ts) with 1, 3 and 10 rolling deploys, served by the fake
 * Datadog on loopback, pulled by the same code as `analyze --from` (test/helpers/fake-datadog-live.ts)
 * with the CLI's default tuning. Per day and pull mode: the events the range holds, the events
 * pulled and their share, the requests by kind, and whether the live report equals the offline
 * report of the same events (analyze of the day written as an NDJSON export), naming the fields
 * that differ if not. Deploys are inferred from the logs in both (no --deploy-query).
 *
 * Alone: `npx ts-node --transpile-only bench/datadog-pull.ts [--write]` (BENCH_DAY_EVENTS sets the
 * day's size, default 200000; --write puts the section into bench/RESULTS.md, replacing only its
 * own section).
 */
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {AnalysisReport} from '../src/model/report'
import type {PullMode, PullTuning} from '../src/sources/datadog/pull'
import {buildDay, dayNdjson} from '../test/helpers/datadog-day'
import {FakeDatadog} from '../test/helpers/fake-datadog'
import {API_KEY, APP_KEY, expectedIds, fileAnalyze, liveAnalyze, QUERY, sortById, withoutInput} from '../test/helpers/fake-datadog-live'

const ROOT = join(__dirname, '..')
const EVENTS = Number(process.env.BENCH_DAY_EVENTS ?? 200_000)
const DEPLOYS = [1, 3, 10]
/** The day as built (with the captures' crawlers, scanners and uptime checks all day), then without them. */
const CASES: {noise: boolean; modes: PullMode[]}[] = [{noise: true, modes: ['windows', 'narrowed']}, {noise: false, modes: ['windows']}]
/** The historic Logs search limit (reference/datadog.md 1.8): the fake announces more, so that every run completes; the table gives each run's share of it. */
const HOURLY_SEARCHES = 300
/** The CLI's defaults (src/cli/datadog-flags.ts, src/config/datadog.ts pullTuning). */
const TUNING: PullTuning = {
  concurrency: 3, sliceEvents: 20_000, maxSliceMs: 3_600_000, timeoutMs: 30_000,
  retry: {maxAttempts: 6, baseDelayMs: 1000, maxDelayMs: 30_000, maxElapsedMs: 300_000},
}

export const SECTION = '## Live Datadog pull of a day'

export interface PullResults {
  rows: string[]
  /** One line per run whose live report differs from the offline one. */
  differences: string[]
  events: number
}

/** Paths (a.b[2].c) where two JSON values differ, the first `limit` of them. */
export function differences(a: unknown, b: unknown, path = '', out: string[] = [], limit = 12): string[] {
  if (out.length >= limit) return out
  if (a === b) return out
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    out.push(`${path || '(root)'}: ${short(a)} live, ${short(b)} offline`)
    return out
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length !== b.length) {
    out.push(`${path}: ${a.length} items live, ${b.length} offline`)
    return out
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)])
  for (const k of keys) differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], Array.isArray(a) ? `${path}[${k}]` : path ? `${path}.${k}` : k, out, limit)
  return out
}

function short(v: unknown): string {
  const s = JSON.stringify(v) ?? 'undefined'
  return s.length > 60 ? `${s.slice(0, 57)}...` : s
}

const pct = (n: number, d: number): string => (d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}%`)
const secs = (ms: number): string => `${(ms / 1000).toFixed(2)} s`

export async function datadogPullCases(say: (line: string) => void = () => undefined): Promise<PullResults> {
  const rows: string[] = []
  const diffs: string[] = []
  const dir = mkdtempSync(join(tmpdir(), 'skewscan-bench-day-'))
  try {
    for (const {noise, modes} of CASES) {
      for (const deploys of DEPLOYS) {
        const day = buildDay({root: ROOT, deploys, events: EVENTS, noise})
        const file = join(dir, `day-${deploys}-${noise}.ndjson`)
        writeFileSync(file, dayNdjson(day))
        const t0 = Date.now()
        const offline = await fileAnalyze('day', file)
        const offlineMs = Date.now() - t0
        for (const mode of modes) {
          // A server per run: each starts with the whole rate-limit budget.
          const server = await FakeDatadog.start({logs: day.items as unknown as Record<string, unknown>[], apiKey: API_KEY, appKey: APP_KEY, rateLimit: {limit: 100_000, periodSeconds: 3600}})
          try {
            const live = await liveAnalyze(server, {mode, spec: {range: day.range, query: QUERY}, tuning: TUNING})
            const dd = live.report.input.datadog
            if (!dd) throw new Error('the live report has no Datadog summary')
            const found = differences(withoutInput(live.report), withoutInput(offline as AnalysisReport))
            const exact = JSON.stringify(sortById(live.items.map((p) => p.item))) === JSON.stringify(expectedIds(server, live.plan))
            const label = `${noise ? 'with' : 'without'} bots and scanners, ${deploys} deploys, --pull ${mode}`
            if (found.length > 0) diffs.push(`${label}: ${found.join('; ')}`)
            const held = dd.held ?? 0
            const row = `| ${noise ? 'yes' : 'no'} | ${deploys} | ${mode} | ${day.items.length} | ${held} | ${dd.pulled} | ${pct(dd.pulled, held)} | ${dd.requests.search} (${pct(dd.requests.search, HOURLY_SEARCHES)}) | ${dd.requests.aggregate} | ${dd.requests.total} | ${dd.slices} | ${dd.windows.count}: ${Math.round(dd.windows.pulledSeconds / 60)} of ${Math.round(dd.windows.rangeSeconds / 60)} min | ${Math.ceil(held / 1000) + 1} | ${found.length === 0 ? 'yes' : '**no**'} | ${exact ? 'yes' : '**no**'} | ${secs(live.ms)} | ${secs(offlineMs)} |`
            rows.push(row)
            say(row)
          } finally {
            await server.close()
          }
        }
      }
    }
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
  return {rows, differences: diffs, events: EVENTS}
}

export function datadogPullSection({rows, differences: diffs, events}: PullResults): string {
  return [
    SECTION, '',
    `Produced by \`npx ts-node --transpile-only bench/datadog-pull.ts\` (BENCH_DAY_EVENTS=${events}). A day (24 h) of two apps built from the real captures (test/helpers/datadog-day.ts: rr-3 and mode-404 replayed for the rollouts, every capture's steady-state visitors for the traffic between them), served by the fake Datadog on loopback (1000 events a page), pulled by the code of \`analyze --from\` with the CLI's default tuning (3 slices at once, 20k events a slice), deploys inferred from the logs; "bots, scanners: no" is the same day without the captures' crawlers, scanners, uptime checks and API clients. "Held" is the aggregate count of the range; "search requests" also as a share of the historic 300 searches an hour an organisation gets; "full pull" the search requests \`--pull all\` would take at 1000 a page; run times are wall times in one process (ts-node), the offline run being the baseline. "Same report": the live report equals the offline report of the day's NDJSON (without the input block and the volumes a narrowed pull leaves out); "as planned": the events pulled are exactly those the plan's queries select on the server.`, '',
    '| bots, scanners | deploys | pull | events in the day | held | pulled | pulled share | search requests (of 300/h) | aggregate requests | all requests | slices | asset windows | full pull (search requests) | same report | as planned | live run | offline run |',
    '| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- | --- | ---: | ---: |',
    ...rows, '',
    ...(diffs.length === 0 ? ['Every live report equals the offline report of the same events.'] : ['Fields where the live report differs from the offline one:', '', ...diffs.map((d) => `- ${d}`)]), '',
  ].join('\n')
}

if (require.main === module) {
  datadogPullCases((s) => process.stdout.write(`${s}\n`)).then((results) => {
    const section = datadogPullSection(results)
    process.stdout.write(`\n${section}`)
    if (process.argv.includes('--write')) {
      const file = join(__dirname, 'RESULTS.md')
      const old = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n'
      const at = old.indexOf(SECTION)
      const end = at === -1 ? -1 : old.indexOf('\n## ', at + SECTION.length)
      const text = at === -1 ? `${old.trimEnd()}\n\n${section}` : `${old.slice(0, at)}${section}${end === -1 ? '' : old.slice(end + 1)}`
      writeFileSync(file, text)
      process.stdout.write('written to bench/RESULTS.md\n')
    }
  }).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`)
    process.exitCode = 1
  })
}
