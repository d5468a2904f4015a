import type {AccessEvent} from '../model/access-event'
import {Ring} from '../util/ring'
import {OrderViolation} from './errors'

/** A binary min-heap of events by time. */
class EventHeap {
  private readonly a: AccessEvent[] = []

  get size(): number {
    return this.a.length
  }

  peek(): AccessEvent | undefined {
    return this.a[0]
  }

  push(e: AccessEvent): void {
    const a = this.a
    a.push(e)
    let i = a.length - 1
    while (i > 0) {
      const p = (i - 1) >> 1
      const pe = a[p] as AccessEvent
      if (pe.time <= e.time) break
      a[i] = pe
      i = p
    }
    a[i] = e
  }

  pop(): AccessEvent | undefined {
    const a = this.a
    const top = a[0]
    const last = a.pop()
    if (a.length > 0 && last) {
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        if (l >= a.length) break
        const r = l + 1
        const c = r < a.length && (a[r] as AccessEvent).time < (a[l] as AccessEvent).time ? r : l
        if ((a[c] as AccessEvent).time >= last.time) break
        a[i] = a[c] as AccessEvent
        i = c
      }
      a[i] = last
    }
    return top
  }
}

/**
 * Puts one source's events in time order, absorbing disorder of up to `slackMs` (log lines written
 * slightly out of order). An event older than one already released means the source is not in
 * time order at all (a newest-first export): OrderViolation tells the caller to sort it whole.
 *
 * Events that arrive in order (nearly all of them) wait in a plain queue, which is already sorted;
 * only the ones that arrive late go through the heap. Events of one timestamp may come out in any
 * order: the analysis does not depend on it.
 */
export async function* reorder(source: AsyncIterable<AccessEvent[]>, file: string, slackMs: number): AsyncGenerator<AccessEvent[]> {
  const heap = new EventHeap()
  const fifo = new Ring<AccessEvent>(4096)
  let newest = Number.NEGATIVE_INFINITY
  let released = Number.NEGATIVE_INFINITY
  /** Releases, in time order, every waiting event older than `limit`. */
  const release = (limit: number, out: AccessEvent[]): void => {
    for (;;) {
      const f = fifo.peek()
      const h = heap.peek()
      let e: AccessEvent
      if (f !== undefined && (h === undefined || f.time <= h.time)) {
        if (f.time >= limit) break
        e = f
        fifo.shift()
      } else if (h !== undefined) {
        if (h.time >= limit) break
        e = heap.pop() as AccessEvent
      } else {
        break
      }
      released = e.time
      out.push(e)
    }
  }
  for await (const batch of source) {
    const out: AccessEvent[] = []
    for (const e of batch) {
      const t = e.time
      if (t < released) throw new OrderViolation(file)
      if (t >= newest) {
        fifo.push(e)
        newest = t
      } else {
        heap.push(e)
      }
    }
    release(newest - slackMs, out)
    if (out.length > 0) yield out
  }
  const rest: AccessEvent[] = []
  release(Number.POSITIVE_INFINITY, rest)
  if (rest.length > 0) yield rest
}

/** Merges time-ordered sources (access events, or raw Datadog items with their time) into one time-ordered stream, holding one batch per source. */
export async function* merge<T extends {time: number}>(sources: AsyncIterable<T[]>[]): AsyncGenerator<T[]> {
  if (sources.length === 1 && sources[0]) {
    yield* sources[0]
    return
  }
  const iters = sources.map((s) => s[Symbol.asyncIterator]())
  const buffers: {events: T[]; pos: number; done: boolean}[] = iters.map(() => ({events: [], pos: 0, done: false}))
  const refill = async (i: number): Promise<void> => {
    const b = buffers[i]
    const it = iters[i]
    if (!b || !it) return
    while (!b.done && b.pos >= b.events.length) {
      const next = await it.next()
      if (next.done) b.done = true
      else [b.events, b.pos] = [next.value, 0]
    }
  }
  await Promise.all(buffers.map((_, i) => refill(i)))
  let out: T[] = []
  for (;;) {
    // Emit the oldest event of all; when its source runs dry, hand on what is ready before
    // waiting for that source (a slow source must not hold back what the others gave).
    let min = -1
    let minTime = Number.POSITIVE_INFINITY
    for (let i = 0; i < buffers.length; i++) {
      const b = buffers[i] as (typeof buffers)[number]
      if (b.pos < b.events.length) {
        const t = (b.events[b.pos] as T).time
        if (t < minTime) [min, minTime] = [i, t]
      }
    }
    if (min === -1) break
    const b = buffers[min] as (typeof buffers)[number]
    out.push(b.events[b.pos++] as T)
    if (b.pos >= b.events.length && !b.done) {
      if (out.length > 0) {
        yield out
        out = []
      }
      await refill(min)
    }
  }
  if (out.length > 0) yield out
}
