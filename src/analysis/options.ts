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
  /** Failures further apart than this start a new incident. */
  incidentGapMs: number
  /** Failures this close to a deploy window still belong to its rollout. */
  deployMarginMs: number
  /** How far ahead shell lengths are learned before requests are judged (1-second logs have no order). */
  lookaheadMs: number
  /** Keep the requests of broken page loads and the traffic timeline for the HTML report. */
  detail?: boolean
}

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
}
