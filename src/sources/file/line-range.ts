import {closeSync, fstatSync, openSync, readSync} from 'node:fs'
import {FileChanged} from '../errors'
import type {AccessFields} from '../../model/parse-outcome'
import {EXAMPLES_PER_REASON, type RejectReason, type UnlistedRejections} from '../../model/rejection'
import type {NormalizeOptions} from '../../normalize/fields'
import {MAX_LINE} from './lines'
import {EventPacker} from '../parallel/event-codec'
import {type LineContext, normalizeLine, unfinishedParts} from './records'

/** Said of a line a container runtime split when its last part is not there. */
export const UNFINISHED = 'a line the container runtime split ends before its last part'

/** Where the records of one text line go. */
export interface LineSink {
  event(e: AccessFields, line: number): void
  reject(reason: RejectReason, line: number, detail?: string): void
}

/**
 * One line of a line-oriented file (NDJSON, one-line API pages, access lines): its events and
 * rejections. Blank lines are no record. Shared by the streaming reader and the byte-range reader,
 * so both count and reject alike.
 */
export function takeLine(text: string, line: number, tooLong: boolean, opts: NormalizeOptions, sink: LineSink, ctx?: LineContext): void {
  if (tooLong) {
    sink.reject('line-too-long', line, `line longer than ${MAX_LINE} characters`)
    return
  }
  if (text.trim() === '') return
  if (ctx) ctx.line = line
  for (const out of normalizeLine(text, opts, ctx)) {
    if (out.ok) sink.event(out.event, line)
    else sink.reject(out.reason, line, out.detail)
  }
}

/** A byte range of a plain file, as a parallel reader hands it out. */
export interface LineRange {
  path: string
  start: number
  end: number
  /** The file's size when the run began. */
  size: number
  /** The file's device and inode when the run began: a range that finds another file at the path reads nothing. */
  dev?: number
  ino?: number
}

/** A file cut into ranges of `chunkBytes` from its start, as the parallel reader hands them out. */
export function* byteRanges(path: string, size: number, chunkBytes: number, file?: {dev: number; ino: number}): Generator<LineRange> {
  const identity = file ? {dev: file.dev, ino: file.ino} : {}
  for (let start = 0; start < size; start += chunkBytes) yield {path, start, end: Math.min(size, start + chunkBytes), size, ...identity}
}

/** How much past the range end is read at a time to finish its last line. */
const TAIL_BLOCK = 64 * 1024
/** Bytes kept of a line too long to keep (only its start is shown). */
const TOO_LONG_KEPT = 256

/**
 * Reads the lines of a plain file that START in [start, end): the first is the one after the first
 * newline at or after start - 1 (the line before belongs to the range that holds its start), and the
 * last one is read past `end` to its newline. Cut this way, ranges that tile a file give every line
 * exactly once. Lines are numbered from 1 within the range; `lines` says how many started in it, so
 * the reader that puts ranges back in order can number them in the file. Line splitting, CRLF, the
 * byte-order mark of line 1 and over-long lines are handled as the streaming reader does.
 */
export function readLineRange(range: LineRange, maxLength: number, onLine: (text: string, line: number, tooLong: boolean) => void): number {
  const {start, end, size} = range
  if (start >= end || start >= size) return 0
  const fd = openRange(range.path)
  try {
    const now = fstatSync(fd)
    if (range.dev !== undefined && (now.dev !== range.dev || now.ino !== range.ino)) {
      throw new FileChanged('was replaced by another file at its path while read (renamed away, as logrotate\'s create does)')
    }
    if (now.size < size) throw cut(size, now.size)
    const from = start === 0 ? 0 : start - 1
    const buf = readAt(fd, from, Math.min(end, size) - from)
    if (buf.length < Math.min(end, size) - from) throw cut(size, from + buf.length)
    let p = 0
    if (start > 0) {
      const nl = buf.indexOf(10)
      if (nl === -1 || from + nl + 1 >= end) return 0
      p = nl + 1
    }
    let line = 0
    /** The line at [s, e) of b, which starts at byte `at` of the file. */
    const emit = (b: Buffer, s: number, e: number, at: number, overflow: boolean): void => {
      line++
      if (e > s && b[e - 1] === 13) e-- // CRLF
      if (overflow || e - s > maxLength) {
        onLine(b.toString('utf8', s, Math.min(e, s + 200)), line, true)
        return
      }
      let text = b.toString('utf8', s, e)
      if (at === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1)
      onLine(text, line, false)
    }
    for (;;) {
      const nl = buf.indexOf(10, p)
      if (nl !== -1) {
        emit(buf, p, nl, from + p, false)
        p = nl + 1
        if (from + p >= end) break
        continue
      }
      if (from + p >= size) break
      // The last line starts in the range and ends past it (or at the end of the file).
      const tail = readTail(fd, buf.subarray(p), from + buf.length, size, maxLength)
      emit(tail.bytes, 0, tail.bytes.length, from + p, tail.overflow)
      break
    }
    return line
  } finally {
    closeSync(fd)
  }
}

/**
 * The file a range is read from. The run found it there when it began: no file at its path now means
 * it was renamed away (logrotate's create, between its rename and the new file) or removed, which is
 * lost input like any other change, not a failure of the run.
 */
function openRange(path: string): number {
  try {
    return openSync(path, 'r')
  } catch (error: unknown) {
    if ((error as {code?: string}).code === 'ENOENT') throw new FileChanged('was renamed away or removed from its path while read (as logrotate\'s create does)')
    throw error
  }
}

/** A file that holds fewer bytes than when the run began: cut while read (logrotate's copytruncate). */
const cut = (size: number, now: number): FileChanged =>
  new FileChanged(`was cut while read: it held ${size} bytes when opened, and ${now} later (as logrotate's copytruncate does)`)

/**
 * The buffer ranges are read into, kept for the next range: a range's lines are decoded into
 * strings of their own, so its bytes are not needed once it is parsed. A fresh megabyte per range
 * would pile up outside the heap until the garbage collector next ran (tens of megabytes).
 */
let scratch: Buffer | undefined

/** `length` bytes at `position`, in the scratch buffer (valid until the next call) or, with `fresh`, a buffer of their own. */
function readAt(fd: number, position: number, length: number, fresh = false): Buffer {
  if (!fresh && (!scratch || scratch.length < length)) scratch = Buffer.allocUnsafe(Math.max(length, 1024 * 1024))
  const buf = fresh ? Buffer.allocUnsafe(length) : (scratch as Buffer).subarray(0, length)
  let got = 0
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, position + got)
    if (n === 0) break
    got += n
  }
  return got === length ? buf : buf.subarray(0, got)
}

/** A line begun in `head`, read on from `position` to its newline or the end of the file. */
function readTail(fd: number, head: Buffer, position: number, size: number, maxLength: number): {bytes: Buffer; overflow: boolean} {
  let overflow = head.length > maxLength + 1
  const parts: Buffer[] = [Buffer.from(overflow ? head.subarray(0, TOO_LONG_KEPT) : head)]
  let total = head.length
  while (position < size) {
    const block = readAt(fd, position, Math.min(TAIL_BLOCK, size - position), true)
    if (block.length === 0) throw cut(size, position)
    position += block.length
    const nl = block.indexOf(10)
    const piece = nl === -1 ? block : block.subarray(0, nl)
    if (!overflow) {
      parts.push(piece)
      total += piece.length
      // Keep only the start of an endless line.
      if (total > maxLength + 1) {
        overflow = true
        const kept = Buffer.concat(parts).subarray(0, TOO_LONG_KEPT)
        parts.length = 0
        parts.push(Buffer.from(kept))
      }
    }
    if (nl !== -1) break
  }
  return {bytes: Buffer.concat(parts), overflow}
}

/**
 * The records of a line range: its events packed (event-codec), and its rejections: the first
 * EXAMPLES_PER_REASON of each reason listed (numbered from 1 within the range), the rest counted.
 * A range of junk lines then costs a few counters, not an object per line handed to the main thread.
 */
export interface ParsedRange {
  buffer: ArrayBuffer
  rejections: {reason: RejectReason; line: number; detail?: string}[]
  /** Rejections past the first few of their reason, counted; absent when there are none. */
  unlisted?: UnlistedRejections
  /** Lines that start in the range (blank ones included). */
  lines: number
  /** Set when the file was no longer the one opened (see FileChanged): nothing of the range was read. */
  changed?: string
}

/** Reads and normalises the lines of a range (see readLineRange), packing each event as it comes. */
export function parseLineRange(range: LineRange, opts: NormalizeOptions, spares?: ArrayBuffer[]): ParsedRange {
  try {
    return packing(opts, (take) => readLineRange(range, MAX_LINE, take), spares)
  } catch (error: unknown) {
    if (!(error instanceof FileChanged)) throw error
    return {buffer: new EventPacker().finish(), rejections: [], lines: 0, changed: error.message}
  }
}

/**
 * Lines already split (and numbered) by a streaming reader, as a worker gets them from a gzip file:
 * normalised and packed like a range's. `tooLong` lists the indexes of the lines cut short.
 */
export interface LineBatch {
  texts: string[]
  numbers: number[]
  tooLong: number[]
}

/** Normalises and packs a batch of lines; `lines` is the batch's size (its numbers are the file's own). */
export function parseLines(batch: LineBatch, opts: NormalizeOptions, spares?: ArrayBuffer[]): ParsedRange {
  return packing(opts, (take) => {
    const long = new Set(batch.tooLong)
    batch.texts.forEach((text, i) => take(text, batch.numbers[i] as number, long.has(i)))
    return batch.texts.length
  }, spares)
}

/** Runs `read`, which hands each line to `take`, and packs what the lines hold (into one of `spares` if one fits: see EventPacker.finish). */
function packing(opts: NormalizeOptions, read: (take: (text: string, line: number, tooLong: boolean) => void) => number, spares?: ArrayBuffer[]): ParsedRange {
  const packer = new EventPacker()
  const rejections: ParsedRange['rejections'] = []
  const listed: UnlistedRejections = {}
  let unlisted: UnlistedRejections | undefined
  const sink: LineSink = {
    event: (e, line) => packer.add(e, line),
    reject: (reason, line, detail) => {
      const n = (listed[reason] ?? 0) + 1
      if (n <= EXAMPLES_PER_REASON) {
        listed[reason] = n
        rejections.push(detail ? {reason, line, detail} : {reason, line})
      } else {
        unlisted ??= {}
        unlisted[reason] = (unlisted[reason] ?? 0) + 1
      }
    },
  }
  // What a line tells about the next ones (a #Fields order, a container line's first parts) holds within the range.
  const ctx: LineContext = {}
  const lines = read((text, line, tooLong) => takeLine(text, line, tooLong, opts, sink, ctx))
  for (const line of unfinishedParts(ctx)) sink.reject('truncated-input', line, UNFINISHED)
  return {buffer: packer.finish(spares), rejections, lines, ...(unlisted ? {unlisted} : {})}
}
