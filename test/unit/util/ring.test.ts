import fc from 'fast-check'
import {Ring} from '../../../src/util/ring'

type Op = {push: number} | {drop: number} | {shift: true}

describe('Ring: a queue of items by position, in one array used round', () => {
  it('gives each position its item, across growth and wrapping, as a plain list of every item pushed does', () => {
    const op: fc.Arbitrary<Op> = fc.oneof(
      {weight: 6, arbitrary: fc.integer().map((push) => ({push}))},
      {weight: 2, arbitrary: fc.nat(40).map((drop) => ({drop}))},
      {weight: 1, arbitrary: fc.constant({shift: true as const})},
    )
    fc.assert(fc.property(fc.integer({min: 1, max: 8}), fc.array(op, {maxLength: 250}), (capacity, ops) => {
      const ring = new Ring<number>(capacity)
      // The model: every item pushed, by position, and the first position kept.
      const all: number[] = []
      let first = 0
      for (const o of ops) {
        if ('push' in o) {
          ring.push(o.push)
          all.push(o.push)
        } else if ('drop' in o) {
          // A position anywhere from before the first kept to past the end.
          const to = first + o.drop - 5
          ring.dropBefore(to)
          first = Math.max(first, Math.min(to, all.length))
        } else {
          expect(ring.shift()).toBe(first < all.length ? all[first] : undefined)
          if (first < all.length) first++
        }
        expect(ring.end).toBe(all.length)
        expect(ring.size).toBe(all.length - first)
        expect(ring.peek()).toBe(first < all.length ? all[first] : undefined)
        // Every position from before the first kept to past the end.
        for (let p = Math.max(0, first - 3); p < all.length + 3; p++) expect(ring.at(p)).toBe(p >= first && p < all.length ? all[p] : undefined)
      }
    }), {numRuns: 200})
  })

  it('keeps up to its room without growing, then doubles it', () => {
    const ring = new Ring<string>(3)
    for (const x of ['a', 'b', 'c', 'd']) ring.push(x)
    ring.dropBefore(2)
    // Room 4, two kept (slots 2 and 3): e and f fill it round the end of the array (slots 0 and 1),
    // and g finds it full and doubles it.
    for (const x of ['e', 'f', 'g']) ring.push(x)
    expect([2, 3, 4, 5, 6].map((p) => ring.at(p))).toEqual(['c', 'd', 'e', 'f', 'g'])
    ring.push('h')
    expect([2, 3, 4, 5, 6, 7].map((p) => ring.at(p))).toEqual(['c', 'd', 'e', 'f', 'g', 'h'])
    expect(ring.at(1)).toBeUndefined()
    expect(ring.at(8)).toBeUndefined()
  })

  it('lets go of what it drops or shifts off: nothing it holds refers to them any more', () => {
    const ring = new Ring<{n: number}>(4)
    const items = [0, 1, 2, 3, 4, 5].map((n) => ({n}))
    for (const x of items) ring.push(x)
    ring.shift()
    ring.dropBefore(3)
    // The ring's own array, read as it is: the dropped items are gone from it.
    const held = (ring as unknown as {items: unknown[]}).items
    expect(held.filter((x) => x !== undefined)).toHaveLength(3)
    for (const x of items.slice(0, 3)) expect(held).not.toContain(x)
    for (const x of items.slice(3)) expect(held).toContain(x)
  })
})
