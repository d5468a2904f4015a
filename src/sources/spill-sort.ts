import {closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync} from 'node:fs'
import {trackTemporary} from './temporaries'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {AccessEvent} from '../model/access-event'
import {temporaryFileError} from './errors'
import {decodeEvents, encodeEvents} from './parallel/event-codec'

export interface SpillOptions {
  /** Events sorted in memory at a time; a source with more is sorted in runs spilled to disk. */
  runEvents: number
  /** Events per frame of a spilled run: what the merge holds of each run. */
  frameEvents: number
  /** Runs merged at once (open files); more runs are first merged into fewer, longer ones. */
  fanIn: number
  /** Where the runs go (a fresh directory inside it, removed afterwards). */
  dir?: string
}

export const DEFAULT_SPILL: SpillOptions = {runEvents: 100_000, frameEvents: 2048, fanIn: 64}

/**
 * A source's events in time order, whatever order they came in (a newest-first Log Explorer export,
 * concatenated files), without holding the source in memory: runs of `runEvents` events are sorted
 * and written to temporary files (packed as the parallel reader packs them), then merged, reading
 * each run a frame at a time. A source that fits in one run is sorted in memory and never touches
 * the disk. Memory is bounded by the run size and the number of runs times a frame.
 */
export async function* sortedBySpilling(source: AsyncIterable<AccessEvent[]>, opts: SpillOptions = DEFAULT_SPILL): AsyncGenerator<AccessEvent[]> {
  let run: AccessEvent[] = []
  let spill: Spill | undefined
  try {
    for await (const batch of source) {
      for (const e of batch) {
        run.push(e)
        if (run.length >= opts.runEvents) {
          spill ??= new Spill(opts)
          spill.write(sortByTime(run))
          run = []
        }
      }
    }
    if (!spill) {
      const all = sortByTime(run)
      for (let i = 0; i < all.length; i += opts.frameEvents) yield all.slice(i, i + opts.frameEvents)
      return
    }
    if (run.length > 0) spill.write(sortByTime(run))
    run = []
    yield* spill.merged()
  } finally {
    spill?.remove()
  }
}

function sortByTime(events: AccessEvent[]): AccessEvent[] {
  return events.sort((a, b) => a.time - b.time)
}

/** A file of frames: [u32 byte length of the file name][name][u32 byte length of the batch][batch]. */
class Spill {
  private readonly dir: string
  private runs: string[] = []
  private next = 0

  constructor(private readonly opts: SpillOptions) {
    try {
      this.dir = mkdtempSync(join(opts.dir ?? tmpdir(), 'skewscan-sort-'))
    } catch (error: unknown) {
      throw temporaryFileError(error, opts.dir ?? tmpdir(), 'the sorted runs of an input out of time order')
    }
    this.untrack = trackTemporary(this.dir)
  }

  private readonly untrack: () => void

  /** Writes one sorted run. */
  write(sorted: readonly AccessEvent[]): void {
    const path = join(this.dir, `run-${this.next++}`)
    try {
      const fd = openSync(path, 'w')
      try {
        for (let i = 0; i < sorted.length; i += this.opts.frameEvents) writeFrame(fd, sorted.slice(i, i + this.opts.frameEvents))
      } finally {
        closeSync(fd)
      }
    } catch (error: unknown) {
      throw temporaryFileError(error, this.opts.dir ?? tmpdir(), 'the sorted runs of an input out of time order')
    }
    this.runs.push(path)
  }

  /** The runs merged in time order; first into fewer runs while there are more than fanIn. */
  async *merged(): AsyncGenerator<AccessEvent[]> {
    while (this.runs.length > this.opts.fanIn) {
      const group = this.runs.splice(0, this.opts.fanIn)
      const path = join(this.dir, `run-${this.next++}`)
      const fd = openSync(path, 'w')
      try {
        for (const frame of mergeRuns(group, this.opts.frameEvents)) writeFrame(fd, frame)
      } finally {
        closeSync(fd)
      }
      for (const p of group) rmSync(p, {force: true})
      this.runs.push(path)
    }
    yield* mergeRuns(this.runs, this.opts.frameEvents)
  }

  remove(): void {
    rmSync(this.dir, {recursive: true, force: true})
    this.untrack()
  }
}

function writeFrame(fd: number, events: readonly AccessEvent[]): void {
  // A run is one source's events, but nothing here relies on them sharing a file name.
  for (let i = 0; i < events.length;) {
    const file = (events[i] as AccessEvent).location.file
    let j = i + 1
    while (j < events.length && (events[j] as AccessEvent).location.file === file) j++
    const batch = Buffer.from(encodeEvents(events.slice(i, j)))
    const name = Buffer.from(file, 'utf8')
    const head = Buffer.alloc(4)
    head.writeUInt32LE(name.length)
    writeAll(fd, head)
    writeAll(fd, name)
    head.writeUInt32LE(batch.length)
    writeAll(fd, head)
    writeAll(fd, batch)
    i = j
  }
}

function writeAll(fd: number, buf: Buffer): void {
  for (let off = 0; off < buf.length;) off += writeSync(fd, buf, off, buf.length - off)
}

/** Reads a run back frame by frame. */
class RunReader {
  private fd: number | undefined
  private position = 0
  events: AccessEvent[] = []
  pos = 0

  constructor(path: string) {
    this.fd = openSync(path, 'r')
  }

  /** Loads the next frame; false at the end of the run (the file is then closed). */
  load(): boolean {
    const nameLength = this.u32()
    if (nameLength === undefined) {
      this.close()
      return false
    }
    const file = this.bytes(nameLength).toString('utf8')
    // Each frame in a buffer of its own: the decoded events keep their frame alive, and only it.
    this.events = decodeEvents(this.bytes(this.u32() ?? 0).buffer as ArrayBuffer, file)
    this.pos = 0
    return true
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }

  private u32(): number | undefined {
    const b = Buffer.alloc(4)
    const n = readSync(this.fd as number, b, 0, 4, this.position)
    if (n === 0) return undefined
    if (n !== 4) throw new Error('a sorted run ends in the middle of a frame')
    this.position += 4
    return b.readUInt32LE(0)
  }

  private bytes(length: number): Buffer {
    const b = Buffer.from(new ArrayBuffer(length))
    for (let got = 0; got < length;) {
      const n = readSync(this.fd as number, b, got, length - got, this.position + got)
      if (n === 0) throw new Error('a sorted run ends in the middle of a frame')
      got += n
    }
    this.position += length
    return b
  }
}

/** K-way merge of sorted runs, in frames of at most frameEvents events. */
function* mergeRuns(paths: readonly string[], frameEvents: number): Generator<AccessEvent[]> {
  const heap: RunReader[] = []
  const time = (r: RunReader): number => (r.events[r.pos] as AccessEvent).time
  const down = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1
      if (l >= heap.length) return
      const r = l + 1
      const c = r < heap.length && time(heap[r] as RunReader) < time(heap[l] as RunReader) ? r : l
      if (time(heap[c] as RunReader) >= time(heap[i] as RunReader)) return
      ;[heap[i], heap[c]] = [heap[c] as RunReader, heap[i] as RunReader]
      i = c
    }
  }
  const readers = paths.map((p) => new RunReader(p))
  try {
    for (const reader of readers) if (reader.load()) heap.push(reader)
    for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i)
    let out: AccessEvent[] = []
    while (heap.length > 0) {
      const top = heap[0] as RunReader
      out.push(top.events[top.pos++] as AccessEvent)
      if (top.pos >= top.events.length && !top.load()) {
        const last = heap.pop() as RunReader
        if (heap.length === 0) break
        if (last !== top) heap[0] = last
      }
      down(0)
      if (out.length >= frameEvents) {
        yield out
        out = []
      }
    }
    if (out.length > 0) yield out
  } finally {
    for (const reader of readers) reader.close()
  }
}
