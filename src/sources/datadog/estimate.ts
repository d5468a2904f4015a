/**
 * What a planned pull will cost, before it starts: events, search requests, and the time the
 * organisation's rate limit makes it take. Pure: the plan, the requests made so far and the budget
 * the last answers announced go in; the clock is not read.
 */
import type {PullEstimate, RateLimitBudget} from '../../model/pull-estimate'
import {PAGE_LIMIT} from './puller'

export type {PullEstimate} from '../../model/pull-estimate'

/** Search requests a slice of `events` takes: full pages, then the page that ends the cursor. */
export const requestsFor = (events: number): number => Math.floor(events / PAGE_LIMIT) + 1

/**
 * The pull's cost. Waiting: what the budget has left goes first; beyond it, the rest waits for the
 * reset, then a whole period for each further limit's worth.
 */
export function estimatePull(plan: {held: number | null; streams: readonly {slices: readonly {estimate?: number}[]}[]}, planningRequests: number, budget: RateLimitBudget | undefined): PullEstimate {
  const slices = plan.streams.flatMap((s) => s.slices)
  const toPull = slices.reduce((n, s) => n + (s.estimate ?? 0), 0)
  const searchRequests = slices.reduce((n, s) => n + requestsFor(s.estimate ?? 0), 0)
  return {
    held: plan.held, toPull, slices: slices.length, unknownSlices: slices.filter((s) => s.estimate === undefined).length, searchRequests, planningRequests,
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
