import {type RequestFailure, retryDecision, type RetryPolicy} from '../../../../src/sources/datadog/retry'

const POLICY: RetryPolicy = {maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 8000, maxElapsedMs: 60_000}
const http = (status: number, resetSeconds?: number): RequestFailure => ({kind: 'http', status, ...(resetSeconds === undefined ? {} : {resetSeconds})})

// [failure, attempts made, ms elapsed, random, expected: delay in ms, or false for no retry]
const TABLE: [string, RequestFailure, number, number, number, number | false][] = [
  ['429 waits what X-RateLimit-Reset says (plus jitter up to 1 s)', http(429, 7), 1, 0, 0, 7000],
  ['429 reset, with jitter', http(429, 7), 1, 0, 0.5, 7500],
  ['429 reset 0: retried at once but for the jitter', http(429, 0), 1, 0, 0.25, 250],
  ['429 without reset: exponential backoff', http(429), 1, 0, 0, 500],
  ['429 whose reset exceeds the time left: not retried', http(429, 3600), 1, 0, 0, false],
  ['500: first backoff, half fixed half random', http(500), 1, 0, 0.999, 1000],
  ['502: second backoff doubles', http(502), 2, 0, 0, 1000],
  ['503: third backoff', http(503), 3, 0, 1, 4000],
  ['504: the cap holds', http(504), 4, 0, 1, 8000],
  ['408 request timeout is transient', http(408), 1, 0, 0, 500],
  ['a timeout', {kind: 'timeout'}, 1, 0, 0, 500],
  ['a refused or reset connection', {kind: 'network'}, 2, 0, 0, 1000],
  ['a body cut off', {kind: 'truncated'}, 1, 0, 0, 500],
  ['a 200 that is not JSON', {kind: 'invalid-json'}, 1, 0, 0, 500],
  ['a partial page (meta.status timeout)', {kind: 'partial'}, 1, 0, 0, 500],
  ['a 2xx search answer without a data list, as a 5xx', {kind: 'no-data'}, 2, 0, 0, 1000],
  ['an answer past the cap once inflated is never retried', {kind: 'too-large', limitBytes: 64 * 1024 * 1024}, 1, 0, 0, false],
  ['400 is never retried', http(400), 1, 0, 0, false],
  ['401 is never retried', http(401), 1, 0, 0, false],
  ['403 is never retried', http(403), 1, 0, 0, false],
  ['404 is never retried', http(404), 1, 0, 0, false],
  ['a redirect to another origin is never retried', {kind: 'redirect', status: 302, target: 'http://127.0.0.1:1', sameOrigin: false}, 1, 0, 0, false],
  ['a redirect on the same origin is never retried', {kind: 'redirect', status: 307, target: 'http://127.0.0.1:1/x', sameOrigin: true}, 1, 0, 0, false],
  ['a 3xx without a Location is never retried', {kind: 'redirect', status: 300, sameOrigin: false}, 1, 0, 0, false],
  ['the last attempt is the last', http(500), 5, 0, 0, false],
  ['no time left for the backoff', http(500), 1, 59_600, 0, false],
  ['just enough time left', http(500), 1, 59_500, 0, 500],
]

describe('retryDecision', () => {
  it.each(TABLE)('%s', (_name, failure, attempt, elapsed, random, expected) => {
    const d = retryDecision(failure, attempt, elapsed, POLICY, random)
    if (expected === false) expect(d.retry).toBe(false)
    else expect(d).toEqual({retry: true, delayMs: expected, why: expect.any(String)})
  })

  it('says why it gives up', () => {
    expect(retryDecision(http(403), 1, 0, POLICY, 0).why).toBe('HTTP 403 is not transient: not retried')
    expect(retryDecision(http(503), 5, 0, POLICY, 0).why).toBe('HTTP 503; gave up after 5 attempts')
    expect(retryDecision(http(429, 600), 1, 0, POLICY, 0).why).toBe('HTTP 429 (rate limited, resets in 600s); waiting 10 min more would exceed the 1 min allowed per request')
  })
})
