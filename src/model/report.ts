/**
 * The analysis result: the `--json` contract (schemas/analyze.schema.json). Times are ISO-8601 UTC
 * with milliseconds. Bump SCHEMA_VERSION on any incompatible change.
 */
export const SCHEMA_VERSION = 3

/**
 * rollout: the page's build was still being served when it failed (mixed versions behind the
 * ingress). stale-client: no pod served the page's build any more (an old tab). unattributed: neither
 * can be told (no build known, or no other build served).
 */
export type FailureCause = 'rollout' | 'stale-client' | 'unattributed'
export type Direction = 'oldPageNewPod' | 'newPageOldPod' | 'unknown'
export type FailureReason = 'fallback' | 'missing' | 'contentType'
/**
 * crashed: a script or module failed while the page loaded. lazyChunkFailed: a script failed after
 * the initial load (the route the user opened broke). unstyled: only stylesheets failed. degraded:
 * only other assets (images, fonts). A page load counts once, by the first of these that applies.
 */
export type PageLoadOutcome = 'crashed' | 'lazyChunkFailed' | 'unstyled' | 'degraded'
/** What the failed asset was, by its path. */
export type AssetKind = 'script' | 'stylesheet' | 'other'
/** Whether a request came in the page's initial load or later (a lazy import). */
export type LoadPhase = 'initial' | 'lazy'

export interface SkippedLocation {
  reason: string
  file: string
  line: number
  detail?: string
}

export interface InputSummary {
  records: number
  used: number
  /**
   * Records not used, by reason. `notAccess`: those of them that were no request at all (an error
   * log line, a controller notice: reason `not-access-line`), never counted as skipped traffic
   * (`--fail-on skipped`); set by every run that reads inputs.
   */
  skipped: {total: number; byReason: Record<string, number>; examples: SkippedLocation[]; notAccess?: number}
  first: string | null
  last: string | null
  /**
   * Per input: `skipped` counts every record of it the run did not use, the lines it could not read
   * and the records set apart after reading (`setApart`: duplicates, time outliers, app-limit
   * requests, present when there are any), so the sources' skipped records add up to `skipped.total`.
   */
  sources: {file: string; format: string; records: number; skipped: number; setApart?: number}[]
  /** Present when events were pulled live from Datadog. */
  datadog?: DatadogInputSummary
}

/** What a live Datadog pull read and what it cost (`input.datadog`). */
export interface DatadogInputSummary {
  /** The user's query; the queries sent add only the request kinds the analysis reads. */
  query: string
  from: string
  to: string
  site: string
  /** windows: pages in full, assets only around candidate failures; narrowed: the narrowed query in full; all: the query as given. */
  pull: 'windows' | 'narrowed' | 'all'
  narrowing: {
    /** Whether the aggregate API planned the pull (windows), fell back to the narrowed pull, or was not asked. */
    aggregate: 'used' | 'fell-back' | 'not-asked'
    reason?: string
    /** Shell lengths (fingerprints) learned from the aggregate counts. */
    shellLengths: number[]
    /**
     * The pods whose first and last few responses were pulled in full (any response of a pod shows
     * its build served), by the facet that names them; facet null, with the reason, when none could be.
     */
    pods?: {facet: string | null; count: number; reason?: string}
    /**
     * Page requests counted on Datadog's side (per app, bucket, length and user agent) rather than
     * read: page requests are read only in `bucketsRead` buckets (around failures, builds' and pods'
     * first and last responses, deploys). Unused, with the reason, when they could not be counted exactly.
     */
    pageCounts?: {used: boolean; reason?: string; bucketSeconds?: number; bucketsRead?: number; pageLoadsCounted?: number}
    /**
     * The people whose requests looked like failures, by client address: their own page and asset
     * requests were read over `windowSeconds` (a window back from each failure), everyone else's
     * asset requests only in the asset windows around the failures themselves.
     */
    clients?: {count: number; windowSeconds: number}
  }
  /** Events of the range matching the user's query, by the aggregate count; null when it could not be counted. */
  held: number | null
  /** Events received, after dropping copies. */
  pulled: number
  duplicates: number
  requests: {total: number; search: number; aggregate: number; events: number; retries: number}
  slices: number
  /** The time pulled: the whole range, or the windows around candidate failures (at most 100 listed). */
  windows: {count: number; pulledSeconds: number; rangeSeconds: number; list: {start: string; end: string}[]}
  deployEvents?: {api: 'v2' | 'v1'; events: number; deploys: number; fallbackReason?: string}
  /** With `--spool`: the events an earlier, interrupted run had pulled, read back from the spool (not counted in `pulled`). */
  resumed?: {events: number}
}

/** One app: the site one set of pods serves (an ingress upstream, a virtual host, a service). */
export interface AppReport {
  /** The upstream name, host or service; null when the logs name none (one unnamed app). */
  name: string | null
  /** What named it: `upstream` (proxy_upstream_name), `host`, `service`, `key` (--app-key), or `none`. */
  source: 'upstream' | 'host' | 'service' | 'key' | 'none'
  requests: number
  pageLoads: number
  builds: number
  deploys: number
  /**
   * The shell's length varies per request (a dynamic homepage): most shell responses are of lengths
   * seen once, so they are not builds; failures are then found by 404s, content type and the
   * lengths that do recur.
   */
  shellLengthVaries: boolean
  affectedUsers: number
  brokenPageLoads: number
  /** What the logs told its builds by, and so what can be known of them (see BuildEvidenceReport). */
  buildEvidence: BuildEvidenceReport
}

/**
 * What told an app's builds apart. `assets`: the content-hashed assets its pages load (else builds
 * are shell lengths). `pods`: the logs name the pod that answered, so which build answered each
 * failure is known; without, it is the build served beside the page's at that time. `versions`: a
 * version tag on the logs. `shellLengths`: every build's shell has a length of its own (else a
 * fallback body's length says it is a shell, not whose).
 */
export interface BuildEvidenceReport {
  assets: boolean
  pods: boolean
  versions: boolean
  shellLengths: boolean
}

export interface BuildReport {
  /** `B1`, `B2`, …: numbered per app in the order it was first served; a build that comes back (a rollback) keeps its number. */
  id: string
  app: string | null
  /** What names it: `assets` (the hashed assets its pages load and its pods serve) or `shell-length` (logs that show no such asset). */
  knownBy: 'assets' | 'shell-length'
  /** Its entry bundle: the first of its own assets (scripts before stylesheets); null when known by its shell length. */
  entry: string | null
  /** The length most of its shells had (0 when none recurs); the same for every build of most real apps. */
  shellBytes: number
  /** Every length its shells had (per encoding, per header block). */
  shellLengths: number[]
  firstSeen: string
  lastSeen: string
  /** When the logs first and last showed this build answering (its pods, its pages, its shell's length as a fallback body where that length is its alone). */
  firstServed: string
  lastServed: string
  shellRequests: number
  /** Pods (upstream addresses) that served it, when the logs name them. */
  pods?: number
  /** Those pods' addresses, in order, at most 10 (with `pods` saying how many there were). */
  podAddresses?: string[]
  /** The version most of its responses carried, and every version they did. */
  version?: string
  versions: string[]
  /** The version RUM gave the pages of this build that it joined to the log's (`--rum`): the page's own word for its build. */
  rumVersion?: string
}

/** Where a deploy's window came from: deploy markers, the Deployment's Kubernetes events, a deploy file's rows, or the logs. */
export type DeploySource = 'marker' | 'kubernetes' | 'file' | 'inferred'

export interface DeployReport {
  /** `D1`, `D2`, … in time order over all apps. */
  id: string
  app: string | null
  /** Every kind of record fused into this rollout. */
  sources: DeploySource[]
  start: string
  end: string
  windowSeconds: number
  fromBuild: string | null
  toBuild: string | null
  service?: string
  version?: string
  description?: string
  incidentIds: string[]
  affectedUsers: number
  /** Page loads with any failure of this deploy, and per outcome. */
  affectedPageLoads: number
  byOutcome: Record<PageLoadOutcome, number>
  /** Page loads started inside the window (plus the deploy margin), plus its affected ones that started outside it. */
  pageLoads: number
  failedRequests: number
  byCause: Record<FailureCause, number>
  byDirection: Record<Direction, number>
  /** First and last failure of the rollout race (null when none): the window users were hurt in. */
  rolloutWindow: {start: string; end: string; seconds: number} | null
  /** What the browsers' RUM events said of this deploy (`--rum`). */
  rum?: RumFindings
}

/** A deploy record that matched no app's traffic: listed, never dropped. */
export interface UnmatchedDeployReport {
  sources: DeploySource[]
  start: string
  end: string
  service?: string
  version?: string
  description?: string
  reason: string
}

export interface IncidentReport {
  id: string
  app: string | null
  cause: FailureCause
  deployId: string | null
  start: string
  end: string
  windowSeconds: number
  affectedUsers: number
  affectedPageLoads: number
  /** Affected page loads by outcome (each page load once, by its worst outcome in this incident). */
  byOutcome: Record<PageLoadOutcome, number>
  /** Crashed page loads in the incident ("broken"). */
  brokenPageLoads: number
  pageLoads: number
  /** Crashed page loads over page loads. */
  brokenShare: number
  failedRequests: number
  byDirection: Record<Direction, number>
  byReason: Record<FailureReason, number>
  /** The paths, status codes and browsers (by user agent) that failed most in it, at most 5 of each. */
  top: TopFailures
  /** What the browsers' RUM events said of this incident (`--rum`). */
  rum?: RumFindings
}

/** Rows per top list: what a person reads at a glance; the failed requests themselves are all in --failures. */
export const TOP_FAILURES = 5

/** What failed most among some failed requests, the most first (ties by name): failed requests, and for browsers the users. */
export interface TopFailures {
  paths: {path: string; failedRequests: number}[]
  statuses: {status: number; failedRequests: number}[]
  /** The browser's family from the user agent (`Chrome`, `Firefox`, `Safari`, `Edge`, …; `Other`; `(none)`). */
  browsers: {browser: string; failedRequests: number; users: number}[]
}

export interface AffectedUserReport {
  app: string | null
  session: string
  clientIp: string
  userAgent: string
  firstFailure: string
  lastFailure: string
  /** Crashed page loads. */
  brokenPageLoads: number
  affectedPageLoads: number
  failedRequests: number
  incidentIds: string[]
}

/** Traffic that is not people: counted apart, never users or page loads. */
export interface NonUserReport {
  /** Crawlers and bots by user agent (the isbot list). */
  crawlers: NonUserCounts
  /** skewscan's own probe (user agent `skewscan-probe/…`). */
  probe: NonUserCounts
  /** Requests for asset paths that no build ever served as an asset (scanners probing `/static/js/main.js` and the like). */
  scanners: NonUserCounts
  /** Source maps (DevTools) answered with a shell or 404: they never break a page. */
  sourceMaps: {failedRequests: number}
}

export interface NonUserCounts {
  requests: number
  clients: number
  /** Asset requests answered with a shell, 404/410 or HTML. */
  failedRequests: number
}

/** Detail for the HTML report (`--format html`): the traffic timeline and the broken page loads' requests. */
export interface ReportDetails {
  bucketSeconds: number
  /** Per app, only the buckets with traffic in time order (sparse: never one per interval of the span). */
  timeline: {app: string | null; buckets: {start: string; requests: number; pageLoads: number; failures: number}[]}[]
  brokenPageLoads: {
    id: number
    app: string | null
    session: string
    clientIp: string
    userAgent: string
    time: string
    path: string
    build: string | null
    outcome: PageLoadOutcome
    incidentIds: string[]
    /** The shell first, then the page's requests in time order (at most 40); `pod`: the pod that answered, when logged. */
    requests: {time: string; path: string; status: number; bytes: number; build: string | null; reason: FailureReason | null; pod?: string}[]
 
    /** The RUM view joined to this page load (`--rum`): whether the browser crashed, with what, whose account and which version. */
    rum?: RumPageLoad
  }[]
}

export interface Totals {
  /** Page loads of people (crawlers, the probe and scanners' requests left out). */
  pageLoads: number
  /** Crashed page loads: a script or module failed while the page loaded. */
  brokenPageLoads: number
  /** Page loads with any failure, and per outcome. */
  affectedPageLoads: number
  byOutcome: Record<PageLoadOutcome, number>
  affectedUsers: number
  failedRequests: number
  byCause: Record<FailureCause, number>
}

/** The fixes the advice weighs (docs/analyze.md, "Which fix would have prevented it"). */
export type FixId = 'keep-old-assets' | 'version-pinning' | 'cookie-affinity' | 'not-found-for-missing-assets' | 'client-reload-on-chunk-error' | 'shorter-rollout'

/** Failed requests, and the page loads and users they hit. */
export interface Impact {
  failedRequests: number
  pageLoads: number
  users: number
}

/** What one fix would have done to one deploy's failures. */
export interface FixAdvice {
  fix: FixId
  /**
   * counted: failure by failure, from what each one was (direction, cause, reason). estimated: a
   * share of the rollout race (the 1/pods residual of affinity, a halved window). unknown: the logs
   * cannot tell (no pods logged).
   */
  basis: 'counted' | 'estimated' | 'unknown'
  /** Failed requests that would not have happened, and the page loads and users left with no failure at all; null when unknown. */
  prevented: Impact | null
  /**
   * Page loads (and users) that would still get a failed request but could recover from it: the
   * load error a 404 gives a page can be caught, and one reload loads the current build. 0 for the
   * fixes that prevent failures instead; null when unknown.
   */
  recovered: {pageLoads: number; users: number} | null
  /** Already in place, by what the logs show (notes say why); unknown when they cannot tell. */
  inPlace: 'yes' | 'partly' | 'no' | 'unknown'
  /** The evidence and the limits, in one or two sentences. */
  note: string
}

/** Per deploy: which fix would have prevented which of its failures, the one that would have prevented the most first. */
export interface DeployAdvice {
  deployId: string
  app: string | null
  /** The deploy's failures the fixes are counted against: failed requests, page loads hit, users hit. */
  failures: Impact
  evidence: {
    byDirection: Record<Direction, number>
    byCause: Record<FailureCause, number>
    byReason: Record<FailureReason, number>
    byPhase: Record<LoadPhase, number>
    /** Forward-skew failures (old page, new pod) by cause: those of the race and those of stale tabs. */
    forwardByCause: Record<FailureCause, number>
    /** The oldest page (time since its shell loaded) among the stale tabs that failed: keep old assets at least this long. */
    oldestStalePageSeconds: number | null
    /** Pods seen serving the build replaced (the logs' upstreams); null when the logs name none. */
    pods: number | null
    windowSeconds: number
    /** First to last failure of the rollout race; null when it had none. */
    raceSeconds: number | null
    /**
     * Asset requests of people's page loads in the minutes of the deploy's failures (each failure's
     * minute and the next, pages loaded that minute or the one before) whose shell's pod and own pod
     * are logged, and the share the shell's pod answered: nearly all under cookie affinity, about
     * 1/pods under round-robin. null when the logs name no pods.
     */
    samePod: {assetRequests: number; share: number} | null
  }
  /** Every fix, the one that would have prevented the most first. */
  fixes: FixAdvice[]
  /** What the logs cannot tell here. */
  unknown: string[]
}

export interface AnalysisReport {
  schemaVersion: number
  input: InputSummary
  totals: Totals
  apps: AppReport[]
  builds: BuildReport[]
  deploys: DeployReport[]
  unmatchedDeploys: UnmatchedDeployReport[]
  incidents: IncidentReport[]
  affectedUsers: AffectedUserReport[]
  nonUser: NonUserReport
  /** Failed asset requests of people with no page load behind them (a tab older than the horizon, a missing log). */
  orphans: {requests: number; clients: number}
  /** Per deploy with failures: which fix would have prevented which of them (analysis/advice.ts). */
  advice: DeployAdvice[]
  /** The browsers' own word (`--rum`): RUM's crashes, lazy failures and accounts, joined to the log's failures. */
  rum?: RumReport
  details?: ReportDetails
}

/**
 * What RUM events said of some failures (a deploy's, an incident's, or all of them). A view is a
 * page load as the browser saw it; its errors are classified by their words (analysis/rum-errors).
 */
export interface RumFindings {
  /** Views whose initial load threw a script error of this kind (`Unexpected token '<'`, a module's MIME type). */
  crashedPageLoads: number
  /** Of those, the ones joined to a crashed page load of the log: crashes the browsers confirmed. */
  confirmed: number
  /** Lazy loads that failed (`Failed to fetch dynamically imported module`, `ChunkLoadError`, ...), each view's URL once. */
  lazyFailures: number
  /** Distinct signed-in accounts (`usr.id`) among the views hurt, and their ids (sorted). */
  accounts: number
  accountIds: string[]
  /** Distinct RUM sessions among the views hurt. */
  sessions: number
  /**
   * RUM's page loads (initial-load views) over the log's page loads of the same span (the whole
   * input, the deploy's window with its margin, the incident's window), at most 1: RUM samples
   * sessions. null when the log has no page loads there.
   */
  coverage: number | null
  /** Crashes and lazy failures of the browsers that no failure of the log explains (a CDN edge, a service worker, lines the log lost). */
  unexplained: number
  /** Crashed page loads of the log that RUM saw (joined to a view) without a crash: the browsers disagree. */
  unconfirmed: number
  /** The pages' versions (RUM's `version`) among the views hurt, the most hurt first. */
  versions: {version: string; crashedPageLoads: number; lazyFailures: number}[]
}

/** How a RUM view was joined to a page load of the log: client address and an asset URL both saw, the asset alone, the address alone. */
export type RumJoin = 'address+asset' | 'asset' | 'address'

/** A page load of the log as RUM saw it. */
export interface RumPageLoad {
  session: string
  view: string
  join: RumJoin
  /** The view threw an error of a crash. */
  crashed: boolean
  /** Its first error of this kind, as the browser worded it. */
  error?: string
  user?: string
  version?: string
}

/** The whole input's RUM findings, with what was read and how the views were joined to the log's page loads. */
export interface RumReport extends RumFindings {
  input: {
    files: {file: string; records: number; used: number; ignored: number; skipped: number}[]
    views: number
    resources: number
    errors: number
    skipped: {total: number; byReason: Record<string, number>; examples: SkippedLocation[]}
  }
  /**
   * How each view hurt (and each log page load RUM saw) was joined: by client address and an asset
   * URL both saw, by the asset URL alone (RUM kept no address), by the address alone (the view
   * named no asset the log saw fail); views hurt that joined none.
   */
  joins: {addressAndAsset: number; asset: number; address: number; none: number}
  /** Views hurt outside the logs' time span (beyond the join window): no log could explain them; not counted. */
  outsideLogs?: number
  /** The first browser failures no log failure explains (at most 10), to look into. */
  unexplainedExamples: {time: string; session: string; view: string; message: string; url?: string; user?: string}[]
  /**
   * RUM read without access logs (`analyze --rum FILE` alone): nothing is confirmed or unexplained,
   * and the deploys are RUM's own (`rum.deploys`): from the deploy records given, else from the
   * versions the pages carried.
   */
  withoutLogs?: true
  deploys?: RumDeployFindings[]
}

/** A deploy as RUM alone sees it, and its browsers' failures: those in its window, and the stale tabs of the version it retired. */
export interface RumDeployFindings extends RumFindings {
  id: string
  /** The RUM service (the app) it rolled out; null when the events name none. */
  service: string | null
  /** The deploy records it was fused from, or `inferred` (from the versions RUM saw change). */
  sources: DeploySource[]
  start: string
  end: string
  fromVersion: string | null
  toVersion: string | null
}

/** One flagged request of a person, as written by `--failures FILE` (one JSON object per line). */
export interface FailureRecord {
  time: string
  app: string | null
  cause: FailureCause
  deployId: string | null
  incidentId: string
  reason: FailureReason
  direction: Direction
  asset: AssetKind
  phase: LoadPhase
  method: string
  path: string
  status: number
  bytes: number
  session: string
  clientIp: string
  userAgent: string
  service: string | null
  pageLoad: {id: number; time: string; path: string; build: string | null}
  servingBuild: string | null
  upstream?: string
  requestId?: string
  source: {file: string; line: number}
  /** The RUM view of its page load (`--rum`, `--rum-query`), when RUM saw it. */
  rum?: RumPageLoad
}
