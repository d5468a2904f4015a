/**
 * Every real published sample of fixtures/formats (origins in fixtures/formats/SOURCES.md), read the
 * way a user's file is read: format detected from the content, each line dispatched to its format,
 * plain and gzip, bare and inside the container wrappers a cluster writes (Docker json-file, CRI).
 * Each access line must come out with the fields the upstream project's expected output gives it,
 * each other line counted at its own line with the reason the expected file names.
 */
import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {DEFAULT_NORMALIZE, type NormalizeOptions} from '../../src/normalize/fields'
import {ROOT} from '../helpers/cli'
import {readWritten} from '../helpers/read-file'
import {sampleOptions, samplesIn} from '../helpers/sample-harness'

type Expected = {line: number; ok: true; time: string; [field: string]: unknown} | {line: number; ok: false; reason: string}

const FORMATS_DIR = join(ROOT, 'fixtures', 'formats')
/** Sample folders still being prepared (no parser wired in yet): read once they are. */
const PENDING = new Set<string>()
const SAMPLES = readdirSync(FORMATS_DIR, {withFileTypes: true}).filter((d) => d.isDirectory() && !PENDING.has(d.name)).flatMap((d) =>
  samplesIn(join(FORMATS_DIR, d.name)).map((f) => `${d.name}/${f}`))

const dir = mkdtempSync(join(tmpdir(), 'skewscan-samples-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

/** A sample's lines as the wrapper would hold them. */
const WRAPPERS: Record<string, (lines: string[]) => string[]> = {
  bare: (lines) => lines,
  cri: (lines) => lines.map((l) => (l.trim() === '' ? l : `2026-11-30T07:18:26.070123456Z stdout F ${l}`)),
  docker: (lines) => lines.map((l) => (l.trim() === '' ? l : JSON.stringify({log: `${l}\n`, stream: 'stdout', time: '2026-11-30T07:18:26.070123456Z'}))),
}

const optionsOf = (sample: string): NormalizeOptions => sampleOptions(FORMATS_DIR, sample)

const read = (name: string, content: string | Buffer, opts: NormalizeOptions = DEFAULT_NORMALIZE) => readWritten(dir, name, content, opts)

/**
 * Reasons that all say "this line is not a record": which one a line gets depends on what it was
 * read as (a JSON object of no known shape, text in an NDJSON file, a line no text format claims).
 */
const NOT_A_RECORD = new Set(['unparsed-message', 'unknown-format', 'invalid-json', 'not-an-object'])
// `any`: the blind test's expected files (fixtures/formats/unseen) say a line is no record, not why.
const sameReason = (got: string | undefined, want: string): boolean => got === want || want === 'any' || (NOT_A_RECORD.has(want) && NOT_A_RECORD.has(got ?? ''))

/** A sample that is itself a container log (CRI or Docker records): not wrapped again. */
const wrapped = (sample: string): boolean => /^(\d{4}-\d\d-\d\dT\S+ (stdout|stderr) [FP] |\{"log":)/.test(readFileSync(join(FORMATS_DIR, sample), 'utf8'))
// A CSV export or a pretty-printed JSON document is a file of its own, never lines in a container log.
const cases = SAMPLES.flatMap((sample) => Object.keys(WRAPPERS).filter((w) => w === 'bare' || (!/\.(csv|json)$/.test(sample) && !wrapped(sample)))
  .flatMap((wrapper) => [false, true].map((gzip) => [sample, wrapper, gzip] as const)))

describe.each(cases)('%s (%s, gzip %s)', (sample, wrapper, gzip) => {
  it('every access line read as its project expects, every other line counted with its reason', async () => {
    const text = readFileSync(join(FORMATS_DIR, sample), 'utf8')
    const lines = text.replace(/\n$/, '').split('\n')
    const expected = (JSON.parse(readFileSync(join(FORMATS_DIR, sample.replace(/\.[^./]+$/, '.expected.json')), 'utf8')) as Expected[])
      .filter((e) => (lines[e.line - 1] ?? '').trim() !== '')
    const body = `${WRAPPERS[wrapper]?.(lines).join('\n')}\n`
    const name = `${sample.replace('/', '-')}.${wrapper}${gzip ? '.gz' : ''}`
    if (expected.every((e) => !e.ok && (NOT_A_RECORD.has(e.reason) || e.reason === 'not-access-line'))) {
      // Nothing in it is an access record skewscan reads (Classic ELB lines, syslog): the file is unreadable, exit 2.
      await expect(read(name, gzip ? gzipSync(body) : body, optionsOf(sample))).rejects.toThrow(/not in any format skewscan reads/)
      return
    }
    const {events, rejections, format} = await read(name, gzip ? gzipSync(body) : body, optionsOf(sample))
    if (wrapper !== 'bare') expect(format.startsWith(`${wrapper}/`)).toBe(true)
    const byLine = new Map(events.map((e) => [e.location.line, e]))
    const rejected = new Map(rejections.map((r) => [r.location.line, r]))
    // Every line's outcome beside what the expected file says of it, compared once (an expect() per
    // line cost more than reading the file).
    const got: unknown[] = []
    const want: unknown[] = []
    for (const e of expected) {
      const where = `${sample}:${e.line}`
      if (e.ok) {
        const event = byLine.get(e.line)
        const {line: _l, ok: _o, time, ...all} = e
        // `_note` and the like: the expected file's own remarks.
        const fields = Object.fromEntries(Object.entries(all).filter(([k]) => !k.startsWith('_')))
        want.push([where, 'read', time, fields])
        if (event === undefined) {
          got.push([where, rejected.get(e.line)?.detail ?? 'missing'])
          continue
        }
        const picked = Object.fromEntries(Object.keys(fields).map((k) => [k, (event as unknown as Record<string, unknown>)[k]]))
        got.push([where, 'read', new Date(event.time).toISOString(), picked])
      } else {
        // Inside a wrapper a line that is not JSON may be told apart differently; it is still counted there.
        const r = rejected.get(e.line)
        want.push([where, 'rejected', wrapper === 'bare' ? e.reason : '-'])
        got.push([where, r === undefined ? 'read' : 'rejected', wrapper === 'bare' ? (sameReason(r?.reason, e.reason) ? e.reason : r?.reason) : '-'])
      }
    }
    expect(got).toEqual(want)
    // Nothing but what the expected file names: no record lost, none made up.
    expect(events.length + rejections.length).toBe(expected.length)
  })
})
