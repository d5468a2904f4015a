import type {AnalysisReport, FailureRecord, RumFindings, RumJoin, RumPageLoad, RumReport} from '../model/report'
import type {RumEvent} from '../model/rum'
import {lowerBound} from './builds'
import {type BrowserFailure, browserFailureOf, urlInError} from './rum-errors'
import {urlPath} from '../util/url-path'

/**
 * The browser's own word beside the log's: RUM views (page loads as the browser saw them) joined
 * to the log's page loads that had failures, by the client address and the asset URLs both saw,
 * near in time. A view whose initial load threw a crash error and that joins a crashed page load
 * of the log confirms it; a browser failure no log failure explains is counted apart. Pure: the
 * events and the log's failures come in, the report goes out with its `rum` sections.
 */
export interface RumInput {
  /** The RUM events, in time order. */
  events: readonly RumEvent[]
  /** What was read (files, records, skipped ones). */
  input: RumReport['input']
  /**
   * Page loads (initial-load views) counted rather than read, by time bucket (a live pull counts
   * them on Datadog's side and reads only the views that matter): coverage is counted from these
   * instead of the views read. In time order; a bucket counts where it starts.
   */
  initialLoads?: readonly {start: number; count: number}[]
}

export interface RumJoinOptions {
  /** Failures this close to a deploy window belong to its deploy (the analysis's deploy margin). */
  deployMarginMs: number
  /** A view and a page load of the log further apart in time than this are never the same (browser and server clocks differ). */
  joinWindowMs?: number
}

/** Browser clocks are corrected by RUM's intake to within seconds; a minute leaves room and still keeps one tab's page loads apart by their assets. */
const JOIN_WINDOW_MS = 60_000
/** Page loads of the log a view may join: the nearest in time that share its address or an asset (NAT: many clients behind one address). */
const MAX_CANDIDATES = 64
/** Page loads looked at for one view, nearest first, at most. */
const MAX_SCAN = 4096
const MAX_EXAMPLES = 10
/** How near in time a lazy load's error without a URL and the failed script it is about are. */
const UNNAMED_LAZY_MS = 5000
/** The step the clocks' offset is found to (seconds-resolution logs are a second off at worst). */
const OFFSET_STEP_MS = 250
/** Offsets smaller than this are none. */
const OFFSET_MIN_MS = 2000
/** Offsets tried: the most voted. */
const OFFSET_TRIES = 24
/** Views asked for the offset at most (spread over the input). */
const OFFSET_VIEWS = 2000
/** How near a page load is to its view, once the clocks' offset is taken off (a second-resolution log, the page's own length). */
const OFFSET_FIT_MS = 1500

/** A RUM view with what the join and the counts need. */
export interface View {
  id: string
  session: string
  time: number
  /** An initial load (a page load), not a route the SPA opened itself. */
  initial: boolean
  clientIp?: string
  userAgent?: string
  user?: string
  version?: string
  service?: string
  /** Paths of the assets it requested (resources) and that its errors name. */
  assets: Set<string>
  crash?: {message: string; path?: string; time: number}
  /** Its failed lazy loads by URL path (or by message when the error names no URL). */
  lazy: Map<string, {message: string; path?: string; time: number}>
  /** Scripts its resources say failed (status 400 and up), by path: a classic script's 404 throws no error. */
  failedScripts: Map<string, {status: number; time: number}>
  /** The page load of the log it was joined to, and how. */
  page?: LogPage
  join?: RumJoin
}

/** A page load of the log with failures. */
interface LogPage {
  time: number
  clientIp: string
  userAgent: string
  build: string | null
  /** Its first failure in the initial load of a script: the log says it crashed. */
  crash?: FailureRecord
  /** Its failed lazy loads (scripts after the initial load). */
  lazy: FailureRecord[]
  /** Every failed script request of it, whatever its phase. */
  scripts: FailureRecord[]
  first: FailureRecord
  /** Paths of every request of it that failed. */
  paths: Set<string>
  view?: View
}

/** The report with what RUM saw (`rum` sections), and the flagged requests each with the RUM view of its page load (`rum`), when RUM saw it. */
export function joinRum(report: AnalysisReport, failures: readonly FailureRecord[], rum: RumInput, options: RumJoinOptions): {report: AnalysisReport; failures: FailureRecord[]} {
  const views = viewsOf(rum.events)
  const byKey = pagesOf(failures)
  const pages = [...byKey.values()].sort((a, b) => a.time - b.time)
  const window = options.joinWindowMs ?? JOIN_WINDOW_MS
  // Views hurt join first, each to the page load that matches it best; then the page loads still
  // unjoined to any view that saw the asset that failed (RUM saw the page load but no error).
  const hurtAll = views.filter(isHurt)
  const offset = clockOffset(hurtAll, pages, window)
  // A RUM export longer than the logs: views hurt beyond the logs' span (and the join window) have
  // no log to be explained by; counted apart, not as unexplained.
  const first = report.input.first === null ? -Infinity : Date.parse(report.input.first) - window
  const last = report.input.last === null ? Infinity : Date.parse(report.input.last) + window
  const hurt = hurtAll.filter((v) => v.time + offset >= first && v.time + offset <= last)
  const outsideLogs = hurtAll.length - hurt.length
  join(hurt, pages, window, false, offset)
  join(views.filter((v) => !isHurt(v)), pages.filter((p) => p.view === undefined), window, true, offset)

  // Each browser failure, with the scope it belongs to: the log failure that explains it, else the deploy of its time.
  const found: Found[] = []
  for (const v of hurt) {
    const p = v.page
    if (v.crash) {
      // Confirmed by a script of the page load that failed in the log, in its initial load or (a
      // log that times the load as slower than the lazy gap) later: the browser says which it was.
      const script = p?.crash ?? p?.lazy[0]
      const cause = script ?? p?.first
      found.push({view: v, kind: 'crash', time: v.crash.time, explained: p !== undefined, confirmed: script !== undefined, deployId: cause?.deployId ?? deployAt(report, v.time + offset, options), incidentId: cause?.incidentId ?? null, message: v.crash.message, path: v.crash.path})
    }
    for (const l of v.lazy.values()) {
      // The log's failure of that script, whatever phase the log's timing gave it (the browser
      // knows it was an import()); an error that names no URL, any lazy failure of the page.
      const f = p === undefined ? undefined : l.path === undefined ? p.lazy[0] : p.scripts.find((x) => x.path === l.path)
      found.push({view: v, kind: 'lazy', time: l.time, explained: f !== undefined, confirmed: false, deployId: f?.deployId ?? deployAt(report, l.time + offset, options), incidentId: f?.incidentId ?? null, message: l.message, path: l.path})
    }
  }
  // Crashed page loads of the log that a view without a crash saw.
  const unconfirmed = pages.filter((p) => p.crash !== undefined && p.view !== undefined && p.view.crash === undefined)

  const loads = rum.initialLoads ?? views.filter((v) => v.initial).map((v) => ({start: v.time, count: 1}))
  // In the log's clock, as the spans they are counted in.
  const loadTimes = loads.map((b) => b.start + offset)
  const loadsBefore = [0]
  for (const b of loads) loadsBefore.push((loadsBefore[loadsBefore.length - 1] as number) + b.count)
  const loadsBetween = (start: number, end: number): number => (Number.isFinite(start) && Number.isFinite(end) ?
    (loadsBefore[lowerBound(loadTimes, end + 1)] as number) - (loadsBefore[lowerBound(loadTimes, start)] as number) : 0)
  const coverage = (start: number, end: number, pageLoads: number): number | null =>
    pageLoads === 0 ? null : Math.min(1, round3(loadsBetween(start, end) / pageLoads))
  const ms = (iso: string | null): number => (iso === null ? Number.NaN : Date.parse(iso))

  const foundBy = {deploy: groupBy(found, (f) => f.deployId), incident: groupBy(found, (f) => f.incidentId)}
  const unconfirmedBy = {deploy: groupBy(unconfirmed, (p) => p.crash?.deployId ?? null), incident: groupBy(unconfirmed, (p) => p.crash?.incidentId ?? null)}
  const deploys = report.deploys.map((d) => ({
    ...d,
    rum: findings(foundBy.deploy.get(d.id) ?? [], unconfirmedBy.deploy.get(d.id)?.length ?? 0,
      coverage(ms(d.start) - options.deployMarginMs, ms(d.end) + options.deployMarginMs, d.pageLoads)),
  }))
  const incidents = report.incidents.map((i) => ({
    ...i,
    rum: findings(foundBy.incident.get(i.id) ?? [], unconfirmedBy.incident.get(i.id)?.length ?? 0, coverage(ms(i.start), ms(i.end), i.pageLoads)),
  }))
  // A build's pages as RUM named them: the version most joined views of its page loads carried.
  const versionsByBuild = new Map<string, Map<string, number>>()
  for (const p of pages) {
    const version = p.view?.version
    if (p.build === null || version === undefined) continue
    const counts = versionsByBuild.get(p.build) ?? new Map<string, number>()
    versionsByBuild.set(p.build, counts.set(version, (counts.get(version) ?? 0) + 1))
  }
  const builds = report.builds.map((b) => {
    const counts = versionsByBuild.get(b.id)
    const top = counts === undefined ? undefined : [...counts].sort((x, y) => y[1] - x[1] || cmp(x[0], y[0]))[0]
    return top === undefined ? b : {...b, rumVersion: top[0]}
  })
  const joins = {addressAndAsset: 0, asset: 0, address: 0, none: 0}
  for (const v of hurt) {
    if (v.join === 'address+asset') joins.addressAndAsset++
    else if (v.join === 'asset') joins.asset++
    else if (v.join === 'address') joins.address++
    else joins.none++
  }
  const unexplained = found.filter((f) => !f.explained)
  const top: RumReport = {
    ...findings(found, unconfirmed.length, coverage(ms(report.input.first), ms(report.input.last), report.totals.pageLoads)),
    input: rum.input,
    ...(outsideLogs > 0 ? {outsideLogs} : {}),
    joins,
    unexplainedExamples: unexplained.slice(0, MAX_EXAMPLES).map((f) => ({
      time: new Date(f.time).toISOString(), session: f.view.session, view: f.view.id, message: f.message,
      ...(f.path === undefined ? {} : {url: f.path}), ...(f.view.user === undefined ? {} : {user: f.view.user}),
    })),
  }
  // What RUM saw of each page load of the log it joined, for its broken page load's detail and its flagged requests.
  const seen = new Map<string, RumPageLoad>()
  for (const [key, p] of byKey) if (p.view !== undefined) seen.set(key, pageLoadOf(p.view))
  const details = report.details === undefined ? undefined : {
    ...report.details,
    brokenPageLoads: report.details.brokenPageLoads.map((b) => {
      const view = seen.get(pageKey(b.app, b.id))
      return view === undefined ? b : {...b, rum: view}
    }),
  }
  const annotated = failures.map((f) => {
    const view = seen.get(pageKey(f.app, f.pageLoad.id))
    return view === undefined ? f : {...f, rum: view}
  })
  return {report: {...report, builds, deploys, incidents, rum: top, ...(details === undefined ? {} : {details})}, failures: annotated}
}

/** A browser failure: a view's crash or one of its failed lazy loads, with the scope it is counted in. */
export interface Found {
  view: View
  kind: BrowserFailure
  /** When the browser failed (the error's time, or the failed script's), in the browser's clock. */
  time: number
  /** A failure of the log explains it: its view joined a page load of the log with failures (a lazy load: that script's, or any lazy one when the error names no URL). */
  explained: boolean
  /** A crash joined to a crashed page load of the log. */
  confirmed: boolean
  deployId: string | null
  incidentId: string | null
  message: string
  path?: string
}

export function findings(found: readonly Found[], unconfirmed: number, coverage: number | null): RumFindings {
  const accounts = new Set<string>()
  const sessions = new Set<string>()
  const versions = new Map<string, {crashedPageLoads: number; lazyFailures: number}>()
  let crashed = 0
  let confirmed = 0
  let lazy = 0
  let unexplained = 0
  for (const f of found) {
    if (f.view.user !== undefined) accounts.add(f.view.user)
    sessions.add(f.view.session)
    const v = f.view.version ?? '(none)'
    const counts = versions.get(v) ?? {crashedPageLoads: 0, lazyFailures: 0}
    versions.set(v, counts)
    if (f.kind === 'crash') {
      crashed++
      counts.crashedPageLoads++
      if (f.confirmed) confirmed++
    } else {
      lazy++
      counts.lazyFailures++
    }
    if (!f.explained) unexplained++
  }
  return {
    crashedPageLoads: crashed, confirmed, lazyFailures: lazy, accounts: accounts.size, accountIds: [...accounts].sort(cmp), sessions: sessions.size,
    coverage, unexplained, unconfirmed,
    versions: [...versions].map(([version, c]) => ({version, ...c}))
      .sort((a, b) => b.crashedPageLoads + b.lazyFailures - (a.crashedPageLoads + a.lazyFailures) || cmp(a.version, b.version)),
  }
}

/** A view whose initial load crashed or whose lazy loads failed. */
const isHurt = (v: View): boolean => v.crash !== undefined || v.lazy.size > 0

/** Items by a key of theirs, in their order. */
function groupBy<T>(items: readonly T[], key: (item: T) => string | null): Map<string | null, T[]> {
  const out = new Map<string | null, T[]>()
  for (const x of items) {
    const k = key(x)
    const list = out.get(k)
    if (list) list.push(x)
    else out.set(k, [x])
  }
  return out
}

/** The views of the events, oldest first: each view's fields from its view event, else from the first event of it. */
export function viewsOf(events: readonly RumEvent[]): View[] {
  const views = new Map<string, View>()
  for (const e of events) {
    const key = `${e.session}\n${e.view}`
    let v = views.get(key)
    if (v === undefined) {
      v = {id: e.view, session: e.session, time: e.time, initial: e.kind === 'view' ? e.loadingType !== 'route_change' : true, assets: new Set(), lazy: new Map(), failedScripts: new Map()}
      views.set(key, v)
    }
    if (e.kind === 'view') {
      // The view event's own time is when the page began to load, whatever came first in the file.
      v.time = e.time
      v.initial = e.loadingType !== 'route_change'
    }
    v.clientIp ??= e.clientIp
    v.userAgent ??= e.userAgent
    v.user ??= e.user
    v.version ??= e.version
    v.service ??= e.service
    if (e.resource) {
      v.assets.add(e.resource.path)
      const status = e.resource.status
      if (status !== undefined && status >= 400 && isScript(e.resource.type, e.resource.path) && !v.failedScripts.has(e.resource.path)) v.failedScripts.set(e.resource.path, {status, time: e.time})
    }
    if (e.error) {
      const failure = browserFailureOf(e.error.message, e.error.type)
      if (failure === undefined) continue
      const url = e.error.url ?? urlInError(e.error.message)
      const path = e.error.path ?? (url === undefined ? undefined : urlPath(url))
      if (path !== undefined) v.assets.add(path)
      const seen = {message: e.error.message, ...(path === undefined ? {} : {path}), time: e.time}
      // A crash of an initial load; the same words later in a route the SPA opened are a failed lazy load.
      if (failure === 'crash' && v.initial) v.crash ??= seen
      else if (!v.lazy.has(path ?? e.error.message)) v.lazy.set(path ?? e.error.message, seen)
    }
  }
  // A script that failed with no error of a lazy load naming it crashed the page (the browser threw
  // nothing for it: a classic script's 404 is only a failed resource).
  for (const v of views.values()) {
    if (v.crash !== undefined || !v.initial) continue
    // A lazy load's error that names no URL (Safari's, Firefox's) claims the failed script next to it in time.
    const unnamed = [...v.lazy.values()].filter((l) => l.path === undefined).map((l) => l.time)
    for (const [path, f] of v.failedScripts) {
      if (v.lazy.has(path) || unnamed.some((t) => Math.abs(t - f.time) <= UNNAMED_LAZY_MS)) continue
      v.crash = {message: `script ${path} answered ${f.status}`, path, time: f.time}
      break
    }
  }
  // A route the SPA opened itself (a route_change view) is no page load: its failed lazy loads and
  // the assets it asked for are those of the page load it happened in, the session's latest initial
  // view before it (the log has them on that page load, which may be minutes older than the route).
  const out: View[] = []
  const page = new Map<string, View>()
  for (const v of [...views.values()].sort((a, b) => a.time - b.time || cmp(a.id, b.id))) {
    const within = v.initial ? undefined : page.get(v.session)
    if (within === undefined) {
      if (v.initial) page.set(v.session, v)
      out.push(v)
      continue
    }
    for (const a of v.assets) within.assets.add(a)
    for (const [k, l] of v.lazy) if (!within.lazy.has(k)) within.lazy.set(k, l)
  }
  return out
}

/** A resource that is a script: RUM's `js` type, else (no type given) a script's extension. */
function isScript(type: string | undefined, path: string): boolean {
  return type !== undefined ? type === 'js' : /\.[cm]?js$/i.test(path)
}

/** The log's page loads with failures, by app and page load. */
function pagesOf(failures: readonly FailureRecord[]): Map<string, LogPage> {
  const pages = new Map<string, LogPage>()
  for (const f of failures) {
    const key = pageKey(f.app, f.pageLoad.id)
    let p = pages.get(key)
    if (p === undefined) {
      p = {time: Date.parse(f.pageLoad.time), clientIp: f.clientIp, userAgent: f.userAgent, build: f.pageLoad.build, lazy: [], scripts: [], first: f, paths: new Set()}
      pages.set(key, p)
    }
    p.paths.add(f.path)
    if (f.asset !== 'script') continue
    p.scripts.push(f)
    if (f.phase === 'initial') p.crash ??= f
    else p.lazy.push(f)
  }
  return pages
}

const pageKey = (app: string | null, id: number): string => `${app ?? ''}\n${id}`

/**
 * Joins views to page loads, the best pairs first: an address and an asset both saw, then an asset
 * alone, then the address alone (`strict`: address and asset both), the same user agent before
 * another, the nearest in time before a farther one. Each view and each page load joins once.
 */
function join(views: readonly View[], pages: readonly LogPage[], window: number, strict: boolean, offset: number): void {
  const pairs: {view: View; page: LogPage; how: RumJoin; score: number; dt: number}[] = []
  const times = pages.map((p) => p.time)
  for (const v of views) {
    const failed = [v.crash?.path, ...[...v.lazy.values()].map((l) => l.path), ...v.failedScripts.keys()].filter((p): p is string => p !== undefined)
    const at = v.time + offset
    for (const {page, how} of nearest(times, at, window, MAX_CANDIDATES, (k) => {
      const page = pages[k] as LogPage
      const how = relation(v, page)
      return how === undefined || (strict && how !== 'address+asset') ? undefined : {page, how}
    })) {
      const dt = Math.abs(page.time - at)
      const address = how !== 'asset'
      const asset = how !== 'address'
      // The asset that failed in the browser failed in the log: the strongest sign of one page load.
      // A crash whose error names no URL (Unexpected token '<' has none): a script of the view the log saw fail.
      const same = failed.some((p) => page.paths.has(p)) || (v.crash !== undefined && v.crash.path === undefined && page.scripts.some((f) => v.assets.has(f.path)))
      pairs.push({view: v, page, how, score: (same ? 8 : 0) + (address ? 2 : 0) + (asset ? 4 : 0) + (v.userAgent !== undefined && v.userAgent === page.userAgent ? 1 : 0), dt})
    }
  }
  pairs.sort((a, b) => b.score - a.score || a.dt - b.dt || a.view.time - b.view.time)
  for (const {view, page, how} of pairs) {
    if (view.page !== undefined || page.view !== undefined) continue
    view.page = page
    view.join = how
    page.view = view
  }
}

/**
 * How far the log's clock is ahead of the browsers' (RUM's times are the browsers', corrected only
 * so far). Every page load of the log within the join window that shares a view's address or an
 * asset votes for its offset (to OFFSET_STEP_MS; its own page load's vote lands on the true offset
 * for every view, the others' spread over the window); of the OFFSET_TRIES most voted, the offset
 * under which the most views find a page load of their own within OFFSET_FIT_MS wins. 0 when none
 * does or it is under OFFSET_MIN_MS. At most OFFSET_VIEWS views, spread over the input, are asked.
 * Without client addresses, the nearest page load in time is then the right one even when the
 * clocks differ by seconds, and when every failure was of one asset.
 */
function clockOffset(views: readonly View[], pages: readonly LogPage[], window: number): number {
  const times = pages.map((p) => p.time)
  const step = Math.max(1, Math.ceil(views.length / OFFSET_VIEWS))
  const asked = views.filter((_v, i) => i % step === 0)
  const kin = (v: View, k: number): number | undefined => (relation(v, pages[k] as LogPage) === undefined ? undefined : k)
  const votes = new Map<number, number>()
  for (const v of asked) {
    for (const k of nearest(times, v.time, window, MAX_SCAN, (k) => kin(v, k))) {
      const bin = Math.round(((times[k] as number) - v.time) / OFFSET_STEP_MS)
      votes.set(bin, (votes.get(bin) ?? 0) + 1)
    }
  }
  let best = 0
  let most = 0
  let spread = Infinity
  for (const [bin] of [...votes].sort((a, b) => b[1] - a[1] || Math.abs(a[0]) - Math.abs(b[0])).slice(0, OFFSET_TRIES)) {
    const offset = bin * OFFSET_STEP_MS
    // Each view takes the nearest page load of its kin still free under this offset; the offsets of
    // those pairs, their median, is the offset this bin stands for (a bin is a step wide).
    const taken = new Set<number>()
    const dts: number[] = []
    for (const v of asked) {
      const k = nearest(times, v.time + offset, OFFSET_FIT_MS, MAX_CANDIDATES, (k) => (taken.has(k) ? undefined : kin(v, k)))[0]
      if (k === undefined) continue
      taken.add(k)
      dts.push((times[k] as number) - v.time)
    }
    if (dts.length === 0) continue
    const median = (dts.sort((a, b) => a - b)[dts.length >> 1]) as number
    const off = dts.reduce((n, dt) => n + Math.abs(dt - median), 0)
    if (dts.length > most || (dts.length === most && off < spread)) [best, most, spread] = [median, dts.length, off]
  }
  // Within a couple of seconds the clocks agree as far as can be told: a second-resolution log, a
  // page load's own length (the view starts when the shell is asked for, the log writes when it is sent).
  return Math.abs(best) < OFFSET_MIN_MS ? 0 : best
}

/**
 * What `pick` makes of the pages within `window` of `at` (undefined: the page is passed over),
 * nearest in time first: at most `most`, looking at MAX_SCAN pages at most (a busy incident has
 * thousands of failed page loads a minute).
 */
function nearest<T>(times: readonly number[], at: number, window: number, most: number, pick: (k: number) => T | undefined): T[] {
  const out: T[] = []
  let hi = lowerBound(times, at)
  let lo = hi - 1
  for (let scanned = 0; out.length < most && scanned < MAX_SCAN; scanned++) {
    const up = hi < times.length && (times[hi] as number) - at <= window ? (times[hi] as number) - at : Infinity
    const down = lo >= 0 && at - (times[lo] as number) <= window ? at - (times[lo] as number) : Infinity
    if (up === Infinity && down === Infinity) break
    const picked = pick(up <= down ? hi++ : lo--)
    if (picked !== undefined) out.push(picked)
  }
  return out
}

/** How a view and a page load of the log are related: by the client address and an asset both saw, by one of them, or (undefined) not at all. */
function relation(v: View, page: LogPage): RumJoin | undefined {
  const address = v.clientIp !== undefined && v.clientIp === page.clientIp
  const asset = shares(page.paths, v.assets)
  return address && asset ? 'address+asset' : asset ? 'asset' : address ? 'address' : undefined
}

/** Whether two sets of paths share one. */
function shares(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a]
  for (const p of small) if (large.has(p)) return true
  return false
}

function pageLoadOf(v: View): RumPageLoad {
  const error = v.crash?.message ?? [...v.lazy.values()][0]?.message
  return {
    session: v.session, view: v.id, join: v.join as RumJoin, crashed: v.crash !== undefined,
    ...(error === undefined ? {} : {error}), ...(v.user === undefined ? {} : {user: v.user}), ...(v.version === undefined ? {} : {version: v.version}),
  }
}

/** The deploy whose window (with the margin) holds a time, the nearest start when several do; null when none. */
function deployAt(report: AnalysisReport, time: number, options: RumJoinOptions): string | null {
  let best: {id: string; d: number} | undefined
  for (const d of report.deploys) {
    const start = Date.parse(d.start)
    if (time < start - options.deployMarginMs || time > Date.parse(d.end) + options.deployMarginMs) continue
    const dist = Math.abs(time - start)
    if (best === undefined || dist < best.d) best = {id: d.id, d: dist}
  }
  return best?.id ?? null
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
