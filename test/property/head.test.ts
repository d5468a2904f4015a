/**
 * A stream's head (src/sources/file/head.ts readHead): the lines it reads to tell a file's format
 * must be those a byte-by-byte reading of the same chunks finds (the reference below, the loop
 * readHead had before it searched newlines natively), up to its 64th line with content, whatever
 * the lines hold (blank ones, spaces only, CRLF) and wherever the chunks are cut; and the stream
 * comes back whole.
 */
import fc from 'fast-check'
import {readHead} from '../../src/sources/file/head'

const HEAD_LINES = 64

/** The reference: how many whole chunks the head takes, and where its first line ends. */
function reference(chunks: readonly Buffer[]): {taken: number; firstEnd: number} {
  let size = 0
  let firstEnd = -1
  let contentLines = 0
  let content = false
  let taken = 0
  for (const chunk of chunks) {
    if (contentLines >= HEAD_LINES) break
    for (let i = 0; i < chunk.length && contentLines < HEAD_LINES; i++) {
      const b = chunk[i] as number
      if (b === 10) {
        if (firstEnd < 0) firstEnd = size + i
        if (content) contentLines++
        content = false
      } else if (b > 32) {
        content = true
      }
    }
    taken++
    size += chunk.length
  }
  return {taken, firstEnd}
}

async function* stream(chunks: readonly Buffer[]): AsyncGenerator<Buffer> {
  for (const c of chunks) yield c
}

// Short lines, many of them blank or white space only: the head ends after its 64th line with content.
const line = fc.array(fc.constantFrom('a', '{', 'é', ' ', ' ', '\t', '\r', '\u0020'), {maxLength: 3}).map((p) => p.join(''))
const text = fc.array(line, {minLength: 40, maxLength: 200, size: 'max'}).chain((lines) => fc.constantFrom(lines.join('\n'), `${lines.join('\n')}\n`))

describe('readHead', () => {
  it('reads the lines a byte-by-byte reading of the same chunks reads, and gives the whole stream back', async () => {
    await fc.assert(fc.asyncProperty(text, fc.array(fc.integer({min: 1, max: 40}), {minLength: 1, maxLength: 30}), async (t, cuts) => {
      const bytes = Buffer.from(t)
      const chunks: Buffer[] = []
      for (let at = 0, k = 0; at < bytes.length; k++) {
        const n = cuts[k % cuts.length] as number
        chunks.push(bytes.subarray(at, at + n))
        at += n
      }
      const {taken, firstEnd} = reference(chunks)
      const read = Buffer.concat(chunks.slice(0, taken))
      const ended = taken === chunks.length
      // The head's lines: every line ended by a newline in what was read up to the 64th with
      // content, and the rest when the stream ended there (and it holds fewer).
      const expected: string[] = []
      let start = 0
      let content = 0
      for (let nl = read.indexOf(10); nl !== -1 && content < HEAD_LINES; nl = read.indexOf(10, start)) {
        const text = read.toString('utf8', start, nl > start && read[nl - 1] === 13 ? nl - 1 : nl)
        expected.push(text)
        if (/[^\t\r ]/.test(text)) content++
        start = nl + 1
      }
      if (ended && content < HEAD_LINES && start < read.length) expected.push(read.toString('utf8', start, read.length > start && read[read.length - 1] === 13 ? read.length - 1 : read.length))
      const head = await readHead(stream(chunks))
      expect(head.lines.map((l) => l.text)).toEqual(expected)
      expect(head.lines.map((l) => l.line)).toEqual(expected.map((_, i) => i + 1))
      expect(firstEnd === -1 || head.lines.length > 0).toBe(true)
      const back: Buffer[] = []
      for await (const c of head.chunks) back.push(c)
      expect(Buffer.concat(back).equals(bytes)).toBe(true)
    }), {numRuns: 300})
  })
})
