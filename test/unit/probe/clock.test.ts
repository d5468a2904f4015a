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

  it('returns at once when aborted', async () => {
    const c = new AbortController()
    c.abort()
    await WALL_CLOCK.sleep(600_000, c.signal)
  })
})
