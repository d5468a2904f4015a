import {createReadStream, promises as fs, type ReadStream} from 'node:fs'
import {createGunzip} from 'node:zlib'
import {InputError} from '../errors'

/** A file's bytes (gunzipped when it is gzip), and how to stop reading them early. */
export interface Input {
  chunks: AsyncIterable<Buffer>
  close(): void
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
    const raw = createReadStream(path, {highWaterMark: 1 << 20})
    if (bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b) return gunzipped(raw)
    return {chunks: raw, close: () => raw.destroy()}
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
function gunzipped(raw: ReadStream): Input {
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

/** The size of a regular file that is not gzip (one that can be read in byte ranges), else undefined. */
export async function plainFileSize(path: string): Promise<number | undefined> {
  const f = await regularFile(path)
  return f && !f.gzip ? f.size : undefined
}

/** The (compressed) size of a regular gzip file, else undefined. */
export async function gzipFileSize(path: string): Promise<number | undefined> {
  const f = await regularFile(path)
  return f?.gzip ? f.size : undefined
}

/** A regular file's size and whether it starts with the gzip magic number; undefined for anything else. */
async function regularFile(path: string): Promise<{size: number; gzip: boolean} | undefined> {
  let handle: fs.FileHandle | undefined
  try {
    const stat = await fs.stat(path)
    if (!stat.isFile()) return undefined
    handle = await fs.open(path, 'r')
    const magic = Buffer.alloc(2)
    const {bytesRead} = await handle.read(magic, 0, 2, 0)
    return {size: stat.size, gzip: bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b}
  } catch {
    return undefined
  } finally {
    await handle?.close().catch(() => {})
  }
}

function describeFsError(error: unknown): string {
  const code = (error as {code?: string}).code
  if (code === 'ENOENT') return 'no such file'
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied'
  if (code === 'EISDIR') return 'is a directory'
  return error instanceof Error ? error.message : String(error)
}
