/**
 * When a failed Datadog request is tried again, and after how long. A pure function of the failure,
 * the attempts made, the time spent and a random number, so the whole policy is one table of tests.
 */

/** What went wrong with one request. */
export type RequestFailure =
  | {kind: 'http'; status: number; resetSeconds?: number}
  /** No complete answer within the per-request timeout. */
  | {kind: 'timeout'}
  /** The connection was refused, reset or dropped before an answer. */
  | {kind: 'network'}
  /** The connection closed in the middle of the body. */
  | {kind: 'truncated'}
  /** A 2xx answer whose body is not the JSON asked for (cut at a clean boundary, a proxy's page). */
  | {kind: 'invalid-json'}
  /** Datadog answered `meta.status: "timeout"`: the page may be partial. */
  | {kind: 'partial'}
  /**
   * A 3xx answer, never followed (see the client). `target` is where it pointed, as origin and path
   * (no query, keys masked); absent when there was no usable Location. `sameOrigin` compares it
   * with the request's scheme, host and port.
   */
  | {kind: 'redirect'; status: number; target?: string; sameOrigin: boolean}
  /** A 2xx search answer without a `data` list (`{"errors": [...]}`, `{}`, `{"data": null}`): not a page, and no last page either. */
  | {kind: 'no-data'}
  /** The answer, once inflated (`Content-Encoding: gzip`), grew past the cap on one answer: a decompression bomb or a misdirected URL. */
  | {kind: 'too-large'; limitBytes: number}

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number
  /** First backoff; doubled each attempt. */
  baseDelayMs: number
  /** Cap on one backoff wait. A rate-limit reset may be longer (it is what Datadog asks for). */
  maxDelayMs: number
  /** Cap on the time one request may take, attempts and waits together. */
  maxElapsedMs: number
}

export const DEFAULT_RETRY: RetryPolicy = {maxAttempts: 6, baseDelayMs: 1000, maxDelayMs: 30_000, maxElapsedMs: 5 * 60_000}

export type RetryDecision = {retry: true; delayMs: number; why: string} | {retry: false; why: string}

/**
 * `attempt` is the number of attempts made so far (1 after the first failed), `elapsedMs` the time
 * since the first began, `random` a number in [0, 1) for jitter.
 */
export function retryDecision(failure: RequestFailure, attempt: number, elapsedMs: number, policy: RetryPolicy, random: number): RetryDecision {
  const what = describeFailure(failure)
  if (!isTransient(failure)) return {retry: false, why: `${what} is not transient: not retried`}
  if (attempt >= policy.maxAttempts) return {retry: false, why: `${what}; gave up after ${attempt} attempts`}
  const delayMs = failure.kind === 'http' && failure.status === 429 && failure.resetSeconds !== undefined
    // Datadog says when the budget refills; a little jitter keeps concurrent slices from stampeding.
    ? Math.max(0, failure.resetSeconds) * 1000 + Math.round(random * Math.min(policy.baseDelayMs, 1000))
    : backoff(attempt, policy, random)
  if (elapsedMs + delayMs > policy.maxElapsedMs) {
    return {retry: false, why: `${what}; waiting ${seconds(delayMs)} more would exceed the ${seconds(policy.maxElapsedMs)} allowed per request`}
  }
  return {retry: true, delayMs, why: what}
}

/** Capped exponential backoff with "equal jitter": half fixed, half random, never zero. */
function backoff(attempt: number, policy: RetryPolicy, random: number): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1))
  return Math.round(cap / 2 + (random * cap) / 2)
}

function isTransient(f: RequestFailure): boolean {
  // A redirect is configuration (where --api-url points), not luck: asking again gets it again.
  if (f.kind === 'redirect') return false
  // Asking again would download (and inflate) the same bomb again.
  if (f.kind === 'too-large') return false
  if (f.kind !== 'http') return true
  // 408 and 429 are the only 4xx a server expects to be repeated; 400/401/403/404 never change.
  return f.status === 408 || f.status === 429 || f.status >= 500
}

export function describeFailure(f: RequestFailure): string {
  switch (f.kind) {
    case 'http': return f.status === 429 ? `HTTP 429 (rate limited${f.resetSeconds === undefined ? '' : `, resets in ${f.resetSeconds}s`})` : `HTTP ${f.status}`
    case 'timeout': return 'no answer within the timeout'
    case 'network': return 'connection failed'
    case 'truncated': return 'the answer was cut off'
    case 'invalid-json': return 'the answer was not valid JSON'
    case 'partial': return 'Datadog timed out on the query (partial page)'
    case 'no-data': return 'a 2xx answer without a data list'
    case 'too-large': return `the answer grew past ${mib(f.limitBytes)} (the most one answer may take, once inflated)`
    case 'redirect': return f.target === undefined ? `HTTP ${f.status} redirect without a usable Location` : `HTTP ${f.status} redirect to ${f.target}${f.sameOrigin ? ' (same origin)' : ''}`
  }
}

function mib(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB` : `${bytes} bytes`
}

function seconds(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 100) / 10}s`
}
