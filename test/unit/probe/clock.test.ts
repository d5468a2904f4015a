import {WALL_CLOCK} from '../../../src/probe/clock'

describe('WALL_CLOCK.sleep', () => {
  it('never wakes before Date.now() has moved the time asked, even when the event loop lags behind', async () => {
    for (let i = 0; i < 20; i++) {
      // Busy for a few ms first: Node measures the timer from the loop's cached time, which now lags.
      const busyUntil = Date.now() + 3
      while (Date.now() < busyUntil) { /* spin */ }
      const start = Date.now()
      await WALL_CLOCK.sleep(5)
      expect(Date.now() - start).toBeGreaterThanOrEqual(5)
    }
  })

  /** Whether `p` has settled after one turn of the microtask queue (no timer, no wall clock). */
  async function settledAtOnce(p: Promise<void>): Promise<boolean> {
    let settled = false
    p.then(() => (settled = true), () => (settled = true))
    await Promise.resolve()
    return settled
  }

  it('returns at once when aborted: settled before any timer could fire, and resolved (never rejected)', async () => {
    const c = new AbortController()
    c.abort()
    const slept = WALL_CLOCK.sleep(600_000, c.signal)
    expect(await settledAtOnce(slept)).toBe(true)
    await expect(slept).resolves.toBeUndefined()
  })

  it('wakes at once when aborted while it sleeps', async () => {
    const c = new AbortController()
    const slept = WALL_CLOCK.sleep(600_000, c.signal)
    expect(await settledAtOnce(slept)).toBe(false)
    c.abort()
    // The abort resolves the timer's promise; wallSleep's loop sees the signal and returns: three turns.
    let settled = false
    void slept.then(() => (settled = true))
    for (let turn = 0; turn < 5 && !settled; turn++) await Promise.resolve()
    expect(settled).toBe(true)
  })
})
