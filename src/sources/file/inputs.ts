import {createReadStream, promises as fs} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Readable} from 'node:stream'
import {InputError, temporaryFileError} from '../errors'
import {archiveOf, isGzip} from './open'
import {trackTemporary} from '../temporaries'

/** An input as named on the command line, and the path it is read from. */
export interface NamedInput {
  name: string
  path: string
}

/** The inputs of a run, each one once, every one of them a file that can be read again. */
export interface Inputs {
  paths: NamedInput[]
  /** Removes what was kept in temporary files. */
  dispose(): Promise<void>
}

/** Bytes of a stream looked at before it is kept: a device of zeros is no log. */
const SNIFF_BYTES = 64 * 1024

/**
 * The inputs named, each read once, and each a file that can be read again: a source out of time
 * order is read a second time, sorted. Standard input (`-`), named pipes (`<(zcat f)`, a FIFO,
 * `/dev/stdin` on a pipe) and devices can be read only once: they are kept in a temporary file as
 * they are read. The same file named twice (or by two paths, a link; `-` twice) would count every
 * request twice and halve the broken share: later names of a file already given are said and left
 * out. A path that cannot be read is kept, for the reader to report.
 */
export async function readableInputs(names: readonly string[], stdin: Readable | undefined, notice?: (message: string) => void): Promise<Inputs> {
  const seen = new Map<string, string>()
  const distinct: {name: string; once: boolean}[] = []
  for (const name of names) {
    const st = name === '-' ? undefined : await fs.stat(name).catch(() => undefined)
    const key = name === '-' ? '-' : st && !st.isDirectory() ? `${st.dev}:${st.ino}` : undefined
    const first = key === undefined ? undefined : seen.get(key)
    if (first !== undefined) {
      notice?.(`${name} is ${first === name ? 'given twice' : `the same file as ${first}`}: read once`)
      continue
    }
    if (key !== undefined) seen.set(key, name)
    distinct.push({name, once: name === '-' || (st !== undefined && !st.isFile() && !st.isDirectory())})
  }
  let dir: string | undefined
  let untrack = (): void => {}
  const dispose = async (): Promise<void> => {
    if (dir) await fs.rm(dir, {recursive: true, force: true})
    untrack()
  }
  try {
    const paths: NamedInput[] = []
    for (const [i, input] of distinct.entries()) {
      if (!input.once) {
        paths.push({name: input.name, path: input.name})
        continue
      }
      if (input.name === '-' && !stdin) throw new InputError('-: no standard input to read', '-')
      if (dir === undefined) {
        dir = await fs.mkdtemp(join(tmpdir(), 'skewscan-')).catch((error: unknown) => {
          throw temporaryFileError(error, tmpdir(), `a copy of ${input.name === '-' ? 'standard input' : input.name}`)
        })
        untrack = trackTemporary(dir)
      }
      const path = join(dir, `input-${i}`)
      await keep(input.name === '-' ? (stdin as Readable) : createReadStream(input.name), path, input.name)
      paths.push({name: input.name, path})
    }
    return {paths, dispose}
  } catch (error: unknown) {
    await dispose()
    throw error
  }
}

/** Copies a stream that can be read once into a file; a start that is no text (zeros) stops it at once. */
async function keep(stream: Readable, path: string, name: string): Promise<void> {
  const copy = `a copy of ${name === '-' ? 'standard input' : name}`
  const out = await fs.open(path, 'wx').catch((error: unknown) => {
    throw temporaryFileError(error, tmpdir(), copy)
  })
  try {
    let start: Buffer[] | undefined = []
    let size = 0
    const check = (): void => {
      if (!start) return
      if (binaryStart(Buffer.concat(start))) throw new InputError(`${name}: binary data, not a log (NUL bytes and no line break in its first ${size} bytes)`, name)
      start = undefined
    }
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (start) {
        start.push(chunk)
        size += chunk.length
        if (size >= SNIFF_BYTES) check()
      }
      // A full TMPDIR is said as such, not as an input that cannot be read.
      await out.write(chunk).catch((error: unknown) => {
        throw temporaryFileError(error, tmpdir(), copy)
      })
    }
    check()
  } catch (error: unknown) {
    stream.destroy()
    if (error instanceof InputError) throw error
    throw new InputError(`${name}: cannot read (${error instanceof Error ? error.message : String(error)})`, name)
  } finally {
    await out.close()
  }
}

/**
 * NUL bytes and not one line break: a device of zeros, an image. Not gzip (whose bytes are binary),
 * nor an archive, which the reader names with the command that reads it.
 */
export function binaryStart(bytes: Buffer): boolean {
  if (isGzip(bytes) || archiveOf(bytes)) return false
  return bytes.includes(0) && !bytes.includes(10)
}
