import {setImmediate as nextTurn} from 'node:timers/promises'
import type {Rejection} from '../../model/rejection'
import type {SourceBatch} from '../source'
import type {NormalizeOptions} from '../../normalize/fields'
import {FileChanged, SourceError} from '../errors'
import type {FileKind} from '../file/open'
import {byteRanges, type LineBatch, type LineRange, parseLineRange, parseLines, type ParsedRange} from '../file/line-range'
import {type Line, StreamCut} from '../file/lines'
import {decodeEvents} from './event-codec'
import type {ParsePool} from './parse-pool'

/** How a plain line file is read in parallel. */
export interface ParallelReading {
  pool: ParsePool
  /** Bytes per range handed to a worker. */
  chunkBytes: number
  /** Files smaller than this are read on the main thread alone (a worker costs more than it saves). */
  minFileBytes: number
  /** Ranges parsed (or being parsed) ahead of the one the analysis reads next. */
  inFlight: number
  /** Parse a later range on the main thread while the next one is not back yet. */
  helpOnMain: boolean
  /** Gzip line files smaller than this (compressed) are parsed on the main thread alone. */
  minGzipBytes: number
}

/**
 * The records of a plain line file, read as byte ranges by the pool's workers (and by this thread
 * while it would otherwise wait), handed on in file order with their line numbers in the file.
 */
export async function* parallelLineBatches(
  path: string, displayName: string, kind: Pick<FileKind, 'size' | 'dev' | 'ino'>, opts: NormalizeOptions, p: ParallelReading,
  read: {bytes: number} = {bytes: 0},
): AsyncGenerator<SourceBatch> {
  const parser: Parser<LineRange> = {there: (range, owner) => p.pool.parse(range, opts, owner), here: (range) => parseLineRange(range, opts, p.pool.spares)}
  // Ranges come back in the order they were handed out: the end of the one handed on is the bytes read.
  const ends: number[] = []
  const ranges = (function* (): Generator<LineRange> {
    for (const r of byteRanges(path, kind.size, p.chunkBytes, kind)) {
      ends.push(r.end)
      yield r
    }
  })()
  // A range numbers its lines from 1: the ones before it, counted in order, make them the file's.
  let lineOffset = 0
  for await (const parsed of inOrder(ranges, parser, p, displayName)) {
    // The range found another file at the path, or this one cut: its lines and the rest are lost input.
    if (parsed.changed !== undefined) throw new StreamCut(lineOffset + 1, new FileChanged(`changed while read: ${displayName} ${parsed.changed}`))
    read.bytes = Math.max(read.bytes, ends.shift() ?? read.bytes)
    yield unpack(parsed, displayName, lineOffset, p.pool)
    lineOffset += parsed.lines
  }
}

/**
 * The records of lines a streaming reader splits (a gzip file: it can only be read from the start),
 * parsed in batches of about `chunkBytes` of text (zlib inflates on libuv's threads; this thread
 * only splits and decodes lines), handed on in order. A stream that fails (a truncated gzip) ends
 * the records read before the failure, then throws its error, as the single-thread reader does.
 */
export async function* streamedLineBatches(
  source: AsyncIterable<Line[]>, displayName: string, opts: NormalizeOptions, p: ParallelReading,
): AsyncGenerator<SourceBatch> {
  const parser: Parser<LineBatch> = {there: (batch, owner) => p.pool.parseLines(batch, opts, displayName, owner), here: (batch) => parseLines(batch, opts, p.pool.spares)}
  for await (const parsed of inOrder(batchesOf(source, p.chunkBytes), parser, p, displayName)) yield unpack(parsed, displayName, 0, p.pool)
}

/** Lines gathered into batches of about `chunkBytes` of text; the lines read before a failure of the source come before its error. */
async function* batchesOf(source: AsyncIterable<Line[]>, chunkBytes: number): AsyncGenerator<LineBatch> {
  let batch: LineBatch = {texts: [], numbers: [], tooLong: []}
  let bytes = 0
  try {
    for await (const lines of source) {
      for (const l of lines) {
        if (l.tooLong) batch.tooLong.push(batch.texts.length)
        batch.texts.push(l.text)
        batch.numbers.push(l.line)
        bytes += l.text.length
        if (bytes >= chunkBytes) {
          yield batch
          batch = {texts: [], numbers: [], tooLong: []}
          bytes = 0
        }
      }
    }
  } catch (error: unknown) {
    if (batch.texts.length > 0) yield batch
    throw error
  }
  if (batch.texts.length > 0) yield batch
}

/** How a job is parsed: by a worker of the pool (`owner` groups a reader's jobs), or on this thread. */
interface Parser<J> {
  there(job: J, owner: object): Promise<ParsedRange>
  here(job: J): ParsedRange
}

/** A job waiting (`job`), being parsed, or parsed. */
interface Ahead<J> {
  job?: J
  done: boolean
  parsed?: ParsedRange
  error?: unknown
  settled?: Promise<void>
}

/**
 * Parses jobs with the pool's workers, and on this thread while the next result is not back yet
 * (the job furthest ahead, so as not to race the workers for the next one), and hands the results
 * on in the jobs' order. At most `inFlight` jobs are taken ahead, and the workers hold at most the
 * pool's capacity, so memory stays bounded whatever the input's size. When the jobs' source throws,
 * the results of the jobs taken before come first, then its error.
 */
async function* inOrder<J>(jobs: Iterator<J> | AsyncIterator<J>, parser: Parser<J>, p: ParallelReading, displayName: string): AsyncGenerator<ParsedRange> {
  const owner = {}
  const out: Ahead<J>[] = []
  let outstanding = 0
  // Keep every worker fed (a few jobs each), in order.
  const topUp = (): void => {
    for (const a of out) {
      if (outstanding >= p.pool.capacity) return
      const job = a.job
      if (job === undefined) continue
      a.job = undefined
      outstanding++
      a.settled = parser.there(job, owner).then(
        (parsed) => void Object.assign(a, {done: true, parsed}),
        (error: unknown) => void Object.assign(a, {done: true, error}),
      ).finally(() => outstanding--)
    }
  }
  let ended = false
  let failure: {error: unknown} | undefined
  try {
    for (;;) {
      while (!ended && out.length < p.inFlight) {
        let next: IteratorResult<J> | undefined
        try {
          next = await jobs.next()
        } catch (error: unknown) {
          failure = {error}
        }
        if (failure || next?.done !== false) {
          ended = true
          break
        }
        out.push({job: next.value, done: false})
        topUp()
      }
      const head = out[0]
      if (!head) break
      // While the head is not back: first a turn of the event loop (the analysis runs on this
      // thread in one chain of microtasks, in which no worker's answer is taken in: a head a worker
      // has parsed would be parsed here again while that worker waits), then, if it is still not
      // back, the last job waiting is parsed here (the next one itself when no worker took it: the
      // pool may be busy with other files).
      while (!head.done) {
        await nextTurn()
        topUp()
        if (head.done) break
        let last: Ahead<J> | undefined
        for (let i = out.length - 1; i >= 0 && !last; i--) if (out[i]?.job !== undefined && (p.helpOnMain || i === 0)) last = out[i]
        if (!last) break
        const job = last.job as J
        last.job = undefined
        try {
          Object.assign(last, {done: true, parsed: parser.here(job)})
        } catch (error: unknown) {
          Object.assign(last, {done: true, error})
        }
      }
      if (!head.done) await head.settled
      out.shift()
      if (head.error !== undefined) throw asSourceError(head.error, displayName)
      yield head.parsed as ParsedRange
    }
    if (failure) throw failure.error
  } finally {
    p.pool.drop(owner)
  }
}

/**
 * A parsed job's events and rejections, numbered in the file (`lineOffset` added) and named by it.
 * Once the analysis has released every event, their buffer goes back to the pool to be packed into again.
 */
function unpack(parsed: ParsedRange, file: string, lineOffset: number, pool: ParsePool): SourceBatch {
  const events = decodeEvents(parsed.buffer, file, lineOffset, pool.recycle)
  const rejections = parsed.rejections.map((r) => rejection(r, file, lineOffset))
  return parsed.unlisted ? {events, rejections, unlisted: parsed.unlisted} : {events, rejections}
}

function rejection(r: ParsedRange['rejections'][number], file: string, offset: number): Rejection {
  return {reason: r.reason, location: {file, line: r.line + offset}, ...(r.detail ? {detail: r.detail} : {})}
}

function asSourceError(error: unknown, file: string): Error {
  if (error instanceof SourceError) return error
  return new SourceError(`${file}: reading failed (${error instanceof Error ? error.message : String(error)})`, file)
}
