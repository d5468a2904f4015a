/**
 * Issue 14 (hardening): whole files read through FileSource, a few of their lines mutated at
 * random. Each file is read once as it is and once mutated (under the same name, so locations
 * compare): every line left intact yields exactly what it yielded before, every mutated line that
 * is not blank is used or counted at its own line with a known reason, and records = used + skipped.
 * Formats: nginx combined, ingress-nginx upstreaminfo, nginx JSON, Datadog NDJSON (parsed and
 * unparsed), Datadog CSV (bare and JSON-quoted cells), CRI- and Docker-wrapped lines, other
 * formats' real samples, each plain and gzip; and gzip files cut short or with a flipped bit.
 */
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import fc from 'fast-check'
import {parseInputs} from '../../src/app/parse'
import type {AccessEvent} from '../../src/model/access-event'
import type {Rejection} from '../../src/model/rejection'
import {DEFAULT_NORMALIZE} from '../../src/normalize/fields'
import {unwrapCri, unwrapDocker} from '../../src/normalize/formats/container'
import {InputError} from '../../src/sources/errors'
import {FileSource} from '../../src/sources/file/file-source'
import {normalizeLine} from '../../src/sources/file/records'
import {
  combined, CSV_HEADER, csvBare, csvJsonQuoted, ddNdjson, ddUnparsed, filler, goodItem, ingress, nginxJson, prettyPage, type Render, SCENARIO,
} from '../helpers/bad-input-corpus'
import {applyAllBytes, asObject, fixtureLogs, formatSamples, INSERTS, KNOWN_REASONS, type Mutation, mutations, settings} from '../helpers/hostile'

const dir = mkdtempSync(join(tmpdir(), 'skewscan-property-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

interface Read {
  events: AccessEvent[]
  rejections: Rejection[]
  records: number
  skipped: number
  format: string
}

let n = 0
async function read(name: string, data: Buffer): Promise<Read> {
  const path = join(dir, `f${n++}`)
  writeFileSync(path, data)
  const source = new FileSource(path, name, DEFAULT_NORMALIZE)
  const events: AccessEvent[] = []
  const rejections: Rejection[] = []
  try {
    for await (const b of source.batches()) {
      events.push(...b.events)
      rejections.push(...b.rejections)
    }
  } finally {
    rmSync(path, {force: true})
  }
  return {events, rejections, records: source.stats.records, skipped: source.stats.skipped, format: source.stats.format}
}

/** A file's lines and which of them are never mutated (a CSV header, `#Fields:`-style header lines: they order the rest). */
interface Base {
  name: string
  lines: string[]
  fixed: ReadonlySet<number>
  /** A line that is no record: blank, or for CSV a row of empty cells. */
  blank: (line: string) => boolean
}

/** A file as fast-check shows it in a counterexample: by name (its lines are in the fixtures). */
const named = (b: Omit<Base, 'blank'> & {blank?: Base['blank']}): Base => ({blank: (l) => l.trim() === '', ...b, [fc.toStringMethod]: () => b.name}) as Base

const events = [...SCENARIO, ...filler(30)]
const rendered = (name: string, render: Render, header?: string): Base => {
  const lines = [...(header ? [header] : []), ...events.map(render)]
  return named({name, lines, fixed: new Set(header ? [0] : []), ...(header ? {blank: (l: string) => /^[\s",]*$/.test(l)} : {})})
}
const cri = (l: string): string => `2026-11-30T07:18:26.070123456Z stdout F ${l}`
const docker = (l: string): string => JSON.stringify({log: `${l}\n`, stream: 'stdout', time: '2026-11-30T07:18:26.070123456Z'})
/**
 * A sample's lines that read alike wherever they are: each a record on its own (not, say, an S3
 * line with a shortened owner id, read as S3 only beside lines that say the file is S3's; not a
 * CloudFront line ordered by a `#Fields:` header).
 */
const standalone = (lines: string[]): string[] => lines.filter((l) => !l.startsWith('#') && normalizeLine(l, DEFAULT_NORMALIZE).every((o) => o.ok))
const fromLines = (name: string, lines: string[]): Base => named({name, lines: standalone(lines), fixed: new Set()})

/** The same file with its first record line left alone: what the first lines say of a file is the head property's business. */
const headKept = (b: Base): Base => named({...b, fixed: new Set([...b.fixed, b.lines.findIndex((_, i) => !b.fixed.has(i))])})
/** The same file with only its first record line open to mutation. */
const headOnly = (b: Base): Base => {
  const first = b.lines.findIndex((_, i) => !b.fixed.has(i))
  return named({...b, fixed: new Set(b.lines.map((_, i) => i).filter((i) => i !== first))})
}

const LINE_FILES: Base[] = [
  rendered('ingress.log', ingress),
  rendered('combined.log', combined),
  rendered('nginx.jsonl', nginxJson),
  rendered('dd.ndjson', ddNdjson),
  rendered('dd-unparsed.ndjson', ddUnparsed),
  rendered('ingress.cri.log', (e) => cri(ingress(e))),
  rendered('nginx-json.cri.log', (e) => cri(nginxJson(e))),
  rendered('combined.docker.log', (e) => docker(combined(e))),
  ...fixtureLogs(30).filter((s) => /ingress|upstreaminfo|combined|nginx/.test(s.name)).slice(0, 6).map((s) => fromLines(s.name, s.lines)),
]
const CSV_FILES: Base[] = [rendered('explorer.csv', csvBare, CSV_HEADER), rendered('explorer-quoted.csv', csvJsonQuoted, CSV_HEADER)]
/** Other formats' real samples: Traefik, Envoy, ALB, CloudFront, Caddy, GCP, Squid, IIS… (plain line files). */
const SAMPLE_FILES: Base[] = formatSamples(30).filter((s) => !/\.(csv|json)$/.test(s.name)).map((s) => fromLines(s.name, s.lines)).filter((b) => b.lines.length >= 3)

const text = (b: Base): string => `${b.lines.join('\n')}\n`

/** Outcomes per line: the events there and the reasons of the rejections there. */
function byLine(r: Read): Map<number, {events: AccessEvent[]; reasons: string[]}> {
  const out = new Map<number, {events: AccessEvent[]; reasons: string[]}>()
  const at = (line: number) => out.get(line) ?? (out.set(line, {events: [], reasons: []}), out.get(line) as {events: AccessEvent[]; reasons: string[]})
  for (const e of r.events) at(e.location.line).events.push(e)
  for (const x of r.rejections) at(x.location.line).reasons.push(x.reason)
  return out
}

const baselines = new Map<string, Promise<Read>>()
const baseline = (b: Base, gzip: boolean): Promise<Read> => {
  const key = `${b.name}:${gzip}`
  if (!baselines.has(key)) baselines.set(key, read(b.name, gzip ? gzipSync(text(b)) : Buffer.from(text(b))))
  return baselines.get(key) as Promise<Read>
}

/**
 * A mutated line that by design changes how the lines after it are read: a container runtime's
 * part of a split line (CRI `P`, a Docker record without its newline), which is joined to the
 * next; a `#Fields:` header, which orders the lines after it. Such lines are left out.
 */
function changesLaterLines(line: string): boolean {
  if (line.includes('#Fields:')) return true
  const c = unwrapCri(line.trim())
  if (c?.partial) return true
  const o = asObject(line.trim())
  return o !== undefined && unwrapDocker(o)?.partial === true
}

/** Mutated lines: where, and the mutations; lines never split (no LF inserted). */
const NO_LF = INSERTS.filter((s) => !s.includes('\n'))
const edits = (max: number): fc.Arbitrary<[number, Mutation[]][]> =>
  fc.uniqueArray(fc.tuple(fc.nat(), mutations(NO_LF)), {minLength: 1, maxLength: max, selector: ([i]) => i})

/**
 * A file and the edits to it: at most `max`, and fewer than half its lines, so that its first lines
 * still say what it is (a head of mostly broken lines is another property, below).
 */
const caseOf = (files: Base[], max: number, filter: (ms: Mutation[]) => boolean = () => true) =>
  fc.constantFrom(...files).chain((b) => fc.tuple(fc.constant(b), fc.boolean(), edits(Math.max(1, Math.min(max, Math.floor((b.lines.length - 1) / 2))))
    .filter((l) => l.every(([, ms]) => filter(ms)))))

interface Mutated {
  data: Buffer
  /** 0-based indexes of the lines changed, and their text as read back. */
  changed: Map<number, string>
}

/** The file with the edits applied to lines that may change (indexes modulo the number of those), or undefined when an edit would split a line or change later lines. */
function mutate(b: Base, list: [number, Mutation[]][]): Mutated | undefined {
  const free = b.lines.map((_, i) => i).filter((i) => !b.fixed.has(i))
  const changed = new Map<number, string>()
  const bytes: Buffer[] = b.lines.map((l) => Buffer.from(l, 'utf8'))
  for (const [k, ms] of list) {
    const i = free[k % free.length] as number
    if (changed.has(i)) continue
    const m = applyAllBytes(bytes[i] as Buffer, ms)
    if (m.includes(0x0a)) return undefined
    const back = m.toString('utf8')
    if (changesLaterLines(back)) return undefined
    bytes[i] = m
    changed.set(i, back)
  }
  return {data: Buffer.concat(bytes.flatMap((x) => [x, Buffer.from('\n')])), changed}
}

/** What must hold of a mutated file against the file as it was. */
async function checkAgainstBaseline(b: Base, gzip: boolean, list: [number, Mutation[]][]): Promise<void> {
  const m = mutate(b, list)
  fc.pre(m !== undefined)
  const {data, changed} = m as Mutated
  const before = byLine(await baseline(b, gzip))
  const intact = b.lines.filter((l, i) => !changed.has(i) && !b.blank(l)).length
  let r: Read
  try {
    r = await read(b.name, gzip ? gzipSync(data) : data)
  } catch (error: unknown) {
    // A file all of whose records were mutated into no format at all is refused as unreadable (exit 2), and only such a file.
    expect({intact, error: String(error).slice(0, 80)}).toEqual({intact: 0, error: expect.stringContaining('not in any format skewscan reads')})
    return
  }
  expect(r.records).toBe(r.events.length + r.rejections.length)
  expect(r.skipped).toBe(r.rejections.length)
  expect(r.rejections.map((x) => x.reason).filter((reason) => !KNOWN_REASONS.has(reason))).toEqual([])
  const after = byLine(r)
  const counted = (line: number): boolean => ((after.get(line)?.events.length ?? 0) + (after.get(line)?.reasons.length ?? 0)) > 0
  const joined = (line: number): boolean => {
    for (let j = line - 1; j >= 1 && (changed.has(j - 1) || b.blank(b.lines[j - 1] ?? '')); j--) if (changed.has(j - 1) && counted(j)) return true
    return false
  }
  // Every line's verdict, compared in one expect (a call of expect costs more than most of these checks).
  const same: {got: unknown[]; want: unknown[]} = {got: [], want: []}
  const uncounted: {line: number; text: string}[] = []
  for (let i = 0; i < b.lines.length; i++) {
    const line = i + 1
    const got = after.get(line) ?? {events: [], reasons: []}
    const text = changed.get(i)
    if (text === undefined) {
      // Intact: exactly what it gave before.
      same.got.push({line, ...got})
      same.want.push({line, ...(before.get(line) ?? {events: [], reasons: []})})
    } else if (!b.blank(text) && !(counted(line) || (r.format === 'json-documents' && joined(line)))) {
      // Mutated: used, or counted at its own line (or, read as a JSON document, where the document it joined began: mutated lines may make one).
      uncounted.push({line, text})
    }
  }
  expect(same.got).toEqual(same.want)
  expect(uncounted).toEqual([])
  // Nothing is said of a line the file does not have.
  expect([...after.keys()].filter((line) => line > b.lines.length)).toEqual([])
}

describe('a file with some lines mutated', () => {
  it('the files read: every record of each used as it is, in each format', async () => {
    for (const b of [...LINE_FILES, ...CSV_FILES]) {
      const r = await baseline(b, false)
      expect({file: b.name, used: r.events.length, skipped: r.skipped}).toEqual({file: b.name, used: b.lines.length - b.fixed.size, skipped: 0})
    }
  })

  it('line files (nginx, ingress, nginx JSON, Datadog NDJSON, CRI and Docker wrapped), plain or gzip: intact lines read as before, mutated ones used or counted', async () => {
    await fc.assert(fc.asyncProperty(caseOf(LINE_FILES.map(headKept), 4), ([b, gzip, list]) => checkAgainstBaseline(b, gzip, list)), settings(0xf11e, 30))
  })

  it('other formats\' real samples (Traefik, Envoy, ALB, CloudFront, Caddy, GCP, Squid, IIS…): intact lines read as before, mutated ones used or counted', async () => {
    await fc.assert(fc.asyncProperty(caseOf(SAMPLE_FILES.map(headKept), 3), ([b, gzip, list]) => checkAgainstBaseline(b, gzip, list)), settings(0x5a9, 50))
  })

  it('Datadog CSV exports, mutated without quotes: intact rows read as before, mutated ones used or counted', async () => {
    const noQuotes = (ms: Mutation[]): boolean => ms.every((x) => !('text' in x) || !x.text.includes('"'))
    await fc.assert(fc.asyncProperty(caseOf(CSV_FILES, 3, (ms) => noQuotes(ms) && ms.every((x) => x.kind !== 'flip')), ([b, gzip, list]) => checkAgainstBaseline(b, gzip, list)), settings(0xc5a, 20))
  })

  it('Datadog CSV exports, any mutation (quotes left open included): intact rows read as before, mutated ones used or counted', async () => {
    await fc.assert(fc.asyncProperty(caseOf(CSV_FILES, 3), ([b, gzip, list]) => checkAgainstBaseline(b, gzip, list)), settings(0xc5b, 25))
  })
})

describe('skewscan parse of a file with some lines mutated', () => {
  it('lists every record once, in line order, with the file\'s counts', async () => {
    await fc.assert(fc.asyncProperty(caseOf(LINE_FILES.map(headKept), 4), async ([b, gzip, list]) => {
      const m = mutate(b, list)
      fc.pre(m !== undefined)
      const path = join(dir, `p${n++}`)
      writeFileSync(path, gzip ? gzipSync((m as Mutated).data) : (m as Mutated).data)
      const run = await parseInputs({inputs: [path], normalize: DEFAULT_NORMALIZE, appSource: 'auto'})
      const records = []
      for await (const batch of run.batches) records.push(...batch)
      rmSync(path, {force: true})
      const lines = records.map((r) => r.line)
      expect(lines).toEqual([...lines].sort((x, y) => x - y))
      const stats = run.stats[0]
      expect(records.length).toBe(stats?.records)
      expect(records.filter((r) => 'rejection' in r).length).toBe(stats?.skipped)
      // The same records as the file read directly.
      const direct = await read(path.replace(/.*\//, ''), gzip ? gzipSync((m as Mutated).data) : (m as Mutated).data)
      expect(records.length).toBe(direct.events.length + direct.rejections.length)
    }), settings(0x9a7, 20))
  })
})

describe('a pretty-printed API page with some lines mutated', () => {
  const page = prettyPage('dd-page.json', events.slice(0, 20).map(goodItem))
  const lines = page.data.toString('utf8').replace(/\n$/, '').split('\n')

  it('the items wholly before the first mutated line read as before, every record counted, nothing thrown', async () => {
    const before = await read(page.name, page.data)
    expect(before.events).toHaveLength(20)
    // An item ends where the next one starts (the last one, two lines before `],`).
    const ends = page.goodAt.map((g, i) => (page.goodAt[i + 1]?.line ?? lines.indexOf('  ],') + 1) - 1)
    await fc.assert(fc.asyncProperty(fc.uniqueArray(fc.tuple(fc.integer({min: 2, max: lines.length - 1}), mutations(NO_LF)), {minLength: 1, maxLength: 3, selector: ([i]) => i}), fc.boolean(), async (list, gzip) => {
      const out = [...lines]
      for (const [i, ms] of list) out[i] = applyAllBytes(Buffer.from(out[i] ?? ''), ms).toString('utf8')
      fc.pre(out.every((l) => !l.includes('\n')))
      const data = Buffer.from(`${out.join('\n')}\n`)
      const r = await read(page.name, gzip ? gzipSync(data) : data)
      expect(r.records).toBe(r.events.length + r.rejections.length)
      expect(r.skipped).toBe(r.rejections.length)
      for (const x of r.rejections) expect(KNOWN_REASONS.has(x.reason)).toBe(true)
      const first = Math.min(...list.map(([i]) => i + 1))
      const kept = page.goodAt.filter((_, k) => (ends[k] as number) < first).map((g) => g.line)
      const got = r.events.filter((e) => kept.includes(e.location.line))
      expect(got).toEqual(before.events.filter((e) => kept.includes(e.location.line)))
    }), settings(0xd0c5, 30))
  })
})

describe('a gzip file damaged in its compressed bytes', () => {
  const files = LINE_FILES.slice(0, 5)

  it('cut short: the lines before the cut read as before, then one truncated-input', async () => {
    await fc.assert(fc.asyncProperty(fc.constantFrom(...files), fc.double({min: 0.05, max: 0.999, noNaN: true}), async (b, where) => {
      const gz = gzipSync(text(b))
      const cut = gz.subarray(0, Math.floor(gz.length * where))
      const before = await baseline(b, true)
      const r = await read(b.name, cut)
      expect(r.records).toBe(r.events.length + r.rejections.length)
      expect(r.rejections.map((x) => x.reason)).toEqual(['truncated-input'])
      const last = (r.rejections[0] as Rejection).location.line
      // Every event read is the one its line gave whole, and comes before the cut.
      const want = new Map(before.events.map((e) => [e.location.line, e]))
      for (const e of r.events) {
        expect(e).toEqual(want.get(e.location.line))
        expect(e.location.line).toBeLessThan(last)
      }
    }), settings(0x92c, 40))
  })

  it('a bit flipped: read or refused as unreadable, never a crash, every record counted', async () => {
    await fc.assert(fc.asyncProperty(fc.constantFrom(...files), fc.nat(), fc.integer({min: 0, max: 7}), async (b, at, bit) => {
      const gz = Buffer.from(gzipSync(text(b)))
      gz[at % gz.length] = (gz[at % gz.length] as number) ^ (1 << bit)
      let r: Read
      try {
        r = await read(b.name, gz)
      } catch (error: unknown) {
        // A flip in the magic bytes makes it no gzip and no text format: refused as unreadable (exit 2).
        expect(error).toBeInstanceOf(InputError)
        return
      }
      expect(r.records).toBe(r.events.length + r.rejections.length)
      expect(r.skipped).toBe(r.rejections.length)
      for (const x of r.rejections) expect(KNOWN_REASONS.has(x.reason)).toBe(true)
    }), settings(0x92f, 40))
  })
})

describe('a file whose first lines are damaged', () => {
  // FINDING: head detection (src/sources/file/file-source.ts detectFormat, being reworked). A text file whose lines start with `[`
  // (Envoy) and whose first line is cut or garbled is read as a JSON document: every record is lost, and the JSON splitter counts
  // the numbers and strings inside the Envoy lines as records. Minimal: `[x` then two whole Envoy lines of
  // fixtures/formats/envoy/filebeat-envoy.log (its lines 3 and 4) gives format json-documents, 28 records, all rejected
  // (invalid-json, not-an-object, truncated-input); expected format envoy, 3 records, lines 2 and 3 used, line 1 unparsed-message.
  // (In the loop over the head, a later record line counts only when the first line does not start with `{` or `[`.)
  it('first record line mutated: still read in its format, intact lines read as before, the mutated one used or counted', async () => {
    await fc.assert(fc.asyncProperty(caseOf([...LINE_FILES, ...SAMPLE_FILES].map(headOnly), 1), ([b, gzip, list]) => checkAgainstBaseline(b, gzip, list)), settings(0x4ead, 80))
  })

  // FINDING: head detection again. NDJSON whose head holds more records cut short (`{"a":1,"b` …, a lone `{`) than whole ones
  // is read as one JSON document: the first cut record opens a document that never closes, and every whole record after it
  // is swallowed into it. Minimal: `{`, `{`, then one whole line of fixtures/formats/gcp/foxsec-httpreq-filter.log gives
  // format json-documents, 1 record (truncated-input at line 1); expected NDJSON read line by line: lines 1 and 2
  // invalid-json, line 3 used (3 records). Two cut lines and one whole: `whole >= pieces` fails in detectFormat.
  it('NDJSON whose first lines are records cut short: still NDJSON, its whole records read as before, each cut one counted', async () => {
    const ndjson = [...LINE_FILES, ...SAMPLE_FILES].filter((b) => b.lines.every((l) => l.startsWith('{')) && b.lines.length >= 3)
    const cutHead = fc.constantFrom(...ndjson).chain((b) => fc.tuple(fc.constant(b), fc.integer({min: 1, max: Math.min(10, b.lines.length - 1)}), fc.array(fc.double({min: 0.01, max: 0.95, noNaN: true}), {minLength: 10, maxLength: 10})))
    await fc.assert(fc.asyncProperty(cutHead, fc.boolean(), async ([b, cuts, where], gzip) => {
      const list: [number, Mutation[]][] = where.slice(0, cuts).map((w, i) => [i, [{kind: 'truncate', at: Math.max(1, Math.floor((b.lines[i] ?? '').length * w))}]])
      await checkAgainstBaseline(b, gzip, list)
    }), settings(0xc07, 50))
  })
})
