import {createHash} from 'node:crypto'

/**
 * Seeded random numbers (splitmix32) for the lab: the same seed gives the same builds, the same
 * browsers and the same routing choices, so strategy runs differ only where the network's timing does.
 */
export class Random {
  private state: number

  constructor(seed: number, stream: string) {
    this.state = createHash('sha256').update(`${seed}/${stream}`).digest().readUInt32LE(0)
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x9e3779b9) | 0
    let z = this.state
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
    return ((z ^ (z >>> 16)) >>> 0) / 4294967296
  }

  /** Uniform in [min, max). */
  between(min: number, max: number): number {
    return min + (max - min) * this.next()
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)]
    if (item === undefined) throw new Error('pick from an empty list')
    return item
  }
}
