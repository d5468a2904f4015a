import {closeSync, createReadStream, promises as fs, fstatSync, openSync, readSync, type ReadStream, statSync} from 'node:fs'
import * as zlib from 'node:zlib'
import {Readable} from 'node:stream'
import {createGunzip, createInflateRaw} from 'node:zlib'
import {FileChanged, InputError} from '../errors'

/** A regular file's size and whether it starts with the gzip magic number. */
export interface FileKind {
  size: number
  gzip: boolean
  /** The file's identity (device and inode): a reader that opens it again checks it is the same file. */
  dev: number
  ino: number
}

/** A file's bytes (gunzipped when it is gzip), and how to stop reading them early. */
export interface Input {
  chunks: AsyncIterable<Buffer>
  close(): void
  /** What the file is, when it is a regular file (what parallel readers need to know). */
  kind?: FileKind
  /** Bytes of the file read so far (before gunzip), for the progress line. */
  readonly read: {bytes: number}
}

/**
 * Opens a file as a stream of bytes, gunzipping it when it starts with the gzip magic number
 * (whatever its name says). The first bytes are read from the stream, not at an offset: a pipe or
 * a device has none. Throws InputError for files that cannot be read, and for archives and
 * compressions skewscan does not read (a zip is not a log, even when its members are stored).
 */
export async function openInput(path: string, displayName = path): Promise<Input> {
  let handle: fs.FileHandle | undefined
  let raw: ReadStream | undefined
  try {
    // One descriptor throughout: a file renamed away while it is read (logrotate's `create`) is
    // still the one read, whole, never a mix of it and the new file at its path.
    handle = await fs.open(path, 'r')
    const stat = await handle.stat()
    if (stat.isDirectory()) throw new InputError(`${displayName}: is a directory, not a log file`, displayName)
    const fh = handle
    let start: Buffer[]
    let rest: AsyncIterator<Buffer> | undefined
    if (stat.isFile()) {
      const magic = Buffer.alloc(MAGIC_BYTES)
      start = [magic.subarray(0, (await fh.read(magic, 0, MAGIC_BYTES, 0)).bytesRead)]
    } else {
      // A pipe or a device: the first bytes are read from the stream, which has no offsets. The stream owns the descriptor.
      raw = createReadStream('', {fd: fh, highWaterMark: 1 << 20})
      handle = undefined
      const it = (raw as AsyncIterable<Buffer>)[Symbol.asyncIterator]()
      start = []
      let size = 0
      rest = it
      while (size < MAGIC_BYTES) {
        const next = await it.next()
        if (next.done) {
          rest = undefined
          break
        }
        start.push(next.value)
        size += next.value.length
      }
    }
    const first = Buffer.concat(start)
    const archive = archiveOf(first)
    if (archive) throw new InputError(`${displayName}: ${archive.name}, not a log file: skewscan reads plain and gzip files (${archive.hint})`, displayName)
    const gzip = isGzip(first)
    const read = {bytes: 0}
    if (raw) {
      const stream = raw
      const close = (): void => void stream.destroy()
      const chunks = tallied(prepended(start, rest), read)
      return gzip ? {chunks: gzipMembers(chunks), close, read} : {chunks, close, read}
    }
    const close = (): void => void fh.close().catch(() => undefined)
    const kind = {size: stat.size, gzip, dev: stat.dev, ino: stat.ino}
    // A regular file is read up to its size at open: lines appended while it is read are left for the next run.
    const whole = (): AsyncGenerator<Buffer> => counted(tallied(fileBytes(fh, stat.size), read), stat.size, () => checkWhole(fh, stat.size, displayName))
    if (!gzip) return {chunks: whole(), close, kind, read}
    const g = gunzipped(whole)
    return {chunks: g.chunks, close: () => {
      g.close()
      close()
    }, kind, read}
  } catch (error: unknown) {
    raw?.destroy()
    await handle?.close().catch(() => undefined)
    if (error instanceof InputError) throw error
    if (tooManyOpen(error)) throw new InputError(`${displayName}: cannot be opened: ${TOO_MANY_OPEN}`, displayName)
    throw new InputError(`${displayName}: cannot read (${describeFsError(error)})`, displayName)
  }
}

/** The limit of open files reached (EMFILE: this process's, `ulimit -n`; ENFILE: the system's). */
const tooManyOpen = (error: unknown): boolean => ['EMFILE', 'ENFILE'].includes((error as {code?: string}).code ?? '')

/** What to do when the inputs are more than the files a process may hold open. */
const TOO_MANY_OPEN = 'too many files open at once (the limit of open files, `ulimit -n`, was reached). ' +
  'Every input is read at the same time, to merge them in time order: raise the limit (`ulimit -n 4096`), ' +
  'or give fewer files, joined first (`cat *.log | skewscan analyze -`; zcat for gzip files): an input out of time order is sorted'

/** A regular file's bytes from its start up to `size`, read at offsets of the one descriptor. */
async function* fileBytes(fh: fs.FileHandle, size: number): AsyncGenerator<Buffer> {
  for (let position = 0; position < size;) {
    const buf = Buffer.allocUnsafe(Math.min(1 << 20, size - position))
    const {bytesRead} = await fh.read(buf, 0, buf.length, position)
    if (bytesRead === 0) return
    position += bytesRead
    yield bytesRead === buf.length ? buf : buf.subarray(0, bytesRead)
  }
}

/** The bytes as they pass, counted into `read` (the progress line's bytes read). */
async function* tallied(chunks: AsyncIterable<Buffer>, read: {bytes: number}): AsyncGenerator<Buffer> {
  for await (const c of chunks) {
    read.bytes += c.length
    yield c
  }
}

/** A regular file read to its end that gave fewer bytes than its size at open: it was cut while read. */
async function* counted(chunks: AsyncIterable<Buffer>, size: number, whole: () => Promise<void>): AsyncGenerator<Buffer> {
  let got = 0
  for await (const c of chunks) {
    got += c.length
    yield c
  }
  if (got < size) throw new FileChanged(`changed while read: it held ${size} bytes when opened, and ended after ${got} (cut short, as logrotate's copytruncate does)`)
  await whole()
}

/** The file read whole: still no shorter than when it was opened (cut, then written again past where it was read). */
async function checkWhole(fh: fs.FileHandle, size: number, displayName: string): Promise<void> {
  const now = await fh.stat().catch(() => undefined)
  if (now && now.size < size) throw new FileChanged(`changed while read: ${displayName} held ${size} bytes when opened and ${now.size} once read (cut, as logrotate's copytruncate does)`)
}

/** Bytes read to tell what a file is. */
const MAGIC_BYTES = 8

/** Archives and compressions that are no log, with what to do instead. */
const ARCHIVES: readonly {magic: readonly number[]; name: string; hint: string}[] = [
  {magic: [0x50, 0x4b, 0x03, 0x04], name: 'a zip archive', hint: 'unzip -p FILE | skewscan analyze -'},
  {magic: [0x50, 0x4b, 0x05, 0x06], name: 'an empty zip archive', hint: 'it holds no file'},
  {magic: [0x42, 0x5a, 0x68], name: 'bzip2 data', hint: 'bzcat FILE | skewscan analyze -'},
  {magic: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], name: 'xz data', hint: 'xzcat FILE | skewscan analyze -'},
  {magic: [0x28, 0xb5, 0x2f, 0xfd], name: 'zstd data', hint: 'zstdcat FILE | skewscan analyze -'},
  {magic: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], name: 'a 7z archive', hint: '7z x -so FILE | skewscan analyze -'},
]

/** The archive or compression a file's first bytes say it is, when it is one skewscan does not read. */
export function archiveOf(first: Buffer): (typeof ARCHIVES)[number] | undefined {
  return ARCHIVES.find((a) => a.magic.every((b, i) => first[i] === b))
}

/** The chunks read already, then the rest of the stream. */
async function* prepended(start: Buffer[], rest: AsyncIterator<Buffer> | undefined): AsyncGenerator<Buffer> {
  for (const c of start) yield c
  if (!rest) return
  for (;;) {
    const next = await rest.next()
    if (next.done) return
    yield next.value
  }
}

/** Gunzipped bytes waiting to be read beyond which the file is paused. */
const GUNZIP_AHEAD = 4 * 1024 * 1024

/**
 * The gunzipped bytes of a file, each byte zlib produced delivered before the error of a truncated
 * or corrupt stream. Read as a stream, a gunzip drops the output it holds when it fails, so how
 * much of a cut-off file came through would depend on how fast it was read; here zlib's output is
 * taken as it comes and backpressure pauses the file instead. zlib writes 256 KiB at a time (its
 * 16 KiB default costs a round trip to libuv's threads per 16 KiB).
 */
function gunzipped(from: () => AsyncIterable<Buffer>): Omit<Input, 'kind' | 'read'> {
  const raw = Readable.from(from(), {objectMode: false})
  const z = createGunzip({chunkSize: 256 * 1024})
  const queue: Buffer[] = []
  let queued = 0
  let zFull = false
  let failure: {error: unknown} | undefined
  let ended = false
  let wake: (() => void) | undefined
  const signal = (): void => {
    const w = wake
    wake = undefined
    w?.()
  }
  const flow = (): void => {
    if (zFull || queued > GUNZIP_AHEAD) raw.pause()
    else raw.resume()
  }
  raw.on('data', (c: string | Buffer) => {
    zFull = !z.write(c)
    flow()
  })
  raw.on('end', () => z.end())
  raw.on('error', (error) => {
    failure ??= {error}
    signal()
  })
  z.on('drain', () => {
    zFull = false
    flow()
  })
  z.on('data', (c: Buffer) => {
    queue.push(c)
    queued += c.length
    flow()
    signal()
  })
  z.on('end', () => {
    ended = true
    signal()
  })
  z.on('error', (error) => {
    failure ??= {error}
    signal()
  })
  const close = (): void => {
    raw.destroy()
    z.destroy()
  }
  let delivered = 0
  async function* chunks(): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        const c = queue.shift()
        if (c) {
          queued -= c.length
          flow()
          delivered += c.length
          yield c
        } else if (failure) {
          // Not gzip where the next member should start (bytes appended after a gzip file): zlib
          // drops what it held. Every member is read again, one by one, and the rest of the data
          // delivered; the bytes after the last member are counted, not read.
          if ((failure.error as {code?: string}).code !== 'Z_DATA_ERROR') throw failure.error
          close()
          yield* skipping(gzipMembers(from()), delivered)
          return
        } else if (ended) {
          return
        } else {
          await new Promise<void>((resolve) => (wake = resolve))
        }
      }
    } finally {
      close()
    }
  }
  return {chunks: chunks(), close}
}

/** A gzip file's data after what was delivered already. */
async function* skipping(source: AsyncGenerator<Buffer>, skip: number): AsyncGenerator<Buffer> {
  let left = skip
  for await (const c of source) {
    if (left >= c.length) {
      left -= c.length
      continue
    }
    yield left > 0 ? c.subarray(left) : c
    left = 0
  }
}

/** Bytes after the last gzip member that are no gzip member (a file with data appended). */
export class TrailingData extends Error {
  constructor(readonly bytes: number) {
    super(`${bytes} bytes after the end of the gzip data are not gzip: not read`)
    this.name = 'TrailingData'
  }
}

/** A gzip member's header: its length, or 0 when `b` does not hold it whole yet, or -1 when it is no gzip header. */
function gzipHeaderLength(b: Buffer): number {
  if (b.length >= 2 && (b[0] !== 0x1f || b[1] !== 0x8b)) return -1
  if (b.length < 10) return 0
  const flags = b[3] as number
  let i = 10
  if (flags & 4) {
    if (b.length < i + 2) return 0
    i += 2 + (b.readUInt16LE(i))
  }
  for (const bit of [8, 16]) {
    if (!(flags & bit)) continue
    const nul = b.indexOf(0, i)
    if (nul < 0) return 0
    i = nul + 1
  }
  if (flags & 2) i += 2
  return b.length >= i ? i : 0
}

/**
 * A gzip file's data member by member (RFC 1952: header, deflate data, 8-byte trailer), each
 * member's deflate data through an InflateRaw that stops where it ends; then TrailingData for
 * whatever follows the last member, when it is not empty.
 */
async function* gzipMembers(raw: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let pending: Buffer = Buffer.alloc(0)
  let inflater: ReturnType<typeof createInflateRaw> | undefined
  let fed = 0
  let trailer = 0
  /** The member's trailer as read so far (CRC-32 and ISIZE, little-endian), and what its data gave. */
  let trailerBytes: Buffer[] = []
  let crc = 0
  let isize = 0
  let member = 0
  const out: Buffer[] = []
  let memberEnded = false
  try {
    for await (const chunk of raw) {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      while (pending.length > 0) {
        if (trailer > 0) {
          const n = Math.min(trailer, pending.length)
          trailer -= n
          trailerBytes.push(pending.subarray(0, n))
          pending = pending.subarray(n)
          if (trailer === 0) checkTrailer(Buffer.concat(trailerBytes), crc, isize, member)
          continue
        }
        if (!inflater) {
          const h = gzipHeaderLength(pending)
          if (h < 0) throw new TrailingData(pending.length + (await restLength(raw)))
          if (h === 0) break
          pending = pending.subarray(h)
          const z = createInflateRaw()
          crc = 0
          isize = 0
          member++
          z.on('data', (d: Buffer) => {
            crc = crc32(d, crc)
            isize = (isize + d.length) % 0x100000000
            out.push(d)
          })
          z.on('end', () => (memberEnded = true))
          inflater = z
          fed = 0
          memberEnded = false
          continue
        }
        const z = inflater
        const piece = pending
        pending = Buffer.alloc(0)
        fed += piece.length
        await new Promise<void>((resolve, reject) => {
          z.once('error', reject)
          z.write(piece, () => resolve())
        })
        if (!memberEnded) {
          // The member may have ended with this piece: flushing makes zlib say so.
          await new Promise<void>((resolve) => z.flush(() => resolve()))
          await new Promise<void>((resolve) => setImmediate(resolve))
        }
        while (out.length > 0) yield out.shift() as Buffer
        if (memberEnded) {
          const rest = fed - z.bytesWritten
          pending = rest > 0 ? piece.subarray(piece.length - rest) : Buffer.alloc(0)
          inflater = undefined
          trailer = 8
          trailerBytes = []
        }
      }
    }
    // The data ends inside a member (its deflate data or its trailer): cut short, as gunzip says.
    if (inflater || trailer > 0) throw new Error('unexpected end of file')
  } finally {
    inflater?.destroy()
  }
}

/**
 * A member's trailer against its data (RFC 1952: CRC-32, then the length modulo 2^32): one byte
 * changed anywhere in a gzip file fails here (`gzip -t`'s "crc error"), and the data is corrupt.
 */
function checkTrailer(t: Buffer, crc: number, isize: number, member: number): void {
  const where = member > 1 ? ` (gzip member ${member})` : ''
  if (t.readUInt32LE(0) !== crc >>> 0) throw new Error(`gzip data corrupt: CRC-32 check failed${where}`)
  if (t.readUInt32LE(4) !== isize) throw new Error(`gzip data corrupt: length check failed${where}`)
}

/** CRC-32 as gzip computes it (zlib's own since Node 20.15; a table otherwise). */
const crc32: (data: Buffer, value: number) => number =
  typeof (zlib as {crc32?: unknown}).crc32 === 'function' ? (d, v) => (zlib as unknown as {crc32(d: Buffer, v: number): number}).crc32(d, v) : tableCrc32

let CRC_TABLE: Uint32Array | undefined
function tableCrc32(data: Buffer, value: number): number {
  if (!CRC_TABLE) {
    CRC_TABLE = new Uint32Array(256)
    for (let n = 0; n < 256; n++) {
      let c = n
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
      CRC_TABLE[n] = c >>> 0
    }
  }
  let c = ~value >>> 0
  for (const b of data) c = (CRC_TABLE[(c ^ b) & 0xff] as number) ^ (c >>> 8)
  return ~c >>> 0
}

async function restLength(raw: AsyncIterable<Buffer>): Promise<number> {
  let n = 0
  for await (const c of raw) n += c.length
  return n
}

/**
 * What a path is, when it is a regular file; undefined for anything else or anything unreadable.
 * Blocking (a stat and two bytes): it decides whether to start workers, before anything is read.
 */
export function fileKind(path: string): FileKind | undefined {
  let fd: number | undefined
  try {
    // Stat before opening: opening a named pipe would take its writer's data (and block without one).
    if (!statSync(path).isFile()) return undefined
    fd = openSync(path, 'r')
    const stat = fstatSync(fd)
    if (!stat.isFile()) return undefined
    const magic = Buffer.alloc(2)
    return {size: stat.size, gzip: isGzip(magic.subarray(0, readSync(fd, magic, 0, 2, 0))), dev: stat.dev, ino: stat.ino}
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** Bytes that start with the gzip magic number. */
export const isGzip = (first: Buffer): boolean => first.length >= 2 && first[0] === 0x1f && first[1] === 0x8b

function describeFsError(error: unknown): string {
  const code = (error as {code?: string}).code
  if (code === 'ENOENT') return 'no such file'
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied'
  if (code === 'EISDIR') return 'is a directory'
  return error instanceof Error ? error.message : String(error)
}
