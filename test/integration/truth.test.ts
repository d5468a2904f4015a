/**
 * The numbers this tool prints end up in incident reviews: on every shipped fixture, in every input
 * format and order and with every deploy file, `analyze` must report exactly what the simulator
 * recorded as having happened (truth.json, the report contract of schemaVersion 3).
 *
 * What the truth cannot state once for all formats, this test maps:
 * - the app's name: the ingress upstream (`default-web-80`) in every format that logs it; nginx
 *   `combined` lines name none (one unnamed app, `null`, source `none`; written for one-app scenarios only);
 * - a build's `lastServed`: the last response of its pods where the logs name the upstream, else the
 *   last response carrying its shell (`lastShellServed`); `pods` only where upstreams are logged;
 * - a deploy's `sources`, `version` and `service`, by the deploy file (the Kubernetes events name the
 *   replica set as the version); deploys inferred from the logs have windows of their own (inside the
 *   real ones); an app whose shell length varies (a dynamic homepage) has builds all the same, known
 *   by the assets its pages load and its pods, whose length-based fields the truth leaves out, as
 *   it does for builds that share one length in logs that name no pod (see dynamicApps);
 * - a restart (new pods of the build already served): where the deploy file holds the cluster's
 *   Kubernetes events, a deploy from that build to itself with no failure; a scale-out: nothing.
 */
import {existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {analyze} from '../../src/app/analyze'
import {DEFAULT_OPTIONS} from '../../src/analysis/options'
import {topFailures} from '../../src/analysis/top-failures'
import type {AnalysisReport, DeployReport, DeploySource} from '../../src/model/report'
import {DEFAULT_NORMALIZE} from '../../src/normalize/fields'
import type {Truth, TruthDeploy} from '../../scripts/fixture-generator'
import {ROOT} from '../helpers/cli'
import {tempDir} from '../helpers/temp'

const FIXTURES = join(ROOT, 'fixtures')
const SCENARIOS = ['dynamic-homepage', 'missing-404', 'quiet', 'restart-scale-out', 'rollback', 'rolling-round-robin', 'rolling-sticky', 'two-apps', 'two-deploys', 'two-deploys-same-length']
const scenarios = readdirSync(FIXTURES).filter((d) => existsSync(join(FIXTURES, d, 'truth.json'))).sort()
const truths = new Map<string, Truth>()
const truthOf = (s: string): Truth => {
  let t = truths.get(s)
  if (!t) truths.set(s, (t = JSON.parse(readFileSync(join(FIXTURES, s, 'truth.json'), 'utf8')) as Truth))
  return t
}
const LOG_FORMATS = new Set(['ingress-nginx', 'nginx-combined', 'nginx-json', 'datadog-logs-v2-ndjson', 'datadog-logs-v2-ndjson-gzip',
  'datadog-logs-v2-pages', 'datadog-logs-v1', 'datadog-logs-v2-unparsed-ndjson', 'datadog-explorer-csv', 'datadog-explorer-csv-raw'])
type DeployFile = 'deploys.json' | 'deploys.csv' | 'deploy-events-v2.json' | 'kubectl-events.json'
const DEPLOY_FILES: DeployFile[] = ['deploys.json', 'deploys.csv', 'deploy-events-v2.json', 'kubectl-events.json']
const tmp = tempDir('skewscan-truth-')

async function run(scenario: string, inputs: string[], deploys?: DeployFile): Promise<AnalysisReport> {
  return analyze({
    inputs: inputs.map((f) => (f.startsWith('/') ? f : join(FIXTURES, scenario, f))),
    deploysFile: deploys ? join(FIXTURES, scenario, deploys) : undefined,
    normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000,
  })
}

interface Case {
  /** The file format the logs came in: `nginx-combined` names no app and no upstream. */
  format: string
  /** The deploy file, or none (deploys inferred from the logs). */
  deploys: DeployFile | undefined
}

const SOURCES: Record<DeployFile, DeploySource[]> = {
  'deploys.json': ['file'], 'deploys.csv': ['file'], 'deploy-events-v2.json': ['marker', 'kubernetes'], 'kubectl-events.json': ['kubernetes'],
}

/** A deploy as the report shows it, without what only the deploy file or the logs decide (window, sources, version). */
function deployCore(d: DeployReport | TruthDeploy, app: string | null) {
  const {id, fromBuild, toBuild, incidentIds, affectedUsers, affectedPageLoads, byOutcome, failedRequests, byCause, byDirection, rolloutWindow} = d
  return {id, app, fromBuild, toBuild, incidentIds, affectedUsers, affectedPageLoads, byOutcome, failedRequests, byCause, byDirection, rolloutWindow}
}

/** What the truth fixes for one case, in the report's shape. */
function expected(t: Truth, c: Case) {
  const combined = c.format === 'nginx-combined'
  const app = (name: string): string | null => (combined ? null : name)
  const declared = declaredDeploys(t, c)
  // Builds are known by the assets their pages load, so an app whose shell length varies (a dynamic
  // homepage) has them too, and its deploys are inferred from the logs like any other.
  return {
    totals: t.totals,
    apps: t.apps.map((a) => ({
      name: app(a.name), source: combined ? 'none' : 'upstream', requests: a.requests, pageLoads: a.pageLoads, builds: a.builds,
      deploys: declared.filter((d) => d.app === a.name).length, shellLengthVaries: a.shellLengthVaries, affectedUsers: a.affectedUsers, brokenPageLoads: a.brokenPageLoads,
    })),
    builds: t.builds.map((b) => lengthless(dynamicApps(t, combined), b.app, combined && !t.apps.some((a) => a.shellLengthVaries), {
      id: b.id, app: app(b.app), shellBytes: b.shellBytes, firstSeen: b.firstSeen, lastSeen: b.lastSeen,
      lastServed: combined ? b.lastShellServed : b.lastServed, shellRequests: b.shellRequests, ...(combined ? {} : {pods: b.pods}),
    })),
    deploys: declared.map((d) => c.deploys === undefined ? deployCore(d, app(d.app)) : {
      ...deployCore(d, app(d.app)), sources: d.restart ? ['kubernetes'] : SOURCES[c.deploys], start: d.start, end: d.end, windowSeconds: d.windowSeconds,
      service: d.service, version: c.deploys === 'kubectl-events.json' || d.restart ? d.toReplicaSet : d.version, pageLoads: d.pageLoads,
    }),
    unmatchedDeploys: [],
    // What failed most in each incident, counted from the truth's own failed requests of it.
    incidents: t.incidents.map((i) => ({...i, app: app(i.app), deployId: renumber(t, declared, i.deployId),
      top: topFailures(t.failures.filter((f) => f.incidentId === i.id))})),
    affectedUsers: sortUsers(t.affectedUsers.map((u) => ({...u, app: app(u.app)}))),
    nonUser: t.nonUser,
    orphans: t.orphans,
  }
}

/**
 * The deploys a report lists for a case: the truth's, and where the deploy file holds the cluster's
 * Kubernetes events, each restart too (a rollout of new pods of the build already served: a deploy
 * from that build to itself, with no failure; only the cluster's events record it), numbered by start time.
 */
function declaredDeploys(t: Truth, c: Case): (TruthDeploy & {restart?: true})[] {
  const kubernetes = c.deploys !== undefined && SOURCES[c.deploys].includes('kubernetes')
  const restarts: (TruthDeploy & {restart: true})[] = kubernetes
    ? (t.podChanges ?? []).filter((p) => p.kind === 'restart').map((p) => ({
      id: '', app: p.app, service: p.service, namespace: p.namespace, start: p.start, end: p.end,
      windowSeconds: (Date.parse(p.end) - Date.parse(p.start)) / 1000, fromBuild: p.build, toBuild: p.build, version: p.toReplicaSet,
      fromVersion: p.fromReplicaSet, fromReplicaSet: p.fromReplicaSet, toReplicaSet: p.toReplicaSet, incidentIds: [], affectedUsers: 0,
      affectedPageLoads: 0, byOutcome: {crashed: 0, lazyChunkFailed: 0, unstyled: 0, degraded: 0}, pageLoads: p.pageLoads, failedRequests: 0,
      byCause: {'rollout': 0, 'stale-client': 0, 'unattributed': 0}, byDirection: {oldPageNewPod: 0, newPageOldPod: 0, unknown: 0}, rolloutWindow: null, restart: true as const,
    }))
    : []
  return [...t.deploys, ...restarts].sort((a, b) => Date.parse(a.start) - Date.parse(b.start) || (a.app < b.app ? -1 : a.app > b.app ? 1 : 0))
    .map((d, i) => ({...d, id: `D${i + 1}`}))
}

/** A truth deploy id as the case numbers it (restarts listed among the deploys shift later ids). */
function renumber(t: Truth, declared: readonly TruthDeploy[], id: string | null): string | null {
  if (id === null) return null
  const real = t.deploys.find((d) => d.id === id)
  return declared.find((d) => d.start === real?.start && d.app === real?.app && d.fromBuild === real?.fromBuild)?.id ?? id
}

function actual(r: AnalysisReport, t: Truth, c: Case) {
  // Builds are named by their assets in every fixture (the simulator's bundles are content-hashed);
  // the pod that answered is known wherever the format logs the upstream.
  for (const a of r.apps) expect(a.buildEvidence).toMatchObject({assets: true, pods: c.format !== 'nginx-combined'})
  for (const b of r.builds) expect(b).toMatchObject({knownBy: 'assets', entry: expect.stringMatching(/^\/(_build\/app\.|assets\/index-)\w+\.js$/)})
  return {
    totals: r.totals,
    apps: r.apps.map(({buildEvidence: _evidence, ...a}) => a),
    builds: r.builds.map(({id, app, shellBytes, firstSeen, lastSeen, lastServed, shellRequests, pods}) =>
      lengthless(dynamicApps(t, c.format === 'nginx-combined'), app, c.format === 'nginx-combined' && !t.apps.some((a) => a.shellLengthVaries), {id, app, shellBytes, firstSeen, lastSeen, lastServed, shellRequests, ...(pods === undefined ? {} : {pods})})),
    deploys: r.deploys.map((d) => c.deploys === undefined ? deployCore(d, d.app) : {
      ...deployCore(d, d.app), sources: d.sources, start: d.start, end: d.end, windowSeconds: d.windowSeconds, service: d.service,
      version: d.version, pageLoads: d.pageLoads,
    }),
    unmatchedDeploys: r.unmatchedDeploys,
    incidents: r.incidents,
    affectedUsers: sortUsers(r.affectedUsers),
    nonUser: r.nonUser,
    orphans: r.orphans,
  }
}

/**
 * Apps whose builds the truth's length-based fields (first and last shell, shell count) cannot be
 * held to: a shell length that varies (a dynamic homepage); and, in logs that name no pod, one
 * length for every build (as real bundlers make them). Where pods are logged, builds that share a
 * length are held to every field: their pods' shells tell them.
 */
function dynamicApps(t: Truth, combined: boolean): Set<string> {
  const shared = t.apps.filter((a) => {
    const lengths = t.builds.filter((b) => b.app === a.name).map((b) => b.shellBytes)
    return new Set(lengths).size < lengths.length
  })
  return new Set([...t.apps.filter((a) => a.shellLengthVaries), ...(combined ? shared : [])].map((a) => a.name))
}

/**
 * A build of an app whose shell length varies, without what the truth defines by shell length (its
 * length, its first and last shell, its shell count): who it is, its pods and when it was last served.
 */
function lengthless<T extends {id: string; app: string | null; lastServed: string; pods?: number}>(dynamic: Set<string>, app: string | null, sharedInCombined: boolean, b: T): Partial<T> {
  const named = app ?? (dynamic.size === 1 ? [...dynamic][0] : undefined)
  if (named === undefined || !dynamic.has(named)) return b
  // Logs that name no pod show a build answering only in its people's page loads there (a crawler's
  // shell of a length every build has names none), so its last shell served is the truth's alone.
  return {id: b.id, app: b.app, ...(sharedInCombined ? {} : {lastServed: b.lastServed}), ...(b.pods === undefined ? {} : {pods: b.pods})} as Partial<T>
}

function sortUsers<T extends {app: string | null; session: string}>(users: T[]): T[] {
  return [...users].sort((a, b) => ((a.app ?? '') + a.session < (b.app ?? '') + b.session ? -1 : 1))
}

/**
 * Every scenario in every format, but the rollback in `combined`: with no pod logged and one shell
 * length for every build, nothing there shows the old build served again, so the rollback's builds
 * and its failures' direction cannot be known (docs/analyze.md, "What logs without pods can tell").
 */
const formatCases = scenarios.flatMap((s) => (truthOf(s).files ?? []).filter((f) => LOG_FORMATS.has(f.format) && !(s === 'rollback' && f.format === 'nginx-combined'))
  .map((f) => [s, f.name, f.format] as const))

describe('analyze matches the simulator truth', () => {
  it('has fixtures for every scenario the generator ships, in every log format that can tell its apps apart', () => {
    expect(scenarios).toEqual(SCENARIOS)
    for (const s of scenarios) {
      const formats = (truthOf(s).files ?? []).filter((f) => LOG_FORMATS.has(f.format)).map((f) => f.format)
      expect(formats.length).toBe(truthOf(s).apps.length === 1 ? LOG_FORMATS.size : LOG_FORMATS.size - 1)
    }
  })

  it.each(formatCases)('%s: %s (%s) with the deploy list', async (scenario, file, format) => {
    const r = await run(scenario, [file], 'deploys.json')
    expect(r.input.skipped.total).toBe(0)
    const c = {format, deploys: 'deploys.json'} as const
    expect(actual(r, truthOf(scenario), c)).toEqual(expected(truthOf(scenario), c))
  })

  it.each(scenarios.flatMap((s) => DEPLOY_FILES.map((d) => [s, d] as const)))('%s: deploys from %s', async (scenario, deploys) => {
    const r = await run(scenario, ['dd-events.ndjson'], deploys)
    const c = {format: 'datadog-logs-v2-ndjson', deploys}
    expect(actual(r, truthOf(scenario), c)).toEqual(expected(truthOf(scenario), c))
  })

  it.each(scenarios)('%s: deploys inferred from the logs alone give the same users, incidents and builds', async (scenario) => {
    const t = truthOf(scenario)
    const r = await run(scenario, ['ingress.log'])
    const c = {format: 'ingress-nginx', deploys: undefined}
    expect(actual(r, t, c)).toEqual(expected(t, c))
    // The inferred window lies inside the real rollout: first new shell to last old shell.
    for (const d of r.deploys) {
      const real = t.deploys.find((x) => x.id === d.id)
      expect(real).toBeDefined()
      expect(Date.parse(d.start)).toBeGreaterThanOrEqual(Date.parse(real?.start ?? ''))
      expect(Date.parse(d.end)).toBeLessThanOrEqual(Date.parse(real?.end ?? ''))
      expect(d.sources).toEqual(['inferred'])
    }
    // Without deploy records, an app whose shell varies still shows its deploys (its builds are known by
    // their assets and pods), and none of its failures is left unattributed.
    for (const a of t.apps.filter((x) => x.shellLengthVaries)) {
      expect(r.deploys.filter((d) => d.app === a.name).length).toBe(t.deploys.filter((d) => d.app === a.name).length)
      expect(r.incidents.filter((i) => i.app === a.name).every((i) => i.cause !== 'unattributed' && i.deployId !== null)).toBe(true)
    }
  })
})

describe('analyze does not depend on the order of its input', () => {
  const linesOf = (scenario: string, file: string) => readFileSync(join(FIXTURES, scenario, file), 'utf8').split('\n').filter((l) => l !== '')

  it.each(scenarios)('%s: newest-first, shuffled within each second, and split across interleaved files', async (scenario) => {
    const c = {format: 'ingress-nginx', deploys: 'deploys.json'} as const
    const want = expected(truthOf(scenario), c)
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
      expect(actual(await run(scenario, inputs, 'deploys.json'), truthOf(scenario), c)).toEqual(want)
    }
  })

  it('gives the same report when two formats of the same traffic are merged in one run (Datadog ids de-duplicate)', async () => {
    const r = await run('two-deploys', ['dd-events.ndjson', 'dd-pages.json'], 'deploys.json')
    expect(r.input.skipped.byReason).toEqual({duplicate: r.input.records / 2})
    const c = {format: 'datadog-logs-v2-ndjson', deploys: 'deploys.json'} as const
    expect(actual(r, truthOf('two-deploys'), c)).toEqual(expected(truthOf('two-deploys'), c))
  })
})
