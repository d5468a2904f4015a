import {StringDecoder} from 'node:string_decoder'
import type {RecordLocation} from '../../model/access-event'
import {EXAMPLES_PER_REASON} from '../../model/rejection'
import type {SkippedLocation} from '../../model/report'
import type {RumEvent} from '../../model/rum'
import {normalizeRum, type RumOutcome, type RumSkipReason} from '../../normalize/rum'
import {snippet} from '../../normalize/text'
import {FileChanged} from '../errors'
import {detectFormat} from '../file/file-source'
import {readHead} from '../file/head'
import type {NamedInput} from '../file/inputs'
import {JsonItemSplitter, type JsonProblem} from '../file/json-documents'
import {type Line, lines, MAX_LINE, StreamCut} from '../file/lines'
import {openInput} from '../file/open'
import {isBinary, NOT_JSON, parseJson, recordsOf} from '../file/records'

/**
 * Files of Datadog RUM events (`--rum`): saved pages of the RUM events API (one, several
 * concatenated, pretty-printed or one per line), NDJSON of its items or of bare events, a JSON array
 * of either; plain or gzip. Read as FileSource reads JSON logs (sources/file): streamed, each record
 * parsed on its own, so a broken one costs itself only, and every record is accounted for: used,
 * ignored (RUM of a type not read: actions, long tasks, vitals) or skipped with its reason and line.
 */

export interface RumRejection {
  reason: RumSkipReason
  location: RecordLocation
  /** A short description for humans. */
  detail?: string
}

export interface RumBatch {
  events: RumEvent[]
  rejections: RumRejection[]
  /** Records of RUM types not read (action, long_task, vital…): valid RUM, not skipped. */
  ignored: number
}

/**
 * The bytes of a JSON document decoded 32 KB at a time, as FileSource decodes them (larger strings
 * go to V8's large-object space, and decoding megabytes whole is slower per byte).
 */
const DECODED_BYTES = 32 * 1024

/** Records handed on at most in one batch: a file of junk lines costs batches, not one list of all of them. */
const BATCH_RECORDS = 16 * 1024

/** What a problem of a JSON document is counted as (as FileSource counts it). */
const DOCUMENT_PROBLEMS = {
  truncated: {reason: 'truncated-input', detail: 'the JSON document ends before it closes'},
  'too-long': {reason: 'line-too-long', detail: `a JSON record longer than ${MAX_LINE} characters`},
} as const

/**
 * One file's RUM events and rejections, in batches, in file order, never holding more of the file
 * than the reader's buffer and the record being parsed (a line, or one item of a page). Throws the InputError of openInput for a file that cannot
 * be read (missing, a directory, an archive); a file cut short (a truncated gzip, cut while read)
 * ends with a `truncated-input` rejection at the line reached.
 */
export async function* rumBatches(path: string, displayName = path): AsyncGenerator<RumBatch> {
  const input = await openInput(path, displayName)
  try {
    // The head tells NDJSON (read line by line: a broken line costs itself only) from documents
    // (pretty-printed or concatenated pages, an array on one line too long to hold: streamed item by item).
    const head = await readHead(input.chunks)
    const reader = new RumReader(displayName)
    if (detectFormat(head.lines) === 'json-documents') yield* reader.documents(head.chunks)
    else yield* reader.lines(head.chunks)
  } finally {
    input.close()
  }
}

class RumReader {
  private batch = newBatch()

  constructor(private readonly file: string) {}

  /** Line by line: each line a record (an item, a bare event, a page or an array of them); junk lines counted one by one. */
  async *lines(chunks: AsyncIterable<Buffer>): AsyncGenerator<RumBatch> {
    try {
      for await (const chunk of lines(chunks, MAX_LINE)) {
        for (const l of chunk) this.line(l)
        yield this.take()
      }
    } catch (error: unknown) {
      if (!(error instanceof StreamCut)) throw error
      this.cut(error.line, error.cause)
      yield this.take()
    }
  }

  /** JSON documents, from the bytes (a page may be one line of any length), decoded DECODED_BYTES at a time. */
  async *documents(chunks: AsyncIterable<Buffer>): AsyncGenerator<RumBatch> {
    // The text being written and its first line: where text outside any document is looked at.
    let piece = ''
    let pieceLine = 1
    const splitter = new JsonItemSplitter(
      (item) => {
        const value = parseJson(item.text)
        if (value !== NOT_JSON) this.values(value, item.line)
        else if (isBinary(item.text)) this.reject('binary', item.line, 'binary data')
        else this.reject('invalid-json', item.line, 'a record is not valid JSON')
      },
      (p) => this.problem(p, piece, pieceLine),
      MAX_LINE,
    )
    const decoder = new StringDecoder('utf8')
    const it = chunks[Symbol.asyncIterator]()
    let first = true
    for (;;) {
      let next: IteratorResult<Buffer>
      try {
        next = await it.next()
      } catch (error: unknown) {
        // What the splitter holds of a record cut off is counted here, once: the file ends early.
        this.cut(splitter.line, error)
        yield this.take()
        return
      }
      if (next.done) break
      const chunk = next.value
      for (let at = 0; at < chunk.length; at += DECODED_BYTES) {
        piece = decoder.write(chunk.subarray(at, at + DECODED_BYTES))
        if (first && piece.length > 0) {
          piece = piece.replace(/^\uFEFF/, '')
          first = false
        }
        pieceLine = splitter.line
        splitter.write(piece)
        if (this.size() >= BATCH_RECORDS) yield this.take()
      }
    }
    piece = decoder.end()
    pieceLine = splitter.line
    splitter.write(piece)
    splitter.end()
    yield this.take()
  }

  private line(l: Line): void {
    if (l.tooLong) return this.reject('line-too-long', l.line, `line longer than ${MAX_LINE} characters`)
    const text = l.line === 1 ? l.text.replace(/^\uFEFF/, '') : l.text
    if (text.trim() === '') return
    // Parsed first: a RUM error's message may quote a U+FFFD a browser met ("Invalid or unexpected token"); only text that is no JSON is junk.
    const value = parseJson(text)
    if (value !== NOT_JSON) return this.values(value, l.line)
    if (isBinary(text)) this.reject('binary', l.line, 'binary data')
    else this.reject('invalid-json', l.line, `not JSON: ${snippet(text)}`)
  }

  /** A parsed value's records: a page's items, an array's elements, or the value itself. */
  private values(value: unknown, line: number): void {
    for (const r of recordsOf(value)) this.outcome(normalizeRum(r), line)
  }

  private outcome(out: RumOutcome, line: number): void {
    if (out.ok) this.batch.events.push({...out.event, location: {file: this.file, line}})
    else if ('ignored' in out) this.batch.ignored++
    else this.reject(out.reason, line, out.detail)
  }

  /**
   * Text outside any document (a log line, a note, binary junk between pages), a document cut off,
   * a record over the limit. Text outside is told binary or not by its line, found in the piece
   * being written (the splitter reports it while writing that piece, at most once a line).
   */
  private problem(p: JsonProblem, piece: string, pieceLine: number): void {
    if (p.kind !== 'garbage') return this.reject(DOCUMENT_PROBLEMS[p.kind].reason, p.line, DOCUMENT_PROBLEMS[p.kind].detail)
    const text = lineOf(piece, pieceLine, p.line)
    if (isBinary(text)) this.reject('binary', p.line, 'binary data')
    else this.reject('invalid-json', p.line, `text outside any JSON document${text.trim() === '' ? '' : `: ${snippet(text.trim())}`}`)
  }

  /** The input ended early (a truncated or corrupt gzip, a file cut while read): one rejection where it did. */
  private cut(line: number, error: unknown): void {
    const detail = error instanceof FileChanged ? error.message : `input ends early: ${error instanceof Error ? error.message : String(error)}`
    this.reject('truncated-input', line, detail)
  }

  private reject(reason: RumSkipReason, line: number, detail?: string): void {
    this.batch.rejections.push({reason, location: {file: this.file, line}, ...(detail ? {detail} : {})})
  }

  private size(): number {
    return this.batch.events.length + this.batch.rejections.length + this.batch.ignored
  }

  private take(): RumBatch {
    const out = this.batch
    this.batch = newBatch()
    return out
  }
}

const newBatch = (): RumBatch => ({events: [], rejections: [], ignored: 0})

/** Line `line` of a piece of text whose first line is `first`, as far as the piece holds it (its first 200 characters). */
function lineOf(piece: string, first: number, line: number): string {
  let start = 0
  for (let l = first; l < line; l++) {
    const nl = piece.indexOf('\n', start)
    if (nl === -1) return ''
    start = nl + 1
  }
  const nl = piece.indexOf('\n', start)
  return piece.slice(start, Math.min(nl === -1 ? piece.length : nl, start + 200))
}

/** What was read of one file: every record is used, ignored or skipped (records = used + ignored + skipped). */
export interface RumFileStats {
  file: string
  records: number
  used: number
  ignored: number
  skipped: number
}

export interface RumRead {
  /** Every file's events, in time order (oldest first; RUM search pages come newest first by default). */
  events: RumEvent[]
  files: RumFileStats[]
  /** The skipped records: counts by reason, and the first few of each reason where they are. */
  skipped: {total: number; byReason: Record<string, number>; examples: SkippedLocation[]}
}

/**
 * The RUM events of every file (a path, or an input named apart from where it is read, as
 * sources/file/inputs gives standard input). An event read already (its id, time and session: pages
 * that overlap saved twice, a file given twice) is skipped as a `duplicate`; the time and session
 * are part of what makes it the same, so events that only share an id (a producer's made-up ids)
 * are all kept. Says through `onNotice` when a file held no RUM view, resource or error event.
 */
export async function readRumFiles(inputs: readonly (string | NamedInput)[], onNotice?: (m: string) => void): Promise<RumRead> {
  const events: RumEvent[] = []
  const files: RumFileStats[] = []
  const skipped: RumRead['skipped'] = {total: 0, byReason: {}, examples: []}
  const seen = new Set<string>()
  const shared = new Shared()
  for (const input of inputs) {
    const {name, path} = typeof input === 'string' ? {name: input, path: input} : input
    const stats: RumFileStats = {file: name, records: 0, used: 0, ignored: 0, skipped: 0}
    files.push(stats)
    const reasons: Record<string, number> = {}
    const skip = (r: RumRejection): void => {
      stats.records++
      stats.skipped++
      skipped.total++
      reasons[r.reason] = (reasons[r.reason] ?? 0) + 1
      const n = (skipped.byReason[r.reason] = (skipped.byReason[r.reason] ?? 0) + 1)
      if (n <= EXAMPLES_PER_REASON) skipped.examples.push({reason: r.reason, file: r.location.file, line: r.location.line, ...(r.detail ? {detail: r.detail} : {})})
    }
    for await (const batch of rumBatches(path, name)) {
      for (const r of batch.rejections) skip(r)
      stats.records += batch.ignored
      stats.ignored += batch.ignored
      for (const e of batch.events) {
        if (e.id !== undefined) {
          const key = `${e.time} ${e.session} ${e.id}`
          if (seen.has(key)) {
            skip({reason: 'duplicate', location: e.location, detail: 'this RUM event (its id, time and session) was read already'})
            continue
          }
          seen.add(key)
        }
        stats.records++
        stats.used++
        events.push(shared.event(e))
      }
    }
    if (stats.records === 0) onNotice?.(`${name}: no RUM events in it (the file is empty)`)
    else if (stats.used === 0) onNotice?.(`${name}: none of its ${stats.records} records is a RUM view, resource or error event: ${whatInstead(stats, reasons)}`)
  }
  // Stable: events of one time keep the order they were read in.
  events.sort((a, b) => a.time - b.time)
  return {events, files, skipped}
}

/**
 * Text that repeats from event to event (a session's id and agent, a view's id and URL, the page's
 * version, an error's message) kept once: JSON.parse makes every string anew, and a day of RUM is
 * millions of events, most of their text the same as their neighbours'. The map holds only strings
 * the events keep anyway.
 */
class Shared {
  private readonly texts = new Map<string, string>()

  event(e: RumEvent): RumEvent {
    e.session = this.text(e.session)
    e.view = this.text(e.view)
    if (e.viewUrl !== undefined) e.viewUrl = this.text(e.viewUrl)
    if (e.loadingType !== undefined) e.loadingType = this.text(e.loadingType)
    if (e.version !== undefined) e.version = this.text(e.version)
    if (e.service !== undefined) e.service = this.text(e.service)
    if (e.application !== undefined) e.application = this.text(e.application)
    if (e.user !== undefined) e.user = this.text(e.user)
    if (e.clientIp !== undefined) e.clientIp = this.text(e.clientIp)
    if (e.userAgent !== undefined) e.userAgent = this.text(e.userAgent)
    if (e.resource?.type !== undefined) e.resource.type = this.text(e.resource.type)
    if (e.error !== undefined) {
      e.error.message = this.text(e.error.message)
      if (e.error.source !== undefined) e.error.source = this.text(e.error.source)
      if (e.error.type !== undefined) e.error.type = this.text(e.error.type)
    }
    return e
  }

  private text(s: string): string {
    const kept = this.texts.get(s)
    if (kept !== undefined) return kept
    this.texts.set(s, s)
    return s
  }
}

/** What a file held instead of events: records of other RUM types, and the skipped ones by reason, the most first. */
function whatInstead(stats: RumFileStats, reasons: Record<string, number>): string {
  const byReason = Object.entries(reasons).sort((a, b) => b[1] - a[1]).map(([r, n]) => `${r} ${n}`).join(', ')
  return [stats.ignored > 0 ? `${stats.ignored} of other RUM types` : '', stats.skipped > 0 ? `${stats.skipped} skipped (${byReason})` : ''].filter((x) => x !== '').join(', ')
}
