/**
 * The unit test of the real samples of fixtures/formats, written once for every format: each sample
 * read by its format's own parser (called directly, no file reader), every record's fields against
 * the upstream project's expected output (`<sample>.expected.json`), every rejected record at its
 * line with the reason the expected file names. A format is one row (a SampleReading); a sample
 * added to a folder that has one is read with no code at all. What the file reader adds (detection,
 * gzip, container wrappers) is test/integration/format-samples.test.ts's.
 */
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {normalizeSettings} from '../../src/config/analyze-options'
import type {ParseOutcome} from '../../src/model/parse-outcome'
import {DEFAULT_NORMALIZE, type NormalizeOptions} from '../../src/normalize/fields'
import {checkOutcome, type Expected, objectOf} from './format-samples'

/** One record of a sample as its parser read it, and the text it was read from. */
export interface SampleRecord {
  outcome: ParseOutcome
  text: string
}

/** How the samples of one folder (or some of its files) are read at unit level. */
export interface SampleReading {
  /** The folder under fixtures/formats. */
  folder: string
  /** What the reading is called in the test names (its parser). */
  name: string
  /** Which of the folder's samples it reads. */
  files: RegExp | ((file: string, text: string) => boolean)
  /**
   * A sample's records, at index `line - 1` (item - 1 for a JSON array); undefined where a line holds
   * no record (an empty line, a CSV header). The expected file has one entry per record, nothing else.
   */
  read: (text: string, file: string) => Array<SampleRecord | undefined>
  /**
   * The resolution every event read must have (the expected files then leave resolutionMs out).
   * Without it resolutionMs is a field like the others.
   */
  resolutionMs?: (file: string, text: string) => number
  /** Compare only these fields (one absent from the expected entry must be absent from the event); default: the whole event. */
  fields?: readonly string[]
  /** At least this many samples, and records in them: a renamed fixture never leaves a reading with nothing to read. */
  minSamples?: number
  minRecords?: number
}

/**
 * Reasons a reading gives itself before any parser sees the record (a line that is not JSON, a JSON
 * value that is no object): they carry no detail. Every parser's own rejection says why in its detail.
 */
const READER_REASONS = new Set(['invalid-json', 'not-an-object'])

/** A sample's lines, without the empty one after its last newline. */
export function sampleLines(text: string): string[] {
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

/** A reading of every line by one parser. */
export const eachLine = (parse: (line: string) => ParseOutcome) => (text: string): SampleRecord[] => sampleLines(text).map((l) => ({outcome: parse(l), text: l}))

/** A reading of every line as one JSON object (NDJSON); a line that is not one is `invalid-json`, as the file reader says. */
export const eachJsonLine = (parse: (obj: Record<string, unknown>) => ParseOutcome) =>
  eachLine((l) => {
    const obj = objectOf(l)
    return obj === undefined ? {ok: false, reason: 'invalid-json'} : parse(obj)
  })

/**
 * What the user tells skewscan beside a sample, in files named after it: `<sample>.conf` holds the
 * nginx log_format that wrote it (`--log-format`, as pasted from the config), `<sample>.fields` one
 * `--field NAME=PATH` a line.
 */
const OPTION_FILES = ['conf', 'fields']

/** The options a sample is read with: the defaults, or what its option files say. */
export function sampleOptions(dir: string, sample: string): NormalizeOptions {
  const base = join(dir, sample.replace(/\.[^./]+$/, ''))
  const conf = existsSync(`${base}.conf`) ? readFileSync(`${base}.conf`, 'utf8') : undefined
  const fields = existsSync(`${base}.fields`) ? readFileSync(`${base}.fields`, 'utf8').split('\n').filter((l) => l.trim() !== '') : undefined
  if (conf === undefined && fields === undefined) return DEFAULT_NORMALIZE
  return normalizeSettings({'session-key': 'auto', 'app-key': 'auto', ...(fields ? {field: fields} : {}), ...(conf === undefined ? {} : {'log-format': conf})})
}

/** The samples of a folder: every file but the expected outputs, the notes and the option files beside a sample. */
export function samplesIn(dir: string): string[] {
  return readdirSync(dir).filter((f) => !f.endsWith('.expected.json') && !['md', ...OPTION_FILES].some((x) => f.endsWith(`.${x}`)) && !f.startsWith('.')).sort()
}

const reads = (r: SampleReading, file: string, text: string): boolean => (r.files instanceof RegExp ? r.files.test(file) : r.files(file, text))

/** An outcome as the expected files write it (time as ISO), cut to what the reading compares. */
function viewOf(r: SampleReading, line: number, outcome: ParseOutcome): Record<string, unknown> {
  if (!outcome.ok) return {line, ok: false, reason: outcome.reason}
  const {time, ...rest} = outcome.event as unknown as Record<string, unknown> & {time: number}
  const all: Record<string, unknown> = {line, ok: true, time: new Date(time).toISOString(), ...rest}
  if (r.resolutionMs !== undefined) delete all['resolutionMs']
  return r.fields === undefined ? all : pick(all, r.fields)
}

/** An expected entry cut the same way; `_note` and the like are the file's own remarks. */
function wantOf(r: SampleReading, e: Expected): Record<string, unknown> {
  if (!e.ok) return {line: e.line, ok: false, reason: e.reason}
  const all = Object.fromEntries(Object.entries(e).filter(([k]) => !k.startsWith('_') && !(k === 'resolutionMs' && r.resolutionMs !== undefined)))
  return r.fields === undefined ? all : pick(all, r.fields)
}

function pick(o: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {line: o['line'], ok: o['ok']}
  for (const k of fields) if (o[k] !== undefined) out[k] = o[k]
  return out
}

/** The checks of one sample read by one reading. */
export function checkSample(dir: string, r: SampleReading, file: string): void {
  const text = readFileSync(join(dir, file), 'utf8')
  const expected = JSON.parse(readFileSync(join(dir, file.replace(/\.[^./]+$/, '.expected.json')), 'utf8')) as Expected[]
  const records = r.read(text, file).flatMap((rec, i) => (rec === undefined ? [] : [{line: i + 1, ...rec}]))
  // One expected entry per record, on the record's line, in order: none lost, none made up.
  expect(expected.map((e) => e.line)).toEqual(records.map((rec) => rec.line))
  for (const {line, outcome, text: input} of records) {
    const where = `${file}:${line}`
    checkOutcome(outcome, input)
    if (!outcome.ok && !READER_REASONS.has(outcome.reason)) expect([where, (outcome.detail ?? '').length > 0]).toEqual([where, true])
    if (outcome.ok && r.resolutionMs !== undefined) expect([where, outcome.event.resolutionMs]).toEqual([where, r.resolutionMs(file, input)])
  }
  // An expected file that names the resolution anyway agrees with the reading's.
  for (const e of expected) {
    const rec = records.find((x) => x.line === e.line)
    if (r.resolutionMs !== undefined && e['resolutionMs'] !== undefined && rec !== undefined) expect([file, e.line, e['resolutionMs']]).toEqual([file, e.line, r.resolutionMs(file, rec.text)])
  }
  expect(records.map((rec) => viewOf(r, rec.line, rec.outcome))).toEqual(expected.map((e) => wantOf(r, e)))
}

/**
 * One test per sample and reading, for every folder of `formatsDir`. A folder with no reading must
 * be named in `endToEndOnly` with why, and every sample of a folder with readings is read by one:
 * a new format or sample is never left unread by mistake.
 */
export function describeSamples(formatsDir: string, readings: readonly SampleReading[], endToEndOnly: Readonly<Record<string, string>>): void {
  const folders = readdirSync(formatsDir, {withFileTypes: true}).filter((d) => d.isDirectory()).map((d) => d.name).sort()
  const cases = readings.flatMap((r) => {
    const dir = join(formatsDir, r.folder)
    return samplesIn(dir).filter((f) => reads(r, f, readFileSync(join(dir, f), 'utf8'))).map((f) => [r.folder, r.name, f, r] as const)
  })

  it('reads every folder at unit level, or says why only the end-to-end test reads it', () => {
    const read = new Set(readings.map((r) => r.folder))
    expect(folders.filter((d) => !read.has(d) && endToEndOnly[d] === undefined)).toEqual([])
    expect(Object.keys(endToEndOnly).filter((d) => read.has(d) || !folders.includes(d))).toEqual([])
  })

  it('reads every sample of those folders, and every reading has its samples', () => {
    for (const folder of new Set(readings.map((r) => r.folder))) {
      const unread = samplesIn(join(formatsDir, folder)).filter((f) => !cases.some(([d, , file]) => d === folder && file === f))
      expect([folder, unread]).toEqual([folder, []])
    }
    for (const r of readings) {
      const files = cases.filter(([, , , c]) => c === r).map(([, , f]) => f)
      const records = files.reduce((n, f) => n + r.read(readFileSync(join(formatsDir, r.folder, f), 'utf8'), f).filter((x) => x !== undefined).length, 0)
      expect([r.folder, r.name, files.length >= Math.max(1, r.minSamples ?? 1), records >= (r.minRecords ?? 1)]).toEqual([r.folder, r.name, true, true])
    }
  })

  it.each(cases)('%s (%s): %s', (folder, _name, file, r) => checkSample(join(formatsDir, folder), r, file))
}
