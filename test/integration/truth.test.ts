/**
 * The numbers this tool prints end up in incident reviews: on every shipped fixture, in every input
 * format and order, `analyze` must report exactly what the simulator recorded as having happened.
 */
import {existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {analyze} from '../../src/app/analyze'
import {DEFAULT_OPTIONS} from '../../src/analysis/options'
import type {AnalysisReport} from '../../src/model/report'
import {DEFAULT_NORMALIZE} from '../../src/normalize/fields'
import {ROOT} from '../helpers/cli'

interface Truth {
  scenario: string
  files: {name: string; format: string; order: string}[]
  pageLoadsTotal: number
  brokenPageLoadsTotal: number
  failedRequestsTotal: number
  builds: {id: string; shellBytes: number; firstSeen: string; lastSeen: string}[]
  deploys: {id: string; start: string; end: string; fromBuild: string; toBuild: string}[]
  incidents: (Record<string, unknown> & {id: string})[]
  affectedUsers: {clientIp: string; userAgent: string; firstFailure: string; lastFailure: string; brokenPageLoads: number; failedRequests: number; incidentIds: string[]}[]
  orphans: {requests: number; clients: number}
}

const FIXTURES = join(ROOT, 'fixtures')
const scenarios = readdirSync(FIXTURES).filter((d) => existsSync(join(FIXTURES, d, 'truth.json'))).sort()
const truthOf = (s: string): Truth => JSON.parse(readFileSync(join(FIXTURES, s, 'truth.json'), 'utf8'))
const LOG_FORMATS = new Set(['ingress-nginx', 'nginx-combined', 'nginx-json', 'datadog-logs-v2-ndjson', 'datadog-logs-v2-ndjson-gzip',
  'datadog-logs-v2-pages', 'datadog-logs-v1', 'datadog-logs-v2-unparsed-ndjson', 'datadog-explorer-csv', 'datadog-explorer-csv-raw'])
const DEPLOY_FILES = ['deploys.json', 'deploys.csv', 'deploy-events-v2.json', 'kubectl-events.json']
const tmp = mkdtempSync(join(tmpdir(), 'skewscan-truth-'))

async function run(scenario: string, inputs: string[], deploys?: string): Promise<AnalysisReport> {
  return analyze({
    inputs: inputs.map((f) => (f.startsWith('/') ? f : join(FIXTURES, scenario, f))),
    deploysFile: deploys ? join(FIXTURES, scenario, deploys) : undefined,
    normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000,
  })
}

/** What the truth fixes, in the truth's own shape (service left out: plain nginx lines carry none). */
function expected(t: Truth, {deploys}: {deploys: boolean}) {
  return {
    totals: {pageLoads: t.pageLoadsTotal, brokenPageLoads: t.brokenPageLoadsTotal, affectedUsers: t.affectedUsers.length, failedRequests: t.failedRequestsTotal},
    builds: t.builds.map(({id, shellBytes, firstSeen, lastSeen}) => ({id, shellBytes, firstSeen, lastSeen})),
    deploys: t.deploys.map(({id, start, end, fromBuild, toBuild}) => (deploys ? {id, start, end, fromBuild, toBuild} : {id, fromBuild, toBuild})),
    incidents: t.incidents.map(({service: _s, ...rest}) => rest),
    affectedUsers: sortUsers(t.affectedUsers),
    orphans: t.orphans,
  }
}

function actual(r: AnalysisReport, {deploys}: {deploys: boolean}) {
  return {
    totals: r.totals,
    builds: r.builds.map(({id, shellBytes, firstSeen, lastSeen}) => ({id, shellBytes, firstSeen, lastSeen})),
    deploys: r.deploys.map(({id, start, end, fromBuild, toBuild}) => (deploys ? {id, start, end, fromBuild, toBuild} : {id, fromBuild, toBuild})),
    incidents: r.incidents.map(({service: _s, ...rest}) => rest),
    affectedUsers: sortUsers(r.affectedUsers.map(({clientIp, userAgent, firstFailure, lastFailure, brokenPageLoads, failedRequests, incidentIds}) =>
      ({clientIp, userAgent, firstFailure, lastFailure, brokenPageLoads, failedRequests, incidentIds}))),
    orphans: r.orphans,
  }
}

function sortUsers<T extends {clientIp: string; userAgent: string}>(users: T[]): T[] {
  return [...users].sort((a, b) => (a.clientIp + a.userAgent < b.clientIp + b.userAgent ? -1 : 1))
}

const formatCases = scenarios.flatMap((s) => truthOf(s).files.filter((f) => LOG_FORMATS.has(f.format)).map((f) => [s, f.name, f.format] as const))

describe('analyze matches the simulator truth', () => {
  it('has fixtures for every scenario the generator ships', () => {
    expect(scenarios).toEqual(['missing-404', 'quiet', 'rolling-round-robin', 'rolling-sticky', 'two-deploys'])
    expect(formatCases.length).toBe(scenarios.length * LOG_FORMATS.size)
  })

  it.each(formatCases)('%s: %s (%s) with the deploy list', async (scenario, file) => {
    const r = await run(scenario, [file], 'deploys.json')
    expect(r.input.skipped.total).toBe(0)
    expect(actual(r, {deploys: true})).toEqual(expected(truthOf(scenario), {deploys: true}))
  })

  it.each(scenarios.flatMap((s) => DEPLOY_FILES.map((d) => [s, d] as const)))('%s: deploys from %s', async (scenario, deploys) => {
    const r = await run(scenario, ['dd-events.ndjson'], deploys)
    expect(actual(r, {deploys: true})).toEqual(expected(truthOf(scenario), {deploys: true}))
  })

  it.each(scenarios)('%s: deploys inferred from the logs alone give the same users, incidents and builds', async (scenario) => {
    const t = truthOf(scenario)
    const r = await run(scenario, ['ingress.log'])
    expect(actual(r, {deploys: false})).toEqual(expected(t, {deploys: false}))
    // The inferred window lies inside the real rollout: first new shell to last old shell.
    r.deploys.forEach((d, i) => {
      const real = t.deploys[i]
      expect(real).toBeDefined()
      expect(Date.parse(d.start)).toBeGreaterThanOrEqual(Date.parse(real?.start ?? ''))
      expect(Date.parse(d.end)).toBeLessThanOrEqual(Date.parse(real?.end ?? ''))
      expect(d.source).toBe('inferred')
    })
  })
})

describe('analyze does not depend on the order of its input', () => {
  const linesOf = (scenario: string, file: string) => readFileSync(join(FIXTURES, scenario, file), 'utf8').split('\n').filter((l) => l !== '')

  it.each(scenarios)('%s: newest-first, shuffled within each second, and split across interleaved files', async (scenario) => {
    const want = expected(truthOf(scenario), {deploys: true})
    const lines = linesOf(scenario, 'ingress.log')
    const reversed = join(tmp, `${scenario}-reversed.log`)
    writeFileSync(reversed, `${[...lines].reverse().join('\n')}\n`)
    // Within each second, a deterministic shuffle: 1-second logs have no order inside a second.
    const bySecond = new Map<string, string[]>()
    for (const l of lines) {
      const second = l.slice(l.indexOf('['), l.indexOf(']'))
      bySecond.set(second, [...(bySecond.get(second) ?? []), l])
    }
    const shuffled = join(tmp, `${scenario}-shuffled.log`)
    writeFileSync(shuffled, `${[...bySecond.values()].flatMap((g) => g.map((l, i) => [((i * 7919) % 13) + i / 1000, l] as const).sort((a, b) => a[0] - b[0]).map(([, l]) => l)).join('\n')}\n`)
    const parts = [0, 1, 2].map((k) => join(tmp, `${scenario}-part${k}.log`))
    parts.forEach((p, k) => writeFileSync(p, `${lines.filter((_, i) => i % 3 === k).join('\n')}\n`))
    for (const inputs of [[reversed], [shuffled], parts, [parts[2] as string, reversed.replace('reversed', 'part1'), parts[0] as string]]) {
      expect(actual(await run(scenario, inputs, 'deploys.json'), {deploys: true})).toEqual(want)
    }
  })

  it('gives the same report when two formats of the same traffic are merged in one run (Datadog ids de-duplicate)', async () => {
    const r = await run('two-deploys', ['dd-events.ndjson', 'dd-pages.json'], 'deploys.json')
    expect(r.input.skipped.byReason).toEqual({duplicate: truthOf('two-deploys').files.find((f) => f.name === 'dd-pages.json') ? r.input.records / 2 : 0})
    expect(actual(r, {deploys: true})).toEqual(expected(truthOf('two-deploys'), {deploys: true}))
  })
})
