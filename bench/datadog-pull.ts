/**
 * What a live Datadog pull of a day costs (issue 16): a day of two apps' traffic built from the real
 * captures (test/helpers/datadog-day.ts) with 1, 3 and 10 rolling deploys, served by the fake
 * Datadog on loopback, pulled by the same code as `analyze --from` (test/helpers/fake-datadog-live.ts)
 * with the CLI's default tuning. Per day and pull mode: the events the range holds, the events
 * pulled and their share, the requests by kind, and whether the live report equals the offline
 * report of the same events (analyze of the day written as an NDJSON export), naming the fields
 * that differ if not. Deploys are inferred from the logs in both (no --deploy-query).
 *
 * Then the realistic day of issue 27 (buildDay's `realistic`: six rollouts, an uptime probe, a
 * mobile API client, crawlers 2%, scanners 1%; three times BENCH_DAY_EVENTS, about 600k events) in
 * the issue's three variants: as described, scanners never with a browser's user agent, people's
 * user agents by the thousand. Per variant: share pulled, search and aggregate requests, wall time,
 * live = offline.
 *
 * Alone: `npx ts-node --transpile-only bench/datadog-pull.ts [--write] [--realistic]` (BENCH_DAY_EVENTS
 * sets the day's size, default 200000; --write puts the sections into bench/RESULTS.md, replacing
 * only their own; --realistic runs only the realistic day).
 */
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {AnalysisReport} from '../src/model/report'
import type {PullMode, PullTuning} from '../src/sources/datadog/pull'
import {loadavg} from 'node:os'
import {buildDay, dayNdjson, type RealisticTraffic, writeDayNdjson} from '../test/helpers/datadog-day'
import {FakeDatadog} from '../test/helpers/fake-datadog'
import {API_KEY, APP_KEY, connection, expectedIds, fileAnalyze, liveAnalyze, QUERY, sortById, spec, tuning, withoutInput} from '../test/helpers/fake-datadog-live'
import {openDatadogLogs} from '../src/sources/datadog/live-source'
import type {DatadogPull} from '../src/sources/datadog/pull'
import {DEFAULT_NORMALIZE} from '../src/normalize/fields'
import type {DatadogInputSummary} from '../src/model/report'

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

/** The asset windows of a pull: how many, and the minutes they cover of the range's. */
function windowsCell(dd: DatadogInputSummary): string {
  return `${dd.windows.count}: ${Math.round(dd.windows.pulledSeconds / 60)} of ${Math.round(dd.windows.rangeSeconds / 60)} min`
}

/** `--plan`'s search requests against the pull's own: `said (x ratio)`. */
function planned(e: {said: {searchRequests: number}; searches: number} | undefined): string {
  return e === undefined ? '-' : `${e.said.searchRequests} of ${e.searches} (x${(e.said.searchRequests / Math.max(1, e.searches)).toFixed(2)})`
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
            const live = await liveAnalyze(server, {mode, spec: {range: day.range, query: QUERY}, tuning: TUNING, estimate: true})
            const dd = live.report.input.datadog
            if (!dd) throw new Error('the live report has no Datadog summary')
            const found = differences(withoutInput(live.report), withoutInput(offline as AnalysisReport))
            const exact = JSON.stringify(sortById(live.items.map((p) => p.item))) === JSON.stringify(expectedIds(server, live.plan))
            const label = `${noise ? 'with' : 'without'} bots and scanners, ${deploys} deploys, --pull ${mode}`
            if (found.length > 0) diffs.push(`${label}: ${found.join('; ')}`)
            const held = dd.held ?? 0
            const row = `| ${noise ? 'yes' : 'no'} | ${deploys} | ${mode} | ${day.items.length} | ${held} | ${dd.pulled} | ${pct(dd.pulled, held)} | ${dd.requests.search} (${pct(dd.requests.search, HOURLY_SEARCHES)}) | ${dd.requests.aggregate} | ${dd.requests.total} | ${dd.slices} | ${windowsCell(dd)} | ${Math.ceil(held / 1000) + 1} | ${planned(live.estimate)} | ${found.length === 0 ? 'yes' : '**no**'} | ${exact ? 'yes' : '**no**'} | ${secs(live.ms)} | ${secs(offlineMs)} |`
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
    `Produced by \`npx ts-node --transpile-only bench/datadog-pull.ts\` (BENCH_DAY_EVENTS=${events}). A day (24 h) of two apps built from the real captures (test/helpers/datadog-day.ts: rr-3 and mode-404 replayed for the rollouts, every capture's steady-state visitors for the traffic between them), served by the fake Datadog on loopback (1000 events a page), pulled by the code of \`analyze --from\` with the CLI's default tuning (3 slices at once, 20k events a slice), deploys inferred from the logs; "bots, scanners: no" is the same day without the captures' crawlers, scanners, uptime checks and API clients. "Held" is the aggregate count of the range; "search requests" also as a share of the historic 300 searches an hour an organisation gets; "full pull" the search requests \`--pull all\` would take at 1000 a page; "--plan said": the search requests the estimate \`--plan\` prints gave before the pull, against the pull's own searches (the search that asks the limit before it left out); run times are wall times in one process (ts-node), the offline run being the baseline. "Same report": the live report equals the offline report of the day's NDJSON (without the input block and the volumes a narrowed pull leaves out); "as planned": the events pulled are exactly those the plan's queries select on the server.`, '',
    '| bots, scanners | deploys | pull | events in the day | held | pulled | pulled share | search requests (of 300/h) | aggregate requests | all requests | slices | asset windows | full pull (search requests) | --plan said (searches) | same report | as planned | live run | offline run |',
    '| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- | --- | ---: | ---: |',
    ...rows, '',
    ...(diffs.length === 0 ? ['Every live report equals the offline report of the same events.'] : ['Fields where the live report differs from the offline one:', '', ...diffs.map((d) => `- ${d}`)]), '',
  ].join('\n')
}

export const REALISTIC_SECTION = '## Live Datadog pull of the realistic day (issue 27)'

/** The three variants of its day. */
const VARIANTS: {label: string; realistic: RealisticTraffic}[] = [
  {label: 'as described', realistic: {variedAgents: false}},
  {label: 'scanners never with a browser\'s user agent', realistic: {variedAgents: false, scannerBrowserAgents: false}},
  {label: 'people\'s user agents as varied as real traffic\'s', realistic: {}},
]

export interface RealisticResults {
  rows: string[]
  differences: string[]
  events: number
  load: {before: number; after: number}
}

/** The realistic day (3 x BENCH_DAY_EVENTS) in the three variants, each pulled once with the CLI's default tuning. */
export async function realisticDayCases(say: (line: string) => void = () => undefined): Promise<RealisticResults> {
  const events = 3 * EVENTS
  const before = loadavg()[0] ?? 0
  const rows: string[] = []
  const diffs: string[] = []
  const dir = mkdtempSync(join(tmpdir(), 'skewscan-bench-real-'))
  try {
    for (const v of VARIANTS) {
      const day = buildDay({root: ROOT, deploys: 6, events, realistic: v.realistic})
      const agents = new Set(day.items.map((i) => (i.attributes.attributes as {http: {useragent?: string}}).http.useragent)).size
      const file = join(dir, 'day.ndjson')
      writeDayNdjson(day, file)
      const t0 = Date.now()
      const offline = await fileAnalyze('day', file)
      const offlineMs = Date.now() - t0
      rmSync(file)
      const start = (): Promise<FakeDatadog> => FakeDatadog.start({logs: day.items as unknown as Record<string, unknown>[], apiKey: API_KEY, appKey: APP_KEY, rateLimit: {limit: 100_000, periodSeconds: 3600}})
      let server = await start()
      try {
        let dd: DatadogInputSummary | undefined
        let same: string
        let exact: string
        let ms: number
        let said = '-'
        try {
          const live = await liveAnalyze(server, {mode: 'windows', spec: {range: day.range, query: QUERY}, tuning: TUNING, estimate: true})
          dd = live.report.input.datadog
          ms = live.ms
          said = planned(live.estimate)
          const found = differences(withoutInput(live.report), withoutInput(offline))
          if (found.length > 0) diffs.push(`${v.label}: ${found.join('; ')}`)
          same = found.length === 0 ? 'yes' : '**no**'
          exact = JSON.stringify(sortById(live.items.map((p) => p.item))) === JSON.stringify(expectedIds(server, live.plan)) ? 'yes' : '**no**'
        } catch (error: unknown) {
          // The live run failed: the pull alone, on a fresh server, still says what it costs.
          const message = error instanceof Error ? error.message.split('\n')[0] as string : String(error)
          await server.close()
          server = await start()
          const alone = await pullAlone(server, day.range)
          dd = alone.summary
          ms = alone.ms
          same = `**no**: the live run failed (${message})`
          exact = '-'
          diffs.push(`${v.label}: the live run failed: ${message}. The pull alone handed out its events out of time order: ${alone.disorder}`)
        }
        if (!dd) throw new Error('the live report has no Datadog summary')
        const held = dd.held ?? 0
        const counts = dd.narrowing.pageCounts
        const census = counts === undefined ? '-' : counts.used ? 'counted' : `refused: ${counts.reason}`
        const g = day.counts.generated
        const row = `| ${v.label} | ${day.items.length} | ${agents} | ${g.crawlers} / ${g.scanners} | ${held} | ${dd.pulled} | ${pct(dd.pulled, held)} | ${dd.requests.search} | ${said} | ${dd.requests.aggregate} | ${dd.slices} | ${windowsCell(dd)} | ${census} | ${same} | ${exact} | ${secs(ms)} | ${secs(offlineMs)} |`
        rows.push(row)
        say(row)
      } finally {
        await server.close()
      }
    }
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
  return {rows, differences: diffs, events, load: {before, after: loadavg()[0] ?? 0}}
}

/**
 * The pull of a range drained without the analysis: its summary, its wall time, and the largest
 * step back in time between two events it handed out (the analysis allows a minute).
 */
async function pullAlone(server: FakeDatadog, range: {from: number; to: number}): Promise<{summary: DatadogInputSummary; ms: number; disorder: string}> {
  const t0 = Date.now()
  const live = await openDatadogLogs({connection: connection(server), spec: spec('windows', {range, query: QUERY}), tuning: tuning(TUNING), normalize: DEFAULT_NORMALIZE}, {})
  const pull = (live.source as unknown as {pull: DatadogPull}).pull
  let latest = -Infinity
  let back = 0
  let at = ''
  for await (const batch of pull.pulled()) {
    for (const p of batch) {
      if (latest - p.time > back) {
        back = latest - p.time
        const http = (p.item.attributes as {attributes?: {http?: {url?: string}}} | undefined)?.attributes?.http
        at = `${http?.url ?? '?'} at ${new Date(p.time).toISOString()} after one at ${new Date(latest).toISOString()}`
      }
      latest = Math.max(latest, p.time)
    }
  }
  const plan = await pull.plan()
  const sessions = plan.streams.find((s) => s.name === 'sessions')?.slices ?? []
  const overlapping = sessions.filter((a, i) => sessions.some((b, j) => j < i && b.to > a.from)).length
  return {
    summary: pull.summary(), ms: Date.now() - t0,
    disorder: `${(back / 3_600_000).toFixed(1)} h back at most (${at}); the sessions stream has ${sessions.length} slices, ${overlapping} of them overlapping an earlier one in time`,
  }
}

export function realisticDaySection({rows, differences: diffs, events, load}: RealisticResults): string {
  return [
    REALISTIC_SECTION, '',
    `Produced by \`npx ts-node --transpile-only bench/datadog-pull.ts --realistic\` (BENCH_DAY_EVENTS=${events / 3}: days of about ${events} events), ${new Date().toISOString().slice(0, 10)}, 2 shared cores, load average ${load.before.toFixed(2)} before and ${load.after.toFixed(2)} after. The day of issue 27 (test/helpers/datadog-day.ts \`realistic\`): 24 h of one ingress in front of two apps, six rollouts replayed from the captures rr-3 and mode-404, the captures' steady visitors between them; an uptime probe (0.5%), a mobile API client (3%), crawlers (2%: real crawlers' agents, pages, robots.txt, and asset URLs of earlier builds) and scanners (1%: bursts from new addresses, some HEAD, half to the apps' hosts, whose SPA answers asset-like junk with its shell). Variants as the issue's table: "as described" (scanners half with a browser's agent; people with the captures' few agents), scanners never with a browser's agent, and people's agents as varied as real traffic's (thousands of distinct strings). Pulled by the code of \`analyze --from\` (--pull windows, the default) with the CLI's default tuning from the fake Datadog on loopback (1000 events a page); deploys inferred from the logs. "Census": whether page requests were counted on Datadog's side. "--plan said": the search requests \`--plan\`'s estimate gave before the pull, against the pull's own (the goal: within 20%); "search requests" also counts the one search \`--plan\` makes to learn the limit. "Same report": the live report equals the offline report of the day's NDJSON (without the input block and the volumes a pull leaves out); "as planned": the events pulled are exactly those the plan's queries select. Run times are wall times in one process (ts-node), the offline run the baseline. Where the live run failed, its figures and run time are those of the same pull drained alone (without the analysis), on a fresh server. The issue's goal: at most 5% pulled in at most 60 search requests, the same report.`, '',
    '| day | events | distinct user agents | crawler / scanner requests | held | pulled | pulled share | search requests | --plan said (searches) | aggregate requests | slices | asset windows | census | same report | as planned | live run | offline run |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- | --- | ---: | ---: |',
    ...rows, '',
    ...(diffs.length === 0 ? ['Every live report equals the offline report of the same events.'] : ['Fields where the live report differs from the offline one:', '', ...diffs.map((d) => `- ${d}`)]), '',
  ].join('\n')
}

/** `section` in place of its own heading's section of bench/RESULTS.md (or after the rest). */
function writeSection(heading: string, section: string): void {
  const file = join(__dirname, 'RESULTS.md')
  const old = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n'
  const at = old.indexOf(`${heading}\n`)
  const end = at === -1 ? -1 : old.indexOf('\n## ', at + heading.length)
  const text = at === -1 ? `${old.trimEnd()}\n\n${section}` : `${old.slice(0, at)}${section}${end === -1 ? '' : old.slice(end + 1)}`
  writeFileSync(file, text)
}

async function benchMain(): Promise<void> {
  const say = (s: string): void => void process.stdout.write(`${s}\n`)
  const write = process.argv.includes('--write')
  if (!process.argv.includes('--realistic')) {
    const section = datadogPullSection(await datadogPullCases(say))
    process.stdout.write(`\n${section}`)
    if (write) writeSection(SECTION, section)
  }
  const real = realisticDaySection(await realisticDayCases(say))
  process.stdout.write(`\n${real}`)
  if (write) {
    writeSection(REALISTIC_SECTION, real)
    process.stdout.write('written to bench/RESULTS.md\n')
  }
}

if (require.main === module) {
  benchMain().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`)
    process.exitCode = 1
  })
}
