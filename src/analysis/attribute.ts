import type {Direction, FailureCause} from '../model/report'
import type {AppState} from './apps'
import {type Build, servedAt as servedDuring, servedSpans, servingSlack} from './builds'
import type {ResolvedDeploy} from './deploys'
import type {AnalysisOptions} from './options'
import type {PageLoad} from './sessions'
import {directoryOf, looksHashed} from './request-kinds'
import type {Identity} from './build-identity'

/** A person's failed request once the windows are known: which deploy, why, in which direction. */
export interface Attributed {
  /** Index into the app's FailureStore. */
  index: number
  time: number
  cause: FailureCause
  deploy: ResolvedDeploy | undefined
  pageBuild: Build | undefined
  serving: Build | undefined
  direction: Direction
}

export interface AppAttribution {
  failures: Attributed[]
  /** Failed requests for asset paths no build ever served (scanners), and from how many clients. */
  scanners: {requests: number; clients: Set<string>}
  /** Orphans (no page load behind them) that are not scanners. */
  orphans: {requests: number; clients: Set<string>}
}

/**
 * Attributes every failure of one app, now that its builds and deploy windows are known.
 *
 * - A response of a shell's length whose length turned out not to be a build (a dynamic page) is no
 *   failure. A request for an asset path that no build ever served (and that does not look like a
 *   content-hashed file beside served ones), from a page that got no real asset at all, is a
 *   scanner's, not a person's.
 * - The cause is what the logs show of the page's build at that moment: still served (its shell,
 *   its length as a fallback body or its pods seen answering, within the gap the logs leave between
 *   such signs near its end) while another build was served too: `rollout`; no longer served, and
 *   replaced: `stale-client`; otherwise `unattributed`. A deploy's window decides only when the
 *   page's build is served and the logs show no other (a 404 with no pod logged): a deploy of that
 *   build under way then makes it the race. A window never makes a failure stale, nor a stale one the race.
 * - The deploy: for the race, the deploy between the two builds whose window (plus margin) holds
 *   the failure; for a stale tab, the deploy that retired the page's build.
 */
export function attributeApp(app: AppState, identity: Identity, deploys: readonly ResolvedDeploy[], options: AnalysisOptions): AppAttribution {
  const builds = identity.builds
  const store = app.failures
  const served = servedDirectories(app.servedAssets)
  const known = (path: string): boolean => app.servedAssets.has(path) || (looksHashed(path) && served.has(directoryOf(path)))
  const slack = new Map(builds.map((b) => [b, servingSlack(b, app.resolutionMs)]))
  const servedAt = (b: Build, t: number): boolean => servedDuring(b, t, slack.get(b) ?? 0)
  const isBuild = (b: Build | undefined): b is Build => b?.number !== undefined

  const result: AppAttribution = {failures: [], scanners: {requests: 0, clients: new Set()}, orphans: {requests: app.orphansBeyond, clients: new Set()}}
  for (const o of app.orphans) {
    const tally = known(o.path) ? result.orphans : result.scanners
    tally.requests++
    tally.clients.add(o.session)
  }
  for (let i = 0; i < store.size; i++) {
    const reason = store.reasons[i]
    // What the response matched (a shell length): a fallback body of a length that is no confirmed shell's (a dynamic page) is no failure.
    const matched = store.serving[i]
    if (reason === 'fallback' && !isBuild(matched)) continue
    const path = store.paths[i] as string
    // A path no build served, asked for by a page that got no real asset either: a scanner's probe
    // (a browser's page gets its other assets; its own missing file is a person's failure).
    if (!known(path) && (store.pageLoads[i] as PageLoad).realAssets === 0) {
      result.scanners.requests++
      result.scanners.clients.add(store.sessions[i] as string)
      continue
    }
    const time = store.times[i] as number
    // A page of unknown build (its shell revalidated, 304) is of the build its asset belongs to.
    const page = store.pageLoads[i]?.build ?? identity.owner(path) ?? undefined
    const pageBuild = isBuild(page) ? page : undefined
    // The build that answered: its pod's, else the build whose shell alone had the body's length.
    const answered = identity.podBuildAt(store.pods[i], time) ?? (matched ? identity.byLength(matched.shellBytes) : undefined)
    let serving = isBuild(answered) ? answered : undefined
    // A 404 or HTML of unknown origin: the one other build being served then answered it; for a
    // page whose build is no longer served, the build that replaced it (the one served last by then).
    // Several served then (two deploys back to back): which one is unknown, but when all are newer
    // (or all older) than the page's, so is the answer's direction.
    let direction: Direction | undefined
    if (!serving && pageBuild) {
      const others = builds.filter((b) => b !== pageBuild && servedAt(b, time))
      if (others.length > 1) direction = sameDirection(pageBuild, others)
      // Of several, the one the logs show served at that very time, not only within its slack.
      const sure = others.length > 1 ? others.filter((b) => servedDuring(b, time, 0)) : others
      if (sure.length === 1) serving = sure[0]
      else if (others.length === 0 && !servedAt(pageBuild, time)) {
        serving = builds.filter((b) => b !== pageBuild && b.firstServed <= time && b.lastServed > pageBuild.lastServed).sort((a, b) => b.firstServed - a.firstServed)[0]
      }
    }
    const cause = causeOf(time, pageBuild, serving, builds, servedAt, deploys, options.deployMarginMs)
    const deploy = cause === 'rollout' ? rolloutDeploy(time, pageBuild, serving, deploys, options.deployMarginMs)
      : cause === 'stale-client' ? retiringDeploy(time, pageBuild, deploys) : undefined
    result.failures.push({
      index: i, time, cause, pageBuild, serving, deploy,
      direction: deployDirection(deploy, pageBuild, serving) ?? (serving ? directionOf(pageBuild, serving) : direction ?? directionOf(pageBuild, serving)),
    })
  }
  // Failures found at the end (pending fallbacks) came after the others: back in time order.
  result.failures.sort((a, b) => a.time - b.time || a.index - b.index)
  return result
}

function causeOf(
  time: number, page: Build | undefined, serving: Build | undefined, builds: readonly Build[],
  servedAt: (b: Build, t: number) => boolean, deploys: readonly ResolvedDeploy[], marginMs: number,
): FailureCause {
  if (!page) {
    // The page's build is unknown (a revalidated shell): only a deploy window can tell.
    return deploys.some((d) => time >= d.start - marginMs && time <= d.end + marginMs) ? 'rollout' : 'unattributed'
  }
  if (servedAt(page, time) || time < page.firstServed) {
    const mixed = (serving !== undefined && serving !== page) || builds.some((b) => b !== page && servedAt(b, time))
    if (mixed) return 'rollout'
    // No sign of another build, but a deploy of this build was under way (a 404 from an old pod the
    // logs name no pods of, its last shell logged a little earlier): the race, by the deploy's window.
    return deploys.some((d) => (d.from === page || d.to === page) && time >= d.start - marginMs && time <= d.end + marginMs) ? 'rollout' : 'unattributed'
  }
  // No longer served: a stale tab, when a later build took its place (the build served last, or,
  // between a build's stretches, one served after the stretch the tab's page came from).
  const ended = servedSpans(page).filter((s) => s.first <= time).reduce((x, s) => Math.max(x, s.last), Number.NEGATIVE_INFINITY)
  return builds.some((b) => b !== page && b.lastServed > ended) ? 'stale-client' : 'unattributed'
}

const between = (d: ResolvedDeploy, a: Build | undefined, b: Build | undefined): boolean =>
  (a === undefined || d.from === a || d.to === a) && (b === undefined || d.from === b || d.to === b)

/** The deploy of a race failure: between its two builds, nearest in time (its window holding it if any does). */
function rolloutDeploy(time: number, page: Build | undefined, serving: Build | undefined, deploys: readonly ResolvedDeploy[], marginMs: number): ResolvedDeploy | undefined {
  const away = (d: ResolvedDeploy): number => Math.max(0, d.start - time, time - d.end)
  const rank = (d: ResolvedDeploy): number => (between(d, page, serving) ? 0 : between(d, page, undefined) ? 1 : 2)
  const inWindow = deploys.filter((d) => away(d) <= marginMs)
  const pick = (list: readonly ResolvedDeploy[]): ResolvedDeploy | undefined => [...list].sort((a, b) => rank(a) - rank(b) || away(a) - away(b) || a.start - b.start)[0]
  if (inWindow.length > 0) return pick(inWindow)
  return pick(deploys.filter((d) => rank(d) < 2))
}

/** The deploy that retired a build: the last one from it that started before the failure, else the last one before it. */
function retiringDeploy(time: number, page: Build | undefined, deploys: readonly ResolvedDeploy[]): ResolvedDeploy | undefined {
  const before = deploys.filter((d) => d.start <= time)
  return before.filter((d) => d.from === page).at(-1) ?? before.filter((d) => d.to !== page).at(-1)
}

/**
 * The direction relative to the failure's deploy: its old build's page on its new build's pod is
 * forward skew, the reverse backward (a rollback's new build is the one rolled back to, built first).
 */
function deployDirection(d: ResolvedDeploy | undefined, page: Build | undefined, serving: Build | undefined): Direction | undefined {
  if (!d || !page || !serving || !d.from || !d.to) return undefined
  if (d.from === page && d.to === serving) return 'oldPageNewPod'
  if (d.to === page && d.from === serving) return 'newPageOldPod'
  return undefined
}

export function directionOf(page: Build | undefined, serving: Build | undefined): Direction {
  if (!page || !serving || page === serving || page.number === undefined || serving.number === undefined) return 'unknown'
  return page.number < serving.number ? 'oldPageNewPod' : 'newPageOldPod'
}

/** The direction of a page's failure when any of `answering` may have answered: one when they all agree. */
function sameDirection(page: Build, answering: readonly Build[]): Direction | undefined {
  const ways = new Set(answering.map((b) => directionOf(page, b)))
  return ways.size === 1 ? [...ways][0] : undefined
}

function servedDirectories(paths: ReadonlyMap<string, unknown>): Set<string> {
  const dirs = new Set<string>()
  for (const p of paths.keys()) dirs.add(directoryOf(p))
  return dirs
}
