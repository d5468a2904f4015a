/**
 * Lines no format reads cost a counter, not an object (issue 25, item 14): a parsing worker lists
 * the first few rejections of each reason of its range and counts the rest, and `analyze` reading a
 * file on its own thread does the same past the first few of the file. The report stays exactly the
 * one a reader that lists every rejection gives (counts, the examples and their lines), with or
 * without workers, and a file none of whose lines is read is still unreadable. `parse` (which shows
 * every rejection) still lists each. Real worker threads; nothing is timed (the time and memory this
 * saves are measured by bench/junk-lines.ts).
 */
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {analyze, type AnalyzeRequest} from '../../src/app/analyze'
import {DEFAULT_OPTIONS} from '../../src/analysis/options'
import {EXAMPLES_PER_REASON, type Rejection, type RejectReason} from '../../src/model/rejection'
import {DEFAULT_NORMALIZE, type NormalizeOptions} from '../../src/normalize/fields'
import {FileSource} from '../../src/sources/file/file-source'
import {parseLineRange} from '../../src/sources/file/line-range'
import {ParsePool} from '../../src/sources/parallel/parse-pool'

// Real worker threads (their TypeScript modules stripped by SWC as they load) parse thousands of ranges.
jest.setTimeout(120_000)

const tmp = mkdtempSync(join(tmpdir(), 'skewscan-junk-'))
let pool: ParsePool
beforeAll(() => {
  pool = new ParsePool(1)
})
afterAll(async () => {
  await pool.close()
  rmSync(tmp, {recursive: true, force: true})
})

/** Real nginx `combined` lines (the shipped rolling-round-robin capture of the generator). */
const GOOD = readFileSync(resolve(__dirname, '../../fixtures/rolling-round-robin/nginx-combined.log'), 'utf8').split('\n').filter((l) => l !== '').slice(0, 400)

/** Junk of three reasons: bare bytes of no format, binary, and a JSON line cut short. */
const JUNK: [string, RejectReason][] = [['x', 'unparsed-message'], ['\u0000\u0001\u0002', 'binary'], ['{"status": 200, "path": "/', 'invalid-json']]

/** A good line, then 60 junk lines of the three kinds in turn, over and over; what it holds, by line. */
function junkFile(name: string): {path: string; good: number; byReason: Record<string, number[]>} {
  const lines: string[] = []
  const byReason: Record<string, number[]> = {}
  for (const good of GOOD) {
    lines.push(good)
    for (let k = 0; k < 60; k++) {
      const [text, reason] = JUNK[k % JUNK.length] as [string, RejectReason]
      lines.push(text)
      ;(byReason[reason] ??= []).push(lines.length)
    }
  }
  const path = join(tmp, name)
  writeFileSync(path, `${lines.join('\n')}\n`)
  return {path, good: GOOD.length, byReason}
}

describe('a parsing worker lists the first rejections of each reason and counts the rest', () => {
  it('a range of thousands of junk lines comes back as three examples per reason and counters', () => {
    const {path, byReason} = junkFile('one-range.log')
    const size = readFileSync(path).length
    const parsed = parseLineRange({path, start: 0, end: size, size}, DEFAULT_NORMALIZE)
    for (const [reason, lines] of Object.entries(byReason)) {
      const listed = parsed.rejections.filter((r) => r.reason === reason)
      expect(listed.map((r) => r.line)).toEqual(lines.slice(0, EXAMPLES_PER_REASON))
      expect(parsed.unlisted?.[reason as RejectReason]).toBe(lines.length - EXAMPLES_PER_REASON)
    }
    expect(parsed.rejections).toHaveLength(JUNK.length * EXAMPLES_PER_REASON)
  })
})

describe('FileSource: examples listed, the rest counted, the same figures', () => {
  async function read(path: string, listing: 'every' | 'examples', opts: NormalizeOptions = DEFAULT_NORMALIZE): Promise<{listed: Rejection[]; unlisted: number; records: number; skipped: number}> {
    const source = new FileSource(path, 'junk.log', opts, undefined, listing)
    const listed: Rejection[] = []
    let unlisted = 0
    for await (const b of source.batches()) {
      listed.push(...b.rejections)
      for (const n of Object.values(b.unlisted ?? {})) unlisted += n
    }
    return {listed, unlisted, records: source.stats.records, skipped: source.stats.skipped}
  }

  it('`every` (parse --rejected) lists each; `examples` (analyze) the first three of each reason in the file', async () => {
    const {path, good, byReason} = junkFile('listing.log')
    const total = Object.values(byReason).reduce((n, ls) => n + ls.length, 0)
    const every = await read(path, 'every')
    expect(every.listed).toHaveLength(total)
    expect(every.unlisted).toBe(0)
    const examples = await read(path, 'examples')
    expect(examples.listed.map((r) => [r.reason, r.location.line]).sort()).toEqual(
      Object.entries(byReason).flatMap(([reason, lines]) => lines.slice(0, EXAMPLES_PER_REASON).map((l) => [reason, l])).sort())
    expect(examples.unlisted).toBe(total - JUNK.length * EXAMPLES_PER_REASON)
    expect([examples.records, examples.skipped]).toEqual([every.records, every.skipped])
    expect(every.records).toBe(total + good)
  })
})

describe('analyze: the same report with and without workers, junk or not', () => {
  async function run(inputs: string[], parallel: boolean, extra: Partial<AnalyzeRequest> = {}): Promise<unknown> {
    return analyze({
      inputs, normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000, onNotice: () => {}, ...extra,
      // Tiny ranges: the file is cut into hundreds of them, each with a few junk lines of each reason.
      parallel: parallel ? {pool, chunkBytes: 3000, minFileBytes: 0} : false,
    })
  }

  it('counts every junk line, and gives the first three of each reason as examples at their lines', async () => {
    const {path, good, byReason} = junkFile('analyze.log')
    const plain = (await run([path], false)) as {input: {records: number; used: number; skipped: {byReason: Record<string, number>; examples: {reason: string; line: number}[]}}}
    const answered = pool.answered
    const parallel = await run([path], true)
    expect(pool.answered).toBeGreaterThan(answered)
    expect(parallel).toEqual(plain)
    expect(plain.input.used).toBe(good)
    for (const [reason, lines] of Object.entries(byReason)) {
      expect(plain.input.skipped.byReason[reason]).toBe(lines.length)
      expect(plain.input.skipped.examples.filter((x) => x.reason === reason).map((x) => x.line)).toEqual(lines.slice(0, EXAMPLES_PER_REASON))
    }
  })

  it('a file none of whose lines --log-format reads is unreadable, naming its first line, read by workers or not', async () => {
    const path = join(tmp, 'mismatch.log')
    writeFileSync(path, `${GOOD.join('\n')}\n`)
    // A format of these lines' fields in another order: every line is a mismatch, none is read.
    const opts = {...DEFAULT_NORMALIZE, logFormat: '[$time_local] $remote_addr "$request" $status $body_bytes_sent'}
    for (const parallel of [false, true]) {
      const answered = pool.answered
      await expect(run([path], parallel, {normalize: opts})).rejects.toThrow(/mismatch\.log: not in any format skewscan reads\.\n {2}Line 1: --log-format: /)
      // Read by the workers: the file's foreign lines were counted from their counters, not listed.
      if (parallel) expect(pool.answered).toBeGreaterThan(answered)
    }
  })
})
