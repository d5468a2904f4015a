/**
 * A queue of items by position (0 for the first one pushed, then 1, 2, ...), kept in one array used
 * round: items are dropped from the front as they are done with, and the array is only ever grown
 * (doubled), never copied to take the front off. An array sliced to drop the items done with, then
 * grown again by push, copied the whole queue every few thousand items: the analysis and its
 * reorder stage each queue a minute of log time or more (8k events on the bench's ingress-nginx
 * lines), and on 1M of those lines their copies were some 70 of the 945 MB the main thread
 * allocated, the larger ones in V8's large-object space. Dropped items are let go of at once, not
 * at the next copy: the analysis's judged events no longer live through young-generation collections.
 */
export class Ring<T> {
  private items: (T | undefined)[]
  private mask: number
  /** The position of the first item kept. */
  private first = 0
  /** The position after the last item. */
  private last = 0

  /** `capacity`: the room made at first, rounded up to a power of two. */
  constructor(capacity = 1024) {
    let room = 1
    while (room < capacity) room *= 2
    this.items = new Array<T | undefined>(room).fill(undefined)
    this.mask = room - 1
  }

  /** The position after the last item (where the next one goes). */
  get end(): number {
    return this.last
  }

  /** Items kept. */
  get size(): number {
    return this.last - this.first
  }

  push(item: T): void {
    if (this.last - this.first > this.mask) this.grow()
    // Positions past 2^31 still index right: `&` takes them modulo 2^32, a multiple of the room.
    this.items[this.last & this.mask] = item
    this.last++
  }

  /** The item at `position`; undefined for a position dropped or not pushed yet. */
  at(position: number): T | undefined {
    return position >= this.first && position < this.last ? this.items[position & this.mask] : undefined
  }

  /** The first item kept (undefined when none is). */
  peek(): T | undefined {
    return this.first < this.last ? this.items[this.first & this.mask] : undefined
  }

  /** Takes off the first item kept (undefined when none is). */
  shift(): T | undefined {
    if (this.first === this.last) return undefined
    const slot = this.first++ & this.mask
    const item = this.items[slot]
    this.items[slot] = undefined
    return item
  }

  /** Drops every item before `position`. */
  dropBefore(position: number): void {
    const to = Math.min(position, this.last)
    for (; this.first < to; this.first++) this.items[this.first & this.mask] = undefined
  }

  private grow(): void {
    const old = this.items
    const oldMask = this.mask
    const room = old.length * 2
    const items = new Array<T | undefined>(room).fill(undefined)
    const mask = room - 1
    for (let p = this.first; p < this.last; p++) items[p & mask] = old[p & oldMask]
    this.items = items
    this.mask = mask
  }
}
