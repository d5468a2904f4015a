/** Types shared by the simulator, the truth and the format writers. */

export type Routing = 'round-robin' | 'cookie'
/** What a pod answers for a path it does not have: its shell (SPA fallback) or, for asset paths, a 404. */
export type MissingMode = 'fallback' | '404'
/** `s`: every written timestamp is floored to the second (what nginx logs); `ms`: formats that can carry milliseconds do. */
export type Resolution = 's' | 'ms'

export interface SurgeParams {
  /** Browser arrival rate multiplier around each deploy (1 = no surge). */
  factor: number
  /** The surge starts this many seconds before a deploy starts... */
  beforeSeconds: number
  /** ...and ends this many seconds after it ends. */
  afterSeconds: number
}

export interface SimParams {
  seed: number
  /** Start of traffic, ISO-8601 UTC on a whole second. */
  start: string
  durationSeconds: number
  service: string
  /** Public origin of the site, used for referers. */
  origin: string
  replicas: number
  /** Seconds between rollout steps. */
  step: number
  routing: Routing
  missing: MissingMode
  /** Number of rolling deploys (0 = none). */
  deploys: number
  /** When the first deploy starts, in seconds after `start`. */
  firstDeployAtSeconds: number
  /** Seconds between the starts of consecutive deploys. */
  every: number
  /** Byte length of each build's shell (index.html), build A first. Extended by +19 per missing build. */
  shellBytes: number[]
  /** Mean browser arrivals per minute outside surges. */
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
  resolution: Resolution
  incidentGapSeconds: number
  deployMarginSeconds: number
  /** kube-probe /healthz period through the ingress, seconds (0 = none). */
  healthzEverySeconds: number
  /** A Googlebot that fetches current assets, and after each deploy re-fetches old ones. */
  crawler: boolean
  /** Number of scanner bursts probing asset-looking paths. */
  scanners: number
  /** Share of requests logged with a retried upstream list (first attempt 502, then the answering pod). */
  retryShare: number
  /** Items per Datadog search page in dd-pages.json (at most 1000). */
  ddPageSize: number
}

export type Actor = 'browser' | 'crawler' | 'scanner' | 'probe'

/** What the answering pod sent. */
export type ResponseKind = 'shell' | 'asset' | 'not-found' | 'api' | 'favicon' | 'health'

/** What the client meant to fetch (truth-side; never written to logs). */
export type RequestRole =
  | 'page' // a browser's document request: a shell
  | 'entry' // an entry bundle named by the page's shell
  | 'chunk' // a lazy route chunk named by the page's build
  | 'api'
  | 'favicon'
  | 'healthz'
  | 'bot-asset'

/** One simulated HTTP request with everything any writer needs. */
export interface SimRequest {
  /** 0-based position in time order. */
  seq: number
  /** Epoch ms as written in the logs (floored to the second when resolution is `s`). */
  time: number
  /** Epoch ms of the simulation (sub-second precision). */
  exactTime: number
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
  /** Build key (A, B, C…) of the pod that answered. */
  servingBuild: string
  /** Build key of the shell the page load got (browser requests only). */
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
  pageLoadId?: number
}

export interface BuildAsset {
  path: string
  bytes: number
}

export interface Build {
  key: string
  version: string
  replicaSet: string
  shellBytes: number
  app: BuildAsset
  vendor: BuildAsset
  css: BuildAsset
  /** Lazy chunk per SPA route name. */
  chunks: Record<string, BuildAsset>
}

export interface Pod {
  name: string
  ip: string
  port: number
  build: string
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

export interface DeployPlan {
  index: number
  fromBuild: string
  toBuild: string
  start: number
  end: number
  steps: ScalingStep[]
}

// ---------------------------------------------------------------- truth

export type FailureReason = 'fallback' | 'missing'
export type Direction = 'oldPageNewPod' | 'newPageOldPod' | 'unknown'

export interface TruthBuild {
  id: string
  key: string
  version: string
  replicaSet: string
  shellBytes: number
  firstSeen: string | null
  lastSeen: string | null
}

export interface TruthDeploy {
  id: string
  service: string
  start: string
  end: string
  fromBuild: string
  toBuild: string
  version: string
  fromVersion: string
  fromReplicaSet: string
  toReplicaSet: string
}

export interface TruthPod {
  name: string
  ip: string
  build: string
  start: string | null
  stop: string | null
}

export interface TruthFailure {
  time: string
  requestId: string
  service: string
  clientIp: string
  userAgent: string
  path: string
  status: number
  bytes: number
  reason: FailureReason
  direction: Direction
  pageBuild: string
  servingBuild: string
  pageLoadId: number
  incidentId: string
}

export interface TruthIncident {
  id: string
  service: string
  start: string
  end: string
  windowSeconds: number
  affectedUsers: number
  affectedPageLoads: number
  failedRequests: number
  byDirection: Record<Direction, number>
  byReason: {fallback: number; missing: number; contentType: number}
  pageLoads: number
  brokenShare: number
  kind: 'rollout' | 'stale-client' | 'unattributed'
  deployId: string | null
}

export interface TruthUser {
  clientIp: string
  userAgent: string
  firstFailure: string
  lastFailure: string
  brokenPageLoads: number
  failedRequests: number
  incidentIds: string[]
}

export interface TruthFile {
  name: string
  format: string
  /** Access records in the file (deploy records for deploy files). */
  records: number
  order: 'oldest-first' | 'newest-first' | 'n/a'
}

export interface Truth {
  schemaVersion: 1
  scenario?: string
  description?: string
  params: SimParams
  files?: TruthFile[]
  service: string
  timeRange: {start: string; end: string} | null
  requestsTotal: number
  pageLoadsTotal: number
  brokenPageLoadsTotal: number
  failedRequestsTotal: number
  builds: TruthBuild[]
  deploys: TruthDeploy[]
  pods: TruthPod[]
  incidents: TruthIncident[]
  affectedUsers: TruthUser[]
  orphans: {requests: number; clients: number}
  failures: TruthFailure[]
}

export interface Simulation {
  requests: SimRequest[]
  truth: Truth
}
