import {closeSync, createReadStream, promises as fs, openSync, readSync, type ReadStream, statSync} from 'node:fs'
import {createGunzip, createInflateRaw} from 'node:zlib'
import {InputError} from '../errors'

/** A regular file's size and whether it starts with the gzip magic number. */
export interface FileKind {
  size: number
  gzip: boolean
}

/** A file's bytes (gunzipped when it is gzip), and how to stop reading them early. */
export interface Input {
  chunks: AsyncIterable<Buffer>
  close(): void
  /** What the file is, when it is a regular file (what parallel readers need to know). */
  kind?: FileKind
}

/**
 * Opens a file as a stream of bytes, gunzipping it when it starts with the gzip magic number
 * (whatever its name says). Throws InputError for files that cannot be read.
 */
export async function openInput(path: string, displayName = path): Promise<Input> {
  let handle: fs.FileHandle | undefined
  try {
    const stat = await fs.stat(path)
    if (stat.isDirectory()) throw new InputError(`${displayName}: is a directory, not a log file`, displayName)
    handle = await fs.open(path, 'r')
    const magic = Buffer.alloc(2)
    const {bytesRead} = await handle.read(magic, 0, 2, 0)
    await handle.close()
    handle = undefined
    const gzip = isGzip(magic, bytesRead)
    const kind = stat.isFile() ? {size: stat.size, gzip} : undefined
    const raw = createReadStream(path, {highWaterMark: 1 << 20})
    return {...(gzip ? gunzipped(raw, path) : {chunks: raw, close: () => raw.destroy()}), kind}
  } catch (error: unknown) {
    await handle?.close().catch(() => {})
    if (error instanceof InputError) throw error
    throw new InputError(`${displayName}: cannot read (${describeFsError(error)})`, displayName)
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
function gunzipped(raw: ReadStream, path: string): Omit<Input, 'kind'> {
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
          yield* skipping(gzipMembers(path), delivered)
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
async function* gzipMembers(path: string): AsyncGenerator<Buffer> {
  const raw = createReadStream(path, {highWaterMark: 1 << 20})
  let pending: Buffer = Buffer.alloc(0)
  let inflater: ReturnType<typeof createInflateRaw> | undefined
  let fed = 0
  let trailer = 0
  const out: Buffer[] = []
  let memberEnded = false
  try {
    for await (const chunk of raw as AsyncIterable<Buffer>) {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      while (pending.length > 0) {
        if (trailer > 0) {
          const n = Math.min(trailer, pending.length)
          trailer -= n
          pending = pending.subarray(n)
          continue
        }
        if (!inflater) {
          const h = gzipHeaderLength(pending)
          if (h < 0) throw new TrailingData(pending.length + (await restLength(raw)))
          if (h === 0) break
          pending = pending.subarray(h)
          const z = createInflateRaw()
          z.on('data', (d: Buffer) => out.push(d))
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
        }
      }
    }
    if (inflater) {
      const z = inflater
      await new Promise<void>((resolve) => z.end(() => resolve()))
      while (out.length > 0) yield out.shift() as Buffer
    }
  } finally {
    raw.destroy()
    inflater?.destroy()
  }
}

async function restLength(raw: ReadStream): Promise<number> {
  let n = 0
  for await (const c of raw as AsyncIterable<Buffer>) n += c.length
  return n
}

/**
 * What a path is, when it is a regular file; undefined for anything else or anything unreadable.
 * Blocking (a stat and two bytes): it decides whether to start workers, before anything is read.
 */
export function fileKind(path: string): FileKind | undefined {
  let fd: number | undefined
  try {
    const stat = statSync(path)
    if (!stat.isFile()) return undefined
    fd = openSync(path, 'r')
    const magic = Buffer.alloc(2)
    return {size: stat.size, gzip: isGzip(magic, readSync(fd, magic, 0, 2, 0))}
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

const isGzip = (magic: Buffer, bytesRead: number): boolean => bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b

function describeFsError(error: unknown): string {
  const code = (error as {code?: string}).code
  if (code === 'ENOENT') return 'no such file'
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied'
  if (code === 'EISDIR') return 'is a directory'
  return error instanceof Error ? error.message : String(error)
}
