import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {DEFAULT_OPTIONS} from '../../src/analysis/options'
import {analyze} from '../../src/app/analyze'
import {type LabRequest, runLab} from '../../src/app/lab'
import {probe} from '../../src/app/probe'
import type {LabReport} from '../../src/lab/report'
import {DEFAULT_NORMALIZE} from '../../src/normalize/fields'
import type {AnalysisReport} from '../../src/model/report'
import type {BarrageResult, ProbeSummary} from '../../src/probe/types'

/*
 * The lab in one "terminal", the probe in another, analyze on the lab's log: one story, told three
 * ways, on loopback in compressed time (1 s per pod). On the lab's simulated clock: real requests
 * through the real balancer and pods, one actor at a time, so every run tells the same story however
 * busy the machine is.
 */
const dir = mkdtempSync(join(tmpdir(), 'skewscan-lab-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

const EVERY = 1000
const STEP = 1000
const TAIL = 1500
const base: LabRequest = {
  replicas: 3, stepMs: STEP, deploys: 1, everyMs: EVERY, tailMs: TAIL, strategy: 'rolling', affinity: 'none', keepOldAssets: false,
  missing: 'fallback', port: 0, once: true, durationMs: 30_000, browsers: 8, seed: 3, latencyMs: 0, service: 'web', clock: 'simulated',
}

interface Run {
  lab: LabReport
  probe: ProbeSummary
  barrages: BarrageResult[]
}

/** Runs the lab with the probe started as soon as it listens, and stopped before the lab ends. */
async function labWithProbe(name: string, lab: Partial<LabRequest>, sticky: boolean, intervalMs: number): Promise<Run> {
  const barrages: BarrageResult[] = []
  let probing: Promise<ProbeSummary> | undefined
  const report = await runLab({
    ...base, ...lab, logFile: join(dir, `${name}.ndjson`), ingressLogFile: join(dir, `${name}.log`), deploysFile: join(dir, `${name}-deploys.json`),
    onListening: (url, clock) => {
      probing = probe({
        clock,
        url, intervalMs, durationMs: EVERY + 3 * STEP + TAIL - 400, timeoutMs: 2000, userAgent: 'skewscan-probe/test',
        headers: {}, cookies: [], sticky, concurrency: 6, onBarrage: (b) => barrages.push(b),
      })
    },
  })
  if (!probing) throw new Error('the lab never listened')
  return {lab: report, probe: await probing, barrages}
}

const ms = (iso: string | null | undefined): number => (iso ? Date.parse(iso) : Number.NaN)

async function analyzeLog(file: string, deploysFile: string): Promise<AnalysisReport> {
  // Time is compressed here, and so is the deploy margin (half the calm before the deploy, as the lab suggests).
  return analyze({inputs: [file], normalize: DEFAULT_NORMALIZE, analysis: {...DEFAULT_OPTIONS, deployMarginMs: EVERY / 2}, deploysFile, reorderWindowMs: 60_000})
}

/**
 * analyze on the lab's Datadog log (millisecond timestamps) agrees exactly with the lab's record of
 * its browsers and with the probe's own count. The ingress-nginx lines have one-second timestamps:
 * the probe's 20 barrages a second cannot be told apart there (analyze judges a second's shells
 * first, by design), so on that log only the counts that do not need order within a second agree.
 */
async function expectOneStory(name: string, run: Run): Promise<void> {
  const {lab, probe: p} = run
  const probeFailedAssets = run.barrages.flatMap((b) => b.assets).filter((a) => a.outcome === 'html-for-asset' || a.outcome === 'missing').length
  const probeRequests = run.barrages.reduce((n, b) => n + 1 + b.assets.length, 0)
  // The lab's browsers are the people; the probe announces itself and is counted apart, never as a user.
  const expected = {
    pageLoads: lab.browsers.pageLoads,
    affectedPageLoads: lab.browsers.brokenPageLoads,
    affectedUsers: lab.browsers.affectedUsers,
    failedRequests: lab.browsers.failedRequests,
  }
  const deploysFile = join(dir, `${name}-deploys.json`)
  const r = await analyzeLog(join(dir, `${name}.ndjson`), deploysFile)
  expect(r.input.skipped.total).toBe(0)
  expect(r.totals).toMatchObject(expected)
  expect(r.totals.brokenPageLoads).toBeLessThanOrEqual(expected.affectedPageLoads)
  expect(r.nonUser.probe).toEqual({requests: probeRequests, clients: p.barrages > 0 ? expect.any(Number) : 0, failedRequests: probeFailedAssets})
  expect(new Set(r.affectedUsers.map((u) => `${u.clientIp} ${u.userAgent}`))).toEqual(new Set(lab.failures.map((f) => f.browser)))
  expect(r.affectedUsers.reduce((n, u) => n + u.affectedPageLoads, 0)).toBe(lab.browsers.brokenPageLoads)
  expect(r.deploys).toEqual([expect.objectContaining({sources: ['file'], fromBuild: 'B1', toBuild: 'B2', start: lab.deploys[0]?.start, end: lab.deploys[0]?.end})])
  expect(r.builds.map((b) => b.id)).toEqual(['B1', 'B2'])

  const lines = await analyzeLog(join(dir, `${name}.log`), deploysFile)
  expect(lines.input.skipped.total).toBe(0)
  expect(lines.totals).toMatchObject({pageLoads: expected.pageLoads, affectedUsers: expected.affectedUsers, failedRequests: expected.failedRequests})
  expect(lines.totals.affectedPageLoads).toBeLessThanOrEqual(expected.affectedPageLoads)

  expect(lab.browsers.errors).toBe(0)
  expect(p.byVerdict.error + p.pageErrors).toBe(0)
}

describe('lab + probe + analyze on loopback', () => {
  let roundRobin: Run

  it('round-robin rolling deploy: the probe fails only inside the rollout window, sees both builds, and analyze agrees with the lab', async () => {
    roundRobin = await labWithProbe('rr', {}, false, 50)
    const {lab, probe: p, barrages} = roundRobin
    const deploy = lab.deploys[0]
    const [start, end] = [ms(deploy?.start), ms(deploy?.end)]
    // Simulated time: the timetable to the millisecond.
    expect(end - start).toBe(3 * STEP)
    expect(lab.stoppedBy).toBe('once')

    const failed = barrages.filter((b) => b.verdict !== 'all-ok')
    expect(failed.length).toBeGreaterThan(5)
    for (const b of failed) {
      expect(b.endedAt).toBeGreaterThanOrEqual(start)
      expect(b.startedAt).toBeLessThanOrEqual(end)
    }
    expect(barrages.filter((b) => b.endedAt < start).length).toBeGreaterThan(5)
    expect(barrages.filter((b) => b.startedAt > end).length).toBeGreaterThan(5)
    expect(p.failedBarrages).toBe(failed.length)
    expect(p.windowSeconds).toBeGreaterThan((end - start) / 2000)
    expect(p.builds).toHaveLength(2)
    const [a, b] = p.builds
    expect(ms(a?.lastSeen)).toBeLessThanOrEqual(end)
    expect(ms(b?.firstSeen)).toBeGreaterThanOrEqual(start)
    // One shell length for both builds, as real bundlers make them: the probe tells them by their bundles.
    expect(a?.shellBytes).toBe(b?.shellBytes)
    expect(a?.assetsHash).not.toBe(b?.assetsHash)

    expect(lab.browsers.brokenPageLoads).toBeGreaterThan(0)
    const deploys = JSON.parse(readFileSync(join(dir, 'rr-deploys.json'), 'utf8')) as unknown[]
    expect(deploys).toEqual([{start: deploy?.start, end: deploy?.end, service: 'web', version: deploy?.to, from: deploy?.from}])
    await expectOneStory('rr', roundRobin)
  }, 120_000)

  it('cookie affinity with a sticky probe: failures only at the moments pods die, far fewer than round-robin, and analyze agrees', async () => {
    // A little latency widens the race at a pod's death: its last shell is on the wire while it leaves the balancer.
    const run = await labWithProbe('sticky', {affinity: 'cookie', latencyMs: 15}, true, 40)
    const {lab, probe: p, barrages} = run
    const deaths = lab.pods.filter((pod) => pod.stop !== null && ms(pod.stop) < ms(lab.endedAt) - TAIL / 2).map((pod) => ms(pod.stop))
    expect(deaths).toHaveLength(3)
    const failed = barrages.filter((b) => b.verdict !== 'all-ok')
    for (const b of failed) expect(deaths.some((t) => t >= b.startedAt - 30 && t <= b.endedAt + 30)).toBe(true)
    expect(failed.length).toBeLessThanOrEqual(deaths.length)
    expect(failed.length).toBeLessThan(roundRobin.probe.failedBarrages / 3)
    expect(p.builds).toHaveLength(2)
    // The lab's own browsers: failures only from sessions moved by a pod's death (at once, or at their next lazy chunk).
    for (const f of lab.failures) expect(deaths.some((t) => ms(f.time) >= t && ms(f.time) <= t + 3000)).toBe(true)
    expect(lab.browsers.perThousand).toBeLessThan(roundRobin.lab.browsers.perThousand)
    await expectOneStory('sticky', run)
  }, 120_000)
})
