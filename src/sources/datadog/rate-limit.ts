import {setTimeout as sleep} from 'node:timers/promises'
import {SourceError} from '../errors'
import {type Operation, PullAborted} from './errors'
import type {RateLimitBudget} from '../../model/pull-estimate'

export type {RateLimitBudget} from '../../model/pull-estimate'

interface LimitState {
  name: string
  limit?: number
  periodSeconds?: number
  remaining?: number
  resetAt?: number
  pausedUntil?: number
  /** Requests sent and not yet answered: the server's count may not include them yet. */
  inFlight: number
}

/**
 * Throttles requests by the budget Datadog announces: a request waits while its limit has nothing
 * left (until the announced reset), counting requests still on their way as spent, and after a 429
 * every request of that limit waits for the reset instead of stampeding into more 429s. Limits are
 * keyed by `X-RateLimit-Name` (search and aggregate may share one).
 */
export class RateGate {
  private readonly byName = new Map<string, LimitState>()
  private readonly nameOf = new Map<Operation, string>()

  constructor(private readonly now: () => number) {}

  observe(operation: Operation, headers: Headers): void {
    const state = this.rename(operation, headers.get('x-ratelimit-name'))
    const num = (h: string): number | undefined => {
      const v = Number.parseInt(headers.get(h) ?? '', 10)
      return Number.isFinite(v) ? v : undefined
    }
    const limit = num('x-ratelimit-limit')
    const period = num('x-ratelimit-period')
    const remaining = num('x-ratelimit-remaining')
    const reset = num('x-ratelimit-reset')
    if (limit !== undefined) state.limit = limit
    if (period !== undefined) state.periodSeconds = period
    const now = this.now()
    if (state.resetAt !== undefined && now < state.resetAt && state.remaining !== undefined) {
      // Same period: answers overtake each other, so the lowest count is the freshest, and the
      // period ends when it was first said to.
      if (remaining !== undefined) state.remaining = Math.min(state.remaining, remaining)
      return
    }
    if (remaining !== undefined) state.remaining = remaining
    if (reset !== undefined) state.resetAt = now + reset * 1000
  }

  /** After a 429: hold every request of this limit until the reset. */
  pause(operation: Operation, resetSeconds: number | undefined): void {
    if (resetSeconds === undefined) return
    const state = this.state(operation)
    state.pausedUntil = Math.max(state.pausedUntil ?? 0, this.now() + resetSeconds * 1000)
    state.remaining = 0
    state.resetAt = state.pausedUntil
  }

  /** Waits until the limit allows one more request, at most `maxWaitMs`; `release` when answered. */
  async acquire(operation: Operation, maxWaitMs: number, signal?: AbortSignal): Promise<void> {
    const state = this.state(operation)
    for (;;) {
      const now = this.now()
      if (state.resetAt !== undefined && now >= state.resetAt) {
        // The period rolled over: the next answer will say what is left.
        state.remaining = undefined
        state.resetAt = undefined
      }
      let until = state.pausedUntil ?? 0
      if (state.remaining !== undefined && state.remaining - state.inFlight <= 0 && state.resetAt !== undefined) until = Math.max(until, state.resetAt)
      const wait = until - now
      if (wait <= 0) break
      if (wait > maxWaitMs) {
        const per = state.limit === undefined ? '' : ` (${state.limit} requests per ${state.periodSeconds ?? '?'} s)`
        throw new SourceError(`Datadog rate limit "${state.name}" is used up${per}: it refills in ${Math.ceil(wait / 1000)} s, longer than this run may wait (--max-wait ${Math.round(maxWaitMs / 1000)}s). Run again later, or raise --max-wait.`, 'datadog')
      }
      try {
        await sleep(wait, undefined, {signal})
      } catch {
        throw new PullAborted()
      }
    }
    state.inFlight++
  }

  release(operation: Operation): void {
    const state = this.state(operation)
    state.inFlight = Math.max(0, state.inFlight - 1)
  }

  /** The budget of the limit an operation counts against, for progress. */
  budget(operation: Operation): RateLimitBudget | undefined {
    const state = this.byName.get(this.nameOf.get(operation) ?? operation)
    if (!state || state.remaining === undefined) return undefined
    const now = this.now()
    return {
      name: state.name, limit: state.limit, periodSeconds: state.periodSeconds, remaining: Math.max(0, state.remaining - state.inFlight),
      resetInSeconds: state.resetAt === undefined ? undefined : Math.max(0, Math.ceil((state.resetAt - now) / 1000)),
    }
  }

  private state(operation: Operation): LimitState {
    const name = this.nameOf.get(operation) ?? operation
    let s = this.byName.get(name)
    if (!s) {
      s = {name, inFlight: 0}
      this.byName.set(name, s)
    }
    return s
  }

  /** The first answer names the limit; requests counted under the operation move to it. */
  private rename(operation: Operation, name: string | null): LimitState {
    const current = this.state(operation)
    if (name === null || name === current.name) return current
    this.nameOf.set(operation, name)
    const target = this.byName.get(name)
    if (!target) {
      this.byName.delete(current.name)
      current.name = name
      this.byName.set(name, current)
      return current
    }
    target.inFlight += current.inFlight
    current.inFlight = 0
    return target
  }
}
