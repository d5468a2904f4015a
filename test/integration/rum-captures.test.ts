/**
 * The browsers' own word on the real captures (fixtures/captures/NAME/rum-events.json.gz: the RUM
 * events those browsers would have sent, 80% of sessions sampled, about 70% signed in): with
 * `--rum`, every crashed page load RUM saw is confirmed, the lazy loads that failed are counted,
 * the accounts are exactly the signed-in ones among the hurt, and nothing is unexplained; in a
 * format of each kind of clock nginx and Datadog write, at the recorded speed and stretched, with
 * the RUM pages oldest or newest first, and RUM kept without addresses with the browsers' clocks
 * off. The expected figures come from the truth (the browsers' own record of every page
 * load) and the RUM file, joined here on the browser's address and the page load's start, not by
 * the tool's join.
 */
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {DEFAULT_OPTIONS} from '../../src/analysis/options'
import {analyze} from '../../src/app/analyze'
import type {AnalysisReport} from '../../src/model/report'
import {DEFAULT_NORMALIZE} from '../../src/normalize/fields'
import {type Capture, CAPTURES, FORMATS, loadCapture, renderDeployEvents, renderRum, stretchOf} from '../../scripts/captures/capture'
import {composeCaptures} from '../../scripts/captures/compose'
import {analyzeCase, type CaseSpec} from '../../scripts/captures/run'
import {ROOT} from '../helpers/cli'
import {schemaValidator} from '../helpers/schema'

const captures = new Map<string, Capture>(CAPTURES.map((name) => [name, loadCapture(ROOT, name)]))
const capture = (name: string): Capture => captures.get(name) as Capture

interface RumView {id: string; session: string; user?: string; version: string}

interface Expected {
  /** Crashed page loads of the truth that RUM has a view of, per deploy (the truth's 1-based deploy number; 0: none). */
  crashed: Map<number, number>
  lazy: Map<number, number>
  accounts: string[]
  sessions: number
  /** RUM's page loads over the truth's. */
  coverage: number
}

/** What RUM saw of the truth's hurt page loads: a view is the page load with the browser's address and start time. */
function expected(c: Capture): Expected {
  const views = new Map<string, RumView>()
  for (const item of c.rum) {
    const outer = item.attributes as {timestamp: string; attributes: Record<string, unknown>}
    const a = outer.attributes as {type: string; view: {id: string}; session: {id: string}; usr?: {id: string}; version: string; network: {client: {ip: string}}}
    if (a.type === 'view') views.set(`${a.network.client.ip} ${outer.timestamp}`, {id: a.view.id, session: a.session.id, ...(a.usr ? {user: a.usr.id} : {}), version: a.version})
  }
  type TruthPageLoad = {id: string; client_ip: string; t_start: string; broken: boolean; deploy: number | null}
  type TruthLazy = {page_load: string; path: string; ok: boolean; deploy: number | null}
  const pageLoads = c.truth.page_loads as TruthPageLoad[]
  const byId = new Map(pageLoads.map((p) => [p.id, p]))
  const viewOf = (p: TruthPageLoad): RumView | undefined => views.get(`${p.client_ip} ${p.t_start}`)
  const hurt = new Set<RumView>()
  const crashed = new Map<number, number>()
  const lazy = new Map<number, number>()
  const bump = (m: Map<number, number>, deploy: number | null): void => void m.set(deploy ?? 0, (m.get(deploy ?? 0) ?? 0) + 1)
  for (const p of pageLoads) {
    const v = viewOf(p)
    if (!p.broken || v === undefined) continue
    hurt.add(v)
    bump(crashed, p.deploy)
  }
  const lazySeen = new Set<string>()
  for (const l of c.truth.lazy_loads as TruthLazy[]) {
    const p = byId.get(l.page_load) as TruthPageLoad
    const v = viewOf(p)
    if (l.ok || v === undefined || lazySeen.has(`${v.id} ${l.path}`)) continue
    lazySeen.add(`${v.id} ${l.path}`)
    hurt.add(v)
    bump(lazy, l.deploy)
  }
  return {
    crashed, lazy, sessions: new Set([...hurt].map((v) => v.session)).size, coverage: views.size / pageLoads.length,
    accounts: [...new Set([...hurt].flatMap((v) => (v.user === undefined ? [] : [v.user])))].sort(),
  }
}

const sum = (m: Map<number, number>): number => [...m.values()].reduce((a, b) => a + b, 0)

const RUM_FORMATS = FORMATS.filter((f) => f === 'nginx-json' || f === 'combined' || f === 'datadog-ndjson')
const SPECS: CaseSpec[] = [
  // A format of each kind of clock: nginx JSON (milliseconds, completion time), combined (seconds),
  // Datadog's NDJSON (the pipeline's timestamp); the others read the same (captures.test.ts).
  ...RUM_FORMATS.flatMap((format) => [1, 60].map((stretch) => ({format, order: 'oldest-first' as const, stretch, deploys: 'events' as const, rum: stretch === 1 ? 'oldest-first' as const : 'newest-first' as const}))),
  // RUM kept without client addresses, user agents or error resources, the browsers' clocks 20 s fast or 30 s slow: joined by the assets alone.
  {format: 'nginx-json', order: 'oldest-first', stretch: 1, deploys: 'events', rum: 'oldest-first', rumAs: {anonymous: true, skewMs: 20_000}},
  {format: 'combined', order: 'oldest-first', stretch: 10, deploys: 'inferred', rum: 'newest-first', rumAs: {anonymous: true, skewMs: -30_000}},
]
const specLabel = (s: CaseSpec): string => `${s.format}, x${s.stretch}, RUM ${s.rum}${s.rumAs ? `, no addresses, clocks ${(s.rumAs.skewMs ?? 0) / 1000} s off` : ''}`

describe.each([...CAPTURES])('capture %s with its RUM events', (name) => {
  const want = expected(capture(name))

  it.each(SPECS.map((s) => [specLabel(s), s] as const))('%s: crashes confirmed, lazy failures and accounts as the truth has them, nothing unexplained', async (_label, spec) => {
    const {report} = await analyzeCase(capture(name), spec)
    const rum = report.rum
    if (rum === undefined) throw new Error('no rum section')
    expect({crashed: rum.crashedPageLoads, confirmed: rum.confirmed, unconfirmed: rum.unconfirmed, lazy: rum.lazyFailures, unexplained: rum.unexplained, unexplainedExamples: rum.unexplainedExamples})
      .toEqual({crashed: sum(want.crashed), confirmed: sum(want.crashed), unconfirmed: 0, lazy: sum(want.lazy), unexplained: 0, unexplainedExamples: []})
    expect(rum.accountIds).toEqual(want.accounts)
    expect(rum.accounts).toBe(want.accounts.length)
    expect(rum.sessions).toBe(want.sessions)
    expect(rum.joins.none).toBe(0)
    if (spec.rumAs?.anonymous) expect(rum.joins.asset).toBe(rum.joins.addressAndAsset + rum.joins.asset + rum.joins.address)
    expect(rum.input.skipped.total).toBe(0)
    // RUM samples 80% of sessions: its page loads over the log's, near the truth's share.
    expect(Math.abs((rum.coverage ?? 0) - want.coverage)).toBeLessThan(0.08)
    // Per deploy, as the truth attributes them (the report's deploys are the truth's, in order).
    expect(report.deploys.map((d) => [d.rum?.crashedPageLoads, d.rum?.confirmed, d.rum?.lazyFailures]))
      .toEqual(report.deploys.map((_d, i) => [want.crashed.get(i + 1) ?? 0, want.crashed.get(i + 1) ?? 0, want.lazy.get(i + 1) ?? 0]))
    // The version RUM gives each build's pages names one build only.
    const versions = report.builds.flatMap((b) => (b.rumVersion === undefined ? [] : [b.rumVersion]))
    expect(new Set(versions).size).toBe(versions.length)
  })
})

describe('two apps behind one ingress, each with its browsers', () => {
  it.each([['rr-3', 'two-deploys'], ['lazy-stale', 'mode-404']] as const)('%s + %s: the two captures\' crashes and accounts, each on its own app\'s deploys', async (a, b) => {
    const {capture: both} = composeCaptures(capture(a), capture(b), {offsetMs: 60_000, lengthShift: 1000})
    const [first, second] = [expected(capture(a)), expected(capture(b))]
    const {report} = await analyzeCase(both, {format: 'nginx-json', order: 'oldest-first', stretch: 10, deploys: 'events', rum: 'oldest-first'})
    const rum = report.rum
    expect([rum?.crashedPageLoads, rum?.confirmed, rum?.lazyFailures, rum?.unexplained, rum?.unconfirmed])
      .toEqual([sum(first.crashed) + sum(second.crashed), sum(first.crashed) + sum(second.crashed), sum(first.lazy) + sum(second.lazy), 0, 0])
    // The second app's accounts are its own (compose names them shop-…).
    expect(rum?.accountIds).toEqual([...first.accounts, ...second.accounts.map((id) => `shop-${id}`)].sort())
    for (const [app, want] of [['default-webapp-80', first], ['default-shop-80', second]] as const) {
      const deploys = report.deploys.filter((d) => d.app === app)
      expect(deploys.map((d) => d.rum?.crashedPageLoads)).toEqual(deploys.map((_d, i) => want.crashed.get(i + 1) ?? 0))
    }
  })
})

describe('RUM alone, no access logs (analyze --rum FILE)', () => {
  const validate = schemaValidator('analyze')

  /** The capture's RUM events (and, with `deploys`, its Datadog deploy events) alone, at the recorded speed. */
  async function alone(name: string, deploys: boolean): Promise<AnalysisReport> {
    const c = capture(name)
    const s = stretchOf(c, 1)
    const dir = mkdtempSync(join(tmpdir(), 'skewscan-rum-alone-'))
    try {
      const rum = join(dir, 'rum.json')
      writeFileSync(rum, renderRum(c, s, 'newest-first'))
      const deploysFile = deploys ? join(dir, 'deploys.json') : undefined
      if (deploysFile) writeFileSync(deploysFile, renderDeployEvents(c, s))
      return await analyze({inputs: [], rum: [rum], normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000, parallel: false, ...(deploysFile ? {deploysFile} : {})})
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  }

  it.each(CAPTURES.flatMap((name) => [[name, true], [name, false]] as const))('%s, deploy events %s: crashes, lazy failures and accounts per deploy as the truth has them', async (name, deploys) => {
    const want = expected(capture(name))
    const r = await alone(name, deploys)
    expect(validate(r) || validate.errors).toBe(true)
    const rum = r.rum
    expect(rum).toMatchObject({withoutLogs: true, crashedPageLoads: sum(want.crashed), lazyFailures: sum(want.lazy), accountIds: want.accounts, sessions: want.sessions, unexplained: 0, confirmed: 0})
    // One deploy per rollout, from the records or from the versions the pages carried, each with its own failures.
    const truthDeploys = capture(name).truth.deploys
    expect(rum?.deploys?.length).toBe(truthDeploys.length)
    expect(rum?.deploys?.map((d) => [d.crashedPageLoads, d.lazyFailures])).toEqual(truthDeploys.map((_d, i) => [want.crashed.get(i + 1) ?? 0, want.lazy.get(i + 1) ?? 0]))
    expect(rum?.deploys?.every((d) => d.fromVersion !== null && d.toVersion !== null && d.fromVersion !== d.toVersion)).toBe(true)
  })
})
