/**
 * What a planned Datadog pull will cost (sources/datadog/estimate.ts works it out, report/pull-plan.ts
 * says it): here, below both, so the renderer never reaches into the source.
 */

/** What the `X-RateLimit-*` headers last said about one limit. */
export interface RateLimitBudget {
  name: string
  limit?: number
  periodSeconds?: number
  remaining?: number
  /** Seconds until the budget refills, as of now. */
  resetInSeconds?: number
}

export interface PullEstimate {
  /** Events the range holds for the query (null when the aggregate count failed). */
  held: number | null
  /** Events the planned slices hold, of those whose count is known. */
  toPull: number
  slices: number
  /** Slices whose count is unknown (the pods' edges, or every slice when the count failed): each takes a request or more. */
  unknownSlices: number
  /** Those slices by the stream they belong to (`edges`: the pods' edges, `sessions`: hurt people's own requests, `all`, `narrowed`, ...: any stream when the count failed). */
  unknownStreams: Record<string, number>
  /** Search requests the slices take: their pages, and the empty page that ends each cursor unless the slice's events were counted exactly (a page and the empty one for a slice of unknown count). */
  searchRequests: number
  /** Requests made to plan (aggregate counts, deploy events, the budget). */
  planningRequests: number
  /** The search limit, as its last answer announced it. */
  budget?: RateLimitBudget
  /** Seconds the rate limit will hold the pull back (null when the limit is unknown). */
  waitSeconds: number | null
}

/** What the RUM pull of `analyze --rum-query` will cost, as far as it is known before the logs are analysed (sources/datadog/rum-pull.ts). */
export interface RumPullEstimate {
  query: string
  /** Page loads (initial-load views) counted on Datadog's side; null when the count failed (their views are then read). */
  pageLoads: number | null
  /** Error events and failed scripts of the range; null when they could not be counted. */
  failures: number | null
  /** Search requests reading them take. */
  failureSearches: number
  /** Requests made so far (the counts). */
  requests: number
  /** The RUM search limit, as its last answer announced it (else the aggregate's). */
  budget?: RateLimitBudget
}
