/** A binary min-heap ordered by (time, seq): ties keep insertion order, so the simulation is deterministic. */
export interface HeapItem {
  time: number
  seq: number
}

export class MinHeap<T extends HeapItem> {
  private readonly items: T[] = []

  get size(): number {
    return this.items.length
  }

  push(item: T): void {
    const a = this.items
    a.push(item)
    let i = a.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!less(a[i] as T, a[parent] as T)) break
      swap(a, i, parent)
      i = parent
    }
  }

  pop(): T | undefined {
    const a = this.items
    const top = a[0]
    const last = a.pop()
    if (a.length > 0 && last !== undefined) {
      a[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < a.length && less(a[l] as T, a[m] as T)) m = l
        if (r < a.length && less(a[r] as T, a[m] as T)) m = r
        if (m === i) break
        swap(a, i, m)
        i = m
      }
    }
    return top
  }
}

function less(x: HeapItem, y: HeapItem): boolean {
  return x.time < y.time || (x.time === y.time && x.seq < y.seq)
}

function swap<T>(a: T[], i: number, j: number): void {
  const t = a[i] as T
  a[i] = a[j] as T
  a[j] = t
}
