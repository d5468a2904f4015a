/** Types shared by the simulator, the truth and the format writers. */

export type Routing = 'round-robin' | 'cookie'
/** What a pod answers for a path it does not have: its shell (SPA fallback) or, for asset paths, a 404. */
export type MissingMode = 'fallback' | '404'
/** `s`: every written timestamp is floored to the second (what nginx logs); `ms`: formats that can carry milliseconds do. */
export type Resolution = 's' | 'ms'
/** Where a build's files live: `/_build/app.<hash>.js` (webpack-like) or `/assets/index-<Hash>.js` (Vite-like). */
export type AssetLayout = 'build' | 'vite'

export interface SurgeParams {
  /** Browser arrival rate multiplier around each deploy (1 = no surge). */
  factor: number
  /** The surge starts this many seconds before a deploy starts... */
  beforeSeconds: number
  /** ...and ends this many seconds after it ends. */
  afterSeconds: number
}

/** A further app behind the same ingress (its own Deployment, pods, host, upstream and builds). */
export interface OtherAppParams {
  /** Deployment and service name; the upstream is `default-<service>-80`. */
  service: string
  /** Public origin (its virtual host), used for referers and the logged host. */
  origin: string
  shellBytes: number[]
  /** Its first deploy, in seconds after `start`. */
  firstDeployAtSeconds: number
  deploys?: number
  every?: number
  browsersPerMinute?: number
  replicas?: number
  step?: number
  layout?: AssetLayout
}

export interface SimParams {
  seed: number
  /** Start of traffic, ISO-8601 UTC on a whole second. */
  start: string
  durationSeconds: number
  /** The main app: its Deployment and service name (upstream `default-<service>-80`). */
  service: string
  /** Public origin of the main app, used for referers and the logged host. */
  origin: string
  replicas: number
  /** Seconds between rollout steps. */
  step: number
  routing: Routing
  missing: MissingMode
  /** Number of rolling deploys (0 = none). */
  deploys: number
  /** The build each generation of pods serves, by index (default 0, 1, 2, …): `[0, 1, 0]` is a deploy and its rollback. */
  rollouts?: number[]
  /** When the first deploy starts, in seconds after `start`. */
  firstDeployAtSeconds: number
  /** Seconds between the starts of consecutive deploys. */
  every: number
  /**
   * Byte length of each build's shell (index.html), build A first; a missing build repeats the last
   * length, as real bundlers' builds do (content hashes of one length), so one value gives every
   * build the same length and distinct lengths are the option.
   */
  shellBytes: number[]
  /** `kubectl rollout restart` of the main app at these seconds after `start`: new pods (a new replica set) of the build served, rolled like a deploy. After every deploy. */
  restarts?: number[]
  /** An autoscaler scales the main app's serving replica set to `replicas` pods at once, `atSeconds` after `start`. After every deploy and restart. */
  scaleOuts?: {atSeconds: number; replicas: number}[]
  /**
   * The main app renders its shell per request (a nonce, inline state): every shell response has a
   * length of its own, tens of bytes from the last one, never one seen before. Builds then have no
   * fingerprint; use it with `missing: '404'` and `homeShare: 1`.
   */
  dynamicShell: boolean
  /** Share of page loads that open `/` (the rest open a route such as `/products/12`). */
  homeShare: number
  /** Mean browser arrivals per minute outside surges (main app). */
  browsersPerMinute: number
  surge: SurgeParams
  /** Share of the browsers whose tab outlives a deploy and lazy-loads a chunk afterwards. */
  staleShare: number
  /** Stale lazy loads happen at least this many seconds after the deploy ended. */
  staleMinAfterEndSeconds: number
  /** Probability that a page load later lazy-loads a route chunk (in the same session, seconds to minutes later). */
  lazyShare: number
  /** Probability that a page load calls the JSON API. */
  apiShare: number
  /** Probability that a page load fetches the build's web font (an asset that is neither script nor stylesheet). */
  fontShare: number
  /** Share of browsers with DevTools open: they fetch the bundles' source maps (`.map`, no referer), which the pods do not have. */
  devtoolsShare: number
  resolution: Resolution
  incidentGapSeconds: number
  deployMarginSeconds: number
  /** An uptime monitor checks `/` of every app this often, the first time within a second of the start (0 = none). */
  uptimeEverySeconds: number
  /** While a rollout runs, the deploy pipeline polls every app's `/` this often (`curl`, waiting for the new version), seconds (0 = none). */
  watchEverySeconds: number
  /** kube-probe /healthz period through the ingress, seconds (0 = none). */
  healthzEverySeconds: number
  /** A Googlebot that fetches current assets, and after each deploy re-fetches old ones. */
  crawler: boolean
  /** Googlebot also crawls `/` and routes this often, seconds (0 = never). */
  crawlerPagesEverySeconds: number
  /** Number of scanner bursts probing asset-looking paths (cycling through the scanners of the catalog). */
  scanners: number
  /** skewscan's own probe runs around each deploy of the main app: a barrage (the page, then its bundles) this often, seconds (0 = none). */
  probeEverySeconds: number
  /** Tabs opened before the logs begin that lazy-load a chunk of the first build after the first deploy: failures with no page load behind them. */
  preexistingTabs: number
  /** Share of requests logged with a retried upstream list (first attempt 502, then the answering pod). */
  retryShare: number
  /** Items per Datadog search page in dd-pages.json (at most 1000). */
  ddPageSize: number
  /** Further apps behind the same ingress. */
  otherApps: OtherAppParams[]
}

/** One app as the simulation runs it (the main app from the top-level params, others from `otherApps`). */
export interface AppConfig {
  index: number
  service: string
  namespace: string
  /** ingress-nginx `$proxy_upstream_name`: `<namespace>-<service>-<port>`. */
  upstreamName: string
  origin: string
  /** The virtual host (the origin's host name). */
  host: string
  replicas: number
  step: number
  deploys: number
  /** See SimParams.rollouts. */
  rollouts?: number[]
  /** See SimParams.restarts (main app only). */
  restarts?: number[]
  /** See SimParams.scaleOuts (main app only). */
  scaleOuts?: {atSeconds: number; replicas: number}[]
  firstDeployAtSeconds: number
  every: number
  shellBytes: number[]
  browsersPerMinute: number
  dynamicShell: boolean
  layout: AssetLayout
}

export type Actor = 'browser' | 'crawler' | 'monitor' | 'scanner' | 'probe' | 'skewscan'

/** What the answering pod sent. */
export type ResponseKind = 'shell' | 'asset' | 'not-found' | 'api' | 'favicon' | 'health'

/** What the client meant to fetch (truth-side; never written to logs). */
export type RequestRole =
  | 'page' // a document request of a browser (or of the skewscan probe): a shell
  | 'entry' // an entry bundle, stylesheet or font named by the page's shell
  | 'chunk' // a lazy route chunk named by the page's build
  | 'map' // a source map DevTools fetched for one of the page's bundles
  | 'api'
  | 'favicon'
  | 'healthz'
  | 'bot-page' // a crawler's or the uptime monitor's document request
  | 'bot-asset' // a bot's or scanner's asset request
  | 'bot-path' // a scanner's request for another path (`/wp-login.php`)

/** One simulated HTTP request with everything any writer needs. */
export interface SimRequest {
  /** 0-based position in time order. */
  seq: number
  /** Epoch ms as written in the logs (floored to the second when resolution is `s`). */
  time: number
  /** Epoch ms of the simulation (sub-second precision). */
  exactTime: number
  /** The app (its service name). */
  app: string
  /** The app's ingress upstream (`default-web-80`). */
  upstreamName: string
  /** The request's Host. */
  vhost: string
  actor: Actor
  role: RequestRole
  clientIp: string
  userAgent: string
  method: 'GET'
  path: string
  /** Query string without `?`, or '' */
  query: string
  /** Full referer URL, or '-' */
  referer: string
  status: number
  bytes: number
  /** Content type of the body (not in the default log formats; kept for reference). */
  contentType: string
  response: ResponseKind
  /** Pod that answered. */
  pod: string
  /** `ip:port` of the pod that answered. */
  upstream: string
  /** `ip:port` of a first upstream attempt that failed with 502 before `upstream` answered. */
  retriedFrom?: string
  /** Build key (A, B, C…, per app) of the pod that answered. */
  servingBuild: string
  /** Build key of the shell the page load got (browser and probe requests of a page). */
  pageBuild?: string
  requestLength: number
  /** $request_time in ms. */
  requestTimeMs: number
  /** $upstream_response_time of the answering upstream, in ms. */
  upstreamTimeMs: number
  /** 32 hex chars ($req_id). */
  requestId: string
  /** Datadog log event id. */
  eventId: string
  browserId?: number
  /** The browser's page load (simulator numbering); absent for a tab whose page load came before the logs. */
  pageLoadId?: number
}

export interface BuildAsset {
  path: string
  bytes: number
}

export interface Build {
  /** The app (service) it belongs to. */
  app: string
  key: string
  version: string
  replicaSet: string
  shellBytes: number
  /** The entry bundle (`app.<hash>.js`). */
  main: BuildAsset
  vendor: BuildAsset
  css: BuildAsset
  font: BuildAsset
  /** Lazy chunk per SPA route name. */
  chunks: Record<string, BuildAsset>
}

export interface Pod {
  app: string
  name: string
  ip: string
  port: number
  build: string
  /** Its replica set: the build's own, or a restart's new one. */
  replicaSet: string
  /** Epoch ms; -Infinity when it was already running when traffic started. */
  start: number
  /** Epoch ms; Infinity when it is still running at the end. */
  stop: number
}

export interface ScalingStep {
  time: number
  /** Lines such as `Scaled up replica set web-… to 1`, in the order Kubernetes emits them. */
  messages: string[]
}

/** What a restart or scale-out changed: the replica sets and the pods before and after. */
interface PodChangeKind {
  app: string
  kind: 'restart' | 'scale-out'
  fromReplicaSet: string
  toReplicaSet: string
  fromReplicas: number
  replicas: number
}

/** New pods of the build already served: a `kubectl rollout restart` (a new replica set, rolled step by step) or an autoscaler's scale-out (the serving replica set grows at once). No deploy. */
export interface PodChange extends PodChangeKind {
  /** Its build's key. */
  build: string
  start: number
  end: number
  steps: ScalingStep[]
}

export interface DeployPlan {
  app: string
  index: number
  fromBuild: string
  toBuild: string
  start: number
  end: number
  steps: ScalingStep[]
}

// ---------------------------------------------------------------- truth (the report contract, schemaVersion 3)

export type FailureReason = 'fallback' | 'missing' | 'contentType'
export type Direction = 'oldPageNewPod' | 'newPageOldPod' | 'unknown'
export type FailureCause = 'rollout' | 'stale-client' | 'unattributed'
export type PageLoadOutcome = 'crashed' | 'lazyChunkFailed' | 'unstyled' | 'degraded'
export type AssetKind = 'script' | 'stylesheet' | 'other'
export type LoadPhase = 'initial' | 'lazy'

export interface TruthTotals {
  pageLoads: number
  brokenPageLoads: number
  affectedPageLoads: number
  byOutcome: Record<PageLoadOutcome, number>
  affectedUsers: number
  failedRequests: number
  byCause: Record<FailureCause, number>
}

export interface TruthApp {
  /** The ingress upstream name: the app's name in every format that logs it. */
  name: string
  service: string
  namespace: string
  host: string
  requests: number
  pageLoads: number
  builds: number
  /** Deploys of the app as declared (deploy files, events); logs alone show none for an app without builds. */
  deploys: number
  shellLengthVaries: boolean
  affectedUsers: number
  brokenPageLoads: number
}

export interface TruthBuild {
  id: string
  app: string
  key: string
  version: string
  replicaSet: string
  shellBytes: number
  firstSeen: string
  lastSeen: string
  /** The last response of any of its pods: what logs that name the upstream show. */
  lastServed: string
  /** The last response carrying its shell (a document or a fallback body): what logs without upstreams show. */
  lastShellServed: string
  shellRequests: number
  /** Pods that served its shell to a document request. */
  pods: number
}

export interface TruthDeploy {
  id: string
  app: string
  service: string
  namespace: string
  start: string
  end: string
  windowSeconds: number
  fromBuild: string | null
  toBuild: string | null
  version: string
  fromVersion: string
  fromReplicaSet: string
  toReplicaSet: string
  incidentIds: string[]
  affectedUsers: number
  affectedPageLoads: number
  byOutcome: Record<PageLoadOutcome, number>
  pageLoads: number
  failedRequests: number
  byCause: Record<FailureCause, number>
  byDirection: Record<Direction, number>
  rolloutWindow: {start: string; end: string; seconds: number} | null
}

export interface TruthPod {
  app: string
  name: string
  ip: string
  build: string
  start: string | null
  stop: string | null
}

/** A restart or scale-out (see PodChange): Kubernetes events only; the report shows no deploy for it. */
export interface TruthPodChange extends PodChangeKind {
  service: string
  namespace: string
  /** The build served throughout (report id). */
  build: string
  start: string
  end: string
  /** Page loads in its window ± the deploy margin (what a report that lists it as a deploy counts). */
  pageLoads: number
}

export interface TruthFailure {
  time: string
  app: string
  requestId: string
  session: string
  clientIp: string
  userAgent: string
  path: string
  status: number
  bytes: number
  reason: FailureReason
  asset: AssetKind
  phase: LoadPhase
  cause: FailureCause
  deployId: string | null
  incidentId: string
  direction: Direction
  /** Report build ids (null when the app has no builds); the simulator's keys beside them. */
  pageBuild: string | null
  servingBuild: string | null
  pageBuildKey: string
  servingBuildKey: string
  pageLoadId: number
  pageLoadTime: string
}

export interface TruthIncident {
  id: string
  app: string
  cause: FailureCause
  deployId: string | null
  start: string
  end: string
  windowSeconds: number
  affectedUsers: number
  affectedPageLoads: number
  byOutcome: Record<PageLoadOutcome, number>
  brokenPageLoads: number
  pageLoads: number
  brokenShare: number
  failedRequests: number
  byDirection: Record<Direction, number>
  byReason: Record<FailureReason, number>
}

export interface TruthUser {
  app: string
  session: string
  clientIp: string
  userAgent: string
  firstFailure: string
  lastFailure: string
  brokenPageLoads: number
  affectedPageLoads: number
  failedRequests: number
  incidentIds: string[]
}

export interface TruthNonUserCounts {
  requests: number
  clients: number
  failedRequests: number
}

export interface TruthNonUser {
  crawlers: TruthNonUserCounts
  probe: TruthNonUserCounts
  scanners: TruthNonUserCounts
  sourceMaps: {failedRequests: number}
}

export interface TruthFile {
  name: string
  format: string
  /** Access records in the file (deploy records for deploy files). */
  records: number
  order: 'oldest-first' | 'newest-first' | 'n/a'
}

export interface Truth {
  schemaVersion: 3
  scenario?: string
  description?: string
  params: SimParams
  files?: TruthFile[]
  timeRange: {start: string; end: string} | null
  requestsTotal: number
  totals: TruthTotals
  apps: TruthApp[]
  builds: TruthBuild[]
  deploys: TruthDeploy[]
  incidents: TruthIncident[]
  affectedUsers: TruthUser[]
  nonUser: TruthNonUser
  orphans: {requests: number; clients: number}
  pods: TruthPod[]
  /** Restarts and scale-outs (absent when there were none). */
  podChanges?: TruthPodChange[]
  failures: TruthFailure[]
}

export interface Simulation {
  requests: SimRequest[]
  truth: Truth
}
