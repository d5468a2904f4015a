import type {AccessEvent} from '../../model/access-event'
import type {ParseOutcome} from '../../model/parse-outcome'
import {EXAMPLES_PER_REASON, type Rejection, type UnlistedRejections} from '../../model/rejection'
import {looksLikeAccessLine} from '../../normalize/access-line'
import {JSON_FORMATS, nginxText, TEXT_FORMATS, textFormatById, textFormatOf} from '../../normalize/formats'
import {normalizeDatadog} from '../../normalize/datadog'
import {applyMapping, type NormalizeOptions} from '../../normalize/fields'
import {userLineMatches} from '../../normalize/user-formats'
import {FileChanged, InputError} from '../errors'
import type {RecordSource, SourceBatch, SourceStats} from '../source'
import {GCS_USAGE, isGcsUsageHeader, parseGcsUsageRow} from '../../normalize/formats/gcs'
import {csvCells, csvColumns, csvRowToLog, looksLikeCsvHeader} from './csv'
import {JsonItemSplitter} from './json-documents'
import {describeUnreadable} from './describe'
import {type Line, lines, MAX_LINE, StreamCut} from './lines'
import {type LineSink, takeLine, UNFINISHED} from './line-range'
import {type Input, openInput} from './open'
import {readHead} from './head'
import {CsvRecords, type Verdict} from './csv-records'
import {StringDecoder} from 'node:string_decoder'
import {isObject} from '../../normalize/text'
import {criRecord, isBinary, type LineContext, lineFormat, normalizeObject, NOT_JSON, parseJson, peelPrefix, recordsOf, unfinishedParts} from './records'
import {type ParallelReading, parallelLineBatches, streamedLineBatches} from '../parallel/parallel-lines'

export type FileFormat = 'lines' | 'json-documents' | 'csv'

export type {SourceBatch, SourceStats} from '../source'

export {MAX_LINE}

/**
 * The bytes of a JSON document decoded into one string: a string past V8's regular object size
 * (about 128 KB; 32 K characters of two bytes each are 64 KB) is made in the large-object space,
 * and decoding 1 MB chunks whole measured 20 times slower per byte than 64 KB slices.
 */
const DECODED_BYTES = 32 * 1024

export const ACCEPTED_FORMATS = [
  'Datadog Logs API v2 search responses (JSON pages, concatenated pages, or NDJSON of log events)',
  'Datadog legacy v1 {"logs":[...]} responses',
  'Datadog Log Explorer CSV exports (Date, Host, Service, Content/Message, @attribute columns)',
  'Datadog events whose message holds a raw access line',
  'any nginx log_format given with --log-format (text, or an escape=json template), and any JSON log whose fields --field maps (path, status, time, bytes)',
  ...[...TEXT_FORMATS, ...JSON_FORMATS, GCS_USAGE].map((f) => f.name),
  'any of these lines in Docker json-file records or CRI container logs (/var/log/containers, kubectl logs --timestamps)',
  'any of these lines behind kubectl logs --prefix, docker compose logs / foreman / forego / honcho prefixes, or in fluentd stdout output',
]

/**
 * Reads one input file (plain or gzip, format detected from its content) into events and counted
 * rejections, in batches, never holding the whole file.
 */
export class FileSource implements RecordSource {
  readonly stats: SourceStats
  /** Records in no format skewscan reads (not broken ones of a known format). */
  private foreign = 0
  /** The first of them, with why: said when the whole file is unreadable. */
  private firstForeign: {line: number; detail?: string} | undefined
  /** The file's first lines (cut short), to say what an unreadable file looked like. */
  private head: string[] = []
  /** The file being read (its byte tally and size), once opened. */
  private input: Input | undefined

  /** Rejections listed so far, by reason (listing `examples`). */
  private readonly listed: UnlistedRejections = {}

  /**
   * `parallel`: large line files are parsed in worker threads: plain ones read as byte ranges, gzip
   * ones streamed (see parallel-lines). `listing`: every rejection one by one (`parse --rejected`
   * shows each), or only the first few of each reason, the rest counted (`analyze` shows examples:
   * a file of junk lines then costs counters, not an object per line).
   */
  constructor(
    readonly path: string, readonly displayName: string, private readonly opts: NormalizeOptions,
    private readonly parallel?: ParallelReading, private readonly listing: 'every' | 'examples' = 'every',
  ) {
    this.stats = {file: displayName, format: 'unknown', records: 0, skipped: 0}
  }

  /** Bytes read of the file (before gunzip) and its size, for the progress line. */
  position(): {bytes: number; total?: number} {
    const i = this.input
    return {bytes: i?.read.bytes ?? 0, ...(i?.kind ? {total: i.kind.size} : {})}
  }

  async *batches(): AsyncGenerator<SourceBatch> {
    const input = await openInput(this.path, this.displayName)
    this.input = input
    try {
      // The first lines (at most ~256 KB of them, or a first line up to MAX_LINE) tell the format.
      const head = await readHead(input.chunks)
      this.head = head.lines.filter((l) => l.text.trim() !== '').slice(0, 3).map((l) => l.text.slice(0, 8192).replace(/^\uFEFF/, ''))
      // A first line too long to hold that is no JSON: the lines after it tell, as they are read.
      const format = detectFormat(head.lines, this.opts) ?? (head.lines[0]?.tooLong ? 'lines' : undefined)
      if (format === undefined) {
        if (head.lines.every((l) => !l.tooLong && l.text.trim() === '')) this.stats.format = 'empty'
        else if (head.error === undefined) throw this.unreadable()
        if (head.error !== undefined) throw new StreamCut(head.lines.length + 1, head.error)
        return
      }
      // Line files are named by their records' format (nginx, traefik-clf, cri/nginx…).
      this.stats.format = format === 'lines' ? (firstFormat(head.lines, this.opts) ?? 'lines') : format
      const cut = head.error !== undefined
      // A large line file is parsed by the workers: a plain one read by them in byte ranges, a gzip one streamed to them.
      // A `#Fields:` header orders the lines after it: such a file is read in order, on this thread.
      const p = format === 'lines' && !cut && !head.lines.some((l) => hasFieldsHeader(l.text)) ? this.parallel : undefined
      const kind = input.kind
      if (p && kind && !kind.gzip && kind.size >= p.minFileBytes) {
        input.close()
        yield* this.counted(parallelLineBatches(this.path, this.displayName, kind, this.opts, p, input.read))
      } else if (format === 'json-documents') {
        yield* this.documentBatches(head.chunks)
      } else {
        const rest = withoutBom(lines(head.chunks, MAX_LINE))
        if (p && kind?.gzip && kind.size >= p.minGzipBytes) yield* this.counted(streamedLineBatches(rest, this.displayName, this.opts, p))
        else if (format === 'csv') yield* this.csvBatches(rest)
        else yield* this.lineBatches(rest)
      }
      // One rule for every format: a file none of whose records is in a format skewscan reads is unreadable.
      if (this.stats.records > 0 && this.foreign === this.stats.records) throw this.unreadable()
    } catch (error: unknown) {
      if (!(error instanceof StreamCut)) throw error
      const detail = error.cause instanceof FileChanged ? error.message : `input ends early: ${error.message}`
      const batch = newBatch()
      this.reject(batch, 'truncated-input', error.line, detail)
      yield batch
    } finally {
      input.close()
    }
  }

  /**
   * A record in no format skewscan reads: a JSON object of no known shape, or a line of a line file
   * that no text format claims (a Datadog log whose message is no access line is a Datadog record).
   */
  private isForeign(reason: Rejection['reason']): boolean {
    if (FOREIGN.has(reason)) return true
    const f = this.stats.format
    return reason === 'unparsed-message' && f !== 'datadog' && f !== 'csv' && f !== 'json-documents'
  }

  /** The error for a file none of whose records skewscan reads: what it looked like, what would read it, and what is read. */
  private unreadable(): InputError {
    const looked = describeUnreadable(this.head)
    const first = this.firstForeign
    if (first?.detail !== undefined && this.opts.logFormat !== undefined) looked.unshift(`Line ${first.line}: ${first.detail}`)
    const about = looked.map((l) => `\n  ${l}`).join('')
    return new InputError(`${this.displayName}: not in any format skewscan reads.${about}\nAccepted formats:\n  - ${ACCEPTED_FORMATS.join('\n  - ')}`, this.displayName)
  }

  private async *lineBatches(source: AsyncIterable<Line[]>): AsyncGenerator<SourceBatch> {
    // A line no format claims is told against the file's format (an S3 line with a shortened owner id).
    const ctx: LineContext = {last: textFormatById(this.stats.format)}
    for await (const chunk of source) {
      const batch = newBatch()
      const sink: LineSink = {
        event: (event, line) => this.collect({ok: true, event}, line, batch),
        reject: (reason, line, detail) => this.reject(batch, reason, line, detail),
      }
      for (const l of chunk) takeLine(l.text, l.line, l.tooLong === true, this.opts, sink, ctx)
      yield batch
    }
    const open = unfinishedParts(ctx)
    if (open.length === 0) return
    const batch = newBatch()
    for (const line of open) this.reject(batch, 'truncated-input', line, UNFINISHED)
    yield batch
  }

  /** Batches the workers parsed, counted into the file's figures. */
  private async *counted(batches: AsyncIterable<SourceBatch>): AsyncGenerator<SourceBatch> {
    for await (const batch of batches) {
      this.stats.records += batch.events.length + batch.rejections.length
      this.stats.skipped += batch.rejections.length
      // Ranges come in file order and list the first rejections of each reason in line order: the first foreign one is among them.
      for (const r of batch.rejections) {
        if (!this.isForeign(r.reason)) continue
        this.foreign++
        this.firstForeign ??= {line: r.location.line, ...(r.detail === undefined ? {} : {detail: r.detail})}
      }
      for (const [reason, n] of Object.entries(batch.unlisted ?? {}) as [Rejection['reason'], number][]) {
        this.stats.records += n
        this.stats.skipped += n
        if (this.isForeign(reason)) this.foreign += n
      }
      yield batch
    }
  }

  /**
   * JSON documents, read from the bytes (not lines: a saved API page may be one line of any length),
   * decoded DECODED_BYTES at a time.
   */
  private async *documentBatches(chunks: AsyncIterable<Buffer>): AsyncGenerator<SourceBatch> {
    let batch = newBatch()
    const splitter = new JsonItemSplitter(
      (item) => {
        let value: unknown
        try {
          value = JSON.parse(item.text)
        } catch {
          this.reject(batch, 'invalid-json', item.line, 'a record is not valid JSON')
          return
        }
        for (const r of recordsOf(value)) this.collect(normalizeObject(r, this.opts), item.line, batch)
      },
      (p) => this.reject(batch, DOCUMENT_PROBLEMS[p.kind].reason, p.line, DOCUMENT_PROBLEMS[p.kind].detail),
      MAX_LINE,
    )
    const decoder = new StringDecoder('utf8')
    let first = true
    try {
      for await (const chunk of chunks) {
        for (let at = 0; at < chunk.length; at += DECODED_BYTES) {
          let text = decoder.write(chunk.subarray(at, at + DECODED_BYTES))
          if (first && text.length > 0) {
            text = text.replace(/^\uFEFF/, '')
            first = false
          }
          splitter.write(text)
        }
        yield batch
        batch = newBatch()
      }
    } catch (error: unknown) {
      throw new StreamCut(splitter.line, error)
    }
    splitter.write(decoder.end())
    splitter.end()
    yield batch
  }

  /** CSV rows (Log Explorer exports, Cloud Storage usage logs); a quote left open costs its own row only. */
  private async *csvBatches(rest: AsyncIterable<Line[]>): AsyncGenerator<SourceBatch> {
    let columns: ReturnType<typeof csvColumns>
    /** A Google Cloud Storage usage log's header: its rows are read by name. */
    let gcsHeader: string[] | undefined
    let width = 0
    let batch = newBatch()
    const row = (cells: string[], line: number): Verdict => {
      if (!columns && !gcsHeader) {
        width = cells.length
        if (isGcsUsageHeader(cells)) {
          gcsHeader = cells
          this.stats.format = GCS_USAGE.id
          return 'ok'
        }
        columns = csvColumns(cells)
        if (!columns) throw new InputError(`${this.displayName}: CSV header has no Date/Timestamp column`, this.displayName)
        return 'ok'
      }
      if (cells.every((c) => c.trim() === '')) return 'ok' // a row of empty cells: no record
      if (cells.length !== width) return {bad: `${cells.length} cells where the header has ${width}`}
      if (gcsHeader) {
        const byName = Object.fromEntries(gcsHeader.map((name, k) => [name, cells[k] ?? '']))
        const out = parseGcsUsageRow(byName)
        this.collect(out.ok ? {ok: true, event: applyMapping(out.event, {attributes: byName}, this.opts)} : out, line, batch)
      } else {
        this.collect(normalizeDatadog(csvRowToLog(cells, columns as NonNullable<typeof columns>), this.opts), line, batch)
      }
      return 'ok'
    }
    const records = new CsvRecords(row, (line, detail) => this.reject(batch, 'bad-csv-row', line, detail))
    for await (const chunk of rest) {
      for (const l of chunk) {
        if (l.tooLong) this.reject(batch, 'line-too-long', l.line, `line longer than ${MAX_LINE} characters`)
        else records.push(l)
      }
      yield batch
      batch = newBatch()
    }
    records.end()
    yield batch
  }

  private collect(out: ParseOutcome, line: number, batch: SourceBatch): void {
    if (out.ok) {
      this.stats.records++
      const e = out.event as AccessEvent
      e.location = {file: this.displayName, line}
      batch.events.push(e)
    } else {
      this.reject(batch, out.reason, line, out.detail)
    }
  }

  /**
   * A rejected record, into `batch`: listed, or (listing `examples`, past the first few of its reason
   * in the file) counted. Every rejection counts as a record, so records = used + skipped.
   */
  private reject(batch: SourceBatch, reason: Rejection['reason'], line: number, detail?: string): void {
    this.stats.records++
    this.stats.skipped++
    if (this.isForeign(reason)) {
      this.foreign++
      this.firstForeign ??= {line, ...(detail === undefined ? {} : {detail})}
    }
    if (this.listing === 'examples') {
      const n = (this.listed[reason] = (this.listed[reason] ?? 0) + 1)
      if (n > EXAMPLES_PER_REASON) {
        batch.unlisted ??= {}
        batch.unlisted[reason] = (batch.unlisted[reason] ?? 0) + 1
        return
      }
    }
    batch.rejections.push({reason, location: {file: this.displayName, line}, ...(detail ? {detail} : {})})
  }
}

const newBatch = (): SourceBatch => ({events: [], rejections: []})

/** Rejections of records in no format skewscan reads (rather than broken records of one it does). */
const FOREIGN: ReadonlySet<Rejection['reason']> = new Set(['unknown-format', 'not-an-object', 'log-format-mismatch', 'not-access-line'])

/**
 * The reading mode a file's first lines call for, or undefined when none fits. JSON whose first
 * line is a whole value is read line by line (NDJSON, one page per line); JSON whose first line is
 * not is a pretty-printed document, unless other lines in the head are whole records (a cut-off
 * first line of an NDJSON file).
 */
export function detectFormat(head: readonly Line[], opts?: NormalizeOptions): FileFormat | undefined {
  // A first line too long to hold that opens JSON: a saved API page on one line, read as a document.
  const opening = head.find((l) => l.tooLong || l.text.trim() !== '')
  if (opening?.tooLong && /^\uFEFF?\s*(\{|\[\s*[[{"\]])/.test(opening.text)) return 'json-documents'
  const nonEmpty = head.filter((l) => !l.tooLong && l.text.trim() !== '')
  const first = nonEmpty[0]?.text.replace(/^\uFEFF/, '').trim()
  if (first === undefined) return undefined
  if (looksLikeCsvHeader(first) || isGcsUsageHeader(csvCells(first))) return 'csv'
  // A log tool's prefix (`[pod/web-…/nginx] `, `web-1  | `, fluentd's `<time> <tag>: {`) makes a line
  // file whatever its first line holds (a container's start-up notices come before its traffic).
  if (!isBinary(first) && peelPrefix(first) !== undefined) return 'lines'
  // Envoy's lines start with `[time]`: text, though the first character opens a JSON array.
  if (first.startsWith('[') && !isBinary(first) && looksLikeRecordLine(first, opts)) return 'lines'
  const json = first.startsWith('{') || first.startsWith('[')
  if (json && parses(first)) return 'lines'
  if (!json && !isBinary(first) && looksLikeRecordLine(first, opts)) return 'lines'
  // The first line is no record (cut, garbled, or the start of a document). The lines after it
  // decide: text records (even after a first line that opens with `[`, as Envoy's do), or, for JSON,
  // whichever reading finds more records in the head: line by line (NDJSON whose first lines were cut)
  // or as documents (pretty-printed, or one item per line). Lines that are one object each but do not
  // parse are broken NDJSON lines, each to be counted, not pieces of a document.
  let whole = 0
  let broken = 0
  for (const [i, l] of nonEmpty.entries()) {
    if (i === 0) continue
    const t = l.text.replace(/^\uFEFF/, '')
    if (t.startsWith('{')) {
      if (parsesAsRecords(t)) whole++
      else if (t.trimEnd().endsWith('}') && t.trimEnd().length > 1) broken++
    } else if ((!json || first.startsWith('[')) && !isBinary(t) && looksLikeRecordLine(t.trim(), opts)) {
      return 'lines'
    }
  }
  if (!json) return whole > 0 ? 'lines' : undefined
  // Whole records on lines of their own are NDJSON, unless the head read as documents holds more
  // and reads cleanly (a pretty-printed array whose last item sits alone at the margin).
  const documents = asDocuments(nonEmpty)
  if (whole > 0 && (whole >= documents.records || documents.garbage)) return 'lines'
  if (documents.records > 0) return 'json-documents'
  return broken > 0 ? 'lines' : 'json-documents'
}

/** The head read as JSON documents: the records it holds (its last one may be cut), and whether text fell outside any. */
function asDocuments(head: readonly Line[]): {records: number; garbage: boolean} {
  let records = 0
  let garbage = false
  const splitter = new JsonItemSplitter((item) => {
    const value = parseJson(item.text)
    // Objects only: a head read out of step (a line cut inside a string) yields stray scalars.
    if (value !== NOT_JSON) records += recordsOf(value).filter(isObject).length
  }, (p) => {
    if (p.kind === 'garbage') garbage = true
  })
  for (const l of head) splitter.write(`${l.text}\n`)
  return {records, garbage}
}

/** A text line in one of the access-log formats, bare or in a container wrapper (CRI, kubectl --timestamps). */
function looksLikeRecordLine(text: string, opts?: NormalizeOptions, depth = 0): boolean {
  // Two prefixes at most (compose around forego): `a | a | a | …` is no deeper a record.
  const p = depth < 2 ? peelPrefix(text) : undefined
  if (p !== undefined) return !('rejected' in p) && (p.line === undefined || looksLikeRecordLine(p.line.trim(), opts, depth + 1))
  const cri = criRecord(text)
  const line = cri ? cri.line.trim() : text
  if (cri && line.startsWith('{')) return parsesAsRecords(line)
  // A prefixed line inside a CRI record (`docker logs` of nginx-proxy, kept by the runtime).
  if (cri && depth < 2 && peelPrefix(line) !== undefined) return looksLikeRecordLine(line, opts, depth + 1)
  return userLineMatches(line, opts) || looksLikeAccessLine(line) || textFormatOf(line) !== nginxText
}

/** A CloudFront `#Fields:` line, bare or in a container wrapper. */
function hasFieldsHeader(text: string): boolean {
  return text.includes('#Fields:')
}

/** The record format of the first line of the head that is in one. */
function firstFormat(head: readonly Line[], opts?: NormalizeOptions): string | undefined {
  for (const l of head) {
    if (l.tooLong || l.text.trim() === '') continue
    const f = lineFormat(l.text.replace(/^\uFEFF/, ''), opts)
    if (f !== undefined) return f
  }
  return undefined
}

function parses(text: string): boolean {
  return parseJson(text) !== NOT_JSON
}

/** A line that is a whole JSON value holding at least one record (an empty page does not count). */
function parsesAsRecords(text: string): boolean {
  const value = parseJson(text)
  return value !== NOT_JSON && recordsOf(value).length > 0
}

/** Lines with a byte-order mark taken off the first. */
async function* withoutBom(source: AsyncIterable<Line[]>): AsyncGenerator<Line[]> {
  let first = true
  for await (const batch of source) {
    if (first && batch.length > 0) {
      const l = batch[0] as Line
      if (l.text.charCodeAt(0) === 0xfeff) batch[0] = {...l, text: l.text.slice(1)}
      first = false
    }
    yield batch
  }
}

/** What a problem of a JSON document is counted as. */
const DOCUMENT_PROBLEMS = {
  truncated: {reason: 'truncated-input', detail: 'the JSON document ends before it closes'},
  garbage: {reason: 'invalid-json', detail: 'text outside any JSON document'},
  'too-long': {reason: 'line-too-long', detail: `a JSON record longer than ${MAX_LINE} characters`},
} as const
