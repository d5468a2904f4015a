import {createReadStream, promises as fs} from 'node:fs'
import type {Readable} from 'node:stream'
import {createGunzip} from 'node:zlib'
import {InputError} from '../errors'

/**
 * Opens a file as a stream of bytes, gunzipping it when it starts with the gzip magic number
 * (whatever its name says). Throws InputError for files that cannot be read.
 */
export async function openInput(path: string, displayName = path): Promise<Readable> {
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
    if (bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b) {
      const gunzip = createGunzip()
      raw.on('error', (err) => gunzip.destroy(err))
      return raw.pipe(gunzip)
    }
    return raw
  } catch (error: unknown) {
    await handle?.close().catch(() => {})
    if (error instanceof InputError) throw error
    throw new InputError(`${displayName}: cannot read (${describeFsError(error)})`, displayName)
  }
}

/** The size of a regular file that is not gzip (one that can be read in byte ranges), else undefined. */
export async function plainFileSize(path: string): Promise<number | undefined> {
  let handle: fs.FileHandle | undefined
  try {
    const stat = await fs.stat(path)
    if (!stat.isFile()) return undefined
    handle = await fs.open(path, 'r')
    const magic = Buffer.alloc(2)
    const {bytesRead} = await handle.read(magic, 0, 2, 0)
    return bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b ? undefined : stat.size
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
