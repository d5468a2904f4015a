import {closeSync, createReadStream, promises as fs, openSync, readSync, type ReadStream, statSync} from 'node:fs'
import {createGunzip} from 'node:zlib'
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
    return {...(gzip ? gunzipped(raw) : {chunks: raw, close: () => raw.destroy()}), kind}
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
function gunzipped(raw: ReadStream): Omit<Input, 'kind'> {
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
  async function* chunks(): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        const c = queue.shift()
        if (c) {
          queued -= c.length
          flow()
          yield c
        } else if (failure) {
          throw failure.error
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
