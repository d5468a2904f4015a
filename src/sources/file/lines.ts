import type {Readable} from 'node:stream'
import {StringDecoder} from 'node:string_decoder'

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
 * Splits a byte stream into lines (LF or CRLF), decoding UTF-8 across chunk boundaries, in batches.
 * A line longer than `maxLength` is cut short and flagged rather than held whole.
 */
export async function* lines(stream: Readable, maxLength: number): AsyncGenerator<Line[]> {
  const decoder = new StringDecoder('utf8')
  let pending = ''
  let overflow = false
  let lineNo = 0
  try {
    for await (const chunk of stream) {
      const text = pending + decoder.write(chunk as Buffer)
      const out: Line[] = []
      let start = 0
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        lineNo++
        out.push(makeLine(text.slice(start, nl), lineNo, overflow, maxLength))
        overflow = false
        start = nl + 1
      }
      pending = text.slice(start)
      if (pending.length > maxLength) {
        pending = pending.slice(0, maxLength)
        overflow = true
      }
      if (out.length > 0) yield out
    }
  } catch (error: unknown) {
    throw new StreamCut(lineNo + 1, error)
  }
  pending += decoder.end()
  if (pending.length > 0 || overflow) yield [makeLine(pending, lineNo + 1, overflow, maxLength)]
}

function makeLine(raw: string, line: number, overflow: boolean, maxLength: number): Line {
  const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw
  if (overflow || text.length > maxLength) return {text: text.slice(0, 200), line, tooLong: true}
  return {text, line}
}
