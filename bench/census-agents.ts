/**
 * What the page-load census costs on a day whose people use thousands of distinct user agents
 * (issue 27 item 2): test/helpers/datadog-day.ts's day with each person's agent a realistic browser
 * string of its own (test/helpers/agent-variety.ts), pulled live from the fake Datadog with the CLI's
 * default tuning. Prints the events held and pulled, search and aggregate requests, whether page
 * requests were counted, and whether the live report equals the offline one.
 *
 * `npx ts-node --transpile-only bench/census-agents.ts` (BENCH_DAY_EVENTS sets the day's size, default 100000;
 * BENCH_REALISTIC=1 takes the realistic day of issue 27 instead: six rollouts, crawlers, scanners,
 * probe, mobile API client and people's varied agents, buildDay's `realistic`).
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {isDeepStrictEqual} from 'node:util'
import type {PullTuning} from '../src/sources/datadog/pull'
import {AgentClassifier} from '../src/util/agent-kind'
import {withAgentVariety} from '../test/helpers/agent-variety'
import {buildDay, writeDayNdjson} from '../test/helpers/datadog-day'
import {FakeDatadog} from '../test/helpers/fake-datadog'
import {API_KEY, APP_KEY, fileAnalyze, liveAnalyze, QUERY, withoutInput} from '../test/helpers/fake-datadog-live'

const ROOT = join(__dirname, '..')
const EVENTS = Number(process.env.BENCH_DAY_EVENTS ?? 100_000)
const REALISTIC = process.env.BENCH_REALISTIC === '1'
const TUNING: PullTuning = {
  concurrency: 3, sliceEvents: 20_000, maxSliceMs: 3_600_000, timeoutMs: 30_000,
  retry: {maxAttempts: 6, baseDelayMs: 1000, maxDelayMs: 30_000, maxElapsedMs: 300_000},
}

async function main(): Promise<void> {
  const day = REALISTIC ? buildDay({root: ROOT, deploys: 6, events: EVENTS, realistic: {}}) : withAgentVariety(buildDay({root: ROOT, deploys: 2, events: EVENTS}))
  const agents = new AgentClassifier()
  const people = new Set(day.items.map((i) => String((i.attributes as {attributes: {http?: {useragent?: unknown}}}).attributes.http?.useragent ?? '')).filter((a) => agents.kind(a) === undefined))
  const dir = mkdtempSync(join(tmpdir(), 'skewscan-census-bench-'))
  const file = join(dir, 'day.ndjson')
  writeDayNdjson(day, file)
  const offline = await fileAnalyze('day', file)
  rmSync(dir, {recursive: true, force: true})
  const server = await FakeDatadog.start({logs: day.items as unknown as Record<string, unknown>[], apiKey: API_KEY, appKey: APP_KEY, rateLimit: {limit: 100_000, periodSeconds: 3600}})
  try {
    const live = await liveAnalyze(server, {spec: {range: day.range, query: QUERY}, tuning: TUNING})
    const dd = live.report.input.datadog
    const held = dd?.held ?? day.items.length
    console.log(`events ${held}, people's distinct agents ${people.size}`)
    console.log(`pulled ${dd?.pulled} (${((100 * (dd?.pulled ?? 0)) / held).toFixed(1)}%), search ${dd?.requests.search}, aggregate ${dd?.requests.aggregate}`)
    console.log(`page counts ${JSON.stringify(dd?.narrowing.pageCounts)}`)
    console.log(`notices ${JSON.stringify(live.notices.filter((n) => /counted|reading every/.test(n)))}`)
    console.log(`live = offline: ${isDeepStrictEqual(withoutInput(live.report), withoutInput(offline))}`)
  } finally {
    await server.close()
  }
}

void main()
