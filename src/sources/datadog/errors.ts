import {SourceError} from '../errors'
import type {RequestFailure} from './retry'

export type Operation = 'logs-search' | 'logs-aggregate' | 'events-search' | 'events-v1' | 'rum-search' | 'rum-aggregate'

/** A request that failed for good: after retries, or at once for 4xx (exit 3). */
export class DatadogRequestError extends SourceError {
  constructor(message: string, readonly operation: Operation, readonly failure: RequestFailure, readonly body?: string) {
    super(message, 'datadog')
    this.name = 'DatadogRequestError'
  }
}

/**
 * A 3xx the client refused to follow. It ends the run wherever it happens: falling back (aggregate
 * to plain search, Events v2 to v1) would only ask the same misdirected server again and bury the
 * reason in a notice.
 */
export function isRedirectRefused(error: unknown): error is DatadogRequestError {
  return error instanceof DatadogRequestError && error.failure.kind === 'redirect'
}

/** The run was cancelled (Ctrl-C): not a failure of Datadog. */
export class PullAborted extends Error {
  constructor() {
    super('cancelled')
    this.name = 'PullAborted'
  }
}

/**
 * A failure that ends the run wherever it happens, fallbacks included: a refused redirect, or an
 * answer that grew past the cap (a fallback would only ask the same server for another bomb).
 */
export function endsTheRun(error: unknown): error is DatadogRequestError {
  return isRedirectRefused(error) || (error instanceof DatadogRequestError && error.failure.kind === 'too-large')
}
