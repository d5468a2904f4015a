/** Longest line kept; a one-line API page of 1000 events is about 1-2 MB. */
export const MAX_LINE = 16 * 1024 * 1024

/** Lines handed on at most at once: a 1 MB chunk of one-byte junk lines is half a million of them. */
const MAX_BATCH_LINES = 16 * 1024

export interface Line {
  text: string
  /** 1-based. */
  line: number
  /** Set when the line was longer than the limit: `text` is then only its start. */
  tooLong?: boolean
}

/** Thrown out of `lines` when the byte stream fails (a truncated gzip, a read error). */
export class StreamCut extends Error {
  constructor(readonly line: number, override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause))
  }
}

/**
 * Splits a byte stream into lines (LF or CRLF), in batches. Lines are found in the bytes (a UTF-8
 * character never contains a newline byte) and each is decoded on its own: fields cut from a line
 * then keep only that line alive, not the whole read buffer, so what the analysis holds stays
 * proportional to the sessions it tracks. A line longer than `maxLength` is cut short and flagged.
 */
export async function* lines(stream: AsyncIterable<Buffer>, maxLength: number): AsyncGenerator<Line[]> {
  let pending: Buffer[] = []
  let pendingBytes = 0
  let overflow = false
  let lineNo = 0
  const finish = (buf: Buffer, start: number, end: number): Line => {
    lineNo++
    if (end > start && buf[end - 1] === 13) end-- // CRLF
    if (overflow || end - start > maxLength) {
      overflow = false
      return {text: buf.toString('utf8', start, Math.min(end, start + 200)), line: lineNo, tooLong: true}
    }
    return {text: buf.toString('utf8', start, end), line: lineNo}
  }
  try {
    for await (const chunk of stream) {
      const buf = chunk
      const out: Line[] = []
      let start = 0
      let nl = buf.indexOf(10)
      if (nl !== -1 && pendingBytes > 0) {
        // The line that began in earlier chunks ends here.
        const joined = Buffer.concat([...pending, buf.subarray(0, nl + 1)])
        out.push(finish(joined, 0, joined.length - 1))
        pending = []
        pendingBytes = 0
        start = nl + 1
        nl = buf.indexOf(10, start)
      }
      for (; nl !== -1; nl = buf.indexOf(10, start)) {
        out.push(finish(buf, start, nl))
        start = nl + 1
        // A chunk of short lines is handed on in parts: what a batch holds follows its bytes, not its line count.
        if (out.length === MAX_BATCH_LINES) yield out.splice(0)
      }
      if (start < buf.length) {
        if (pendingBytes + buf.length - start > maxLength) {
          overflow = true // keep only the start of an endless line
          if (pendingBytes === 0) pending = [Buffer.from(buf.subarray(start, start + 256))]
          pendingBytes = Math.max(pendingBytes, 256)
        } else {
          pending.push(Buffer.from(buf.subarray(start)))
          pendingBytes += buf.length - start
        }
      }
      if (out.length > 0) yield out
    }
  } catch (error: unknown) {
    throw new StreamCut(lineNo + 1, error)
  }
  if (pendingBytes > 0 || overflow) {
    const rest = Buffer.concat(pending)
    yield [finish(rest, 0, rest.length)]
  }
}
