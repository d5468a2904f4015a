import {setFlagsFromString} from 'node:v8'
import {runInNewContext} from 'node:vm'
import {Worker} from 'node:worker_threads'
import {startWorker} from '../../../src/sources/parallel/start-worker'
import {currentGrowingPercent, growingPercent, tuneForWorkers} from '../../../src/sources/parallel/v8-tuning'

const MB = 1024 * 1024

describe('V8 tuning while workers run', () => {
  it('the old generation may grow by about 20 MB over its live data: 150% for a small state, down to 10% for a large one', () => {
    expect(growingPercent(0)).toBe(150)
    expect(growingPercent(10 * MB)).toBe(150)
    expect(growingPercent(20 * MB)).toBe(100)
    expect(growingPercent(40 * MB)).toBe(50)
    expect(growingPercent(100 * MB)).toBe(20)
    expect(growingPercent(1000 * MB)).toBe(10)
  })

  it('after a full collection that leaves a large live state, the allowance follows it', async () => {
    tuneForWorkers()
    expect(currentGrowingPercent()).toBe(150)
    // 48 MB kept alive across a full collection.
    const kept = Array.from({length: 48}, () => new Array<number>(MB / 8).fill(1.5))
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    gc()
    // The observer hears of the collection on a later turn.
    for (let i = 0; i < 50 && currentGrowingPercent() === 150; i++) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(kept.length).toBe(48)
    expect(currentGrowingPercent()).toBeLessThanOrEqual(50)
    expect(currentGrowingPercent()).toBeGreaterThanOrEqual(10)
  })

  it('a parse worker\'s young generation is capped at 24 MB', async () => {
    const worker: Worker = startWorker(undefined)
    try {
      expect(worker.resourceLimits?.maxYoungGenerationSizeMb).toBe(24)
    } finally {
      await worker.terminate()
    }
  })
})
