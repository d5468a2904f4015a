import type {AccessEvent} from '../model/access-event'
import type {DeclaredDeploy} from '../model/deploy'
import type {FailureRecord} from '../model/report'
import {attributeApp} from './attribute'
import {applyCensus} from './census'
import type {PageCensus} from '../model/page-census'
import {type AppLimit, Detector, type DuplicateExample} from './detect'
import {type AppIdentity, fuseRollouts, inferDeploys, matchApp, type ResolvedDeploy, resolveRollout, type Rollout} from './deploys'
import type {AppState} from './apps'
import type {PageLoad} from './sessions'
import {type Build, servedAt, servingSlack} from './builds'
import {detach} from '../util/detach'
import {clusterIncidents} from './incidents'
import type {AnalysisOptions} from './options'
import {type AppResult, buildReport, type Outcome} from './report'
import {type Identity, lengthIdentity} from './build-identity'
import {cmp} from '../util/compare'

/**
 * The analysis, stage by stage. `push` events in non-decreasing time order: the detector reads
 * them once, per app (builds, sessions, page loads, failed requests kept compactly). `finish`
 * then confirms each app's builds, fuses the declared deploy records into rollouts and ties them to
 * their apps (or infers deploys from the builds), attributes every failure to its deploy and cause,
 * clusters incidents and makes the report.
 */
export class Analyzer {
  private readonly detector: Detector

  /**
   * `onFailure` receives every failed request of a person at `finish`, attributed; without it no
   * detail is kept. `census`: page requests counted rather than read (a live pull's), taken with
   * the requests read.
   */
  constructor(private readonly options: AnalysisOptions, private readonly onFailure?: (f: FailureRecord) => void, private readonly census?: PageCensus) {
    this.detector = new Detector(options, onFailure !== undefined, census)
  }

  push(e: AccessEvent): void {
    this.detector.push(e)
  }

  get first(): number | undefined {
    return this.detector.first
  }

  get last(): number | undefined {
    return this.detector.last
  }

  get duplicates(): number {
    return this.detector.duplicates
  }

  get duplicateExamples(): readonly DuplicateExample[] {
    return this.detector.duplicateExamples
  }

  /** Duplicates and app-limit requests by the file they were read from. */
  get setApartByFile(): ReadonlyMap<string, number> {
    return this.detector.setApartByFile
  }

  /** Requests of apps beyond options.maxApps apps analysed in full: counted apart. */
  get appLimit(): AppLimit {
    return this.detector.appLimit
  }

  /** Apps kept as counts only (no shell or asset request), and their requests. */
  get countedOnly(): {apps: number; requests: number} {
    return this.detector.countedOnly
  }

  /** Apps analysed in full. */
  get fullApps(): number {
    return this.detector.apps.size
  }

  finish(declared: readonly DeclaredDeploy[] = []): Outcome {
    this.detector.drain()
    const options = this.options
    const states = [...this.detector.apps.values()].sort((a, b) => cmp(a.name, b.name))
    const census = this.census
    if (census) for (const s of states) applyCensus(s, census)
    for (const s of states) s.builds.confirm()
    for (const s of states) takePending(s, options.horizonMs)
    const known = new Map(states.map((s) => [s, identify(s)]))
    const identities: AppIdentity[] = states.map((s) => ({name: s.name, source: s.source, builds: known.get(s)?.builds.length ?? 0}))
    const byApp = new Map<string, Rollout[]>()
    const unmatched: {rollout: Rollout; reason: string}[] = []
    for (const r of fuseRollouts(declared)) {
      const m = matchApp(r, identities, options.deployApps)
      if ('app' in m) byApp.set(m.app, [...(byApp.get(m.app) ?? []), r])
      else unmatched.push({rollout: r, reason: m.reason})
    }
    const apps: AppResult[] = states.map((state) => {
      const identity = known.get(state) as Identity
      const appBuilds = identity.builds
      const rollouts = byApp.get(state.name) ?? []
      const deploys: ResolvedDeploy[] = rollouts.length > 0
        ? rollouts.map((r, i) => resolveRollout(r, state.name, appBuilds, rollouts[i + 1]?.start ?? Number.POSITIVE_INFINITY, options.deployMarginMs))
        : inferDeploys(state.name, appBuilds)
      deploys.sort((a, b) => a.start - b.start)
      const attribution = attributeApp(state, identity, deploys, options)
      return {state, builds: appBuilds, deploys, attribution, incidents: clusterIncidents(state.name, attribution.failures, options.incidentGapMs), evidence: identity.toldBy()}
    })
    const countedNonUsers = {crawlers: this.detector.countedCrawlers, probe: this.detector.countedProbe}
    return buildReport({apps, unmatched, traffic: this.detector.traffic, countedNonUsers, options, ...(this.onFailure ? {onFailure: this.onFailure} : {})})
  }

  /** After finish: windows whose page loads could only be counted by the bucket (see PageLoadTimeline). */
  get inexactWindows(): number {
    let n = 0
    for (const s of this.detector.apps.values()) n += s.timeline.inexact
    return n
  }
}

/**
 * Which build each page load, pod and failed request is of (build-identity.ts): from what the
 * builds serve when the logs show the assets pages ask for, else from shell lengths alone. The
 * page loads of failures and their kept requests are told their builds here.
 */
function identify(app: AppState): Identity {
  const lengthBuilds = app.builds.confirm()
  const resolved = app.evidence.resolve(lengthBuilds)
  const identity = resolved ?? lengthIdentity(lengthBuilds, app.servedAssets)
  const store = app.failures
  const seen = new Set<PageLoad>()
  const at = (x: Build, t: number): boolean => servedAt(x, t, servingSlack(x, app.resolutionMs))
  for (let i = 0; i < store.size; i++) {
    const pl = store.pageLoads[i] as PageLoad
    if (!seen.has(pl)) {
      seen.add(pl)
      pl.build = identity.pageBuild(pl)
    }
    // An asset of a page's own build refused by a pod the logs do not place: another build answered.
    const time = store.times[i] as number
    const matched = store.serving[i]
    if (resolved && pl.build && app.servedAssets.has(store.paths[i] as string) && (store.reasons[i] !== 'fallback' || matched?.number !== undefined) &&
      identity.podBuildAt(store.pods[i], time) === undefined && (matched === undefined || identity.byLength(matched.shellBytes) === undefined)) {
      if (at(pl.build, time)) resolved.refused(pl.build, time, at)
    }
  }
  for (const pl of seen) {
    for (const r of pl.requests ?? []) {
      r.build = r === pl.requests?.[0] ? pl.build : identity.podBuildAt(r.pod, r.time) ?? (r.build ? identity.byLength(r.build.shellBytes) : undefined)
    }
  }
  return identity
}

/**
 * Responses kept as possible fallback bodies whose length turned out to be a build's shell, served
 * near that time: failures after all, and signs of that build being served.
 */
function takePending(app: AppState, horizonMs: number): void {
  for (const {entry, bytes, clientIp, userAgent, detail} of app.pending.kept()) {
    const b = app.builds.match(bytes)
    if (b?.number === undefined || entry.time < b.aheadFirst - horizonMs || entry.time > b.aheadLast + horizonMs) continue
    app.failures.push({...entry, serving: b}, detail)
    entry.pageLoad.path = detach(entry.pageLoad.path)
    if (!app.people.has(entry.session)) app.people.set(entry.session, {clientIp, userAgent})
    app.builds.served(b, entry.time)
  }
}
