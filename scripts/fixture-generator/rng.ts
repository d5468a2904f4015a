/**
 * Seeded pseudo-random numbers (mulberry32). The generator never touches Math.random or the wall
 * clock, so the same parameters always give the same traffic, byte for byte.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A 32-bit FNV-1a hash, used to derive independent seeds from one scenario seed. */
export function hash32(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

const BYTE_HEX = Array.from({length: 256}, (_, i) => i.toString(16).padStart(2, '0'))

export class Rng {
  private readonly next: () => number

  constructor(seed: number, stream = '') {
    this.next = mulberry32((seed ^ hash32(stream)) >>> 0)
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.next()
  }

  /** Uniform in [min, max). */
  uniform(min: number, max: number): number {
    return min + (max - min) * this.next()
  }

  /** Integer uniform in [min, max] (both included). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list')
    return items[Math.floor(this.next() * items.length)] as T
  }

  /** Picks an index with the given relative weights. */
  weighted(weights: readonly number[]): number {
    const total = weights.reduce((s, w) => s + w, 0)
    let x = this.next() * total
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i] as number
      if (x < 0) return i
    }
    return weights.length - 1
  }

  /** Exponentially distributed waiting time with the given mean. */
  exp(mean: number): number {
    return -Math.log(1 - this.next()) * mean
  }

  hex(length: number): string {
    let out = ''
    // Two hex digits per byte, four bytes per draw: request ids are made for every request of large runs.
    while (out.length < length) {
      const n = Math.floor(this.next() * 4294967296)
      out += (BYTE_HEX[n >>> 24] as string) + BYTE_HEX[(n >>> 16) & 255] + BYTE_HEX[(n >>> 8) & 255] + BYTE_HEX[n & 255]
    }
    return out.length === length ? out : out.slice(0, length)
  }

  chars(alphabet: string, length: number): string {
    let out = ''
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)]
    return out
  }
}
