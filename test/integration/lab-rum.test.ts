/**
 * The lab's simulated browsers tell their own story in RUM (`lab --rum-out`), and analyze joins it
 * to the lab's log (`analyze --rum`): every crash the browsers' RUM saw is confirmed by the log,
 * nothing is unexplained, and the counts are the lab's own record of its browsers, restricted to
 * the sessions RUM sampled: the crashed page loads, the failed lazy loads, the signed-in accounts
 * among the hurt. One small rolling deploy on the lab's simulated clock (real requests through the
 * real balancer and pods, one actor at a time), so every run tells the same story however busy the
 * machine is: once with every session sampled, once with about half.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {DEFAULT_OPTIONS} from '../../src/analysis/options'
import {analyze} from '../../src/app/analyze'
import {type LabRequest, runLab} from '../../src/app/lab'
import type {LabReport} from '../../src/lab/report'
import type {RumItem} from '../../src/lab/rum'
import type {AnalysisReport, RumReport} from '../../src/model/report'
import {DEFAULT_NORMALIZE} from '../../src/normalize/fields'
import {tempDir} from '../helpers/temp'

const dir = tempDir('skewscan-lab-rum-')

const EVERY = 1000
const base: LabRequest = {
  replicas: 3, stepMs: 1000, deploys: 1, everyMs: EVERY, tailMs: 1500, strategy: 'rolling', affinity: 'none', keepOldAssets: false,
  missing: 'fallback', port: 0, once: true, durationMs: 30_000, browsers: 8, seed: 3, latencyMs: 0, service: 'web', clock: 'simulated',
}

/**
 * What RUM saw by the lab's own record: its failed requests, each with who the browser was to RUM.
 * A page load whose script failed while it loaded crashed; a lazy chunk that failed is a failed
 * lazy load; a stylesheet breaks nothing RUM reports. Only sampled sessions count.
 */
function truth(lab: LabReport): {crashed: number; lazy: number; accounts: string[]; sessions: number} {
  const seen = lab.failures.filter((f) => f.rum?.sampled === true && f.path.endsWith('.js'))
  return {
    crashed: new Set(seen.filter((f) => f.phase === 'load').map((f) => f.pageLoad)).size,
    lazy: new Set(seen.filter((f) => f.phase === 'lazy').map((f) => `${f.pageLoad} ${f.path}`)).size,
    accounts: [...new Set(seen.flatMap((f) => (f.rum?.user === undefined ? [] : [f.rum.user])))].sort(),
    sessions: new Set(seen.map((f) => f.rum?.session)).size,
  }
}

interface Run {
  lab: LabReport
  report: AnalysisReport
  rum: RumReport
  items: RumItem[]
}

async function labWithRum(name: string, rumSampleRate: number, lab: Partial<LabRequest> = {}): Promise<Run> {
  const files = {logFile: join(dir, `${name}.ndjson`), deploysFile: join(dir, `${name}-deploys.json`), rumFile: join(dir, `${name}-rum.json`)}
  const report = await runLab({...base, ...lab, ...files, rumSampleRate})
  return {...await analyzeRun(files), lab: report}
}

async function analyzeRun(files: {logFile: string; deploysFile: string; rumFile: string}): Promise<Omit<Run, 'lab'>> {
  // Compressed time: the deploy margin is half the calm before the deploy, and a lazy load comes
  // sooner than analyze's default gap (the lab's browsers import their chunk from 300 ms on; the lab prints this gap).
  const report = await analyze({
    inputs: [files.logFile], deploysFile: files.deploysFile, rum: [files.rumFile], normalize: DEFAULT_NORMALIZE,
    analysis: {...DEFAULT_OPTIONS, deployMarginMs: EVERY / 2, lazyGapMs: 150}, reorderWindowMs: 60_000,
  })
  if (report.rum === undefined) throw new Error('no rum section')
  const items = (JSON.parse(readFileSync(files.rumFile, 'utf8')) as {data: RumItem[]}).data
  return {report, rum: report.rum, items}
}

/** What holds at any sample rate: the browsers' word and the log's agree, at the lab's own counts. */
function expectOneStory({lab, report, rum, items}: Run): void {
  // The whole record is in the report (no failure cut), and nothing went unanswered.
  expect(lab.failures).toHaveLength(lab.browsers.failedRequests)
  expect(lab.browsers.errors).toBe(0)
  expect(report.totals).toMatchObject({pageLoads: lab.browsers.pageLoads, affectedPageLoads: lab.browsers.brokenPageLoads, failedRequests: lab.browsers.failedRequests})
  const want = truth(lab)
  expect({
    crashed: rum.crashedPageLoads, confirmed: rum.confirmed, lazy: rum.lazyFailures, unexplained: rum.unexplained, unconfirmed: rum.unconfirmed,
    examples: rum.unexplainedExamples, accounts: rum.accountIds, sessions: rum.sessions,
  }).toEqual({
    crashed: want.crashed, confirmed: want.crashed, lazy: want.lazy, unexplained: 0, unconfirmed: 0, examples: [], accounts: want.accounts, sessions: want.sessions,
  })
  expect(rum.accounts).toBe(want.accounts.length)
  expect(rum.joins.none).toBe(0)
  expect(rum.input.skipped.total).toBe(0)
  // The file: oldest first, every event counted in the lab's summary, a view per sampled page load.
  const times = items.map((i) => Date.parse(i.attributes.timestamp))
  expect(times.every((t, i) => i === 0 || t >= (times[i - 1] as number))).toBe(true)
  const byType = (type: string): number => items.filter((i) => i.attributes.attributes.type === type).length
  expect(lab.rum).toMatchObject({views: byType('view'), resources: byType('resource'), errors: byType('error')})
  expect(new Set(items.map((i) => i.id)).size).toBe(items.length)
  // A build whose pages RUM saw hurt is named by the version those pages carried: the build's own, as the deploy names it.
  const versions = [lab.deploys[0]?.from, lab.deploys[0]?.to]
  expect(report.builds.map((b, i) => b.rumVersion ?? versions[i])).toEqual(versions)
}

describe('lab --rum-out, analysed with analyze --rum', () => {
  it('every session sampled: every crash confirmed, nothing unexplained, the accounts the signed-in browsers among the hurt, coverage about 1', async () => {
    const all = await labWithRum('all', 100)
    const {lab, rum} = all
    expectOneStory(all)
    // A rolling deploy under round-robin: crashes, and signed-in browsers among the hurt (about 70% sign in).
    expect(rum.crashedPageLoads).toBeGreaterThan(5)
    expect(rum.accounts).toBeGreaterThan(0)
    expect(rum.accounts).toBeLessThan(rum.sessions)
    expect(lab.rum).toMatchObject({sampleRate: 100, sampledSessions: lab.rum?.sessions, views: lab.browsers.pageLoads})
    expect(rum.coverage).toBeGreaterThanOrEqual(0.95)
    expect(rum.coverage).toBeLessThanOrEqual(1)
    // Old pages and new pages were hurt: both builds get their versions.
    expect(all.report.builds.map((b) => b.rumVersion)).toEqual([lab.deploys[0]?.from, lab.deploys[0]?.to])
  }, 120_000)

  it('about half the sessions sampled: the same agreement on what RUM kept, and coverage the share of page loads it kept', async () => {
    const half = await labWithRum('half', 50)
    const {lab, rum} = half
    expectOneStory(half)
    const sessions = lab.rum?.sessions ?? 0
    const sampled = lab.rum?.sampledSessions ?? 0
    expect(sampled).toBeGreaterThan(0)
    expect(sampled).toBeLessThan(sessions)
    // Sampling drops crashes RUM would have seen: fewer than the lab's browsers had.
    expect(rum.crashedPageLoads).toBeLessThan(new Set(lab.failures.filter((f) => f.phase === 'load' && f.path.endsWith('.js')).map((f) => f.pageLoad)).size)
    const share = (lab.rum?.views ?? 0) / lab.browsers.pageLoads
    expect(Math.abs((rum.coverage ?? 0) - share)).toBeLessThan(0.05)
    expect(share).toBeLessThan(0.9)
  }, 120_000)

  it('cookie affinity: no crash, only lazy loads failed by sessions moved when their pod died (stale tabs), each explained by the log\'s failed chunk', async () => {
    // A little latency widens the race at a pod's death, as in lab.test.ts.
    const sticky = await labWithRum('sticky', 100, {affinity: 'cookie', latencyMs: 15, browsers: 16})
    expectOneStory(sticky)
    expect(sticky.lab.browsers.byPhase).toEqual({load: 0, lazy: sticky.lab.browsers.brokenPageLoads})
    expect(sticky.rum.crashedPageLoads).toBe(0)
    expect(sticky.rum.lazyFailures).toBeGreaterThan(0)
  }, 120_000)

  it('404 for missing assets: a script answered 404 throws nothing, and its failed resource alone tells RUM the page crashed', async () => {
    const missing = await labWithRum('missing', 100, {missing: '404'})
    expectOneStory(missing)
    expect(missing.lab.browsers.bySymptom.html).toBe(0)
    expect(missing.rum.crashedPageLoads).toBeGreaterThan(0)
    // No crash words at all: the browsers threw only for their failed import()s.
    const errors = missing.items.filter((i) => i.attributes.attributes.type === 'error')
    for (const e of errors) expect((e.attributes.attributes.error as {message: string}).message).toMatch(/^TypeError: Failed to fetch dynamically imported module: /)
    expect(errors).toHaveLength(missing.rum.lazyFailures)
  }, 120_000)
})
