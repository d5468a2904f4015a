import {RateGate} from '../../../../src/sources/datadog/rate-limit'

const headers = (h: Record<string, string | number>) => new Headers(Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)])))

describe('RateGate', () => {
  it('lets requests through while the budget lasts, counting requests still on their way', async () => {
    let now = 1000
    const gate = new RateGate(() => now)
    await gate.acquire('logs-search', 0)
    gate.observe('logs-search', headers({'x-ratelimit-name': 'logs_query', 'x-ratelimit-limit': 300, 'x-ratelimit-period': 3600, 'x-ratelimit-remaining': 2, 'x-ratelimit-reset': 30}))
    gate.release('logs-search')
    await gate.acquire('logs-search', 0)
    await gate.acquire('logs-search', 0)
    // Two in flight against two left: the third must wait 30 s, which is more than allowed here.
    await expect(gate.acquire('logs-search', 10_000)).rejects.toThrow(/rate limit "logs_query" is used up \(300 requests per 3600 s\): it refills in 30 s/)
    expect(gate.budget('logs-search')).toEqual({name: 'logs_query', limit: 300, periodSeconds: 3600, remaining: 0, resetInSeconds: 30})
    now += 30_000
    await gate.acquire('logs-search', 0)
  })

  it('an older answer does not raise the count within a period; a new period does', async () => {
    let now = 0
    const gate = new RateGate(() => now)
    gate.observe('logs-search', headers({'x-ratelimit-remaining': 5, 'x-ratelimit-reset': 10}))
    gate.observe('logs-search', headers({'x-ratelimit-remaining': 7, 'x-ratelimit-reset': 10}))
    expect(gate.budget('logs-search')?.remaining).toBe(5)
    now = 11_000
    gate.observe('logs-search', headers({'x-ratelimit-remaining': 299, 'x-ratelimit-reset': 3600}))
    expect(gate.budget('logs-search')).toMatchObject({remaining: 299, resetInSeconds: 3600})
  })

  it('after a 429, holds every request of that limit until the reset', async () => {
    // The gate's clock is the test's: nothing here depends on how fast this machine runs.
    let now = 5000
    const gate = new RateGate(() => now)
    gate.pause('logs-search', 0.1)
    await expect(gate.acquire('logs-search', 10)).rejects.toThrow(/refills in 1 s/)
    let through = false
    const waiting = gate.acquire('logs-search', 1000).then(() => (through = true))
    await new Promise((resolve) => setImmediate(resolve))
    expect(through).toBe(false)
    now += 100
    await waiting
    expect(through).toBe(true)
  })

  it('operations that share a limit name share its budget', async () => {
    const gate = new RateGate(() => 0)
    gate.observe('logs-search', headers({'x-ratelimit-name': 'logs', 'x-ratelimit-remaining': 1, 'x-ratelimit-reset': 60}))
    await gate.acquire('logs-aggregate', 0)
    gate.observe('logs-aggregate', headers({'x-ratelimit-name': 'logs', 'x-ratelimit-remaining': 1, 'x-ratelimit-reset': 60}))
    await expect(gate.acquire('logs-search', 0)).rejects.toThrow(/"logs" is used up/)
  })

  it('an abort while waiting is a cancellation', async () => {
    const gate = new RateGate(() => 0)
    gate.pause('logs-search', 1)
    const controller = new AbortController()
    const waiting = gate.acquire('logs-search', 5000, controller.signal)
    controller.abort()
    await expect(waiting).rejects.toThrow(/cancelled/)
  })
})
