import {join} from 'node:path'
import {ConfigError} from '../errors/config-error'
import {type Clock, SimulatedClock, WALL_CLOCK} from '../probe/clock'
import {type BrowserTiming, BrowserFleet, DEFAULT_TIMING} from '../lab/browsers'
import {makeLabBuilds} from '../lab/builds'
import {LabCluster, type LabEvent} from '../lab/cluster'
import {LabFiles} from '../lab/files'
import {compareRow, STRATEGIES, type StrategySettings} from '../lab/compare'
import {Random} from '../lab/random'
import {BrowserRecord} from '../lab/record'
import {rumApplication, RumJournal} from '../lab/rum'
import {type CompareReport, deployReport, type LabReport, type LabStop} from '../lab/report'
import {deployLength, type LabAction, planSchedule} from '../lab/schedule'
import type {CompareRequest, LabSettings} from '../lab/settings'


export interface LabRequest extends LabSettings {
  /** Datadog NDJSON access log. */
  logFile?: string
  /** ingress-nginx access lines. */
  ingressLogFile?: string
  /** Deploy windows, `[{start, end, service, version, from}]`, rewritten after each deploy. */
  deploysFile?: string
  /** The browsers' Datadog RUM events (a RUM events search API response), `rumSampleRate` percent of their sessions. */
  rumFile?: string
  timing?: BrowserTiming
  /**
   * `wall` (default): real time, for watching and probing a deploy. `simulated`: time moves only
   * when nothing is in flight, one actor at a time, so the same seed gives the same outcome on any
   * machine (the latency is then the network's, before each request).
   */
  clock?: 'wall' | 'simulated'
  signal?: AbortSignal
  /** The balancer listens; a probe run alongside a simulated lab must use `clock`. */
  onListening?: (url: string, clock: Clock) => void
  onEvent?: (e: LabEvent) => void
}

/** Failures listed in the report at most (the counts cover them all). */
const MAX_REPORTED_FAILURES = 1000
const LOG_CONTEXT = {host: 'skewscan-lab-ingress', env: 'lab', upstreamName: 'default-web-80'}

/**
 * Runs the lab: pods and a balancer on loopback, deploys on a timetable, simulated browsers through
 * the balancer, an access log of every request. Ends with `once` after the last deploy and its tail,
 * at `durationMs`, or when `signal` aborts; then everything it started is closed.
 */
export async function runLab(req: LabRequest): Promise<LabReport> {
  const clock: Clock = req.clock === 'simulated' ? new SimulatedClock(Date.now(), req.latencyMs) : WALL_CLOCK
  const now = (): number => clock.now()
  const startedAt = now()
  const builds = makeLabBuilds(req.deploys + 1, req.seed, new Date(startedAt).toISOString().slice(0, 10).replace(/-/g, '.'), req.distinctShellLengths === true)
  const files = await LabFiles.open({log: req.logFile, ingressLog: req.ingressLogFile, deploys: req.deploysFile, rum: req.rumFile}, {...LOG_CONTEXT, service: req.service})
  const record = new BrowserRecord()
  const rum = req.rumFile === undefined ? undefined : new RumJournal({
    seed: req.seed, sampleRate: req.rumSampleRate ?? 100, context: {service: req.service, env: LOG_CONTEXT.env, application: rumApplication(req.seed)},
    write: (items) => files.rum(items),
  })
  const names = new Random(req.seed, 'pod-names')
  const cluster = new LabCluster({
    builds, affinity: req.affinity, keepOldAssets: req.keepOldAssets, missing: req.missing, latencyMs: clock.simulated ? 0 : req.latencyMs,
    random: (() => {
      const r = new Random(req.seed, 'routing')
      return () => r.next()
    })(),
    podSuffix: () => Array.from({length: 5}, () => names.pick([...'bcdfghjklmnpqrstvwxz2456789'])).join(''),
    salt: `skewscan-lab-${req.seed}`, clock,
    onEvent: (e) => {
      req.onEvent?.(e)
      // A failed write is reported by the last one, below.
      if (e.kind === 'deploy-end') void files.writeDeploys(cluster.deploys).catch(() => undefined)
    },
    onAccess: (r) => files.access(r),
  })
  const versions = new Map(builds.map((b) => [b.version, b.index]))
  let url: string
  try {
    url = `http://127.0.0.1:${await clock.busy(() => cluster.balancer.listen(req.port))}/`
  } catch (error: unknown) {
    await files.close()
    const code = (error as {code?: string}).code
    throw new ConfigError(`--port ${req.port}: cannot listen on 127.0.0.1 (${code ?? String(error)}); pick another port or 0 for any free one`)
  }
  const fleet = new BrowserFleet({
    baseUrl: url, count: req.browsers, seed: req.seed, timing: req.timing ?? DEFAULT_TIMING, record, clock,
    buildIndex: (v) => (v === undefined ? null : versions.get(v) ?? null), ...(rum ? {rum} : {}),
  })
  let stoppedBy: LabStop = 'interrupt'
  try {
    stoppedBy = await runTimetable(planSchedule(req), cluster, {
      startedAt, deadline: startedAt + req.durationMs, once: req.once, signal: req.signal, clock,
      // The first pods are up: the balancer has somewhere to send the browsers.
      onFirstPods: () => {
        req.onListening?.(url, clock)
        fleet.start()
      },
    })
  } finally {
    await fleet.stop()
    await cluster.shutdown()
    rum?.flush()
    await files.close()
  }
  await files.writeDeploys(cluster.deploys)
  return {
    schemaVersion: 1, url,
    settings: {
      replicas: req.replicas, stepSeconds: req.stepMs / 1000, deploys: req.deploys, everySeconds: req.everyMs / 1000, strategy: req.strategy,
      affinity: req.affinity, keepOldAssets: req.keepOldAssets, missing: req.missing, browsers: req.browsers, seed: req.seed,
      latencyMs: req.latencyMs, service: req.service,
    },
    startedAt: new Date(startedAt).toISOString(), endedAt: new Date(now()).toISOString(), stoppedBy,
    deploys: cluster.deploys.map(deployReport),
    pods: cluster.pods.map((p) => ({name: p.name, build: p.build, address: p.address, start: new Date(p.start).toISOString(), stop: p.stop === null ? null : new Date(p.stop).toISOString()})),
    browsers: record.summary(cluster.deploys), failures: record.failures.slice(0, MAX_REPORTED_FAILURES).map((f) => ({...f, time: new Date(f.time).toISOString()})),
    requests: cluster.balancer.requests,
    files: {
      ...(req.logFile ? {log: req.logFile} : {}), ...(req.ingressLogFile ? {ingressLog: req.ingressLogFile} : {}), ...(req.deploysFile ? {deploys: req.deploysFile} : {}),
      ...(req.rumFile ? {rum: req.rumFile} : {}),
    },
    ...(rum ? {rum: rum.summary()} : {}),
  }
}

/** Applies each action at its time; returns why it stopped. */
async function runTimetable(
  actions: readonly LabAction[], cluster: LabCluster,
  o: {startedAt: number; deadline: number; once: boolean; signal: AbortSignal | undefined; clock: Clock; onFirstPods: () => void},
): Promise<LabStop> {
  const {clock} = o
  let started = false
  const start = (): void => {
    if (!started) o.onFirstPods()
    started = true
  }
  for (const a of actions) {
    if (a.at > 0) start()
    await clock.sleep(Math.min(o.startedAt + a.at, o.deadline) - clock.now(), o.signal)
    if (o.signal?.aborted) return 'interrupt'
    if (clock.now() >= o.deadline) return 'duration'
    if (a.kind === 'end') return 'once'
    await clock.busy(() => cluster.apply(a))
  }
  start()
  if (o.once) return 'once'
  // No --once: keep serving until Ctrl-C or --duration.
  await clock.sleep(o.deadline - clock.now(), o.signal)
  return o.signal?.aborted ? 'interrupt' : 'duration'
}

/**
 * Every strategy of `STRATEGIES`, each in a lab of its own (same seed, same browsers, one deploy),
 * all at once so the comparison takes as long as one run; then one row per strategy.
 */
export async function compareStrategies(req: CompareRequest): Promise<CompareReport> {
  const run = (id: string, settings: StrategySettings): Promise<LabReport> => runLab({
    ...(req.logDir ? {logFile: join(req.logDir, `${id}.ndjson`), deploysFile: join(req.logDir, `${id}-deploys.json`)} : {}),
    ...settings, replicas: req.replicas, stepMs: req.stepMs, deploys: 1, everyMs: req.everyMs, tailMs: req.tailMs, port: 0,
    once: true, durationMs: 10 * 60_000, browsers: req.browsers, seed: req.seed, latencyMs: req.latencyMs, service: 'web',
    clock: req.clock ?? 'simulated', ...(req.timing ? {timing: req.timing} : {}), ...(req.signal ? {signal: req.signal} : {}),
  })
  const reports = await Promise.all(STRATEGIES.map((s) => run(s.id, s.settings)))
  return {
    schemaVersion: 1,
    settings: {replicas: req.replicas, stepSeconds: req.stepMs / 1000, browsers: req.browsers, seed: req.seed, latencyMs: req.latencyMs},
    strategies: STRATEGIES.map((s, i) => {
      const r = reports[i] as LabReport
      const deploySeconds = r.deploys[0]?.windowSeconds ?? deployLength({...req, strategy: s.settings.strategy}) / 1000
      return {...compareRow(s, r.browsers, deploySeconds), settings: s.settings}
    }),
  }
}
