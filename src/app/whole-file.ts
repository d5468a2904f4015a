/**
 * Files a run writes for others to pick up (`-o`, `--out-dir`, `--failures`) appear whole or not at
 * all: written under a temporary name beside the target (same directory, so the same file system),
 * then given the target's name; on any error the temporary is removed. A full disk part-way leaves
 * no truncated report under a name a collector reads.
 */
import {once} from 'node:events'
import {randomBytes} from 'node:crypto'
import {createWriteStream, promises as fs, type WriteStream} from 'node:fs'
import {basename, dirname, join} from 'node:path'

/**
 * Whether `path` names something that is no regular file (a device such as /dev/stdout or
 * /dev/full, a named pipe): written in place, never replaced by a file of ours.
 */
async function special(path: string): Promise<boolean> {
  const st = await fs.stat(path).catch(() => undefined)
  return st !== undefined && !st.isFile() && !st.isDirectory()
}

/** A hidden name beside `path`, of this process, that no other run picks. */
export function temporaryBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`)
}

/**
 * Gives the finished temporary `tmp` the name `path`. `exclusive`: only when no file has that name
 * (false when one has), as an O_EXCL create: a hard link fails when the name exists, so of two runs
 * racing for one name exactly one gets it; the other's temporary is removed. Otherwise a rename,
 * which replaces the old file in one step.
 */
export async function publish(tmp: string, path: string, exclusive: boolean): Promise<boolean> {
  try {
    if (!exclusive) {
      await fs.rename(tmp, path)
      return true
    }
    try {
      await fs.link(tmp, path)
    } catch (error: unknown) {
      const code = (error as {code?: string}).code
      if (code === 'EEXIST') return false
      // A file system without hard links: claim the name exclusively, then put the file over it.
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') throw error
      const claim = await fs.open(path, 'wx').catch((e: unknown) => {
        if ((e as {code?: string}).code === 'EEXIST') return undefined
        throw e
      })
      if (!claim) return false
      await claim.close()
      await fs.rename(tmp, path)
    }
    return true
  } finally {
    await fs.rm(tmp, {force: true})
  }
}

/** Writes `text` whole to `path` (see `publish` for `exclusive`); nothing is left at `path` or beside it on error. */
export async function writeWhole(path: string, text: string, exclusive: boolean): Promise<boolean> {
  if (await special(path)) {
    if (exclusive) return false
    await fs.writeFile(path, text)
    return true
  }
  const tmp = temporaryBeside(path)
  try {
    await fs.writeFile(tmp, text, {flag: 'wx'})
  } catch (error: unknown) {
    await fs.rm(tmp, {force: true})
    throw error
  }
  return publish(tmp, path, exclusive)
}

/** A stream written under a temporary name beside `path`: `commit` names it `path`, `discard` removes it. */
export interface WholeFileStream {
  out: WriteStream
  commit: () => Promise<void>
  discard: () => Promise<void>
}

export async function openWhole(path: string): Promise<WholeFileStream> {
  if (await special(path)) {
    const direct = createWriteStream(path)
    await once(direct, 'open')
    return {out: direct, commit: async () => {}, discard: async () => {
      if (!direct.destroyed) direct.destroy()
    }}
  }
  const tmp = temporaryBeside(path)
  const out = createWriteStream(tmp, {flags: 'wx'})
  try {
    await once(out, 'open')
  } catch (error: unknown) {
    await fs.rm(tmp, {force: true})
    throw error
  }
  return {
    out,
    commit: async () => {
      await publish(tmp, path, false)
    },
    discard: async () => {
      if (!out.destroyed) out.destroy()
      await fs.rm(tmp, {force: true})
    },
  }
}
