/**
 * The analysis result: the `--json` contract (schemas/analyze.schema.json). Times are ISO-8601 UTC
 * with milliseconds. Bump SCHEMA_VERSION on any incompatible change.
 */
export const SCHEMA_VERSION = 1

export type IncidentKind = 'rollout' | 'stale-client' | 'unattributed'
export type Direction = 'oldPageNewPod' | 'newPageOldPod' | 'unknown'
export type FailureReason = 'fallback' | 'missing' | 'contentType'

export interface SkippedLocation {
  reason: string
  file: string
  line: number
  detail?: string
}

export interface InputSummary {
  records: number
  used: number
  skipped: {total: number; byReason: Record<string, number>; examples: SkippedLocation[]}
  first: string | null
  last: string | null
  sources: {file: string; format: string; records: number; skipped: number}[]
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
}

export interface BuildReport {
  id: string
  shellBytes: number
  firstSeen: string
  lastSeen: string
  shellRequests: number
  /** Pods (upstream addresses) seen serving this build's shell, when the logs name them. */
  pods?: number
  version?: string
}

export interface DeployReport {
  id: string
  source: 'file' | 'events' | 'inferred'
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
  affectedPageLoads: number
  /** Page loads started inside the window (plus the deploy margin), plus its broken ones that started outside it. */
  pageLoads: number
  failedRequests: number
  byDirection: Record<Direction, number>
}

export interface IncidentReport {
  id: string
  kind: IncidentKind
  deployId: string | null
  service: string | null
  start: string
  end: string
  windowSeconds: number
  affectedUsers: number
  affectedPageLoads: number
  pageLoads: number
  brokenShare: number
  failedRequests: number
  byDirection: Record<Direction, number>
  byReason: Record<FailureReason, number>
}

export interface AffectedUserReport {
  session: string
  clientIp: string
  userAgent: string
  firstFailure: string
  lastFailure: string
  brokenPageLoads: number
  failedRequests: number
  incidentIds: string[]
}

/** Detail for the HTML report (`--format html`): the traffic timeline and the broken page loads' requests. */
export interface ReportDetails {
  bucketSeconds: number
  timeline: {service: string | null; buckets: {start: string; requests: number; pageLoads: number; failures: number}[]}[]
  brokenPageLoads: {
    id: number
    session: string
    clientIp: string
    userAgent: string
    time: string
    path: string
    build: string | null
    incidentIds: string[]
    /** The shell first, then the page's requests in time order (at most 40). */
    requests: {time: string; path: string; status: number; bytes: number; build: string | null; reason: FailureReason | null}[]
  }[]
}

export interface AnalysisReport {
  schemaVersion: number
  input: InputSummary
  totals: {pageLoads: number; brokenPageLoads: number; affectedUsers: number; failedRequests: number}
  builds: BuildReport[]
  deploys: DeployReport[]
  incidents: IncidentReport[]
  affectedUsers: AffectedUserReport[]
  orphans: {requests: number; clients: number}
  details?: ReportDetails
}

/** One flagged request, as written by `--failures FILE` (one JSON object per line). */
export interface FailureRecord {
  time: string
  reason: FailureReason
  direction: Direction
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
  incidentId: string
  source: {file: string; line: number}
}
