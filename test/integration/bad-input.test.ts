/*
 * Bad input never crashes a run and never vanishes silently.
 *
 * Each case writes a small file (or a few) into a temporary directory, mixing good records with bad
 * ones whose place (file, line) and reason are known by construction, then checks that:
 *  - every good record was used and every bad one counted under the expected reason,
 *    `input.records === input.used + input.skipped.total`, per source as well;
 *  - the examples point at the right file and line;
 *  - the analysis (builds, page loads, incidents, affected users) equals that of the same good
 *    records alone, so the bad ones changed nothing.
 * Most cases call the in-process API (`analyze()`); the cases about exit codes and messages run the
 * CLI as a user would (`node bin/run.js analyze … --json`). Adding a case means adding a row.
 */
import {spawn} from 'node:child_process'
import {chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {gunzipSync, gzipSync, constants as zlibConstants} from 'node:zlib'
import {analyze} from '../../src/app/analyze'
import {analyzeSettings} from '../../src/config/analyze-options'
import type {AnalysisReport} from '../../src/model/report'
import {
  BAD_BASE, type BuiltFile, CSV_HEADER, type Ev, type ExpectedRejection, type Piece, type Render, SCENARIO, SHELL_A,
  bad, badItem, binaryLine, blank, byteLineFile, combined, concatFiles, csvBare, csvFile, csvJsonQuoted, csvQuote,
  ddItem, ddNdjson, ddUnparsed, ddV1Item, distinctGoods, duplicatesOf, filler, good, goodItem, ingress, interleave,
  isoTime, lineFile, mixed, nginxJson, nginxJsonObject, prettyPage, prng, spread, tally,
} from '../helpers/bad-input-corpus'
import {cliEnv} from '../helpers/cli'

const ROOT = resolve(__dirname, '../..')
const WORK = mkdtempSync(join(tmpdir(), 'skewscan-bad-input-'))
afterAll(() => rmSync(WORK, {recursive: true, force: true}))

let caseNo = 0
/** A fresh directory per case, so file names can repeat across cases. */
function caseDir(): string {
  const dir = join(WORK, `case-${++caseNo}`)
  mkdirSync(dir)
  return dir
}

// ---------------------------------------------------------------------------------------------
// Running

/** The settings the CLI uses when no flag is given. */
const SETTINGS = analyzeSettings({
  'default-asset-patterns': true, 'length-tolerance': 0, 'incident-gap': '5m', horizon: '30m', 'deploy-margin': '60s',
  lookahead: '60s', 'reorder-window': '60s', 'session-key': 'auto', 'lazy-gap': '3s', 'app-key': 'auto',
})

async function runApi(inputs: string[]): Promise<{report: AnalysisReport; notices: string[]}> {
  const notices: string[] = []
  const report = await analyze({...SETTINGS, inputs, onNotice: (m) => notices.push(m)})
  return {report, notices}
}

interface CliRun {
  exit: number | null
  stdout: string
  stderr: string
}

/** `skewscan analyze ARGS` (bin/run.js), as a user runs it: TZ=UTC, no network, bounded in time. */
function runCli(args: string[], stdin?: Buffer): Promise<CliRun> {
  const env = cliEnv({NO_COLOR: '1'})
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['bin/run.js', 'analyze', ...args], {cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe']})
    const out: Buffer[] = []
    const err: Buffer[] = []
    const timer = setTimeout(() => child.kill('SIGKILL'), 50_000)
    child.stdout.on('data', (b: Buffer) => out.push(b))
    child.stderr.on('data', (b: Buffer) => err.push(b))
    child.on('error', fail)
    child.on('close', (exit) => {
      clearTimeout(timer)
      done({exit, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8')})
    })
    child.stdin.on('error', () => {}) // the CLI may exit before reading all of stdin
    child.stdin.end(stdin ?? Buffer.alloc(0))
  })
}

// ---------------------------------------------------------------------------------------------
// What is compared

/**
 * Everything the analysis found, without the input bookkeeping, and without app names: formats
 * name the app differently (the ingress upstream, the Datadog service) or not at all.
 */
function analysisOf(r: AnalysisReport): unknown {
  const anon = <T extends {app: string | null}>(xs: readonly T[]): T[] => xs.map((x) => ({...x, app: null}))
  return {
    first: r.input.first, last: r.input.last, totals: r.totals, builds: anon(r.builds), deploys: anon(r.deploys),
    incidents: anon(r.incidents), affectedUsers: anon(r.affectedUsers), nonUser: r.nonUser, orphans: r.orphans,
  }
}

/** The first EXAMPLES_PER_REASON (3) rejections of each reason, in reading order, sorted for comparison. */
function expectedExamples(rejections: readonly ExpectedRejection[], pathOf: (name: string) => string): {reason: string; file: string; line: number}[] {
  const seen: Record<string, number> = {}
  const out: {reason: string; file: string; line: number}[] = []
  for (const r of rejections) {
    seen[r.reason] = (seen[r.reason] ?? 0) + 1
    if ((seen[r.reason] as number) <= 3) out.push({reason: r.reason, file: pathOf(r.file), line: r.line})
  }
  return sortExamples(out)
}

function sortExamples<T extends {reason: string; file: string; line: number}>(xs: T[]): {reason: string; file: string; line: number}[] {
  return xs
    .map(({reason, file, line}) => ({reason, file, line}))
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0)))
}

/** The good records alone, written the way the case wrote them, for the baseline analysis. */
function baselineFile(events: readonly Ev[], render: Render, csv: boolean, header?: string): BuiltFile {
  const pieces = events.map((e) => good(e, render))
  return csv ? csvFile('baseline.csv', pieces, header ? {header} : {}) : lineFile('baseline.log', pieces)
}

// ---------------------------------------------------------------------------------------------
// Bad records

type Json = Record<string, any>

/** A Datadog API v2 item for BAD_BASE, changed by `mutate`, as one NDJSON line. */
function ddBad(mutate: (item: {outer: Json; inner: Json; http: Json; network: Json}) => void): string {
  const item = ddItem(BAD_BASE) as Json
  const outer = item.attributes as Json
  const inner = outer.attributes as Json
  mutate({outer, inner, http: inner.http as Json, network: inner.network as Json})
  return JSON.stringify(item)
}

/** An nginx escape=json line for BAD_BASE, changed by `mutate`. */
function njBad(mutate: (o: Json) => void): string {
  const o = nginxJsonObject(BAD_BASE) as Json
  mutate(o)
  return JSON.stringify(o)
}

/** The ingress line of BAD_BASE with its ` 200 2011 ` (status and bytes) replaced. */
const ingressStatusBytes = (status: string, bytes: string): string => ingress(BAD_BASE).replace(' 200 2011 ', ` ${status} ${bytes} `)

/** The ingress line of BAD_BASE with its `[$time_local]` replaced. */
const ingressTime = (time: string): string => ingress(BAD_BASE).replace(/\[[^\]]+\]/, `[${time}]`)

/** nginx answering 400 to a request it could not read: `"-"`, or a TLS hello on a plain port. */
const INGRESS_400_DASH = '203.0.113.99 - - [05/Mar/2024:10:00:41 +0000] "-" 400 0 "-" "-" 0 0.000 [] [] - - - - 7f3c2a9e8b1d4c6fa0e5b2c1d3e4f5a6'
const INGRESS_400_TLS =
  '203.0.113.99 - - [05/Mar/2024:10:00:42 +0000] "\\x16\\x03\\x01\\x02\\x00\\x01\\x00\\x01\\xFC\\x03\\x03\\x9B\\xA4\\x1E\\x8C" 400 157 "-" "-" 0 0.001 [] [] - - - - 0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e'

/** Printable junk of `size` characters (spaces and quotes included), not starting with `{`. */
function printableJunk(size: number, seed: number, prefix = 'GARBAGE '): string {
  const rnd = prng(seed)
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789 "[]-/:.'
  let s = prefix
  while (s.length < size) s += alphabet[Math.floor(rnd() * alphabet.length)]
  return s
}

/** A good event with a 200 KB user agent: a new browser loading build A's shell and bundle. */
const LONG_UA = `Mozilla/5.0 ${'(compatible; X-Very-Long-Token/1.0) '.repeat(6000)}`.slice(0, 200 * 1024)
const LONG_UA_EVENTS: Ev[] = [
  {t: SCENARIO[0]!.t + 47, ip: '192.0.2.77', ua: LONG_UA, method: 'GET', path: '/', status: 200, bytes: SHELL_A, upstream: '10.244.1.3:8080', id: 'AQAAAY4NLONG1'},
  {t: SCENARIO[0]!.t + 48, ip: '192.0.2.77', ua: LONG_UA, method: 'GET', path: '/_build/A_main.js', status: 200, bytes: 48211, upstream: '10.244.2.9:8080', referer: 'https://app.example.com/', id: 'AQAAAY4NLONG2'},
]
/** One more good record: a fourth browser loading build A's shell. */
const EXTRA_GOOD: Ev = {t: SCENARIO[0]!.t + 47, ip: '192.0.2.88', ua: 'curl/8.5.0', method: 'GET', path: '/', status: 200, bytes: SHELL_A, upstream: '10.244.1.3:8080', id: 'AQAAAY4NXTRA'}
const WITH_LONG_UA = [...SCENARIO.slice(0, 8), ...LONG_UA_EVENTS, ...SCENARIO.slice(8)]

/** CSV with `@attribute` columns (a pipeline-parsed export), no Content column. */
const CSV_ATTR_HEADER = 'Date,Host,Service,@http.url,@http.method,@http.status_code,@network.bytes_written,@network.client.ip,@http.useragent,@http.referer'
const csvAttrRow = (e: Ev, over: Partial<Record<'date' | 'status' | 'bytes', string>> = {}): string =>
  [over.date ?? isoTime(e.t), 'ip-10-0-1-17', 'web', e.path, e.method, over.status ?? String(e.status), over.bytes ?? String(e.bytes), e.ip, csvQuote(e.ua), e.referer ?? ''].join(',')
const csvAttr: Render = (e) => csvAttrRow(e)

/** gzip whose end is cut off at `fraction` of its length. */
function truncatedGzip(text: string, fraction: number): {data: Buffer; completeLines: number} {
  const gz = gzipSync(Buffer.from(text, 'utf8'))
  const data = gz.subarray(0, Math.floor(gz.length * fraction))
  // What a reader can still recover from the cut stream.
  const prefix = gunzipSync(data, {finishFlush: zlibConstants.Z_SYNC_FLUSH}).toString('utf8')
  return {data, completeLines: prefix.split('\n').length - 1}
}

function truncatedGzipFile(name: string, events: readonly Ev[], fraction: number): BuiltFile {
  const text = events.map((e) => `${ingress(e)}\n`).join('')
  const {data, completeLines} = truncatedGzip(text, fraction)
  if (completeLines === 0 || completeLines >= events.length) throw new Error(`cut at ${fraction} leaves ${completeLines} lines`)
  const goods = events.slice(0, completeLines)
  return {name, data, goods, goodAt: goods.map((ev, i) => ({ev, line: i + 1})), rejections: [{reason: 'truncated-input', file: name, line: completeLines + 1}]}
}

/**
 * The scenario followed by hours of other traffic: about 2 MB of lines, more than one read batch
 * (1 MiB) and far more than the 60 s reorder window, so a newest-first copy cannot be absorbed by the
 * reorder buffer and is re-read sorted.
 */
const LONG_RUN: Ev[] = [...SCENARIO, ...filler(12_000, SCENARIO[0]!.t + 60)]
/** Bad lines among the oldest records and among the newest (read before the order is found out). */
const LONG_RUN_BADS = (render: Render): Piece[] =>
  interleave(render, {1: [bad(ingressStatusBytes('2xx', '2011'), 'bad-status')], [LONG_RUN.length - 3]: [bad(INGRESS_400_TLS, 'missing-path')]}, LONG_RUN)

const gz = (f: BuiltFile): BuiltFile => ({...f, data: gzipSync(f.data)})

// ---------------------------------------------------------------------------------------------
// The corpus

interface Case {
  name: string
  /** The files, passed in this order. */
  files: () => BuiltFile[]
  /** Good records the analysis must use (distinct events); undefined when only the build knows (a gzip cut). */
  used?: number
  /** Exactly what `input.skipped.byReason` must say. */
  byReason: Record<string, number>
  /** How the good records are written alone for the baseline (default: as in the case). */
  render: Render
  csv?: boolean
  /** The CSV header of the baseline, when not the default. */
  csvHeader?: string
  /** A notice the run must give the user (onNotice, i.e. stderr). */
  notice?: RegExp
}

/** Bad Datadog NDJSON lines spread through the scenario. */
function ddCase(name: string, bads: Piece[], byReason: Record<string, number>): Case {
  return {name, files: () => [lineFile('events.ndjson', spread(ddNdjson, bads))], used: SCENARIO.length, byReason, render: ddNdjson}
}

function njCase(name: string, bads: Piece[], byReason: Record<string, number>): Case {
  return {name, files: () => [lineFile('nginx.json.log', spread(nginxJson, bads))], used: SCENARIO.length, byReason, render: nginxJson}
}

function ingressCase(name: string, bads: Piece[], byReason: Record<string, number>): Case {
  return {name, files: () => [lineFile('ingress.log', spread(ingress, bads))], used: SCENARIO.length, byReason, render: ingress}
}

const BAD_DD_TIMES: [string, unknown][] = [
  ['month 13', '2024-13-05T10:00:41.000Z'],
  ['February 30', '2024-02-30T10:00:41.000Z'],
  ['"not a date"', 'not a date'],
  ['a boolean', true],
  ['a pre-1970 ISO date', '1969-12-31T23:59:59.000Z'],
  ['a negative epoch', -1],
  ['an absurd epoch (year 318857)', 1e16],
]

const CASES: Case[] = [
  // --- truncated JSON
  {
    name: 'NDJSON: a line cut off mid-record, and a last line cut off without a newline',
    files: () => [lineFile('cut.ndjson', [...spread(ddNdjson, [bad(ddNdjson(BAD_BASE).slice(0, 180), 'invalid-json')]), bad(ddNdjson(BAD_BASE).slice(0, 95), 'invalid-json')], {noFinalEol: true})],
    used: 10, byReason: {'invalid-json': 2}, render: ddNdjson,
  },
  {
    name: 'NDJSON whose first line is cut off',
    files: () => [lineFile('first-cut.ndjson', [bad(ddNdjson(BAD_BASE).slice(0, 200), 'invalid-json'), ...SCENARIO.map((e) => good(e, ddNdjson))])],
    used: 10, byReason: {'invalid-json': 1}, render: ddNdjson,
  },
  {
    name: 'pretty-printed API page cut mid-item: the items before the cut are used',
    files: () => [prettyPage('page.json', [...SCENARIO.slice(0, 6).map(goodItem), goodItem(BAD_BASE), goodItem(SCENARIO[6]!)], {cutInItem: 6})],
    used: 6, byReason: {'truncated-input': 1}, render: ddNdjson,
  },
  // --- wrong types
  ddCase('Datadog item: status as an object', [bad(ddBad(({http}) => (http.status_code = {code: 200})), 'bad-status')], {'bad-status': 1}),
  ddCase('Datadog item: bytes as a string of letters', [bad(ddBad(({network}) => (network.bytes_written = 'lots')), 'bad-bytes')], {'bad-bytes': 1}),
  njCase('nginx JSON: status as an object', [bad(njBad((o) => (o.status = {code: 200})), 'bad-status')], {'bad-status': 1}),
  njCase('nginx JSON: bytes as a string of letters', [bad(njBad((o) => (o.body_bytes_sent = 'lots')), 'bad-bytes')], {'bad-bytes': 1}),
  // --- missing fields
  ddCase('Datadog item: no status', [bad(ddBad(({http}) => delete http.status_code), 'missing-status')], {'missing-status': 1}),
  ddCase(
    'Datadog item: no path, no url and no message',
    [bad(ddBad(({outer, http}) => {
      delete http.url
      delete http.url_details
      delete outer.message
    }), 'missing-path')],
    {'missing-path': 1},
  ),
  ddCase('Datadog item: no timestamp', [bad(ddBad(({outer}) => delete outer.timestamp), 'missing-time')], {'missing-time': 1}),
  njCase('nginx JSON: no status', [bad(njBad((o) => delete o.status), 'missing-status')], {'missing-status': 1}),
  njCase('nginx JSON: no request, request_uri or uri', [bad(njBad((o) => delete o.request), 'missing-path')], {'missing-path': 1}),
  njCase('nginx JSON: a line missing its time', [bad(njBad((o) => delete o.time_iso8601), 'missing-time')], {'missing-time': 1}),
  // --- bad timestamps
  ...BAD_DD_TIMES.map(([label, ts]) => ddCase(`Datadog item: timestamp ${label}`, [bad(ddBad(({outer}) => (outer.timestamp = ts)), 'bad-time')], {'bad-time': 1})),
  njCase(
    'nginx JSON: time month 13, February 30, "not a date", negative msec',
    [
      bad(njBad((o) => (o.time_iso8601 = '2024-13-05T10:00:41+00:00')), 'bad-time'),
      bad(njBad((o) => (o.time_iso8601 = '2024-02-30T10:00:41+00:00')), 'bad-time'),
      bad(njBad((o) => (o.time_iso8601 = 'not a date')), 'bad-time'),
      bad(njBad((o) => {
        delete o.time_iso8601
        o.msec = '-1709633241.000'
      }), 'bad-time'),
    ],
    {'bad-time': 4},
  ),
  ingressCase(
    'ingress line: day 32, hour 25, year 1969, "not a date"',
    [
      bad(ingressTime('32/Mar/2024:10:00:41 +0000'), 'bad-time'),
      bad(ingressTime('05/Mar/2024:25:00:41 +0000'), 'bad-time'),
      bad(ingressTime('31/Dec/1969:23:59:59 +0000'), 'bad-time'),
      bad(ingressTime('not a date'), 'bad-time'),
    ],
    {'bad-time': 4},
  ),
  // --- ingress lines with bad fields
  ingressCase('ingress line: non-numeric status', [bad(ingressStatusBytes('2xx', '2011'), 'bad-status'), bad(ingressStatusBytes('OK', '2011'), 'bad-status')], {'bad-status': 2}),
  ingressCase('ingress line: non-numeric bytes', [bad(ingressStatusBytes('200', '2k'), 'bad-bytes'), bad(ingressStatusBytes('200', 'NaN'), 'bad-bytes')], {'bad-bytes': 2}),
  ingressCase('ingress line: bad request line ("-" and TLS junk, as nginx logs a 400)', [bad(INGRESS_400_DASH, 'missing-path'), bad(INGRESS_400_TLS, 'missing-path')], {'missing-path': 2}),
  // --- garbage
  {
    name: 'binary garbage lines (random bytes with NULs), one of them the first line',
    files: () => [byteLineFile('access.log', [
      {bytes: binaryLine(1, 300), bads: ['binary']},
      ...SCENARIO.slice(0, 5).map((e) => good(e, ingress)),
      {bytes: binaryLine(2, 4096), bads: ['binary']},
      ...SCENARIO.slice(5).map((e) => good(e, ingress)),
      {bytes: binaryLine(3, 64), bads: ['binary']},
    ])],
    used: 10, byReason: {binary: 3}, render: ingress,
  },
  ingressCase('a 1 MB junk line (text), and a 1 MB junk line starting with {', [bad(printableJunk(1 << 20, 7), 'unparsed-message'), bad(printableJunk(1 << 20, 8, '{"junk": '), 'invalid-json')], {'unparsed-message': 1, 'invalid-json': 1}),
  {
    name: 'a line longer than the 16 MiB limit',
    files: () => [lineFile('huge.log', spread(ingress, [bad(`GARBAGE ${'A'.repeat(17 * 1024 * 1024)}`, 'line-too-long')]))],
    used: 10, byReason: {'line-too-long': 1}, render: ingress,
  },
  ingressCase('a plain-text line that is not an access line: an nginx error log line, counted apart as no request', [bad('2024/03/05 10:00:41 [error] 31#31: *1 upstream timed out (110: Connection timed out)', 'not-access-line')], {'not-access-line': 1}),
  {
    name: 'a valid record with a 200 KB user agent',
    files: () => [lineFile('ua.log', WITH_LONG_UA.map((e) => good(e, ingress)))],
    used: 12, byReason: {}, render: ingress,
  },
  // --- JSON that is not a record
  {
    name: 'a JSON array of scalars on a line (each element a rejected record), and an array holding one good record',
    files: () => [lineFile('arrays.ndjson', spread(ddNdjson, [bad('["GET","/_build/A_2.js",200]', 'not-an-object', 3), mixed(`[${ddNdjson(EXTRA_GOOD)}]`, [EXTRA_GOOD], [])]))],
    used: 11, byReason: {'not-an-object': 3}, render: ddNdjson,
  },
  ddCase('JSON scalars on lines (42, "x", null)', [bad('42', 'not-an-object'), bad('"x"', 'not-an-object'), bad('null', 'not-an-object')], {'not-an-object': 3}),
  {
    name: 'a one-line API page whose data has non-object elements',
    files: () => [lineFile('pages.ndjson', [
      mixed(JSON.stringify({data: [ddItem(SCENARIO[0]!), 42, 'x', null, ddItem(SCENARIO[1]!), true], meta: {page: {after: 'x'}}}), [SCENARIO[0]!, SCENARIO[1]!], ['not-an-object', 'not-an-object', 'not-an-object', 'not-an-object']),
      mixed(JSON.stringify({data: SCENARIO.slice(2).map(ddItem), meta: {}}), SCENARIO.slice(2), []),
    ])],
    used: 10, byReason: {'not-an-object': 4}, render: ddNdjson,
  },
  {
    name: 'a pretty-printed API page whose data has non-object elements (42, "x", null, true)',
    files: () => [prettyPage('page.json', [
      goodItem(SCENARIO[0]!), goodItem(SCENARIO[1]!), badItem(42, 'not-an-object'), goodItem(SCENARIO[2]!), badItem('x', 'not-an-object'),
      ...SCENARIO.slice(3, 8).map(goodItem), badItem(null, 'not-an-object'), ...SCENARIO.slice(8).map(goodItem), badItem(true, 'not-an-object'),
    ])],
    used: 10, byReason: {'not-an-object': 4}, render: ddNdjson,
  },
  {
    name: 'a legacy v1 {"logs":[...]} response with an item missing its status',
    files: () => [prettyPage('v1.json', [...SCENARIO.slice(0, 4).map((e) => ({value: ddV1Item(e), good: e})), badItem({id: 'v1bad', content: {...(ddItem(BAD_BASE) as Json).attributes, attributes: {http: {url: '/_build/A_2.js'}, network: {bytes_written: 2011}}}}, 'missing-status'), ...SCENARIO.slice(4).map((e) => ({value: ddV1Item(e), good: e}))], {key: 'logs'})],
    used: 10, byReason: {'missing-status': 1}, render: ddNdjson,
  },
  {
    name: 'an API page laid out one item per line (items end with commas)',
    files: () => [lineFile('page.json', [blank('{"data":['), ...SCENARIO.map((e, i) => ({...good(e, ddNdjson), text: ddNdjson(e) + (i < SCENARIO.length - 1 ? ',' : '')})), blank('],"meta":{"page":{}}}')])],
    used: 10, byReason: {}, render: ddNdjson,
  },
  {
    name: 'text between two concatenated pretty-printed pages',
    files: () => [concatFiles('pages.json', [
      prettyPage('p1', SCENARIO.slice(0, 5).map(goodItem)),
      lineFile('sep', [bad('--- page 2 ---', 'invalid-json')]),
      prettyPage('p2', SCENARIO.slice(5).map(goodItem)),
    ])],
    used: 10, byReason: {'invalid-json': 1}, render: ddNdjson,
  },
  // --- Datadog events whose message is not an access line
  ddCase(
    'unparsed Datadog events whose message is not an access line',
    [
      bad(JSON.stringify({type: 'log', id: 'u1', attributes: {status: 'info', timestamp: isoTime(BAD_BASE.t), host: 'ip-10-0-1-17', message: 'GET /healthz 200 (kube-probe/1.29)', tags: ['source:nginx']}}), 'unparsed-message'),
      bad(JSON.stringify({type: 'log', id: 'u2', attributes: {status: 'error', timestamp: isoTime(BAD_BASE.t), message: '2024/03/05 10:00:41 [warn] 31#31: *1 an upstream response is buffered'}}), 'unparsed-message'),
    ],
    {'unparsed-message': 2},
  ),
  // --- whitespace, BOM, line endings
  {
    name: 'empty and whitespace-only lines are not records (NDJSON)',
    files: () => [lineFile('blank.ndjson', [blank(), ...spread(ddNdjson, [blank('   '), blank('\t'), blank(''), blank(' \t ')]), blank(), blank('  ')])],
    used: 10, byReason: {}, render: ddNdjson,
  },
  {
    name: 'empty and whitespace-only lines are not records (ingress lines)',
    files: () => [lineFile('blank.log', [blank(' '), ...spread(ingress, [blank(''), blank('\t \t')]), blank('')])],
    used: 10, byReason: {}, render: ingress,
  },
  {
    name: 'a UTF-8 BOM at the start of ingress lines, with one bad line',
    files: () => [lineFile('bom.log', spread(ingress, [bad(ingressStatusBytes('2xx', '2011'), 'bad-status')]), {bom: true})],
    used: 10, byReason: {'bad-status': 1}, render: ingress,
  },
  {
    name: 'a UTF-8 BOM at the start of NDJSON',
    files: () => [lineFile('bom.ndjson', SCENARIO.map((e) => good(e, ddNdjson)), {bom: true})],
    used: 10, byReason: {}, render: ddNdjson,
  },
  {
    name: 'a UTF-8 BOM at the start of a pretty-printed API page',
    files: () => [prettyPage('bom.json', SCENARIO.map(goodItem), {bom: true})],
    used: 10, byReason: {}, render: ddNdjson,
  },
  {
    name: 'a UTF-8 BOM at the start of a Log Explorer CSV',
    files: () => [csvFile('bom.csv', SCENARIO.map((e) => good(e, csvBare)), {bom: true})],
    used: 10, byReason: {}, render: csvBare, csv: true,
  },
  {
    name: 'CRLF line endings: ingress lines, with one bad line and no final newline',
    files: () => [lineFile('crlf.log', spread(ingress, [bad(ingressStatusBytes('200', '2k'), 'bad-bytes')]), {eol: '\r\n', noFinalEol: true})],
    used: 10, byReason: {'bad-bytes': 1}, render: ingress,
  },
  {
    name: 'CRLF line endings: NDJSON',
    files: () => [lineFile('crlf.ndjson', SCENARIO.map((e) => good(e, ddNdjson)), {eol: '\r\n'})],
    used: 10, byReason: {}, render: ddNdjson,
  },
  {
    name: 'CRLF line endings: a pretty-printed API page with a non-object element',
    files: () => [prettyPage('crlf.json', [...SCENARIO.slice(0, 5).map(goodItem), badItem(42, 'not-an-object'), ...SCENARIO.slice(5).map(goodItem)], {eol: '\r\n'})],
    used: 10, byReason: {'not-an-object': 1}, render: ddNdjson,
  },
  {
    name: 'CRLF line endings: a Log Explorer CSV with one bad row',
    files: () => [csvFile('crlf.csv', spread(csvBare, [bad(`${isoTime(BAD_BASE.t)},ip-10-0-1-17,,kube-probe`, 'unparsed-message')]), {eol: '\r\n'})],
    used: 10, byReason: {'unparsed-message': 1}, render: csvBare, csv: true,
  },
  // --- gzip
  {
    name: 'gzip of a valid file named .log, with one bad line',
    files: () => [gz(lineFile('access.log', spread(ingress, [bad(INGRESS_400_DASH, 'missing-path')])))],
    used: 10, byReason: {'missing-path': 1}, render: ingress,
  },
  {
    name: 'truncated gzip (small file): the lines before the cut are used, the cut is counted',
    files: () => [truncatedGzipFile('small.log.gz', SCENARIO, 0.75)],
    byReason: {'truncated-input': 1}, render: ingress,
  },
  {
    name: 'truncated gzip (large file): the lines before the cut are used, the cut is counted',
    files: () => [truncatedGzipFile('large.log.gz', [...SCENARIO, ...filler(4000)], 0.6)],
    byReason: {'truncated-input': 1}, render: ingress,
  },
  // --- mixed formats
  {
    name: 'mixed formats in one file: Datadog NDJSON, ingress lines, nginx JSON, unparsed events and v1 items interleaved',
    files: () => {
      const renders: Render[] = [ddNdjson, ingress, nginxJson, ddUnparsed, (e) => JSON.stringify(ddV1Item(e))]
      return [lineFile('mixed.log', SCENARIO.map((e, i) => good(e, renders[i % renders.length]!)))]
    },
    used: 10, byReason: {}, render: ingress,
  },
  // --- CSV
  {
    name: 'CSV with bare cells and one row whose Content is not an access line',
    files: () => [csvFile('bare.csv', spread(csvBare, [bad(`${isoTime(BAD_BASE.t)},ip-10-0-1-17,,kube-probe`, 'unparsed-message')]))],
    used: 10, byReason: {'unparsed-message': 1}, render: csvBare, csv: true,
  },
  {
    name: 'CSV with JSON-quoted cells (as Log Explorer writes facets) and one row whose Content is not an access line',
    files: () => [csvFile('quoted.csv', spread(csvJsonQuoted, [bad(`"""${isoTime(BAD_BASE.t)}""","""ip-10-0-1-17""",,"""kube-probe"""`, 'unparsed-message')]), {header: '"Date","Host","Service","Content"'})],
    used: 10, byReason: {'unparsed-message': 1}, render: csvJsonQuoted, csv: true,
  },
  {
    name: 'CSV rows with too few and too many columns',
    files: () => [csvFile('columns.csv', spread(csvBare, [
      bad(`${isoTime(BAD_BASE.t)},ip-10-0-1-17`, 'bad-csv-row'),
      bad(`${csvBare(BAD_BASE)},extra`, 'bad-csv-row'),
      bad(`${isoTime(BAD_BASE.t)},ip-10-0-1-17,web,1,${csvQuote(ingress(BAD_BASE))}`, 'bad-csv-row'),
    ]))],
    used: 10, byReason: {'bad-csv-row': 3}, render: csvBare, csv: true,
  },
  {
    name: 'CSV whose last row has an unterminated quote',
    files: () => [csvFile('unterminated.csv', [...SCENARIO.map((e) => good(e, csvBare)), bad(`${isoTime(BAD_BASE.t)},ip-10-0-1-17,,"203.0.113.10 - - [05/Mar/2024:10:00:41 +0000] GET /_build/A_2.js`, 'bad-csv-row')])],
    used: 10, byReason: {'bad-csv-row': 1}, render: csvBare, csv: true,
  },
  {
    name: 'CSV with blank and whitespace-only lines (not records)',
    files: () => [csvFile('blank.csv', spread(csvBare, [blank(''), blank('   '), blank('\t')]))],
    used: 10, byReason: {}, render: csvBare, csv: true,
  },
  {
    name: 'CSV with @attribute columns: status and bytes not numbers, a date that is not one, an empty status',
    files: () => [csvFile('attrs.csv', spread(csvAttr, [
      bad(csvAttrRow(BAD_BASE, {status: 'abc'}), 'bad-status'),
      bad(csvAttrRow(BAD_BASE, {bytes: 'lots'}), 'bad-bytes'),
      bad(csvAttrRow(BAD_BASE, {date: 'yesterday'}), 'bad-time'),
      bad(csvAttrRow(BAD_BASE, {status: ''}), 'missing-status'),
    ]), {header: CSV_ATTR_HEADER})],
    used: 10, byReason: {'bad-status': 1, 'bad-bytes': 1, 'bad-time': 1, 'missing-status': 1}, render: csvAttr, csv: true, csvHeader: CSV_ATTR_HEADER,
  },
  // --- duplicates
  {
    name: 'duplicate Datadog event ids across two files: each event used once, the rest counted as duplicate',
    files: () => [
      lineFile('page-1.ndjson', SCENARIO.slice(0, 7).map((e) => good(e, ddNdjson))),
      lineFile('page-2.ndjson', SCENARIO.slice(4).map((e) => good(e, ddNdjson))),
    ],
    used: 10, byReason: {duplicate: 3}, render: ddNdjson,
  },
  {
    name: 'duplicate Datadog event ids across two concatenated pretty-printed pages in one file',
    files: () => [concatFiles('pages.json', [prettyPage('p1', SCENARIO.slice(0, 6).map(goodItem)), prettyPage('p2', SCENARIO.slice(4).map(goodItem))])],
    used: 10, byReason: {duplicate: 2}, render: ddNdjson,
  },
  // --- order
  {
    name: 'a newest-first file with bad lines (2 MB, hours long) is re-read sorted, nothing counted twice',
    files: () => {
      return [lineFile('newest-first.log', [...LONG_RUN_BADS(combined)].reverse())]
    },
    used: LONG_RUN.length, byReason: {'bad-status': 1, 'missing-path': 1}, render: combined, notice: /newest-first\.log is not in time order/,
  },
]

// ---------------------------------------------------------------------------------------------

describe('bad input: counted with reason and location, good records still used', () => {
  it('the scenario is worth comparing: two builds, page loads, fallback hits and a 404', async () => {
    const dir = caseDir()
    const f = lineFile('scenario.log', SCENARIO.map((e) => good(e, ingress)))
    writeFileSync(join(dir, f.name), f.data)
    const {report} = await runApi([join(dir, f.name)])
    expect(report.input).toMatchObject({records: 10, used: 10, skipped: {total: 0}})
    expect(report.builds.map((b) => b.shellBytes)).toEqual([1843, 2011])
    // One page crashed at load; two lost a chunk fetched later (a lazy load, and a 404 of one).
    expect(report.totals).toMatchObject({pageLoads: 4, brokenPageLoads: 1, affectedPageLoads: 3, affectedUsers: 3, failedRequests: 3,
      byOutcome: {crashed: 1, lazyChunkFailed: 2, unstyled: 0, degraded: 0}})
  })

  const formats: [string, Render, boolean][] = [
    ['ingress', ingress, false], ['Datadog NDJSON', ddNdjson, false], ['unparsed Datadog', ddUnparsed, false],
    ['nginx JSON', nginxJson, false], ['v1 items', (e) => JSON.stringify(ddV1Item(e)), false], ['CSV bare', csvBare, true],
    ['CSV JSON-quoted', csvJsonQuoted, true],
  ]
  it.each(formats)('the scenario gives the same analysis in every format: %s', async (_label, render, csv) => {
    const dir = caseDir()
    const ref = baselineFile(SCENARIO, ingress, false)
    const f = baselineFile(SCENARIO, render, csv)
    writeFileSync(join(dir, 'ref.log'), ref.data)
    writeFileSync(join(dir, f.name), f.data)
    const [a, b] = [await runApi([join(dir, 'ref.log')]), await runApi([join(dir, f.name)])]
    expect(b.report.input.skipped).toEqual({total: 0, byReason: {}, examples: [], notAccess: 0})
    expect(analysisOf(b.report)).toEqual(analysisOf(a.report))
  })

  it.each(CASES)('$name', async (c) => {
    const dir = caseDir()
    const files = c.files()
    const pathOf = (name: string): string => join(dir, name)
    for (const f of files) writeFileSync(pathOf(f.name), f.data)
    const duplicates = duplicatesOf(files)
    const expected = [...files.flatMap((f) => f.rejections), ...duplicates]
    const goods = distinctGoods(files)

    // The case's own data agrees with what was built (a wrong row fails here, not below).
    expect(tally(expected)).toEqual(c.byReason)
    if (c.used !== undefined) expect(goods.length).toBe(c.used)

    // The good records alone, written the same way: what the analysis must find.
    const base = baselineFile(goods, c.render, c.csv ?? false, c.csvHeader)
    writeFileSync(pathOf(base.name), base.data)
    const alone = await runApi([pathOf(base.name)])
    expect(alone.report.input.skipped.total).toBe(0)

    const {report, notices} = await runApi(files.map((f) => pathOf(f.name)))
    const total = expected.length
    // One comparison, so a failure shows every difference at once.
    expect({
      records: report.input.records, used: report.input.used, total: report.input.skipped.total,
      byReason: report.input.skipped.byReason, examples: sortExamples(report.input.skipped.examples),
      sources: report.input.sources.map(({file, records, skipped}) => ({file, records, skipped})),
      analysis: analysisOf(report),
    }).toEqual({
      records: goods.length + total, used: goods.length, total, byReason: c.byReason,
      examples: expectedExamples(expected, pathOf),
      // A file's skipped records include the copies of events set apart from it (the later copy is the duplicate).
      sources: files.map((f) => ({file: pathOf(f.name), records: f.goods.length + f.rejections.length, skipped: f.rejections.length + duplicates.filter((d) => d.file === f.name).length})),
      analysis: analysisOf(alone.report),
    })
    // Details are short: a 1 MB line is not echoed back.
    for (const x of report.input.skipped.examples) expect((x.detail ?? '').length).toBeLessThanOrEqual(200)
    if (c.notice) expect(notices.join('\n')).toMatch(c.notice)
  })

  it('a newest-first file gives the same report as the same file oldest-first', async () => {
    const dir = caseDir()
    const pieces = LONG_RUN_BADS(ingress)
    const forward = lineFile('access.log', pieces)
    const backward = lineFile('access.log', [...pieces].reverse())
    mkdirSync(join(dir, 'fwd'))
    mkdirSync(join(dir, 'bwd'))
    writeFileSync(join(dir, 'fwd', 'access.log'), forward.data)
    writeFileSync(join(dir, 'bwd', 'access.log'), backward.data)
    const a = await runApi([join(dir, 'fwd', 'access.log')])
    const b = await runApi([join(dir, 'bwd', 'access.log')])
    const strip = (r: AnalysisReport): unknown => ({...r, input: {...r.input, sources: r.input.sources.map((s) => ({...s, file: ''})), skipped: {...r.input.skipped, examples: r.input.skipped.examples.length}}})
    expect(b.notices.join('\n')).toMatch(/not in time order/)
    expect(strip(b.report)).toEqual(strip(a.report))
    expect(a.report.input).toMatchObject({records: LONG_RUN.length + 2, used: LONG_RUN.length, skipped: {byReason: {'bad-status': 1, 'missing-path': 1}}})
  })
})

// ---------------------------------------------------------------------------------------------
// The CLI: exit codes and what the user is told

interface CliCase {
  name: string
  /** Writes the inputs into dir; returns the arguments after `analyze` and what to pipe to stdin. */
  setup: (dir: string) => {args: string[]; stdin?: Buffer}
  exit: number
  /** Texts the user must be shown (in stderr, or under --json in the error object). */
  says: (dir: string) => (string | RegExp)[]
  /** For runs that succeed: the report. */
  report?: (r: AnalysisReport, dir: string) => void | Promise<void>
  json?: boolean
}

const ACCEPTED = [/Datadog Logs API v2/, /v1 \{"logs":\[\.\.\.\]\}/, /Log Explorer CSV/, /nginx combined \/ common \/ ingress-nginx/, /nginx JSON access line/, /message holds a raw access line/,
  /Traefik access log/, /Envoy \/ Istio/, /Caddy/, /Application Load Balancer/, /CloudFront/, /Google Cloud/, /Docker json-file records or CRI/]

const EMPTY_REPORT = (r: AnalysisReport): void => {
  expect(r.input).toMatchObject({records: 0, used: 0, skipped: {total: 0, byReason: {}, examples: []}, first: null, last: null})
  expect(r.totals).toMatchObject({pageLoads: 0, brokenPageLoads: 0, affectedPageLoads: 0, affectedUsers: 0, failedRequests: 0})
  expect([r.builds, r.deploys, r.incidents, r.affectedUsers]).toEqual([[], [], [], []])
}
const NO_RECORDS = /no records/i

function write(dir: string, name: string, data: string | Buffer): string {
  const p = join(dir, name)
  writeFileSync(p, data)
  return p
}

const GARBAGE_TEXT = ['hello world', 'this is not a log file', '(╯°□°)╯︵ ┻━┻', 'key=value other=thing', ''].join('\n')

const CLI_CASES: CliCase[] = [
  {name: 'a missing file (--json)', json: true, setup: (d) => ({args: [join(d, 'nope.log')]}), exit: 2, says: (d) => [join(d, 'nope.log'), /no such file/]},
  {name: 'a missing file', setup: (d) => ({args: [join(d, 'nope.log')]}), exit: 2, says: (d) => [join(d, 'nope.log'), /no such file/]},
  {
    name: 'a good file and a missing one: the missing one is named',
    setup: (d) => ({args: [write(d, 'ok.log', lineFile('ok.log', SCENARIO.map((e) => good(e, ingress))).data), join(d, 'gone.log')]}),
    exit: 2, says: (d) => [join(d, 'gone.log'), /no such file/],
  },
  {name: 'a directory passed as a file (--json)', json: true, setup: (d) => ({args: [d]}), exit: 2, says: (d) => [d, /directory/]},
  {name: 'a directory passed as a file', setup: (d) => ({args: [d]}), exit: 2, says: (d) => [d, /directory/]},
  {
    name: 'a file of only text garbage (--json): names the file and lists the accepted formats',
    json: true, setup: (d) => ({args: [write(d, 'junk.txt', GARBAGE_TEXT)]}), exit: 2, says: (d) => [join(d, 'junk.txt'), /accepted formats/i, ...ACCEPTED],
  },
  {
    name: 'a file of only binary garbage: names the file and lists the accepted formats',
    setup: (d) => ({args: [write(d, 'junk.bin', Buffer.concat([binaryLine(11, 5000), Buffer.from('\n'), binaryLine(12, 3000)]))]}),
    exit: 2, says: (d) => [join(d, 'junk.bin'), /accepted formats/i, ...ACCEPTED],
  },
  {
    name: 'a JSON file of an unknown shape: unreadable like unknown text, exit 2 naming the file and the formats',
    setup: (d) => ({args: [write(d, 'shape.json', `${JSON.stringify({kind: 'Config', items: [{a: 1}, {b: 2}]})}\n${JSON.stringify({hello: 'world'})}\n`)]}),
    exit: 2, says: (d) => [join(d, 'shape.json'), /not in any format skewscan reads/, ...ACCEPTED],
  },
  {
    name: 'a pretty-printed JSON document of an unknown shape (--json): exit 2',
    json: true, setup: (d) => ({args: [write(d, 'pretty.json', JSON.stringify({settings: {theme: 'dark'}, users: [{id: 1}]}, null, 2))]}),
    exit: 2, says: (d) => [join(d, 'pretty.json'), /not in any format skewscan reads/],
  },
  {
    name: 'nginx JSON lines that are all broken: each counted as invalid JSON, the text line as unparsed',
    json: true,
    setup: (d) => ({args: [write(d, 'broken.jsonl', [...Array.from({length: 9}, (_, i) => `{"time_iso8601":"2026-11-30T07:18:2${i}+00:00","status":200,"request_uri":"/a.js"`+ `,"body_bytes_sent":12${i}`.slice(0, 12) + '}'), 'not json at all'].join('\n'))]}),
    exit: 0, says: () => [],
    report: async (r) => {
      expect(r.input).toMatchObject({records: 10, used: 0, skipped: {total: 10, byReason: {'invalid-json': 9, 'unparsed-message': 1}}})
    },
  },
  {name: 'an empty file', json: true, setup: (d) => ({args: [write(d, 'empty.log', '')]}), exit: 0, says: () => [NO_RECORDS], report: EMPTY_REPORT},
  {name: 'an empty stdin', json: true, setup: () => ({args: ['-'], stdin: Buffer.alloc(0)}), exit: 0, says: () => [NO_RECORDS], report: EMPTY_REPORT},
  {name: 'a file of only blank and whitespace lines', json: true, setup: (d) => ({args: [write(d, 'blank.log', '\n  \n\t\n\r\n\n')]}), exit: 0, says: () => [NO_RECORDS], report: EMPTY_REPORT},
  {name: 'a gzip of an empty file', json: true, setup: (d) => ({args: [write(d, 'empty.log.gz', gzipSync(Buffer.alloc(0)))]}), exit: 0, says: () => [NO_RECORDS], report: EMPTY_REPORT},
  {name: 'a CSV with only a header', json: true, setup: (d) => ({args: [write(d, 'header.csv', `${CSV_HEADER}\n`)]}), exit: 0, says: () => [NO_RECORDS], report: EMPTY_REPORT},
  {
    name: 'gzip on stdin: mixed formats with bad lines, the same report as reading the file',
    json: true,
    setup: (d) => {
      const renders: Render[] = [ddNdjson, ingress, nginxJson, ddUnparsed]
      const f = lineFile('mixed.log', interleave((e) => renders[SCENARIO.indexOf(e) % renders.length]!(e), {3: [bad(INGRESS_400_DASH, 'missing-path')], 6: [bad('{"truncated": ', 'invalid-json'), bad(ddBad(({http}) => (http.status_code = 'OK')), 'bad-status')]}))
      write(d, 'mixed.log', f.data)
      return {args: ['-'], stdin: gzipSync(f.data)}
    },
    exit: 0, says: () => [],
    report: async (r, d) => {
      const {report: fromFile} = await runApi([join(d, 'mixed.log')])
      expect(analysisOf(r)).toEqual(analysisOf(fromFile))
      expect(r.input).toMatchObject({records: 13, used: 10, skipped: {total: 3, byReason: {'missing-path': 1, 'invalid-json': 1, 'bad-status': 1}}})
      expect(sortExamples(r.input.skipped.examples)).toEqual(sortExamples(fromFile.input.skipped.examples.map((x) => ({...x, file: '-'}))))
      expect(sortExamples(r.input.skipped.examples)[0]).toEqual({reason: 'missing-path', file: '-', line: 4})
    },
  },
]

const IS_ROOT = process.getuid?.() === 0
if (!IS_ROOT) {
  // Root reads a file whatever its mode, so this case only means something for other users.
  CLI_CASES.push({
    name: 'a file without read permission',
    setup: (d) => {
      const p = write(d, 'secret.log', lineFile('secret.log', SCENARIO.map((e) => good(e, ingress))).data)
      chmodSync(p, 0o000)
      return {args: [p]}
    },
    exit: 2, says: (d) => [join(d, 'secret.log'), /permission denied/],
  })
}

describe('the CLI: exit codes and messages for unreadable, unknown and empty input', () => {
  it.each(CLI_CASES)('$name', async (c) => {
    const dir = caseDir()
    const {args, stdin} = c.setup(dir)
    const run = await runCli([...args, ...(c.json ? ['--json'] : [])], stdin)
    // Under --json an error is an object on stdout; otherwise the message is on stderr.
    let shown = run.stderr
    let parsed: unknown
    if (c.json) {
      parsed = JSON.parse(run.stdout)
      const err = (parsed as {error?: {message?: string}}).error
      if (err?.message) shown += `\n${err.message}`
    }
    expect(run.exit).toBe(c.exit)
    for (const s of c.says(dir)) {
      if (typeof s === 'string') expect(shown).toContain(s)
      else expect(shown).toMatch(s)
    }
    if (c.report) {
      expect(parsed).toBeDefined()
      await c.report(parsed as AnalysisReport, dir)
    }
  }, 60_000)
})
