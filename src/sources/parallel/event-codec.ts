import type {AccessEvent} from '../../model/access-event'
import {copyKeyOf, type CopyKeyedEvent} from '../../util/copy-key'
import {type KeyedAccessEvent, type ReleasableEvent, sessionKey} from '../../util/session-key'

/*
 * Access events packed into one ArrayBuffer, so a worker can hand a batch to the main thread by
 * transferring memory instead of structured-cloning thousands of objects, and so sorted runs can be
 * spilled to disk. Numbers go in a Float64 column block; strings in a table shared by the batch (a
 * user agent, path or pod repeated across the batch is stored, and later decoded, once), as Latin-1
 * when they are plain ASCII, else as UTF-16 code units: every JavaScript string, lone surrogates
 * included, comes back exactly as it went in.
 *
 * Layout: Int32 header [version, events, strings, bytes], then Float64 numbers (NUMBERS per event),
 * Int32 string references (STRINGS per event, -1 when absent), Uint32 start and end offsets of the
 * strings in the byte area, Uint8 kinds, then the byte area (the Latin-1 strings, then the UTF-16
 * ones from an even offset).
 */

const VERSION = 6
const HEADER = 4

/** String kinds: Latin-1 (plain ASCII), UTF-16, and Latin-1 left encoded until read (per-event ids). */
const LATIN1 = 0
const UTF16 = 1
const LAZY_LATIN1 = 2

/**
 * Per event: time, resolutionMs, status, bytes, line, flags (1: responseBytes, 2: bytesNotLogged),
 * copy key (util/copy-key.ts: made here, on the worker, so the analysis reads no id to find copies).
 */
const NUMBERS = 7

/** The event's string fields, then its session key (see KeyedAccessEvent). */
const STRING_FIELDS = ['method', 'path', 'clientIp', 'userAgent', 'referer', 'session', 'userId', 'requestId', 'upstream', 'version', 'contentType', 'service', 'host', 'id', 'upstreamName', 'vhost', 'app', 'sessionKey'] as const
const STRINGS = STRING_FIELDS.length
/** Where the session key's reference is: the last field. */
const KEY = STRINGS - 1

/** An event as the codec stores it: its file is given back on decoding. */
export type EncodableEvent = Omit<AccessEvent, 'location'> & {location: {line: number}}

const align = (n: number, to: number): number => Math.ceil(n / to) * to

interface Layout {
  numbersAt: number
  refsAt: number
  startsAt: number
  endsAt: number
  kindsAt: number
  bytesAt: number
  total: number
}

function layout(n: number, m: number, bytes: number): Layout {
  const numbersAt = align(HEADER * 4, 8)
  const refsAt = numbersAt + n * NUMBERS * 8
  const startsAt = refsAt + n * STRINGS * 4
  const endsAt = startsAt + m * 4
  const kindsAt = endsAt + m * 4
  const bytesAt = align(kindsAt + m, 8)
  return {numbersAt, refsAt, startsAt, endsAt, kindsAt, bytesAt, total: bytesAt + bytes}
}

/**
 * The batch's strings: shared ones once each, per-event ids as they come. A Map would hash every
 * string in full (a user agent is 100+ characters, and each record brings fresh copies); this table
 * hashes a sample of characters and settles collisions by comparing the strings.
 */
class StringTable {
  readonly strings: string[] = []
  readonly lazy: boolean[] = []
  /** Indexes (into strings) of the shared strings, for rehashing. */
  private readonly shared: number[] = []
  private slots = new Int32Array(1024).fill(-1)
  private mask = 1023

  ref(s: string): number {
    const strings = this.strings
    for (let h = sample(s) & this.mask; ; h = (h + 1) & this.mask) {
      const k = this.slots[h] as number
      if (k === -1) {
        const index = strings.length
        this.slots[h] = index
        strings.push(s)
        this.lazy.push(false)
        this.shared.push(index)
        if (this.shared.length * 2 > this.mask) this.grow()
        return index
      }
      if (strings[k] === s) return k
    }
  }

  /** A string unique to one event: stored as it is, left encoded until read. */
  unique(s: string): number {
    this.lazy.push(true)
    return this.strings.push(s) - 1
  }

  /** A string stored as it is, without looking it up (the caller knows it is new), decoded with the batch. */
  unshared(s: string): number {
    this.lazy.push(false)
    return this.strings.push(s) - 1
  }

  private grow(): void {
    const mask = (this.mask = this.mask * 2 + 1)
    const slots = (this.slots = new Int32Array(mask + 1).fill(-1))
    for (const k of this.shared) {
      let h = sample(this.strings[k] as string) & mask
      while (slots[h] !== -1) h = (h + 1) & mask
      slots[h] = k
    }
  }
}

/**
 * A cheap hash of a string: every character of a short one (addresses, methods), and for a long one
 * (user agents, URLs) its length, 16 characters spread over it and its last 8.
 */
function sample(s: string): number {
  const n = s.length
  let h = n
  if (n <= 32) {
    for (let i = 0; i < n; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  } else {
    const step = n >> 4
    for (let i = 0; i < n; i += step) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
    for (let i = n - 8; i < n; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  }
  return h ^ (h >>> 15)
}

const optUnique = (t: StringTable, s: string | undefined): number => (s === undefined ? -1 : t.unique(s))

/**
 * One field's strings: the previous value is tried first (the method, service, host or pod nearly
 * always repeat from one event to the next, and short repeated JSON values are even the same
 * object), then the batch's table.
 */
class FieldRefs {
  private last: string | undefined
  private lastRef = -1

  constructor(private readonly table: StringTable) {}

  ref(s: string | undefined): number {
    if (s === undefined) return -1
    if (s === this.last) return this.lastRef
    this.last = s
    return (this.lastRef = this.table.ref(s))
  }
}

const isAscii = (s: string): boolean => Buffer.byteLength(s, 'utf8') === s.length

/**
 * Characters per piece of joined strings. A batch's strings joined in one (some 200 kB) made a
 * string in V8's large-object space (past 128 kB), memory mapped and unmapped again for every
 * batch: about 200 ns a string, where joined a thousand at a time (some 50 kB) they took 20-30
 * (node 20; the join was a third of the worker's packing).
 */
const PIECE_CHARS = 32_768

/** The strings joined in order, in pieces of about PIECE_CHARS characters (a longer string is a piece of its own). */
function joinedPieces(strings: readonly string[]): string[] {
  const pieces: string[] = []
  let from = 0
  let chars = 0
  for (let k = 0; k < strings.length; k++) {
    chars += (strings[k] as string).length
    if (chars < PIECE_CHARS) continue
    pieces.push(strings.slice(from, k + 1).join(''))
    from = k + 1
    chars = 0
  }
  if (from < strings.length || pieces.length === 0) pieces.push(from === 0 ? strings.join('') : strings.slice(from).join(''))
  return pieces
}

/**
 * Packs events one at a time, as they are parsed: an event object then lives only until it is
 * packed, and the garbage collector has next to nothing to copy (packing a whole batch at the end
 * kept every parsed event of the batch alive across collections).
 */
export class EventPacker {
  private readonly table = new StringTable()
  /** Session keys by (address, user agent) string references. */
  private readonly keys = new Map<number, number>()
  // Room for 64 events, doubled as needed: a range of a few kilobytes (the last of a file, a small
  // file, a test's) holds a handful, and zeroing 120 kB for each was a good part of its cost.
  private numbers = new Float64Array(64 * NUMBERS)
  private refs = new Int32Array(64 * STRINGS)
  private n = 0
  private readonly method = new FieldRefs(this.table)
  private readonly session = new FieldRefs(this.table)
  private readonly userId = new FieldRefs(this.table)
  private readonly upstream = new FieldRefs(this.table)
  private readonly version = new FieldRefs(this.table)
  private readonly contentType = new FieldRefs(this.table)
  private readonly service = new FieldRefs(this.table)
  private readonly host = new FieldRefs(this.table)
  private readonly upstreamName = new FieldRefs(this.table)
  private readonly vhost = new FieldRefs(this.table)
  private readonly app = new FieldRefs(this.table)

  get size(): number {
    return this.n
  }

  /** Adds an event read at `line`. */
  add(e: Omit<EncodableEvent, 'location'>, line: number): void {
    const i = this.n++
    if (this.n * STRINGS > this.refs.length) this.grow()
    const o = i * NUMBERS
    const numbers = this.numbers
    numbers[o] = e.time
    numbers[o + 1] = e.resolutionMs
    numbers[o + 2] = e.status
    numbers[o + 3] = e.bytes
    numbers[o + 4] = line
    numbers[o + 5] = (e.responseBytes === true ? 1 : 0) | (e.bytesNotLogged === true ? 2 : 0)
    numbers[o + 6] = copyKeyOf(e)
    const r = i * STRINGS
    const refs = this.refs
    const table = this.table
    refs[r] = this.method.ref(e.method)
    // Paths, addresses, user agents and referers seldom repeat from one event to the next.
    refs[r + 1] = table.ref(e.path)
    const ip = (refs[r + 2] = table.ref(e.clientIp))
    const ua = (refs[r + 3] = table.ref(e.userAgent))
    refs[r + 4] = e.referer === undefined ? -1 : table.ref(e.referer)
    const session = (refs[r + 5] = this.session.ref(e.session))
    // The session key, built once per client and batch (both references are below 2^26).
    if (session >= 0) {
      refs[r + KEY] = session
    } else {
      const pair = ip * 67_108_864 + ua
      let key = this.keys.get(pair)
      if (key === undefined) this.keys.set(pair, (key = table.unshared(sessionKey(e))))
      refs[r + KEY] = key
    }
    refs[r + 6] = this.userId.ref(e.userId)
    // Request and event ids are unique per event: not looked up, and left encoded until read.
    refs[r + 7] = optUnique(this.table, e.requestId)
    refs[r + 8] = this.upstream.ref(e.upstream)
    refs[r + 9] = this.version.ref(e.version)
    refs[r + 10] = this.contentType.ref(e.contentType)
    refs[r + 11] = this.service.ref(e.service)
    refs[r + 12] = this.host.ref(e.host)
    refs[r + 13] = optUnique(this.table, e.id)
    refs[r + 14] = this.upstreamName.ref(e.upstreamName)
    refs[r + 15] = this.vhost.ref(e.vhost)
    refs[r + 16] = this.app.ref(e.app)
  }

  /**
   * The packed batch; the packer is not to be used afterwards. With `spares` (buffers of batches the
   * analysis is done with, see decodeEvents), one large enough is written over and taken out of the
   * list; without one, a new buffer gets some room to spare, so that it can be used again later.
   * Without `spares` the buffer is exactly the batch's size (it is written to disk as it is).
   */
  finish(spares?: ArrayBuffer[]): ArrayBuffer {
    const n = this.n
    const {strings, lazy} = this.table
    const m = strings.length
    const kinds = new Uint8Array(m)
    const starts = new Uint32Array(m)
    const ends = new Uint32Array(m)
    // Nearly always every string is ASCII: then they are written in order, in pieces of strings
    // joined (joinedPieces). Otherwise the ASCII ones go first, and the others follow as UTF-16.
    let pieces = joinedPieces(strings)
    const ascii = pieces.every(isAscii) ? undefined : strings.map(isAscii)
    let wide = ''
    if (ascii) {
      pieces = joinedPieces(strings.filter((_, k) => ascii[k]))
      wide = strings.filter((_, k) => !ascii[k]).join('')
    }
    let narrowLength = 0
    for (const piece of pieces) narrowLength += piece.length
    const wideAt = align(narrowLength, 2)
    for (let k = 0, at = 0, wideUnits = 0; k < m; k++) {
      const len = (strings[k] as string).length
      if (!ascii || ascii[k]) {
        kinds[k] = lazy[k] ? LAZY_LATIN1 : LATIN1
        starts[k] = at
        ends[k] = at += len
      } else {
        kinds[k] = UTF16
        starts[k] = wideAt + wideUnits * 2
        ends[k] = wideAt + (wideUnits += len) * 2
      }
    }
    const bytes = wideAt + wide.length * 2
    const at = layout(n, m, bytes)
    const buffer = spares ? (takeSpare(spares, at.total) ?? new ArrayBuffer(roomFor(at.total))) : new ArrayBuffer(at.total)
    new Int32Array(buffer, 0, HEADER).set([VERSION, n, m, bytes])
    new Float64Array(buffer, at.numbersAt, n * NUMBERS).set(this.numbers.subarray(0, n * NUMBERS))
    new Int32Array(buffer, at.refsAt, n * STRINGS).set(this.refs.subarray(0, n * STRINGS))
    new Uint32Array(buffer, at.startsAt, m).set(starts)
    new Uint32Array(buffer, at.endsAt, m).set(ends)
    new Uint8Array(buffer, at.kindsAt, m).set(kinds)
    const out = Buffer.from(buffer, at.bytesAt, bytes)
    for (let p = 0, written = 0; p < pieces.length; p++) {
      const piece = pieces[p] as string
      written += out.write(piece, written, piece.length, 'latin1')
    }
    if (wide.length > 0) out.write(wide, wideAt, wide.length * 2, 'utf16le')
    return buffer
  }

  private grow(): void {
    const numbers = new Float64Array(this.numbers.length * 2)
    numbers.set(this.numbers)
    this.numbers = numbers
    const refs = new Int32Array(this.refs.length * 2)
    refs.set(this.refs)
    this.refs = refs
  }
}

/** A spare buffer of at least `bytes`, taken out of the list (the last one that fits: the newest). */
function takeSpare(spares: ArrayBuffer[], bytes: number): ArrayBuffer | undefined {
  for (let i = spares.length - 1; i >= 0; i--) {
    const b = spares[i] as ArrayBuffer
    // A buffer another thread took over (transferred) is detached: length 0, never fits.
    if (b.byteLength >= bytes) return spares.splice(i, 1)[0]
  }
  return undefined
}

/** A new buffer's size: batches of one file vary by some percent, so 1/8 more, in 64 KiB steps. */
function roomFor(bytes: number): number {
  return Math.ceil((bytes * 1.125) / 65_536) * 65_536
}

/** Packs events (their file aside) into one transferable buffer. */
export function encodeEvents(events: readonly EncodableEvent[]): ArrayBuffer {
  const packer = new EventPacker()
  for (const e of events) packer.add(e, e.location.line)
  return packer.finish()
}

/** A decoded batch: its columns, and its shared strings decoded once. */
class PackedBatch {
  /** Events not released yet (see PackedEvent.release). */
  private pending: number

  constructor(
    private readonly buffer: ArrayBuffer,
    private onDone: ((buffer: ArrayBuffer) => void) | undefined,
    readonly numbers: Float64Array,
    readonly refs: Int32Array,
    readonly strings: (string | undefined)[],
    readonly starts: Uint32Array,
    readonly ends: Uint32Array,
    readonly raw: Buffer,
    readonly file: string,
    readonly lineOffset: number,
  ) {
    this.pending = numbers.length / NUMBERS
  }

  /** One event is done with; when all are, the buffer goes to `onDone`, once. */
  release(): void {
    if (--this.pending > 0 || !this.onDone) return
    const done = this.onDone
    this.onDone = undefined
    done(this.buffer)
  }

  /** A string left encoded (a per-event id), decoded on each read: most are read once or never. */
  unique(r: number): string | undefined {
    if (r < 0) return undefined
    return this.strings[r] ?? this.raw.toString('latin1', this.starts[r], this.ends[r])
  }
}

/**
 * An access event that reads its fields from its batch. It is one small object: the analysis holds
 * events for a couple of minutes of log time (the look-ahead and reorder windows), and small objects
 * that survive are cheap for the garbage collector to move, where full ones cost a large share of a
 * run. All events of the parallel reader are of this one class, so the analysis's property reads
 * stay monomorphic.
 */
class PackedEvent implements KeyedAccessEvent, ReleasableEvent, CopyKeyedEvent {
  constructor(private readonly b: PackedBatch, private readonly i: number) {}
  get time(): number { return this.b.numbers[this.i * NUMBERS] as number }
  get resolutionMs(): number { return this.b.numbers[this.i * NUMBERS + 1] as number }
  get status(): number { return this.b.numbers[this.i * NUMBERS + 2] as number }
  get bytes(): number { return this.b.numbers[this.i * NUMBERS + 3] as number }
  get responseBytes(): true | undefined { return ((this.b.numbers[this.i * NUMBERS + 5] as number) & 1) === 1 ? true : undefined }
  get bytesNotLogged(): true | undefined { return ((this.b.numbers[this.i * NUMBERS + 5] as number) & 2) === 2 ? true : undefined }
  get method(): string { return this.b.strings[this.b.refs[this.i * STRINGS] as number] as string }
  get path(): string { return this.b.strings[this.b.refs[this.i * STRINGS + 1] as number] as string }
  get clientIp(): string { return this.b.strings[this.b.refs[this.i * STRINGS + 2] as number] as string }
  get userAgent(): string { return this.b.strings[this.b.refs[this.i * STRINGS + 3] as number] as string }
  get referer(): string | undefined { return this.str(4) }
  get session(): string | undefined { return this.str(5) }
  get userId(): string | undefined { return this.str(6) }
  get requestId(): string | undefined { return this.b.unique(this.b.refs[this.i * STRINGS + 7] as number) }
  get upstream(): string | undefined { return this.str(8) }
  get version(): string | undefined { return this.str(9) }
  get contentType(): string | undefined { return this.str(10) }
  get service(): string | undefined { return this.str(11) }
  get host(): string | undefined { return this.str(12) }
  get id(): string | undefined { return this.b.unique(this.b.refs[this.i * STRINGS + 13] as number) }
  get upstreamName(): string | undefined { return this.str(14) }
  get vhost(): string | undefined { return this.str(15) }
  get app(): string | undefined { return this.str(16) }
  get sessionKey(): string { return this.b.strings[this.b.refs[this.i * STRINGS + KEY] as number] as string }
  get copyKey(): number { return this.b.numbers[this.i * NUMBERS + 6] as number }
  get location(): {file: string; line: number} {
    return {file: this.b.file, line: (this.b.numbers[this.i * NUMBERS + 4] as number) + this.b.lineOffset}
  }

  release(): void {
    this.b.release()
  }

  private str(field: number): string | undefined {
    const r = this.b.refs[this.i * STRINGS + field] as number
    return r < 0 ? undefined : this.b.strings[r]
  }
}

/**
 * Unpacks a batch: `file` names the events' source, `lineOffset` is added to their line numbers.
 * The events read their fields from `buffer`. When every one of them has been released (see
 * ReleasableEvent: the analysis releases each event once it has judged it), `onDone` receives the
 * buffer, to be packed over again: memory that would otherwise wait, dead, for a full garbage
 * collection (a batch lives through a few young-generation ones, as the analysis looks ahead).
 */
export function decodeEvents(buffer: ArrayBuffer, file: string, lineOffset = 0, onDone?: (buffer: ArrayBuffer) => void): AccessEvent[] {
  const header = new Int32Array(buffer, 0, HEADER)
  if (header[0] !== VERSION) throw new Error(`event batch of version ${header[0]}, expected ${VERSION}`)
  const n = header[1] as number
  const m = header[2] as number
  const at = layout(n, m, header[3] as number)
  const starts = new Uint32Array(buffer, at.startsAt, m)
  const ends = new Uint32Array(buffer, at.endsAt, m)
  const kinds = new Uint8Array(buffer, at.kindsAt, m)
  const raw = Buffer.from(buffer, at.bytesAt, header[3] as number)
  // Each shared string is its own copy, never a slice of a big one: strings the analysis keeps
  // (session keys, paths) then hold on to nothing else.
  const strings = new Array<string | undefined>(m)
  for (let k = 0; k < m; k++) {
    const kind = kinds[k]
    if (kind === LATIN1) strings[k] = raw.toString('latin1', starts[k], ends[k])
    else if (kind === UTF16) strings[k] = raw.toString('utf16le', starts[k], ends[k])
  }
  const batch = new PackedBatch(buffer, onDone, new Float64Array(buffer, at.numbersAt, n * NUMBERS), new Int32Array(buffer, at.refsAt, n * STRINGS), strings, starts, ends, raw, file, lineOffset)
  const out = new Array<AccessEvent>(n)
  for (let i = 0; i < n; i++) out[i] = new PackedEvent(batch, i)
  if (n === 0) onDone?.(buffer)
  return out
}

/** The field names, in the order the references are stored (for tests). */
export const ENCODED_STRING_FIELDS: readonly string[] = STRING_FIELDS
