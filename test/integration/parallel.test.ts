/**
 * The fast paths (plain line files read as byte ranges by worker threads, gzip line files streamed
 * to them, events handed over packed, out-of-order sources sorted in runs spilled to disk) must
 * give exactly the report of the
 * plain single-thread path: on every fixture in every format and order, and on a generated input
 * of two hours of traffic (~3.5k requests) (with malformed lines mixed in) in several formats and orders, newest-first
 * included. Ranges are kept tiny here so that files are cut into many of them; nothing is timed.
 */
import {mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync} from 'node:fs'
import {gzipSync} from 'node:zlib'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {analyze, type AnalyzeRequest} from '../../src/app/analyze'
import {DEFAULT_OPTIONS} from '../../src/analysis/options'
import type {AnalysisReport, FailureRecord} from '../../src/model/report'
import {DEFAULT_NORMALIZE} from '../../src/normalize/fields'
import {SourceError} from '../../src/sources/errors'
import {ParsePool} from '../../src/sources/parallel/parse-pool'
import {prestartWorker} from '../../src/sources/parallel/early-worker'
import {decodeEvents} from '../../src/sources/parallel/event-codec'
import {byteRanges, type LineRange} from '../../src/sources/file/line-range'
import {DEFAULT_MIN_FILE_BYTES, prestartFor, type PrestartSizes} from '../../src/sources/parallel/options'
import {parallelLineBatches} from '../../src/sources/parallel/parallel-lines'
import {MAX_LINE} from '../../src/sources/file/lines'
import {ddEventLine, ddUnparsedLine, DEFAULT_CONTEXT, explorerCsvRow, EXPLORER_HEADER, ingressLine, nginxJsonLine, simulateIter} from '../../scripts/fixture-generator'
import type {SimRequest} from '../../scripts/fixture-generator'

const ROOT = resolve(__dirname, '../..')
const FIXTURES = join(ROOT, 'fixtures')
const SCENARIOS = ['missing-404', 'quiet', 'rolling-round-robin', 'rolling-sticky', 'two-deploys']
const LOG_FILES = ['ingress.log', 'nginx-combined.log', 'nginx-json.log', 'dd-events.ndjson', 'dd-events.ndjson.gz', 'dd-pages.json',
  'dd-v1.json', 'dd-unparsed.ndjson', 'explorer.csv', 'explorer-raw.csv']
/** The line formats: these can be reversed and split by line. */
const LINE_FILES = ['ingress.log', 'nginx-combined.log', 'nginx-json.log', 'dd-events.ndjson', 'dd-unparsed.ndjson']

const tmp = mkdtempSync(join(tmpdir(), 'skewscan-parallel-'))
let pool: ParsePool


// Generated inputs of ~3.5k requests, read in several orders by two paths: bounded, but slow on a busy 2-core CI machine.
jest.setTimeout(240_000)
beforeAll(() => {
  pool = new ParsePool(2)
})

afterAll(async () => {
  const {reused} = pool
  // Closed first: a failed expectation must not leave workers that keep jest waiting.
  await pool.close()
  rmSync(tmp, {recursive: true, force: true})
  // The workers packed into buffers the analysis had released: the reports above were made with
  // buffers used again (an event read after its release would find other events' data, or none).
  // How many depends on when answers came back; over thousands of ranges, never none.
  expect(reused).toBeGreaterThan(0)
})

/** Bytes of a range: a fixture is cut into tens of ranges, a generated input (1-2 MB) into some thirty to seventy (see there). */
let chunkBytes = 3000

interface Run {
  report: AnalysisReport
  failures: FailureRecord[]
  notices: string[]
}

async function run(inputs: string[], mode: 'plain' | 'parallel', extra: Partial<AnalyzeRequest> = {}): Promise<Run> {
  const failures: FailureRecord[] = []
  const notices: string[] = []
  const report = await analyze({
    inputs, normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000,
    onFailure: (f) => failures.push(f), onNotice: (m) => notices.push(m), ...extra,
    ...(mode === 'plain'
      ? {parallel: false}
      // Tiny ranges and sorted runs: files are cut into many ranges, and sorting spills to disk.
      : {parallel: {pool, chunkBytes, minFileBytes: 0, minGzipBytes: 0}, spill: {runEvents: 700, frameEvents: 128, fanIn: 4}}),
  })
  return {report, failures, notices}
}

/**
 * Both paths, compared as the user would see them: the whole JSON report and every failure record.
 * `viaWorkers` (line files): the workers did parse, so the comparison was not of the plain path with
 * itself. The first range of a file always goes to a worker (this thread helps only with ranges
 * no worker took), so this holds however the answers are timed.
 */
async function expectSame(inputs: string[], extra: Partial<AnalyzeRequest> = {}, viaWorkers = false): Promise<AnalysisReport> {
  const plain = await run(inputs, 'plain', extra)
  const answered = pool.answered
  const fast = await run(inputs, 'parallel', extra)
  if (viaWorkers) expect(pool.answered - answered).toBeGreaterThanOrEqual(inputs.length)
  expect(JSON.stringify(fast.report, null, 1)).toBe(JSON.stringify(plain.report, null, 1))
  expect(fast.failures).toEqual(plain.failures)
  // The notices may differ: whether a reversed file is caught by the reorder window or re-read
  // sorted depends on how it was cut into batches; either way the events reach the analysis sorted.
  expect(fast.notices.filter((n) => !/not in time order/.test(n))).toEqual(plain.notices.filter((n) => !/not in time order/.test(n)))
  return plain.report
}

const fixture = (scenario: string, file: string): string => join(FIXTURES, scenario, file)
const linesOf = (path: string): string[] => readFileSync(path, 'utf8').split('\n').filter((l) => l !== '')

function writeLines(name: string, lines: readonly string[]): string {
  const path = join(tmp, name)
  writeFileSync(path, lines.length > 0 ? `${lines.join('\n')}\n` : '')
  return path
}

/** Newest-first, and split round-robin into three interleaved files. */
function orders(name: string, lines: readonly string[]): {label: string; inputs: string[]}[] {
  return [
    {label: 'newest-first', inputs: [writeLines(`${name}-reversed`, [...lines].reverse())]},
    {label: 'interleaved', inputs: [0, 1, 2].map((k) => writeLines(`${name}-part${k}`, lines.filter((_, i) => i % 3 === k)))},
  ]
}

describe('the parallel reader gives the plain path\'s report on every fixture', () => {
  it.each(SCENARIOS.flatMap((s) => LOG_FILES.map((f) => [s, f] as const)))('%s: %s', async (scenario, file) => {
    const report = await expectSame([fixture(scenario, file)], {deploysFile: fixture(scenario, 'deploys.json')}, LINE_FILES.includes(file))
    expect(report.input.records).toBeGreaterThan(0)
  })

  it.each(SCENARIOS.flatMap((s) => LINE_FILES.map((f) => [s, f] as const)))('%s: %s newest-first and interleaved', async (scenario, file) => {
    for (const {inputs} of orders(`${scenario}-${file}`, linesOf(fixture(scenario, file)))) {
      await expectSame(inputs, {deploysFile: fixture(scenario, 'deploys.json')}, true)
    }
  })

  it.each(SCENARIOS)('%s: the HTML report\'s detail, deploys inferred', async (scenario) => {
    await expectSame([fixture(scenario, 'dd-events.ndjson')], {analysis: {...DEFAULT_OPTIONS, detail: true}})
  })
})

describe('the parallel reader gives the plain path\'s report on a generated input of two hours and five deploys', () => {
  // ~3.5k requests over two hours (76 of them failures): past the 30-minute session horizon four times,
  // five deploys, tens of ranges per file. (Twice as dense, 7k requests, made the same comparisons twice
  // as long for no case these lack; denser still, 2.4 times again.)
  const params = {seed: 7, durationSeconds: 2 * 3600, browsersPerMinute: 3, deploys: 5, firstDeployAtSeconds: 15 * 60, every: 20 * 60,
    shellBytes: [1832, 1851, 1869, 1880, 1897, 1911], scanners: 2}
  const requests: SimRequest[] = []
  // Malformed records at known places, each kind at least once: each path must count them alike, at the same lines.
  const BAD = ['garbage that is no log line', '{"not": "closed"', '42', '\u0000\u0001binary', '   ', '[]', '{"data": []}']
  const withBad = (lines: string[]): string[] => lines.flatMap((l, i) => (i % 491 === 5 ? [l, BAD[(i / 491) % BAD.length | 0] as string] : [l]))

  beforeAll(() => {
    for (const r of simulateIter(params)) requests.push(r)
    // Some thirty to seventy ranges a file, not ten times as many: as many cuts for what these inputs add (gzip
    // batches, bad lines, orders), at a third less CPU (each range is a job handed to a worker).
    chunkBytes = 30_000
  })
  afterAll(() => {
    chunkBytes = 3000
  })

  const FORMATS: [string, (r: SimRequest) => string][] = [
    ['ingress', (r) => ingressLine(r, DEFAULT_CONTEXT)],
    ['dd-ndjson', (r) => ddEventLine(r)],
    ['dd-unparsed', (r) => ddUnparsedLine(r)],
    ['nginx-json', (r) => nginxJsonLine(r, DEFAULT_CONTEXT)],
  ]

  it.each(FORMATS)('%s: as written, newest-first, interleaved, and shuffled within each second', async (name, line) => {
    expect(requests.length).toBeGreaterThan(3_400)
    const lines = withBad(requests.map(line))
    expect(lines.length - requests.length).toBeGreaterThanOrEqual(BAD.length)
    // Windows line ends and a byte-order mark on the first line, which only line 1 may carry.
    const crlf = join(tmp, `${name}-crlf`)
    writeFileSync(crlf, `\uFEFF${lines.join('\r\n')}\r\n`)
    const report = await expectSame([crlf], {}, true)
    expect(report.input.skipped.total).toBeGreaterThan(0)
    expect(report.totals.failedRequests).toBeGreaterThan(0)
    for (const {inputs} of orders(name, lines)) await expectSame(inputs, {}, true)
    // Gzip: streamed to the workers in batches of lines; and cut off mid-stream (truncated-input,
    // after the records before the cut).
    const gz = gzipSync(readFileSync(crlf))
    writeFileSync(join(tmp, `${name}-crlf.gz`), gz)
    expect((await expectSame([join(tmp, `${name}-crlf.gz`)], {}, true)).input.records).toBe(report.input.records)
    writeFileSync(join(tmp, `${name}-cut.gz`), gz.subarray(0, Math.floor(gz.length * 0.6)))
    const cut = await expectSame([join(tmp, `${name}-cut.gz`)])
    expect(cut.input.skipped.byReason['truncated-input']).toBe(1)
    expect(cut.input.records).toBeGreaterThan(report.input.records / 3)
    // Newest-first and gzip: found out of order while streamed, then read again sorted.
    writeFileSync(join(tmp, `${name}-reversed.gz`), gzipSync(`${[...lines].reverse().join('\n')}\n`))
    await expectSame([join(tmp, `${name}-reversed.gz`)])
    // Within a second the order is free: a deterministic shuffle of each second's requests.
    const bySecond = new Map<number, string[]>()
    requests.forEach((r, i) => {
      const s = Math.floor(r.time / 1000)
      bySecond.set(s, [...(bySecond.get(s) ?? []), line(requests[i] as SimRequest)])
    })
    const shuffled = [...bySecond.values()].flatMap((g) => g.map((l, i) => [((i * 7919) % 13) + i / 1000, l] as const).sort((a, b) => a[0] - b[0]).map(([, l]) => l))
    await expectSame([writeLines(`${name}-shuffled`, shuffled)])
  })

  it('Log Explorer CSV, newest-first (sorted in runs spilled to disk)', async () => {
    const rows = requests.slice(0, 10_000).reverse().map((r) => explorerCsvRow(r))
    await expectSame([writeLines('explorer-newest.csv', [EXPLORER_HEADER.join(','), ...rows])])
  })
})

describe('gzip streamed to the workers', () => {
  it('a line over the length limit is rejected as too long, at its line, as on one thread', async () => {
    // The streaming reader keeps only the start of such a line and flags it; the flag must reach the worker.
    const lines = linesOf(fixture('rolling-round-robin', 'ingress.log'))
    const huge = `${lines[3]} ${'x'.repeat(MAX_LINE + 10)}`
    const path = join(tmp, 'huge-line.log.gz')
    writeFileSync(path, gzipSync(Buffer.from(`${[...lines.slice(0, 5), huge, ...lines.slice(5)].join('\n')}\n`)))
    const report = await expectSame([path])
    expect(report.input.skipped.byReason['line-too-long']).toBe(1)
    expect(report.input.skipped.examples.find((x) => x.reason === 'line-too-long')?.line).toBe(6)
  })
})

describe('a worker started before the run (bin/run.js, for analyze)', () => {
  /** Starts the early worker (`start`), then a pool of one that takes it over, closed after `use`. */
  async function withEarlyPool(start: () => void, use: (pool: ParsePool) => Promise<void>): Promise<ParsePool> {
    start()
    const pool = new ParsePool(1)
    try {
      await use(pool)
    } finally {
      await pool.close()
    }
    return pool
  }

  it('is taken over by the first pool that starts a worker, and parses for it', async () => {
    const path = fixture('quiet', 'ingress.log')
    const size = readFileSync(path).length
    const early = await withEarlyPool(() => prestartWorker(), async (pool) => {
      const parsed = await pool.parse({path, start: 0, end: size, size}, DEFAULT_NORMALIZE)
      expect(parsed.lines).toBe(linesOf(path).length)
    })
    expect(early.tookEarly).toBe(1)
  })

  it('answers a run\'s first jobs from what it parsed before (only jobs exactly alike), and the report is the plain path\'s', async () => {
    const path = fixture('rolling-round-robin', 'dd-events.ndjson')
    const size = readFileSync(path).length
    const chunkBytes = 3000
    // Of this very file (its device and inode), as prestartFor cuts them.
    const ranges = [...byteRanges(path, size, chunkBytes, statSync(path))]
    // Ranges 0-3 as the run will ask; range 4 of another size (the file changed): never used.
    const jobs = ranges.slice(0, 4).concat({...(ranges[4] as LineRange), size: size + 1}).map((range) => ({range, opts: DEFAULT_NORMALIZE}))
    const req = {inputs: [path], normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000}
    const early = await withEarlyPool(() => prestartWorker(jobs), async (pool) => {
      const fast = await analyze({...req, parallel: {pool, chunkBytes, minFileBytes: 0}})
      const plain = await analyze({...req, parallel: false})
      expect(JSON.stringify(fast, null, 1)).toBe(JSON.stringify(plain, null, 1))
    })
    expect(early.tookEarly).toBe(1)
    expect(early.usedGuesses).toBe(4)
  })

  it('a guess asked for before or after its answer came, or with other options (not used)', async () => {
    const path = fixture('quiet', 'ingress.log')
    const size = readFileSync(path).length
    const half = Math.floor(size / 2)
    const first: LineRange = {path, start: 0, end: half, size}
    const second: LineRange = {path, start: half, end: size, size}
    const ipUa = {...DEFAULT_NORMALIZE, sessionKey: {kind: 'ip-ua' as const}}
    await withEarlyPool(() => prestartWorker([{range: first, opts: DEFAULT_NORMALIZE}, {range: second, opts: ipUa}]), async (early) => {
      early.warm()
      // Asked at once (the worker has not even booted), then the same range again (parsed anew).
      const [a, b] = await Promise.all([early.parse(first, DEFAULT_NORMALIZE), early.parse(first, DEFAULT_NORMALIZE)])
      expect(early.usedGuesses).toBe(1)
      expect(decodeEvents(a.buffer, 'f').map((e) => e.path)).toEqual(decodeEvents(b.buffer, 'f').map((e) => e.path))
      // The worker answers in order: the second guess's answer came before b's. Asked with other options, it is not used.
      const c = await early.parse(second, DEFAULT_NORMALIZE)
      expect(early.usedGuesses).toBe(1)
      const d = await early.parse(second, ipUa)
      expect(early.usedGuesses).toBe(2)
      expect(a.lines + c.lines).toBe(linesOf(path).length)
      expect(d.lines).toBe(c.lines)
    })
  })

  /** Whether a worker was taken over, and whether the run's first range of `first` was among its guesses. */
  async function prestarted(args: string[], first: LineRange, sizes?: PrestartSizes): Promise<[number, number]> {
    const p = await withEarlyPool(() => (sizes ? prestartFor(args, sizes) : prestartFor(args)), async (pool) => {
      pool.warm()
      await pool.parse(first, DEFAULT_NORMALIZE)
    })
    return [p.tookEarly, p.usedGuesses]
  }

  it('is started for analyze arguments that name a file workers would read, on its first ranges; not for small files or --workers', async () => {
    // The run's sizes scaled down (a file read by workers from 64 kB, in ranges of 8 kB): prestartFor
    // decides the same from them as from the defaults bin/run.js gives it (32 MB, ranges of 1 MB),
    // without six 1 MB ranges parsed for each case (the next test holds the defaults).
    const sizes = {minFileBytes: 64 * 1024, minGzipBytes: 8 * 1024, chunkBytes: 8 * 1024}
    const big = join(tmp, 'big.log')
    const lines = readFileSync(fixture('quiet', 'ingress.log'))
    writeFileSync(big, Buffer.concat(Array.from({length: Math.ceil(sizes.minFileBytes / lines.length)}, () => lines)))
    const small = fixture('quiet', 'ingress.log')
    const first = byteRanges(big, readFileSync(big).length, sizes.chunkBytes, statSync(big)).next().value as LineRange
    expect(await prestarted([small, '--json'], first, sizes)).toEqual([0, 0])
    expect(await prestarted([big, '--workers', '0'], first, sizes)).toEqual([0, 0])
    expect(await prestarted(['--json', big], first, sizes)).toEqual([1, 1])
    // Another field mapping: started, but nothing guessed with the default one.
    expect(await prestarted([big, '--field', 'version=tag:version'], first, sizes)).toEqual([1, 0])
    rmSync(big)
  })

  it('by default, from DEFAULT_MIN_FILE_BYTES: a file one byte shorter starts no worker', async () => {
    // Sparse files of those sizes (nothing is parsed: --field leaves the worker without guesses).
    const at = join(tmp, 'at-size.log')
    const under = join(tmp, 'under-size.log')
    writeFileSync(at, '')
    truncateSync(at, DEFAULT_MIN_FILE_BYTES)
    writeFileSync(under, '')
    truncateSync(under, DEFAULT_MIN_FILE_BYTES - 1)
    const path = fixture('quiet', 'ingress.log')
    const first: LineRange = {path, start: 0, end: statSync(path).size, size: statSync(path).size}
    expect(await prestarted([under, '--field', 'version=tag:version'], first)).toEqual([0, 0])
    expect(await prestarted([at, '--field', 'version=tag:version'], first)).toEqual([1, 0])
    rmSync(at)
    rmSync(under)
  })
})

describe('parallel reading fails safely', () => {
  it('a worker that dies fails the run with a SourceError (exit 3), never a hang', async () => {
    const broken = new ParsePool(1, join(ROOT, 'test', 'helpers', 'failing-worker.js'))
    try {
      await expect(analyze({
        inputs: [fixture('quiet', 'ingress.log')], normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000,
        parallel: {pool: broken, chunkBytes: 4096, minFileBytes: 0, helpOnMain: false},
      })).rejects.toThrow(SourceError)
      await expect(broken.parse({path: fixture('quiet', 'ingress.log'), start: 0, end: 10, size: 10}, DEFAULT_NORMALIZE)).rejects.toThrow(/parsing worker/)
    } finally {
      await broken.close()
    }
  })

  it('a file that disappears while it is read is lost input, as one replaced or cut is (the run says so and exits 3: changed-while-read.test)', async () => {
    // logrotate's create renames the file away before it makes the new one: a range read between
    // the two finds nothing at the path. That is no failure of the run, which then stopped whole.
    const path = writeLines('vanishing.log', linesOf(fixture('quiet', 'ingress.log')))
    const size = readFileSync(path).length
    rmSync(path)
    await expect(pool.parse({path, start: 0, end: size, size}, DEFAULT_NORMALIZE)).resolves.toMatchObject({ok: true, lines: 0, changed: expect.stringMatching(/^was renamed away or removed from its path while read/) as string})
  })
})

describe('progress of a file read in ranges (issue 26)', () => {
  it('counts a range read once its records are handed on, in file order: the progress line\'s bytes of the total', async () => {
    const path = fixture('rolling-round-robin', 'ingress.log')
    const stat = statSync(path)
    const read = {bytes: 0}
    const after: number[] = []
    const p = {pool, chunkBytes: 3000, minFileBytes: 0, minGzipBytes: 0, inFlight: pool.capacity + 8, helpOnMain: true}
    for await (const _batch of parallelLineBatches(path, 'ingress.log', stat, DEFAULT_NORMALIZE, p, read)) after.push(read.bytes)
    expect(after).toEqual(Array.from({length: Math.ceil(stat.size / 3000)}, (_, i) => Math.min(stat.size, (i + 1) * 3000)))
  })
})
