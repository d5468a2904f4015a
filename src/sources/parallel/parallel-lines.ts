import {setImmediate as nextTurn} from 'node:timers/promises'
import type {AccessEvent} from '../../model/access-event'
import type {Rejection} from '../../model/rejection'
import type {NormalizeOptions} from '../../normalize/fields'
import {SourceError} from '../errors'
import {type LineBatch, type LineRange, parseLineRange, parseLines, type ParsedRange} from '../file/line-range'
import type {Line} from '../file/lines'
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

/** A range being parsed (by a worker, or here), or parsed. */
interface Ahead {
  done: boolean
  parsed?: ParsedRange
  error?: unknown
  settled?: Promise<void>
}

/**
 * The records of a plain line file, read as byte ranges by the pool's workers (and by this thread
 * while it would otherwise wait), handed on in file order with their line numbers in the file.
 * At most `inFlight` ranges (plus the one parsed here) are out at once, so memory stays bounded
 * whatever the file's size.
 */
export async function* parallelLineBatches(
  path: string, displayName: string, size: number, opts: NormalizeOptions, p: ParallelReading,
): AsyncGenerator<{events: AccessEvent[]; rejections: Rejection[]}> {
  const count = Math.ceil(size / p.chunkBytes)
  const rangeOf = (k: number): LineRange => ({path, start: k * p.chunkBytes, end: Math.min(size, (k + 1) * p.chunkBytes), size})
  const ahead = new Map<number, Ahead>()
  const owner = {}
  let next = 0
  let outstanding = 0
  const submit = (k: number): void => {
    const a: Ahead = {done: false}
    outstanding++
    a.settled = p.pool.parse(rangeOf(k), opts, owner).then(
      (parsed) => void Object.assign(a, {done: true, parsed}),
      (error: unknown) => void Object.assign(a, {done: true, error}),
    ).finally(() => outstanding--)
    ahead.set(k, a)
  }
  // Keep every worker fed (a few jobs each), never reading further ahead than `inFlight`.
  const topUp = (k: number): void => {
    while (next < count && outstanding < p.pool.capacity && next - k < p.inFlight) submit(next++)
  }
  let lineOffset = 0
  try {
    for (let k = 0; k < count; k++) {
      topUp(k)
      if (!ahead.has(k)) submit(next++)
      let a = ahead.get(k) as Ahead
      // The next range is not back yet: parse a later one here rather than wait idle.
      while (!a.done && p.helpOnMain && next < count && next - k < p.inFlight) {
        const k2 = next++
        let parsed: ParsedRange | undefined
        let error: unknown
        try {
          parsed = parseLineRange(rangeOf(k2), opts)
        } catch (e: unknown) {
          error = e
        }
        ahead.set(k2, {done: true, parsed, error})
        await nextTurn() // let the workers' answers in
        topUp(k)
        a = ahead.get(k) as Ahead
      }
      if (!a.done) await a.settled
      ahead.delete(k)
      if (a.error !== undefined) throw asSourceError(a.error, displayName)
      const offset = lineOffset
      const parsed = a.parsed as ParsedRange
      const events = decodeEvents(parsed.buffer, displayName, offset)
      const rejections = parsed.rejections.map((r) => rejection(r, displayName, offset))
      const lines = parsed.lines
      lineOffset += lines
      yield {events, rejections}
    }
  } finally {
    p.pool.drop(owner)
  }
}

/**
 * The records of lines a streaming reader splits (a gzip file: it can only be read from the start),
 * parsed in batches of about `chunkBytes` of text by the pool's workers, and by this thread while
 * it would otherwise wait (zlib inflates on libuv's threads; this thread only splits and decodes
 * lines), handed on in order. At most `inFlight` batches are read ahead. A stream that fails (a
 * truncated gzip) ends the records read before the failure, then throws its error, as the
 * single-thread reader does.
 */
export async function* streamedLineBatches(
  source: AsyncIterable<Line[]>, displayName: string, opts: NormalizeOptions, p: ParallelReading,
): AsyncGenerator<{events: AccessEvent[]; rejections: Rejection[]}> {
  const owner = {}
  /** Batches in input order: waiting to be parsed (`lines`), being parsed, or parsed. */
  const out: (Ahead & {lines?: LineBatch})[] = []
  let outstanding = 0
  let batch: LineBatch = {texts: [], numbers: [], tooLong: []}
  let bytes = 0
  const cut = (): void => {
    out.push({done: false, lines: batch})
    batch = {texts: [], numbers: [], tooLong: []}
    bytes = 0
  }
  // Keep every worker fed (a few jobs each), in input order.
  const topUp = (): void => {
    for (const a of out) {
      if (outstanding >= p.pool.capacity) return
      const lines = a.lines
      if (!lines) continue
      a.lines = undefined
      outstanding++
      a.settled = p.pool.parseLines(lines, opts, displayName, owner).then(
        (parsed) => void Object.assign(a, {done: true, parsed}),
        (error: unknown) => void Object.assign(a, {done: true, error}),
      ).finally(() => outstanding--)
    }
  }
  const it = source[Symbol.asyncIterator]()
  let ended = false
  let failure: {error: unknown} | undefined
  try {
    for (;;) {
      while (!ended && out.length < p.inFlight) {
        let next: IteratorResult<Line[]>
        try {
          next = await it.next()
        } catch (error: unknown) {
          failure = {error}
          ended = true
          break
        }
        if (next.done) {
          ended = true
          break
        }
        for (const l of next.value) {
          if (l.tooLong) batch.tooLong.push(batch.texts.length)
          batch.texts.push(l.text)
          batch.numbers.push(l.line)
          bytes += l.text.length
          if (bytes >= p.chunkBytes) cut()
        }
        topUp()
      }
      if (ended && batch.texts.length > 0) cut()
      topUp()
      const head = out[0]
      if (!head) break
      // The next batch is not back yet: parse the last one waiting here rather than wait idle (the
      // next one itself when no worker took it: the pool may be busy with other files).
      while (!head.done) {
        let last: (typeof out)[number] | undefined
        for (let i = out.length - 1; i >= 0 && !last; i--) if (out[i]?.lines && (p.helpOnMain || i === 0)) last = out[i]
        if (!last) break
        const lines = last.lines as LineBatch
        last.lines = undefined
        try {
          Object.assign(last, {done: true, parsed: parseLines(lines, opts)})
        } catch (error: unknown) {
          Object.assign(last, {done: true, error})
        }
        await nextTurn() // let the workers' answers in
        topUp()
      }
      if (!head.done) await head.settled
      out.shift()
      if (head.error !== undefined) throw asSourceError(head.error, displayName)
      const parsed = head.parsed as ParsedRange
      yield {events: decodeEvents(parsed.buffer, displayName), rejections: parsed.rejections.map((r) => rejection(r, displayName, 0))}
    }
    if (failure) throw failure.error
  } finally {
    p.pool.drop(owner)
  }
}

function rejection(r: ParsedRange['rejections'][number], file: string, offset: number): Rejection {
  return {reason: r.reason, location: {file, line: r.line + offset}, ...(r.detail ? {detail: r.detail} : {})}
}

function asSourceError(error: unknown, file: string): Error {
  if (error instanceof SourceError) return error
  return new SourceError(`${file}: reading failed (${error instanceof Error ? error.message : String(error)})`, file)
}
