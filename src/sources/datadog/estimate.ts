/**
 * What a planned pull will cost, before it starts: events, search requests, and the time the
 * organisation's rate limit makes it take. Pure: the plan, the requests made so far and the budget
 * the last answers announced go in; the clock is not read.
 */
import type {PullEstimate, RateLimitBudget} from '../../model/pull-estimate'
import {INDEXING_LATENCY_MS, PAGE_LIMIT} from './puller'

export type {PullEstimate} from '../../model/pull-estimate'

/**
 * Search requests a slice of `events` takes: its pages, then the empty page that ends the cursor.
 * Datadog gives a cursor with every page that holds events, a short one too (reference/datadog.md
 * 1.3, the recorded cassette: a 1-item page of limit 2 still carried `after`; the next was
 * `{"data":[]}`), so a slice of 1 to 1000 events takes two requests and only an empty one takes one.
 */
export const requestsFor = (events: number): number => (events <= 0 ? 1 : Math.ceil(events / PAGE_LIMIT) + 1)

/**
 * Search requests a slice known to hold exactly `count` events takes (puller.ts pullSlice ends it
 * on a short page that brings the count): its pages alone; a last page that is full still asks the
 * next (an empty one), and an empty slice takes the one empty page.
 */
export const countedRequestsFor = (count: number): number => (count <= 0 ? 1 : Math.floor(count / PAGE_LIMIT) + 1)

/**
 * A slice of unknown size (a pod's edges, a hurt person's own requests) is planned where the counts
 * show it holds events, and joined only while it fits one page: a page and the empty one after it.
 */
const UNKNOWN_SLICE_REQUESTS = 2

/**
 * The pull's cost. Waiting: what the budget has left goes first; beyond it, the rest waits for the
 * reset, then a whole period for each further limit's worth.
 */
export function estimatePull(plan: {held: number | null; streams: readonly {name?: string; slices: readonly {estimate?: number; count?: number; to?: number}[]}[]}, planningRequests: number, budget: RateLimitBudget | undefined, now?: number): PullEstimate {
  const slices = plan.streams.flatMap((s) => s.slices)
  const toPull = slices.reduce((n, s) => n + (s.estimate ?? 0), 0)
  // A counted slice ends on its count unless it ends within the indexing latency of now (as the puller decides it).
  const counted = (s: {count?: number; to?: number}): s is {count: number} => s.count !== undefined && (now === undefined || s.to === undefined || s.to <= now - INDEXING_LATENCY_MS)
  const searchRequests = slices.reduce((n, s) => n + (counted(s) ? countedRequestsFor(s.count) : s.estimate === undefined ? UNKNOWN_SLICE_REQUESTS : requestsFor(s.estimate)), 0)
  const unknownStreams: Record<string, number> = {}
  for (const s of plan.streams) {
    const n = s.slices.filter((sl) => sl.estimate === undefined).length
    if (n > 0) unknownStreams[s.name ?? 'slices'] = (unknownStreams[s.name ?? 'slices'] ?? 0) + n
  }
  return {
    held: plan.held, toPull, slices: slices.length, unknownSlices: slices.filter((s) => s.estimate === undefined).length, unknownStreams, searchRequests, planningRequests,
    ...(budget ? {budget} : {}), waitSeconds: waitFor(searchRequests, budget),
  }
}

function waitFor(requests: number, budget: RateLimitBudget | undefined): number | null {
  if (budget === undefined) return null
  const left = budget.remaining ?? 0
  if (requests <= left) return 0
  const {limit, periodSeconds, resetInSeconds} = budget
  if (limit === undefined || limit <= 0 || periodSeconds === undefined || resetInSeconds === undefined) return null
  const beyond = requests - left
  return resetInSeconds + (Math.ceil(beyond / limit) - 1) * periodSeconds
}
