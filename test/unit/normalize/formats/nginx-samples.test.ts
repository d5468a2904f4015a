/**
 * nginx / ingress-nginx access logs: every line of the published samples in fixtures/formats/nginx (sources and
 * the conventions the expected values follow in fixtures/formats/SOURCES.md) against its `<name>.expected.json`.
 * Text samples go through parseAccessLine, `.jsonl`/`.ndjson` samples through JSON.parse + parseNginxJson.
 *
 * The expected values come from the upstream projects' own expected output (Filebeat, Datadog, VRL, CrowdSec, ...)
 * or, where a sample has none, from reading the line by its log_format: never from running this parser.
 */
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {extname, join} from 'node:path'
import type {ParseOutcome} from '../../../../src/model'
import {parseAccessLine} from '../../../../src/normalize/access-line'
import {parseNginxJson} from '../../../../src/normalize/nginx-json'
import {nonAccess} from '../../../../src/normalize/non-access'

const DIR = join(__dirname, '..', '..', '..', '..', 'fixtures', 'formats', 'nginx')

/** The event fields the samples are checked on; an optional field absent from an entry must be absent. */
const FIELDS = [
  'time',
  'method',
  'path',
  'status',
  'bytes',
  'clientIp',
  'userAgent',
  'referer',
  'upstream',
  'upstreamName',
  'requestId',
  'vhost',
] as const

interface Expected {
  line: number
  ok: boolean
  reason?: string
  [field: string]: unknown
}

const JSON_EXT = new Set(['.jsonl', '.ndjson'])

/** `foo.log` -> `foo.expected.json` (or `foo.log.expected.json`), when there is one. */
function expectedFileOf(sample: string): string | undefined {
  const base = sample.slice(0, sample.length - extname(sample).length)
  for (const f of [`${base}.expected.json`, `${sample}.expected.json`]) if (existsSync(join(DIR, f))) return f
  return undefined
}

const samples = existsSync(DIR)
  ? readdirSync(DIR)
      .filter((f) => !f.endsWith('.expected.json') && !f.startsWith('.'))
      .filter((f) => expectedFileOf(f) !== undefined)
      .sort()
  : []

function linesOf(file: string): string[] {
  const lines = readFileSync(join(DIR, file), 'utf8').split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

function expectedOf(file: string): Expected[] {
  return JSON.parse(readFileSync(join(DIR, expectedFileOf(file) as string), 'utf8')) as Expected[]
}

function parse(file: string, line: string): ParseOutcome {
  if (!JSON_EXT.has(extname(file))) {
    // A line no format reads that is no request (an error log line, a klog notice) is told apart as the file reader does.
    const out = parseAccessLine(line)
    return out.ok ? out : nonAccess(line) ?? out
  }
  let obj: unknown
  try {
    obj = JSON.parse(line)
  } catch {
    return {ok: false, reason: 'invalid-json'}
  }
  return parseNginxJson(obj as Record<string, unknown>)
}

/** The compared view of an outcome: ok/reason for rejections, else the FIELDS present (time as ISO). */
function viewOf(r: ParseOutcome): Record<string, unknown> {
  if (!r.ok) return {ok: false, reason: r.reason}
  const out: Record<string, unknown> = {ok: true}
  const event = r.event as unknown as Record<string, unknown>
  for (const k of FIELDS) {
    const v = event[k]
    if (v === undefined) continue
    out[k] = k === 'time' && typeof v === 'number' ? new Date(v).toISOString() : v
  }
  return out
}

function wantOf(e: Expected): Record<string, unknown> {
  if (!e.ok) return {ok: false, reason: e.reason}
  const out: Record<string, unknown> = {ok: true}
  for (const k of FIELDS) if (e[k] !== undefined) out[k] = e[k]
  return out
}

describe('nginx samples (fixtures/formats/nginx)', () => {
  it('has samples', () => {
    expect(samples.length).toBeGreaterThan(0)
  })

  // The fixtures themselves: one entry per non-empty line, in order, nothing else.
  it.each(samples)('%s: one expected entry per non-empty line', (file) => {
    const numbered = linesOf(file)
      .map((l, i) => [l, i + 1] as const)
      .filter(([l]) => l.trim() !== '')
      .map(([, n]) => n)
    expect(expectedOf(file).map((e) => e.line)).toEqual(numbered)
  })

  for (const file of samples) {
    const lines = linesOf(file)
    const cases = expectedOf(file).map((e) => [`${file}:${e.line}`, e] as const)
    describe(file, () => {
      it.each(cases)('%s', (_name, e) => {
        const line = lines[e.line - 1]
        expect(line).toBeDefined()
        expect(viewOf(parse(file, line as string))).toEqual(wantOf(e))
      })
    })
  }
})
