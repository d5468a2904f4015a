/**
 * Issue 14 (hardening): every line and record parser, given real fixture lines mutated at random
 * (bit flips, truncation, inserted control characters, quotes, brackets, huge numbers, odd times
 * and unicode, deleted and duplicated fields), never throws and always gives either a well-formed
 * event or a rejection with a known reason and a short detail. Seeds are fixed: a failure names
 * its seed and path, and replays.
 */
import fc from 'fast-check'
import {parseIsoTime, parseNginxTime} from '../../src/normalize/access-line'
import {normalizeDatadog, parseTime, unwrapDatadog} from '../../src/normalize/datadog'
import {DEFAULT_NORMALIZE} from '../../src/normalize/fields'
import {elasticJson, JSON_FORMATS, parseJsonRecord, parseTextLine, TEXT_FORMATS} from '../../src/normalize/formats'
import {cloudfrontWithFields} from '../../src/normalize/formats/aws'
import {caddyConsole} from '../../src/normalize/formats/caddy'
import {cloudflareTime} from '../../src/normalize/formats/cloudflare'
import {haproxyLog} from '../../src/normalize/formats/haproxy'
import {herokuRouter} from '../../src/normalize/formats/heroku'
import {unwrapCri, unwrapDocker} from '../../src/normalize/formats/container'
import {parseGcsUsageRow} from '../../src/normalize/formats/gcs'
import {w3cWithFields} from '../../src/normalize/formats/w3c'
import {parseNginxJson} from '../../src/normalize/nginx-json'
import {csvColumns, csvRowToLog} from '../../src/sources/file/csv'
import {lineFormat, normalizeLine} from '../../src/sources/file/records'
import {compileLogFormat, parseLogFormatJson, parseLogFormatLine, type JsonLogFormat, type TextLogFormat} from '../../src/normalize/log-format'
import {coreMapping, parseMappedJson} from '../../src/normalize/mapped-json'
import {normalizeSettings} from '../../src/config/analyze-options'
import {
  applyAll, asObject, fixtureLogs, formatSamples, hostileString, jsonMutation, mutateJsonAll, mutations, oddJson, outcomeProblem, settings,
} from '../helpers/hostile'
import {ROOT} from '../helpers/cli'
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

const samples = [...formatSamples(), ...fixtureLogs()]
const allLines = samples.flatMap((s) => s.lines)
const textLines = allLines.filter((l) => !l.trimStart().startsWith('{'))
const objects = allLines.map(asObject).filter((o): o is Record<string, unknown> => o !== undefined)
/** `#Fields:` lines of the header-ordered formats (CloudFront, W3C/IIS) and the data lines after them. */
const fieldsLines = textLines.filter((l) => l.startsWith('#Fields:'))
const dataLines = (w3c: boolean): string[] => samples.filter((s) => s.lines.some((l) => l.startsWith('#Fields:') && /\bx-edge-/.test(l) !== w3c))
  .flatMap((s) => s.lines.filter((l) => !l.startsWith('#')))

/** Datadog records in every wrapper the fixtures hold: API v2 items (parsed, unparsed), legacy v1 items. */
const datadogItems: Record<string, unknown>[] = [
  ...objects.filter((o) => unwrapDatadog(o) !== undefined),
  ...(JSON.parse(readFileSync(join(ROOT, 'fixtures', 'rolling-round-robin', 'dd-v1.json'), 'utf8')) as {logs: Record<string, unknown>[]}).logs.slice(0, 20),
]

const problem = (out: unknown, input?: string): string | undefined => outcomeProblem(out as Parameters<typeof outcomeProblem>[0], input)
/**
 * noProblem(out, input), with expect called only when there is one: each
 * property checks thousands of outcomes, and a call of expect costs more than the check.
 */
const noProblem = (out: unknown, input?: string): void => {
  const p = problem(out, input)
  if (p !== undefined) expect(p).toBeUndefined()
}

describe('text lines, mutated', () => {
  it('the corpus holds lines of every text format and JSON records of every JSON format', () => {
    for (const f of TEXT_FORMATS) expect(textLines.some((l) => f.looksLike(l))).toBe(true)
    for (const f of JSON_FORMATS) expect(objects.some((o) => f.looksLike(o))).toBe(true)
    expect(fieldsLines.length).toBeGreaterThan(1)
    expect(datadogItems.length).toBeGreaterThan(20)
  })

  it('parseTextLine gives an event or a known rejection', () => {
    fc.assert(fc.property(fc.constantFrom(...textLines), mutations(), (line, ms) => {
      const text = applyAll(line, ms)
      noProblem(parseTextLine(text), text)
    }), settings(0x5e1, 600))
  })

  it('every text format, asked about any format\'s line: its shape check says yes or no, its parse gives an outcome', () => {
    fc.assert(fc.property(fc.constantFrom(...textLines), mutations(), fc.constantFrom(...TEXT_FORMATS), (line, ms, f) => {
      const text = applyAll(line, ms)
      expect(typeof f.looksLike(text)).toBe('boolean')
      noProblem(f.parse(text), text)
    }), settings(0x5e2, 600))
  })

  it('a mutated #Fields: header gives a column order or none, and the order read reads mutated lines', () => {
    fc.assert(fc.property(fc.constantFrom(...fieldsLines), mutations(), fc.boolean(), fc.array(fc.tuple(fc.constantFrom(...dataLines(false), ...dataLines(true)), mutations()), {minLength: 1, maxLength: 4}), (header, hm, w3c, rows) => {
      const f = (w3c ? w3cWithFields : cloudfrontWithFields)(applyAll(header, hm))
      if (f === undefined) return
      for (const [row, ms] of rows) {
        const text = applyAll(row, ms)
        noProblem(f.parse(text), text)
      }
    }), settings(0x5e3, 500))
  })

  it('what a file reader makes of one line (JSON, bare, or in a container wrapper) is outcomes each well formed', () => {
    const wrap = fc.constantFrom(
      (l: string) => l,
      (l: string) => `2026-11-30T07:18:26.070123456Z stdout F ${l}`,
      (l: string) => `2026-11-30T07:18:26.070123456Z stderr P ${l}`,
      (l: string) => `2026-11-30T07:18:26.070Z ${l}`,
      (l: string) => JSON.stringify({log: `${l}\n`, stream: 'stdout', time: '2026-11-30T07:18:26.070123456Z'}),
    )
    fc.assert(fc.property(fc.constantFrom(...allLines), wrap, mutations(), fc.boolean(), (line, w, ms, withContext) => {
      const text = applyAll(w(line), ms)
      const outs = normalizeLine(text, DEFAULT_NORMALIZE, withContext ? {} : undefined)
      expect(Array.isArray(outs)).toBe(true)
      for (const out of outs) noProblem(out, text)
    }), settings(0x5e4, 600))
  })
})

describe('--log-format and --field: formats the user describes, on mutated lines', () => {
  // The real log_format definitions of fixtures/formats/log-format, each reading every corpus line mutated.
  const dir = join(ROOT, 'fixtures', 'formats', 'log-format')
  const formats = readdirSync(dir).filter((f) => f.endsWith('.conf')).map((f) => compileLogFormat(readFileSync(join(dir, f), 'utf8')))
  const textFormats = formats.filter((f): f is TextLogFormat => f.kind === 'text')
  const jsonFormats = formats.filter((f): f is JsonLogFormat => f.kind === 'json')

  it('every real log_format reads any line, mutated: an event or a known rejection with a short detail', () => {
    expect(textFormats.length).toBeGreaterThanOrEqual(6)
    fc.assert(fc.property(fc.constantFrom(...textLines), mutations(), fc.constantFrom(...textFormats), (line, ms, f) => {
      const text = applyAll(line, ms)
      noProblem(parseLogFormatLine(f, text), text)
    }), settings(0x5e8, 600))
  })

  it('a JSON template and a --field mapping read any record, mutated: an event or a known rejection', () => {
    const mapping = coreMapping(normalizeSettings({'session-key': 'auto', 'app-key': 'auto', field: ['path=request.uri', 'status=status', 'time=ts', 'bytes=size', 'method=request.method']}))
    expect(jsonFormats.length).toBeGreaterThanOrEqual(1)
    fc.assert(fc.property(fc.constantFrom(...objects), fc.array(jsonMutation, {maxLength: 4}), (o, ms) => {
      const v = mutateJsonAll(o, ms)
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return
      const rec = v as Record<string, unknown>
      for (const f of jsonFormats) noProblem(parseLogFormatJson(f, rec))
      noProblem(parseMappedJson(rec, mapping!))
    }), settings(0x5e9, 600))
  })
})

describe('JSON records of no known shape', () => {
  it('whatever their keys, are rejected as unknown-format with a short detail', () => {
    const key = fc.oneof(fc.string({unit: 'binary', maxLength: 60}), hostileString)
    fc.assert(fc.property(fc.dictionary(key, fc.jsonValue({maxDepth: 1}), {minKeys: 1, maxKeys: 6}), (obj) => {
      const text = JSON.stringify(obj)
      for (const out of normalizeLine(text, DEFAULT_NORMALIZE, {})) noProblem(out, text)
    }), settings(0x5e5, 200))
  })
})

describe('JSON records with a field nested deeper than a stack', () => {
  it('a record line with any one field replaced by `[[[…]]]` or `{"a":{"a":…}}` thousands of levels deep: outcomes, never a throw', () => {
    const lines = allLines.filter((l) => asObject(l) !== undefined)
    fc.assert(fc.property(fc.constantFrom(...lines), fc.nat(), fc.integer({min: 3000, max: 20_000}), fc.boolean(), (line, at, depth, object) => {
      // The deep value is written into the text (JSON.stringify itself overflows on it); JSON.parse has no depth limit.
      const marked = JSON.stringify(mutateJsonAll(asObject(line), [{kind: 'set', at, value: '\u0000deep'}]))
      const text = marked.replace('"\\u0000deep"', object ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}${']'.repeat(depth)}`)
      for (const out of normalizeLine(text, DEFAULT_NORMALIZE, {})) noProblem(out)
    }), settings(0xdee, 150))
  })
})

describe('JSON records, mutated', () => {
  const objectArb = fc.constantFrom(...objects)
  const jsonMutations = fc.array(jsonMutation, {minLength: 1, maxLength: 4})

  it('parseJsonRecord and every JSON format\'s shape check and parse, on any record', () => {
    fc.assert(fc.property(objectArb, jsonMutations, fc.constantFrom(...JSON_FORMATS), (obj, ms, f) => {
      const v = mutateJsonAll(obj, ms)
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return
      const rec = v as Record<string, unknown>
      const out = parseJsonRecord(rec)
      if (out !== undefined) noProblem(out)
      expect(typeof f.looksLike(rec)).toBe('boolean')
      noProblem(f.parse(rec))
      // nginx JSON is also read for an object no format claims that has enough nginx keys.
      noProblem(parseNginxJson(rec))
    }), settings(0x15a, 400))
  })

  it('a record whose text was mutated, when it still parses as an object, is read like any other', () => {
    fc.assert(fc.property(fc.constantFrom(...allLines.filter((l) => l.startsWith('{'))), mutations(), (line, ms) => {
      const rec = asObject(applyAll(line, ms))
      if (rec === undefined) return
      const out = parseJsonRecord(rec)
      if (out !== undefined) noProblem(out)
      noProblem(parseNginxJson(rec))
    }), settings(0x15b, 500))
  })

  it('Datadog logs in every wrapper, mutated: unwrapped or not, and an event or a known rejection', () => {
    fc.assert(fc.property(fc.constantFrom(...datadogItems), jsonMutations, (item, ms) => {
      const v = mutateJsonAll(item, ms)
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return
      const log = unwrapDatadog(v as Record<string, unknown>)
      if (log !== undefined) noProblem(normalizeDatadog(log, DEFAULT_NORMALIZE))
    }), settings(0xdd1, 600))
  })

  it('Log Explorer CSV rows with any cell replaced or mutated', () => {
    const csv = (name: string): string[][] => readFileSync(join(ROOT, 'fixtures', 'rolling-round-robin', name), 'utf8').split('\n').filter((l) => l !== '').slice(0, 15)
      .map((l) => [...l.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)].map((m) => (m[1] ?? '').replace(/^"(.*)"$/s, '$1').replace(/""/g, '"')).slice(0, -1))
    const tables = [csv('explorer.csv'), csv('explorer-raw.csv')].map(([header, ...rows]) => ({columns: csvColumns(header ?? []), rows}))
    for (const t of tables) expect(t.columns).toBeDefined()
    fc.assert(fc.property(fc.constantFrom(...tables), fc.nat(), fc.array(fc.tuple(fc.nat(), fc.oneof(hostileString, mutations())), {maxLength: 4}), (t, r, edits) => {
      const row = [...(t.rows[r % t.rows.length] ?? [])]
      for (const [k, e] of edits) row[k % row.length] = typeof e === 'string' ? e : applyAll(row[k % row.length] ?? '', e)
      if (t.columns) noProblem(normalizeDatadog(csvRowToLog(row, t.columns), DEFAULT_NORMALIZE))
    }), settings(0xc5f, 500))
  })

  it('Google Cloud Storage usage rows with any cell replaced, mutated or left out', () => {
    const text = readFileSync(join(ROOT, 'fixtures', 'formats', 'gcs', 'kanjiapi-popularity-one.csv'), 'utf8').split('\n').filter((l) => l !== '')
    const cells = (l: string): string[] => l.slice(1, -1).split('","')
    const header = cells(text[0] ?? '')
    const rows = text.slice(1, 20).map((l) => Object.fromEntries(cells(l).map((c, i) => [header[i] ?? '', c])))
    fc.assert(fc.property(fc.constantFrom(...rows), fc.array(fc.tuple(fc.constantFrom(...header), fc.oneof(hostileString, mutations(), fc.constant(null))), {minLength: 1, maxLength: 4}), (row, edits) => {
      const r: Record<string, string> = {...row}
      for (const [k, e] of edits) {
        if (e === null) delete r[k]
        else r[k] = typeof e === 'string' ? e : applyAll(r[k] ?? '', e)
      }
      noProblem(parseGcsUsageRow(r))
    }), settings(0x6c5, 500))
  })
})

/** The JSON text of a value, or undefined for one nested deeper than JSON.stringify's stack (the parsers were given it as a value). */
function stringified(v: unknown): string | undefined {
  try {
    return JSON.stringify(v)
  } catch {
    return undefined
  }
}

describe('Elastic documents and Filebeat envelopes, mutated', () => {
  const read = (f: string): unknown => JSON.parse(readFileSync(join(ROOT, 'fixtures', 'formats', 'elastic', f), 'utf8'))
  const nested = [read('integrations-nginx-ingress-sample-event.json'), ...readFileSync(join(ROOT, 'fixtures', 'formats', 'elastic', 'integrations-nginx-ingress-raw-expected.ndjson'), 'utf8')
    .split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as unknown)] as Record<string, unknown>[]
  const dotted = read('beats-nginx-test-with-host-expected.json') as Record<string, unknown>[]
  /** Every ECS document as Elastic writes it: nested, dotted, and as a search hit's `_source` or `fields`. */
  const docs = [...nested, ...dotted, ...nested.map((d) => ({_index: 'logs', _id: 'x', _source: d})), ...dotted.map((d) => ({_index: 'logs', _id: 'y', fields: d}))]

  it('any ECS document with fields replaced, deleted or nested oddly: an event or a known rejection, never a throw', () => {
    fc.assert(fc.property(fc.constantFrom(...docs), fc.array(jsonMutation, {minLength: 1, maxLength: 5}), (doc, ms) => {
      const v = mutateJsonAll(doc, ms)
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return
      const rec = v as Record<string, unknown>
      expect(typeof elasticJson.looksLike(rec)).toBe('boolean')
      noProblem(elasticJson.parse(rec))
      const out = parseJsonRecord(rec)
      if (out !== undefined) noProblem(out)
    }), settings(0xe1a, 500))
  })

  it('an envelope whose message is any mutated access line, or any hostile string or JSON: its line read, or a reason', () => {
    const message = fc.oneof(fc.constantFrom(...allLines.slice(0, 400)).chain((l) => mutations().map((ms) => applyAll(l, ms))), hostileString, oddJson)
    const extra = fc.record({'@timestamp': oddJson, kubernetes: oddJson, 'log.file.path': oddJson, 'event.original': fc.oneof(hostileString, oddJson)}, {requiredKeys: []})
    fc.assert(fc.property(message, extra, (m, more) => {
      const rec: Record<string, unknown> = {'@timestamp': '2026-11-30T07:18:26.070Z', input: {type: 'container'}, ...more, message: m}
      noProblem(elasticJson.parse(rec))
      const text = stringified(rec)
      if (text !== undefined) for (const out of normalizeLine(text, DEFAULT_NORMALIZE, {})) noProblem(out, text)
    }), settings(0xe1b, 500))
  })

  it('a search response of mutated hits: one outcome per hit, each an event or a reason', () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.constantFrom(...docs), fc.array(jsonMutation, {maxLength: 3})), {minLength: 1, maxLength: 4}), (hits) => {
      const text = stringified({took: 1, hits: {hits: hits.map(([d, ms]) => mutateJsonAll(d, ms))}})
      if (text === undefined) return
      const outs = normalizeLine(text, DEFAULT_NORMALIZE, {})
      expect(outs).toHaveLength(hits.length)
      for (const out of outs) noProblem(out, text)
    }), settings(0xe1c, 200))
  })
})

describe('ingress-nginx JSON lines, mutated', () => {
  const lines = readdirSync(join(ROOT, 'fixtures', 'formats', 'ingress-nginx-json')).filter((f) => f.endsWith('.log'))
    .flatMap((f) => readFileSync(join(ROOT, 'fixtures', 'formats', 'ingress-nginx-json', f), 'utf8').split('\n').filter((l) => l.startsWith('{')))
  const keys = ['path', 'method', 'vhost', 'bytes_sent', 'body_bytes_sent', 'remote_addr', 'x-forward-for', 'x_forward_for', 'status', 'time', 'namespace', 'service_name', 'service_port']

  it('any of its keys deleted or set to a hostile value: an event or a known rejection, its bytes marked only when no body length was read', () => {
    expect(lines.length).toBeGreaterThanOrEqual(10)
    fc.assert(fc.property(fc.constantFrom(...lines), fc.array(fc.tuple(fc.constantFrom(...keys), fc.oneof(fc.constant(undefined), hostileString, oddJson)), {minLength: 1, maxLength: 5}), (line, edits) => {
      const rec = JSON.parse(line) as Record<string, unknown>
      for (const [k, v] of edits) {
        if (v === undefined) delete rec[k]
        else rec[k] = v
      }
      const out = parseNginxJson(rec)
      noProblem(out)
      const body = rec['body_bytes_sent']
      if (out.ok) expect(out.event.responseBytes === true).toBe(body === undefined || body === null || body === '')
      const text = stringified(rec)
      if (text !== undefined) for (const o of normalizeLine(text, DEFAULT_NORMALIZE, {})) noProblem(o, text)
    }), settings(0x1a6, 500))
  })
})

describe('container wrappers, mutated', () => {
  const inner = fc.constantFrom(...textLines.slice(0, 400))

  it('a CRI record or kubectl --timestamps line: unwrapped to a line, or not a wrapper', () => {
    const prefix = fc.constantFrom('2026-11-30T07:18:26.070123456Z stdout F ', '2026-11-30T07:18:26.070123456Z stderr P ', '2026-11-30T07:18:26Z stdout F:x ',
      '2026-11-30T07:18:26.070+01:00 ', '2026-11-30t07:18:26.0700000000000000000000000000000000000000000000000001z stdout F ')
    fc.assert(fc.property(prefix, inner, mutations(), (p, line, ms) => {
      const w = unwrapCri(applyAll(p + line, ms))
      if (w === undefined) return
      expect(typeof w.line).toBe('string')
      expect(typeof w.partial).toBe('boolean')
      noProblem(parseTextLine(w.line), w.line)
    }), settings(0xc21, 600))
  })

  it('a Docker json-file record: unwrapped to a line, or not a record', () => {
    const extra = fc.record({stream: fc.oneof(fc.constant<unknown>('stdout'), oddJson), time: oddJson}, {requiredKeys: []})
    fc.assert(fc.property(inner, fc.array(jsonMutation, {maxLength: 3}), extra, (line, ms, more) => {
      const v = mutateJsonAll({log: `${line}\n`, stream: 'stdout', time: '2026-11-30T07:18:26.070123456Z'}, ms)
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return
      const w = unwrapDocker({...(v as Record<string, unknown>), ...more})
      if (w === undefined) return
      expect(typeof w.line).toBe('string')
      noProblem(parseTextLine(w.line), w.line)
    }), settings(0xd0c, 600))
  })
})

describe('log tools\' prefixes, mutated', () => {
  const prefixes = fc.constantFrom(
    (l: string) => `[pod/web-7d9f8c6b5-nk5kr/nginx] ${l}`,
    (l: string) => `[pod/web-7d9f8c6b5-nk5kr/nginx] 2026-11-30T07:18:26.070123456Z ${l}`,
    (l: string) => `web-1  | ${l}`,
    (l: string) => `\u001b[36mweb-1  | \u001b[0m${l}`,
    (l: string) => `nginx-proxy  | nginx.1    | ${l}`,
    (l: string) => `07:18:26 web.1  | ${l}`,
    (l: string) => `2026-11-30T07:18:26.070123456Z stdout F nginx.1    | ${l}`,
    (l: string) => `2026-11-30 07:18:26.070000000 +0000 docker.3f2a1b9c: ${JSON.stringify({log: `${l}\n`, stream: 'stdout', time: '2026-11-30T07:18:26Z'})}`,
    (l: string) => `2026-11-30 07:18:26 +0000 docker.3f2a1b9c: ${JSON.stringify({container_name: '/web-1', source: 'stdout', log: l})}`,
    (l: string) => `my app | ${l}`,
    (l: string) => `[web-1] ${l}`,
  )

  it('any line behind a prefix, the whole mutated: outcomes each well formed, with or without a context', () => {
    fc.assert(fc.property(fc.constantFrom(...allLines), prefixes, mutations(), fc.boolean(), (line, p, ms, withContext) => {
      const text = applyAll(p(line), ms)
      const outs = normalizeLine(text, DEFAULT_NORMALIZE, withContext ? {} : undefined)
      for (const out of outs) noProblem(out, text)
      expect(typeof lineFormat(text)).not.toBe('object')
    }), settings(0x9f1, 600))
  })

  it('prefixes stacked thousands deep, or a prefix line of half a megabyte: an outcome, never a throw or a deep recursion', () => {
    fc.assert(fc.property(fc.constantFrom('web-1  | ', '[pod/a-0/c] ', 'nginx.1 | ', '[x] '), fc.integer({min: 1000, max: 50_000}), fc.constantFrom(...textLines.slice(0, 50)), (p, n, line) => {
      const text = p.repeat(n) + line
      for (const out of normalizeLine(text, DEFAULT_NORMALIZE, {})) noProblem(out)
      expect(typeof lineFormat(text)).not.toBe('object')
    }), settings(0x9f2, 40))
  })

  it('Caddy console lines with mutated heads and fields', () => {
    const caddy = textLines.filter((l) => caddyConsole.looksLike(l))
    expect(caddy.length).toBeGreaterThan(0)
    fc.assert(fc.property(fc.constantFrom(...caddy), mutations(), (line, ms) => {
      const text = applyAll(line, ms)
      expect(typeof caddyConsole.looksLike(text)).toBe('boolean')
      noProblem(caddyConsole.parse(text), text)
    }), settings(0xcad, 600))
  })
})

describe('times', () => {
  const timeText = fc.oneof(
    fc.constantFrom('21/Mar/2022:16:05:33 +0000', '2022-03-21T16:05:33+00:00', '2022-04-11T16:29:47.402Z', '2026-11-30 07:18:26.070Z').chain((t) => mutations().map((ms) => applyAll(t, ms))),
    hostileString,
  )

  it('nginx and ISO times: a finite time with an ISO form, or none', () => {
    fc.assert(fc.property(timeText, (s) => {
      const n = parseNginxTime(s)
      if (n !== undefined) expect(Number.isNaN(new Date(n).getTime())).toBe(false)
      const iso = parseIsoTime(s)
      if (iso !== undefined) {
        expect(Number.isNaN(new Date(iso.time).getTime())).toBe(false)
        expect([1, 1000]).toContain(iso.resolutionMs)
      }
    }), settings(0x71e, 600))
  })

  it('Datadog timestamps of any JSON type: a finite time with an ISO form, or none', () => {
    fc.assert(fc.property(fc.oneof(timeText, oddJson, fc.double(), fc.integer()), (v) => {
      const t = parseTime(v)
      if (t !== undefined) expect(Number.isNaN(new Date(t.ms).getTime())).toBe(false)
    }), settings(0x71f, 600))
  })
})

/**
 * Issue 24 (CDNs and hosts): the new formats' own fields, each replaced by hostile text or odd JSON.
 * Every outcome is an event or a known rejection; a Vercel entry is never taken for a Datadog log;
 * the Heroku and HAProxy shape checks never claim another format's line.
 */
describe('CDN and host formats, field by field', () => {
  const sampleOf = (dir: string): string[] => samples.filter((s) => s.name.startsWith(`${dir}/`)).flatMap((s) => s.lines).filter((l) => l.trim() !== '')
  // Values nested deeper than a stack are the 'nested deeper' test's: JSON.stringify here could not write them.
  const oddValue = fc.oneof(fc.jsonValue({maxDepth: 2}), hostileString, fc.double(), fc.integer(), fc.bigInt().map(String), fc.constantFrom(-1, 0, '', '-', null, '1653485126000000000', 1653485126000000000, '1653485126', 'N/A'))

  it('Cloudflare, Azure Front Door and Vercel records with any of their keys replaced: outcomes, never a throw', () => {
    const records = ['cloudflare', 'azure', 'vercel'].flatMap(sampleOf).map(asObject).filter((o): o is Record<string, unknown> => o !== undefined)
    expect(records.length).toBeGreaterThanOrEqual(7)
    fc.assert(fc.property(fc.constantFrom(...records), fc.nat(), oddValue, fc.boolean(), (rec, at, value, inProxy) => {
      const copy = JSON.parse(JSON.stringify(rec)) as Record<string, unknown>
      const inner = inProxy && typeof copy['proxy'] === 'object' && copy['proxy'] !== null ? copy['proxy'] as Record<string, unknown>
        : inProxy && typeof copy['properties'] === 'object' && copy['properties'] !== null ? copy['properties'] as Record<string, unknown> : copy
      const keys = Object.keys(inner)
      inner[keys[at % keys.length] as string] = value
      const out = parseJsonRecord(copy)
      if (out !== undefined) noProblem(out)
      for (const o of normalizeLine(JSON.stringify(copy), DEFAULT_NORMALIZE, {})) noProblem(o)
    }), settings(0xcdf, 600))
  })

  it('a Vercel entry, whatever its message and timestamp, is never unwrapped as a Datadog log', () => {
    const entries = sampleOf('vercel').map(asObject).filter((o): o is Record<string, unknown> => o !== undefined)
    fc.assert(fc.property(fc.constantFrom(...entries), oddValue, oddValue, (e, message, timestamp) => {
      expect(unwrapDatadog({...e, message, timestamp})).toBeUndefined()
    }), settings(0x7e1, 300))
  })

  it('Heroku router and HAProxy lines with a token replaced by hostile text: outcomes; their shape checks claim no other format\'s line', () => {
    const lines = [...sampleOf('heroku'), ...sampleOf('haproxy')]
    const others = textLines.filter((l) => !samples.some((s) => (s.name.startsWith('heroku/') || s.name.startsWith('haproxy/')) && s.lines.includes(l)))
    for (const l of others) {
      expect([l.slice(0, 80), herokuRouter.looksLike(l)]).toEqual([l.slice(0, 80), false])
      expect([l.slice(0, 80), haproxyLog.looksLike(l)]).toEqual([l.slice(0, 80), false])
    }
    fc.assert(fc.property(fc.constantFrom(...lines), fc.nat(), fc.oneof(hostileString, fc.constantFrom('-', '', '"', 'status=', 'bytes=-1', '+', '<NOSRV>', '-1/-1/-1/-1/-1', '[', ']: ')), (line, at, token) => {
      const words = line.split(' ')
      words[at % words.length] = token
      const text = words.join(' ')
      for (const f of [herokuRouter, haproxyLog]) {
        expect(typeof f.looksLike(text)).toBe('boolean')
        noProblem(f.parse(text), text)
      }
      noProblem(parseTextLine(text), text)
    }), settings(0x4e0, 600))
  })

  it('Cloudflare timestamps of any JSON type: a finite time, or none', () => {
    fc.assert(fc.property(oddValue, (v) => {
      const t = cloudflareTime(v)
      if (t !== undefined) {
        expect(Number.isNaN(new Date(t.time).getTime())).toBe(false)
        expect([1, 1000]).toContain(t.resolutionMs)
      }
    }), settings(0xcf7, 600))
  })
})
