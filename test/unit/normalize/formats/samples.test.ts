/**
 * Every real published sample of fixtures/formats (origins in fixtures/formats/SOURCES.md) read by
 * its format's own parser, each record against the upstream project's expected output: one row per
 * format, the checks in test/helpers/sample-harness.ts. A new sample in a folder below needs no code;
 * a new format needs a row. The expected values come from the upstream projects' own expected output
 * or, where a sample has none, from reading the line by its format: never from running these parsers.
 */
import {join} from 'node:path'
import type {ParseOutcome} from '../../../../src/model'
import {parseAccessLine} from '../../../../src/normalize/access-line'
import {DEFAULT_NORMALIZE} from '../../../../src/normalize/fields'
import {parseJsonRecord} from '../../../../src/normalize/formats'
import {albLog, cloudfrontLog, cloudfrontWithFields} from '../../../../src/normalize/formats/aws'
import {elbClassicLog, s3AccessLog} from '../../../../src/normalize/formats/aws-legacy'
import {caddyConsole, caddyJson} from '../../../../src/normalize/formats/caddy'
import {envoyJson, envoyText} from '../../../../src/normalize/formats/envoy'
import {gcpHttpLoadBalancer} from '../../../../src/normalize/formats/gcp'
import {isGcsUsageHeader, parseGcsUsageRow} from '../../../../src/normalize/formats/gcs'
import {squidLog} from '../../../../src/normalize/formats/squid'
import {traefikClf, traefikJson} from '../../../../src/normalize/formats/traefik'
import type {TextFormat} from '../../../../src/normalize/formats/types'
import {w3cLog, w3cWithFields} from '../../../../src/normalize/formats/w3c'
import {parseNginxJson} from '../../../../src/normalize/nginx-json'
import {nonAccess} from '../../../../src/normalize/non-access'
import {CsvRecords} from '../../../../src/sources/file/csv-records'
import {JsonItemSplitter} from '../../../../src/sources/file/json-documents'
import {type LineContext, normalizeLine, normalizeObject} from '../../../../src/sources/file/records'
import {objectOf} from '../../../helpers/format-samples'
import {describeSamples, eachJsonLine, eachLine, type SampleReading, type SampleRecord, sampleLines, sampleOptions} from '../../../helpers/sample-harness'

const FORMATS = join(__dirname, '..', '..', '..', '..', 'fixtures', 'formats')

/** The parser a CloudFront file's own #Fields line gives (a real-time log's own field order). */
function byOwnFields(text: string): SampleRecord[] {
  const lines = sampleLines(text)
  const header = lines.find((l) => l.startsWith('#Fields:'))
  const parser = header === undefined ? undefined : cloudfrontWithFields(header)
  if (parser === undefined) throw new Error('no #Fields line a parser is built from')
  return lines.map((l) => ({outcome: parser.parse(l), text: l}))
}

/** What a W3C reader does with records after a `#Fields:` line no parser can be built from. */
const unreadableW3c: TextFormat = {
  ...w3cLog,
  parse: (line) => (line.startsWith('#') ? w3cLog.parse(line) : {ok: false, reason: 'unparsed-message', detail: 'no readable #Fields line for this record'}),
}

/** A W3C file as a reader reads it: IIS's default order until a `#Fields:` line gives another. */
function w3cFile(text: string): SampleRecord[] {
  let parser: TextFormat = w3cLog
  return sampleLines(text).map((l) => {
    if (l.startsWith('#Fields:')) parser = w3cWithFields(l) ?? unreadableW3c
    return {outcome: parser.parse(l), text: l}
  })
}

/** A GCS usage CSV cut by the file reader's own record splitter: each data row at the line it starts on. */
function gcsCsv(text: string): Array<SampleRecord | undefined> {
  const out: Array<SampleRecord | undefined> = []
  let head: string[] | undefined
  const records = new CsvRecords((cells, line) => {
    if (head === undefined) {
      if (!isGcsUsageHeader(cells)) throw new Error('no usage-log header')
      head = cells
    } else {
      const row = Object.fromEntries(head.map((name, i) => [name, cells[i] as string]))
      out[line - 1] = {outcome: parseGcsUsageRow(row), text: cells.join(',')}
    }
    return 'ok'
  }, (line, detail) => {
    throw new Error(`line ${line}: ${detail}`)
  })
  text.replace(/^\uFEFF/, '').split(/\r?\n/).forEach((l, i) => records.push({text: l, line: i + 1}))
  records.end()
  return out
}

/** A Cloud Logging export: NDJSON (`.log`) or a JSON array (`.json`, one record an item), as the file reader sees its values. */
function gcpEntries(text: string, file: string): SampleRecord[] {
  const values: Array<{value?: unknown; text: string}> = file.endsWith('.json')
    ? (JSON.parse(text) as unknown[]).map((value) => ({value, text: JSON.stringify(value)}))
    : sampleLines(text).map((l) => {
      try {
        return {value: JSON.parse(l) as unknown, text: l}
      } catch {
        return {text: l}
      }
    })
  return values.map((v): SampleRecord => {
    if (!('value' in v)) return {outcome: {ok: false, reason: 'invalid-json'}, text: v.text}
    const o = v.value
    if (typeof o !== 'object' || o === null || Array.isArray(o)) return {outcome: {ok: false, reason: 'not-an-object'}, text: v.text}
    return {outcome: gcpHttpLoadBalancer.parse(o as Record<string, unknown>), text: v.text}
  })
}

/** Caddy: a console-encoder line (caddy-pr-3454-console.log) is text whose JSON part is read as Caddy JSON. */
const caddyLine = (l: string): ParseOutcome => {
  if (caddyConsole.looksLike(l)) return caddyConsole.parse(l)
  const obj = objectOf(l)
  return obj === undefined ? {ok: false, reason: 'invalid-json'} : caddyJson.parse(obj)
}

/** Envoy text; the Filebeat/Docker-style envelopes of integrations-envoyproxy.log are read as a file's JSON line is (the Elastic reader reads their message). */
const envoyLine = (l: string): ParseOutcome =>
  l.startsWith('{') ? parseJsonRecord(JSON.parse(l) as Record<string, unknown>) ?? {ok: false, reason: 'unknown-format'} : envoyText.parse(l)

/** nginx text: a line no format reads that is no request (an error log line, a klog notice) is told apart as the file reader does. */
const nginxLine = (l: string): ParseOutcome => {
  const out = parseAccessLine(l)
  return out.ok ? out : nonAccess(l) ?? out
}
const nonEmpty = (read: (text: string) => SampleRecord[]) => (text: string): Array<SampleRecord | undefined> => read(text).map((r) => (r.text.trim() === '' ? undefined : r))

/**
 * For formats read where the file reader dispatches a line (a tool's prefix peeled, a user's
 * --log-format or --field applied, a header-counting format's bytes marked): normalizeLine, the
 * reader's pure per-line step, with the sample's option files, one outcome a line.
 */
const dispatched = (folder: string) => (text: string, file: string): Array<SampleRecord | undefined> => {
  const opts = sampleOptions(join(FORMATS, folder), file)
  const ctx: LineContext = {}
  return sampleLines(text).map((l, i) => {
    if (l.trim() === '') return undefined
    ctx.line = i + 1
    const outs = normalizeLine(l, opts, ctx)
    if (outs.length !== 1) throw new Error(`line ${i + 1}: ${outs.length} outcomes`)
    return {outcome: outs[0] as ParseOutcome, text: l}
  })
}

/** A JSON document (pretty-printed, an array of records or one record): each record at the line it starts on. */
function jsonDocument(text: string): Array<SampleRecord | undefined> {
  const out: Array<SampleRecord | undefined> = []
  const splitter = new JsonItemSplitter((item) => {
    out[item.line - 1] = {outcome: normalizeObject(JSON.parse(item.text) as unknown, DEFAULT_NORMALIZE), text: item.text}
  }, (p) => {
    throw new Error(`line ${p.line}: ${p.kind}`)
  })
  splitter.write(text)
  splitter.end()
  return out
}

/** foxsec's filter samples log `1970-01-01T00:00:00+00:00`, a time without a fraction. */
const gcpResolution = (_file: string, text: string): number => (/"timestamp": ?"[^"]*\.\d/.test(text) ? 1 : 1000)

/** The fields the nginx expected files are written in (not resolutionMs or requestTime): an absent one must be absent. */
const NGINX_FIELDS = ['time', 'method', 'path', 'status', 'bytes', 'clientIp', 'userAgent', 'referer', 'upstream', 'upstreamName', 'requestId', 'vhost']

const READINGS: SampleReading[] = [
  {folder: 'aws', name: 'albLog', files: /^alb-.*\.log$/, read: eachLine((l) => albLog.parse(l)), resolutionMs: () => 1, minSamples: 3},
  {folder: 'aws', name: 'cloudfrontLog', files: /^cloudfront-(?!realtime-).*\.log$/, read: eachLine((l) => cloudfrontLog.parse(l)), resolutionMs: () => 1000, minSamples: 4},
  // The same standard logs again through a parser built from their own #Fields line, which must agree; a real-time log only so.
  {
    folder: 'aws',
    name: 'cloudfrontWithFields',
    files: (f, text) => f.startsWith('cloudfront-realtime-') || (f.startsWith('cloudfront-') && f.endsWith('.log') && text.split('\n').some((l) => l.startsWith('#Fields:'))),
    read: byOwnFields,
    resolutionMs: (f) => (f.startsWith('cloudfront-realtime-') ? 1 : 1000),
  },
  {folder: 'aws-legacy', name: 's3AccessLog', files: /^s3-.*\.log$/, read: eachLine((l) => s3AccessLog.parse(l)), resolutionMs: () => 1000, minSamples: 4},
  {folder: 'aws-legacy', name: 'elbClassicLog', files: /^elb-classic-.*\.log$/, read: eachLine((l) => elbClassicLog.parse(l)), resolutionMs: () => 1, minSamples: 4},
  // Caddy's expected files name resolutionMs: compared as a field.
  {folder: 'caddy', name: 'caddyJson', files: /\.log$/, read: eachLine(caddyLine), minRecords: 10},
  // %START_TIME% keeps its milliseconds.
  {folder: 'envoy', name: 'envoyText', files: /\.log$/, read: eachLine(envoyLine), resolutionMs: () => 1, minSamples: 7},
  {folder: 'envoy', name: 'envoyJson', files: /\.ndjson$/, read: eachJsonLine((o) => envoyJson.parse(o)), resolutionMs: () => 1, minSamples: 3},
  {folder: 'gcp', name: 'gcpHttpLoadBalancer', files: /\.(log|json)$/, read: gcpEntries, resolutionMs: gcpResolution, minSamples: 4},
  {folder: 'gcs', name: 'parseGcsUsageRow', files: /\.csv$/, read: gcsCsv, resolutionMs: () => 1, minSamples: 2},
  ...[
    {name: 'parseAccessLine', files: /\.log$/, read: nonEmpty(eachLine(nginxLine))},
    {name: 'parseNginxJson', files: /\.(jsonl|ndjson)$/, read: nonEmpty(eachJsonLine((o) => parseNginxJson(o)))},
  ].map((r) => ({...r, folder: 'nginx', fields: NGINX_FIELDS})),
  {folder: 'squid', name: 'squidLog', files: /\.log$/, read: eachLine((l) => squidLog.parse(l)), resolutionMs: () => 1, minSamples: 2},
  // Traefik's expected files name resolutionMs: compared as a field.
  {folder: 'traefik', name: 'traefikClf', files: /^(?!.*json).*\.log$/, read: eachLine((l) => traefikClf.parse(l)), minRecords: 10},
  {folder: 'traefik', name: 'traefikJson', files: /json.*\.log$/, read: eachJsonLine((o) => traefikJson.parse(o)), minRecords: 10},
  {folder: 'w3c', name: 'w3cLog', files: /\.log$/, read: w3cFile, resolutionMs: () => 1000, minSamples: 6},
  {folder: 'azure', name: 'normalizeLine', files: /\.log$/, read: dispatched('azure'), resolutionMs: () => 1},
  // Cloudflare's expected file names resolutionMs (it follows Logpush's timestamp_format): compared as a field.
  {folder: 'cloudflare', name: 'normalizeLine', files: /\.log$/, read: dispatched('cloudflare')},
  {folder: 'elastic', name: 'normalizeLine', files: /\.ndjson$/, read: dispatched('elastic'), resolutionMs: () => 1000},
  {folder: 'elastic', name: 'normalizeObject', files: /\.json$/, read: jsonDocument, resolutionMs: () => 1000},
  {folder: 'haproxy', name: 'normalizeLine', files: /\.log$/, read: dispatched('haproxy'), resolutionMs: () => 1},
  {folder: 'heroku', name: 'normalizeLine', files: /\.log$/, read: dispatched('heroku'), resolutionMs: () => 1},
  {folder: 'ingress-nginx-json', name: 'normalizeLine', files: /\.log$/, read: dispatched('ingress-nginx-json'), resolutionMs: () => 1000},
  // Written for nginx's field list (ingress-nginx-default.expected.json is nginx/filebeat-ingress-controller's): requestTime is the end-to-end test's.
  {folder: 'log-format', name: 'normalizeLine --log-format', files: /\.(log|jsonl)$/, read: dispatched('log-format'), resolutionMs: () => 1000, fields: NGINX_FIELDS},
  {folder: 'prefixes', name: 'normalizeLine', files: /\.log$/, read: dispatched('prefixes'), resolutionMs: () => 1000},
  {folder: 'vercel', name: 'normalizeLine', files: /\.ndjson$/, read: dispatched('vercel'), resolutionMs: () => 1},
]

/** Folders read only through the file reader, end to end (test/integration/format-samples.test.ts), and why. */
const END_TO_END_ONLY: Record<string, string> = {
  unseen: 'the blind test: its expected files name what a reader must get without being told the format (a line that is no record is `any`), so only detection reads it',
}

describe('real samples, each read by its format\'s parser', () => {
  describeSamples(FORMATS, READINGS, END_TO_END_ONLY)
})
