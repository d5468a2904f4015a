/** Which attribute names the app a request belongs to (see appSourceOf). */
export type AppSource = 'auto' | 'upstream' | 'host' | 'service' | 'key'

/** How the analysis reads the traffic. Durations are milliseconds. */
export interface AnalysisOptions {
  /** Path prefixes (start with `/`) or extensions (start with `.`) that make a request an asset. */
  assetPatterns: string[]
  /** Paths always treated as the shell, besides `/` (exact match). */
  shellPaths: string[]
  /** Two shell lengths within this many bytes are the same build (shells that embed nonces). */
  lengthTolerance: number
  /** Sessions and page loads expire after this long without a request. */
  horizonMs: number
  /** Failures of one app, deploy and cause further apart than this start a new incident. */
  incidentGapMs: number
  /** Failures this close to a deploy window belong to its deploy (clocks of deploy records and logs differ). */
  deployMarginMs: number
  /** How far ahead shell lengths are learned before requests are judged (1-second logs have no order). */
  lookaheadMs: number
  /** A page load's requests this long after its previous one are a later, lazy load: its initial load is over. */
  lazyGapMs: number
  /** What names the app: `auto` is the ingress upstream, else the virtual host, else the log's service. */
  appSource?: AppSource
  /** Analyse this app alone (its name as reported). */
  app?: string
  /** Deploy records whose service or Deployment is a key belong to the app it names (`--deploy-app`). */
  deployApps?: Record<string, string>
  /** Keep the requests of broken page loads and the traffic timeline for the HTML report. */
  detail?: boolean
  /**
   * Apps analysed in full (those with shell or asset traffic); the requests of further apps are
   * counted apart (`app-limit`). Default MAX_FULL_APPS; smaller in tests.
   */
  maxApps?: number
}

/** Apps analysed in full at most: any client sets Host, and scanners send random ones. */
export const MAX_FULL_APPS = 1000

export const DEFAULT_ASSET_PATTERNS = [
  '/_build/', '/assets/', '/static/', '/_next/static/', '/_app/immutable/',
  '.js', '.mjs', '.cjs', '.css', '.map', '.wasm',
]

export const DEFAULT_OPTIONS: AnalysisOptions = {
  assetPatterns: DEFAULT_ASSET_PATTERNS,
  shellPaths: ['/', '/index.html'],
  lengthTolerance: 0,
  horizonMs: 30 * 60_000,
  incidentGapMs: 5 * 60_000,
  deployMarginMs: 60_000,
  lookaheadMs: 60_000,
  lazyGapMs: 3000,
}
