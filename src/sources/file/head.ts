import {type Line, MAX_LINE} from './lines'

/** Bytes of lines looked at to tell a file's format, once its first line is whole. */
const HEAD_BYTES = 256 * 1024
/** Lines with content looked at to tell a file's format. */
const HEAD_LINES = 64

/** The start of a byte stream, read to tell its format, and the whole stream again. */
export interface Head {
  /** The whole lines of the head (a first line longer than MAX_LINE is one `tooLong` line: its start). */
  lines: Line[]
  /** The error that ended the stream inside the head, if it failed there. */
  error?: unknown
  /** The stream from its first byte: the head's bytes, then the rest (and the error, if it failed). */
  chunks: AsyncIterable<Buffer>
}

/**
 * Reads the start of a byte stream: HEAD_LINES lines with content, or HEAD_BYTES once the first
 * line is whole, or the first MAX_LINE bytes of a first line that long (a saved API page on one
 * line). What was read is given back in `chunks`, so every reader starts from the first byte,
 * whatever the head is made of; memory stays within MAX_LINE plus a read.
 */
export async function readHead(stream: AsyncIterable<Buffer>): Promise<Head> {
  const it = stream[Symbol.asyncIterator]()
  const kept: Buffer[] = []
  let size = 0
  let firstEnd = -1
  let contentLines = 0
  let content = false
  let done = false
  let failure: {error: unknown} | undefined
  while (contentLines < HEAD_LINES && (firstEnd < 0 ? size <= MAX_LINE : size < HEAD_BYTES)) {
    let next: IteratorResult<Buffer>
    try {
      next = await it.next()
    } catch (error: unknown) {
      failure = {error}
      break
    }
    if (next.done) {
      done = true
      break
    }
    const chunk = next.value
    // Newlines found by the native search, and a line's content by its first byte above a space
    // (nearly always its first): a saved API page on one line is megabytes without a newline, which
    // a loop over every byte took milliseconds to cross.
    for (let i = 0; i < chunk.length && contentLines < HEAD_LINES;) {
      const nl = chunk.indexOf(10, i)
      const end = nl === -1 ? chunk.length : nl
      if (!content) content = hasContent(chunk, i, end)
      if (nl === -1) break
      if (firstEnd < 0) firstEnd = size + nl
      if (content) contentLines++
      content = false
      i = nl + 1
    }
    kept.push(chunk)
    size += chunk.length
  }
  const bytes = Buffer.concat(kept)
  return {
    lines: headLines(bytes, done || failure !== undefined, firstEnd),
    ...(failure ? {error: failure.error} : {}),
    chunks: replay(kept, it, failure),
  }
}

/**
 * The head's lines, up to its HEAD_LINES-th line with content (the reads bring whole chunks, a
 * megabyte of a file: the lines past it would only cost their decoding, and make what is told of the
 * file depend on how it was read); the bytes after its last newline are a line only when the stream
 * ended there.
 */
function headLines(bytes: Buffer, ended: boolean, firstEnd: number): Line[] {
  if (firstEnd < 0 && bytes.length > MAX_LINE) return [{text: bytes.toString('utf8', 0, 200), line: 1, tooLong: true}]
  const out: Line[] = []
  let start = 0
  let content = 0
  for (let nl = bytes.indexOf(10); nl !== -1; nl = bytes.indexOf(10, start)) {
    out.push(lineAt(bytes, start, nl, out.length + 1))
    if (hasContent(bytes, start, nl) && ++content === HEAD_LINES) return out
    start = nl + 1
  }
  if (ended && start < bytes.length) out.push(lineAt(bytes, start, bytes.length, out.length + 1))
  return out
}

/** Whether bytes [start, end) hold more than white space and control characters (a byte above a space). */
function hasContent(bytes: Buffer, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if ((bytes[k] as number) > 32) return true
  return false
}

function lineAt(bytes: Buffer, start: number, end: number, line: number): Line {
  const e = end > start && bytes[end - 1] === 13 ? end - 1 : end
  if (e - start > MAX_LINE) return {text: bytes.toString('utf8', start, start + 200), line, tooLong: true}
  return {text: bytes.toString('utf8', start, e), line}
}

async function* replay(kept: Buffer[], it: AsyncIterator<Buffer>, failure: {error: unknown} | undefined): AsyncGenerator<Buffer> {
  try {
    while (kept.length > 0) yield kept.shift() as Buffer
    if (failure) throw failure.error
    for (;;) {
      const next = await it.next()
      if (next.done) return
      yield next.value
    }
  } finally {
    await it.return?.()
  }
}
