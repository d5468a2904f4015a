/*
 * Builders for the bad-input corpus (test/integration/bad-input.test.ts): a small scenario of good
 * access events, renderers that write one event in each input format skewscan reads, and builders
 * that interleave good records with bad ones while remembering where each bad one went (file, line)
 * and why it must be rejected. Everything is generated in memory; nothing large is committed.
 */
import type {RejectReason} from '../../src/model/rejection'

/** One good request, format-independent. `t` is epoch seconds (whole: nginx logs 1-second times). */
export interface Ev {
  t: number
  ip: string
  ua: string
  method: string
  path: string
  status: number
  bytes: number
  referer?: string
  upstream?: string
  /** Datadog event id, also logged as the request id. */
  id: string
}

/** Writes one event as one record (one line, or one CSV row) of some input format. */
export type Render = (e: Ev) => string

// ---------------------------------------------------------------------------------------------
// The scenario: two shells (build A 1843 bytes, build B 2011 bytes) served side by side, three
// browsers, two fallback hits (an A page given B's shell for a .js) and one 404 for a hashed asset.

/** 2024-03-05T10:00:00Z */
export const T0 = 1_709_632_800
const UA_CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0 Safari/537.36'
const UA_FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:123.0) Gecko/20100101 Firefox/123.0'
const UA_SAFARI = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_3) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.3 Safari/605.1.15'
const PAGE = 'https://app.example.com/'
export const SHELL_A = 1843
export const SHELL_B = 2011

function ev(n: number, dt: number, ip: string, ua: string, path: string, status: number, bytes: number, upstream: string, referer?: string): Ev {
  return {t: T0 + dt, ip, ua, method: 'GET', path, status, bytes, upstream, id: `AQAAAY4N${String(n).padStart(4, '0')}`, ...(referer ? {referer} : {})}
}

/** The good events, oldest first. */
export const SCENARIO: readonly Ev[] = [
  ev(1, 0, '203.0.113.10', UA_CHROME, '/', 200, SHELL_A, '10.244.1.3:8080'),
  ev(2, 1, '203.0.113.10', UA_CHROME, '/_build/A_main.js', 200, 48211, '10.244.1.3:8080', PAGE),
  ev(3, 2, '203.0.113.10', UA_CHROME, '/_build/A_1.css', 200, 9120, '10.244.1.3:8080', PAGE),
  ev(4, 30, '198.51.100.7', UA_FIREFOX, '/', 200, SHELL_B, '10.244.2.9:8080'),
  ev(5, 31, '198.51.100.7', UA_FIREFOX, '/_build/B_main.js', 200, 51002, '10.244.2.9:8080', PAGE),
  ev(6, 40, '203.0.113.10', UA_CHROME, '/_build/A_lazy.js', 200, SHELL_B, '10.244.2.9:8080', PAGE),
  ev(7, 45, '192.0.2.55', UA_SAFARI, '/', 200, SHELL_A, '10.244.1.4:8080'),
  ev(8, 46, '192.0.2.55', UA_SAFARI, '/_build/A_main.js', 200, SHELL_B, '10.244.2.9:8080', PAGE),
  ev(9, 50, '198.51.100.7', UA_FIREFOX, '/_build/B_chunk.js', 404, 153, '10.244.1.4:8080', PAGE),
  // B's shell again, to another browser: a length seen once is no build.
  ev(10, 60, '198.51.100.8', UA_FIREFOX, '/', 200, SHELL_B, '10.244.2.9:8080'),
]

/**
 * The base of the bad records: a request that, if it were wrongly accepted, would be one more
 * fallback hit (an A page given B's shell) and so would change the analysis.
 */
export const BAD_BASE: Ev = ev(99, 41, '203.0.113.10', UA_CHROME, '/_build/A_2.js', 200, SHELL_B, '10.244.2.9:8080', PAGE)

/** `count` filler requests after the scenario, one per second, all different (so gzip stays big). */
export function filler(count: number, from = T0 + 120): Ev[] {
  const out: Ev[] = []
  let seed = 12345
  for (let i = 0; i < count; i++) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
    out.push({
      t: from + i, ip: `10.9.${(seed >> 8) & 255}.${seed & 255}`, ua: `curl/8.${seed % 97}.${i}`, method: 'GET',
      path: `/api/items/${seed.toString(36)}`, status: 200, bytes: 100 + (seed % 9000), id: `FILL${i}`, upstream: '10.244.3.1:8080',
    })
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Renderers

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const pad = (n: number): string => String(n).padStart(2, '0')

/** `05/Mar/2024:10:00:00 +0000` */
export function clfTime(t: number): string {
  const d = new Date(t * 1000)
  return `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`
}

export const isoTime = (t: number): string => new Date(t * 1000).toISOString()

/** ingress-nginx's default log-format-upstream. */
export const ingress: Render = (e) =>
  `${e.ip} - - [${clfTime(e.t)}] "${e.method} ${e.path} HTTP/1.1" ${e.status} ${e.bytes} "${e.referer ?? '-'}" "${e.ua}" 412 0.004 ` +
  `[default-web-8080] [] ${e.upstream ?? '-'} ${e.bytes} 0.004 ${e.status} ${e.id}`

/** nginx `combined` (no upstream: only comparable with itself). */
export const combined: Render = (e) =>
  `${e.ip} - - [${clfTime(e.t)}] "${e.method} ${e.path} HTTP/1.1" ${e.status} ${e.bytes} "${e.referer ?? '-'}" "${e.ua}"`

export function nginxJsonObject(e: Ev): Record<string, unknown> {
  return {
    time_iso8601: isoTime(e.t).replace('.000Z', '+00:00'), remote_addr: e.ip, remote_user: '', request: `${e.method} ${e.path} HTTP/1.1`,
    status: String(e.status), body_bytes_sent: String(e.bytes), request_time: '0.004', http_referer: e.referer ?? '',
    http_user_agent: e.ua, request_id: e.id, upstream_addr: e.upstream ?? '-', proxy_upstream_name: 'default-web-8080',
  }
}

/** nginx `log_format … escape=json`. */
export const nginxJson: Render = (e) => JSON.stringify(nginxJsonObject(e))

/** A Datadog Logs API v2 item whose access line a pipeline parsed (as in datadog.md §4). */
export function ddItem(e: Ev): Record<string, unknown> {
  const [ip, port] = (e.upstream ?? '').split(':')
  const http: Record<string, unknown> = {
    url: e.path, url_details: {path: e.path}, status_code: e.status, method: e.method, version: '1.1',
    useragent: e.ua, request_id: e.id, status_category: e.status < 400 ? 'OK' : 'warning',
  }
  if (e.referer) http.referer = e.referer
  return {
    type: 'log', id: e.id,
    attributes: {
      status: 'info', timestamp: isoTime(e.t), host: 'ip-10-0-1-17', tags: ['source:nginx-ingress-controller', 'env:prod'],
      message: ingress(e),
      attributes: {
        duration: 4_000_000, http, proxy: {name: 'default-web-8080'},
        network: {client: {ip: e.ip}, bytes_written: e.bytes, ...(ip ? {destination: {ip, port: Number(port)}} : {})},
      },
    },
  }
}

/** One API v2 item per line (NDJSON). */
export const ddNdjson: Render = (e) => JSON.stringify(ddItem(e))

/** An API v2 item no pipeline parsed: only the raw access line in `message` (datadog.md §4). */
export const ddUnparsed: Render = (e) =>
  JSON.stringify({type: 'log', id: e.id, attributes: {status: 'info', timestamp: isoTime(e.t), host: 'ip-10-0-1-17', message: ingress(e), tags: ['source:nginx', 'datadog.pipelines:false']}})

/** A legacy v1 item (`{id, content:{…}}`). */
export function ddV1Item(e: Ev): Record<string, unknown> {
  const v2 = ddItem(e) as {attributes: Record<string, unknown>}
  return {id: e.id, content: v2.attributes}
}

/** CSV cell quoting (RFC 4180). */
export const csvQuote = (s: string): string => `"${s.replace(/"/g, '""')}"`

/** Log Explorer CSV, header `Date,Host,Service,Content`. */
export const CSV_HEADER = 'Date,Host,Service,Content'

/** A row with bare cells (only the access line needs quoting); the Service cell is empty. */
export const csvBare: Render = (e) => `${isoTime(e.t)},ip-10-0-1-17,,${csvQuote(ingress(e))}`

/** A row as Log Explorer writes facet values: every cell a JSON-encoded string, then CSV-quoted. */
export const csvJsonQuoted: Render = (e) => [isoTime(e.t), 'ip-10-0-1-17', '', ingress(e)].map((c) => (c === '' ? '' : csvQuote(JSON.stringify(c)))).join(',')

// ---------------------------------------------------------------------------------------------
// Line-oriented files (NDJSON, raw access lines, mixed, CSV)

/** What one line of a built file holds: good events, expected rejections, or nothing (blank). */
export interface Piece {
  text: string
  goods: Ev[]
  bads: RejectReason[]
}

export const good = (e: Ev, render: Render): Piece => ({text: render(e), goods: [e], bads: []})
export const bad = (text: string, reason: RejectReason, count = 1): Piece => ({text, goods: [], bads: Array<RejectReason>(count).fill(reason)})
export const blank = (text = ''): Piece => ({text, goods: [], bads: []})
export const mixed = (text: string, goods: Ev[], bads: RejectReason[]): Piece => ({text, goods, bads})

/** A rejection the test expects: why, and where. */
export interface ExpectedRejection {
  reason: RejectReason
  file: string
  line: number
}

/** A file to write and what it must yield. */
export interface BuiltFile {
  name: string
  data: Buffer
  goods: Ev[]
  /** Where each good record starts (line), in file order. */
  goodAt: {ev: Ev; line: number}[]
  rejections: ExpectedRejection[]
}

export interface LineFileOptions {
  eol?: '\n' | '\r\n'
  bom?: boolean
  /** No line terminator after the last line. */
  noFinalEol?: boolean
}

/** Joins pieces one per line; piece i is on line i + 1 (+ firstLine - 1). */
export function lineFile(name: string, pieces: Piece[], opts: LineFileOptions = {}, firstLine = 1): BuiltFile {
  const eol = opts.eol ?? '\n'
  for (const p of pieces) if (p.text.includes('\n')) throw new Error(`piece spans lines: ${p.text.slice(0, 60)}`)
  const text = (opts.bom ? '\uFEFF' : '') + pieces.map((p) => p.text).join(eol) + (opts.noFinalEol ? '' : eol)
  return {
    name, data: Buffer.from(text, 'utf8'),
    goods: pieces.flatMap((p) => p.goods),
    goodAt: pieces.flatMap((p, i) => p.goods.map((ev) => ({ev, line: i + firstLine}))),
    rejections: pieces.flatMap((p, i) => p.bads.map((reason) => ({reason, file: name, line: i + firstLine}))),
  }
}

/** A Log Explorer CSV: the header on line 1, then one row per piece. */
export function csvFile(name: string, pieces: Piece[], opts: LineFileOptions & {header?: string} = {}): BuiltFile {
  return lineFile(name, [blank(opts.header ?? CSV_HEADER), ...pieces], opts)
}

/** The scenario's events as pieces, with `extra` pieces inserted before scenario index k. */
export function interleave(render: Render, extra: Record<number, Piece[]>, events: readonly Ev[] = SCENARIO): Piece[] {
  const out: Piece[] = []
  events.forEach((e, i) => {
    out.push(...(extra[i] ?? []))
    out.push(good(e, render))
  })
  out.push(...(extra[events.length] ?? []))
  return out
}

/** Spreads bad pieces through the scenario: one before every other good record, the rest at the end. */
export function spread(render: Render, bads: Piece[], events: readonly Ev[] = SCENARIO): Piece[] {
  const extra: Record<number, Piece[]> = {}
  bads.forEach((p, i) => {
    const at = Math.min(1 + 2 * i, events.length)
    ;(extra[at] ??= []).push(p)
  })
  return interleave(render, extra, events)
}

// ---------------------------------------------------------------------------------------------
// Pretty-printed JSON documents (one API page spread over many lines)

/** One element of a page's `data` array. */
export interface PageItem {
  value: unknown
  good?: Ev
  bad?: RejectReason
}

export const goodItem = (e: Ev): PageItem => ({value: ddItem(e), good: e})
export const badItem = (value: unknown, reason: RejectReason): PageItem => ({value, bad: reason})

/**
 * An API v2 page as `JSON.stringify(page, null, 2)` lays it out, with each item's start line
 * known. `cutInItem`: the text stops in the middle of that item (a download cut short); the items
 * before it are expected, and one `truncated-input` where the cut item starts. `key: 'logs'` writes
 * a legacy v1 response instead.
 */
export function prettyPage(name: string, items: PageItem[], opts: {cutInItem?: number; eol?: '\n' | '\r\n'; bom?: boolean; key?: 'data' | 'logs'} = {}): BuiltFile {
  const key = opts.key ?? 'data'
  const lines: string[] = ['{', `  "${key}": [`]
  const goodAt: {ev: Ev; line: number}[] = []
  const rejections: ExpectedRejection[] = []
  const finish = (text: string): BuiltFile => ({name, data: Buffer.from((opts.bom ? '\uFEFF' : '') + text, 'utf8'), goods: goodAt.map((g) => g.ev), goodAt, rejections})
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as PageItem
    const start = lines.length + 1
    const body = JSON.stringify(item.value, null, 2).split('\n').map((l) => `    ${l}`)
    if (opts.cutInItem === i) {
      // Stop halfway through the item, mid-line.
      const half = body.slice(0, Math.max(1, Math.floor(body.length / 2)))
      const last = half.pop() as string
      lines.push(...half, last.slice(0, Math.ceil(last.length / 2)))
      rejections.push({reason: 'truncated-input', file: name, line: start})
      return finish(lines.join(opts.eol ?? '\n'))
    }
    if (i < items.length - 1) body[body.length - 1] += ','
    lines.push(...body)
    if (item.good) goodAt.push({ev: item.good, line: start})
    if (item.bad) rejections.push({reason: item.bad, file: name, line: start})
  }
  if (key === 'data') {
    lines.push('  ],', '  "meta": {', '    "page": {', '      "after": "eyJhZnRlciI6IkFRQUFBWTROIn0"', '    }', '  },', '  "links": {}', '}')
  } else {
    lines.push('  ],', '  "nextLogId": null,', '  "status": "done"', '}')
  }
  return finish(lines.join(opts.eol ?? '\n') + (opts.eol ?? '\n'))
}

/** Files concatenated into one (`cat a b > c`): the later ones' lines shift down. */
export function concatFiles(name: string, parts: BuiltFile[]): BuiltFile {
  const out: BuiltFile = {name, data: Buffer.alloc(0), goods: [], goodAt: [], rejections: []}
  let offset = 0
  for (const p of parts) {
    if (out.data.length > 0 && out.data[out.data.length - 1] !== 0x0a) throw new Error('concatFiles: a part does not end with a newline')
    out.data = Buffer.concat([out.data, p.data])
    out.goods.push(...p.goods)
    out.goodAt.push(...p.goodAt.map((g) => ({ev: g.ev, line: g.line + offset})))
    out.rejections.push(...p.rejections.map((r) => ({...r, file: name, line: r.line + offset})))
    offset += p.data.toString('utf8').split('\n').length - 1
  }
  return out
}

/**
 * The `duplicate` rejections expected when the same Datadog event (same id) is read more than
 * once: every copy after the first, in the order the files are given and, within a file, by line.
 */
export function duplicatesOf(files: readonly BuiltFile[]): ExpectedRejection[] {
  const seen = new Set<string>()
  const out: ExpectedRejection[] = []
  for (const f of files) {
    for (const g of f.goodAt) {
      if (seen.has(g.ev.id)) out.push({reason: 'duplicate', file: f.name, line: g.line})
      seen.add(g.ev.id)
    }
  }
  return out
}

/** The distinct good events (by id), oldest first. */
export function distinctGoods(files: readonly BuiltFile[]): Ev[] {
  const byId = new Map<string, Ev>()
  for (const f of files) for (const e of f.goods) if (!byId.has(e.id)) byId.set(e.id, e)
  return [...byId.values()].sort((a, b) => a.t - b.t)
}

// ---------------------------------------------------------------------------------------------
// Junk

/** Deterministic pseudo-random bytes (no network, no Math.random). */
export function prng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

/**
 * A line of random bytes that starts with NUL and holds more NULs, with no LF or CR (so it stays
 * one line) and no leading gzip magic.
 */
export function binaryLine(seed: number, length: number): Buffer {
  const rnd = prng(seed)
  const b = Buffer.alloc(length)
  for (let i = 0; i < length; i++) {
    let v = Math.floor(rnd() * 256)
    if (v === 0x0a || v === 0x0d) v = 0
    b[i] = i % 17 === 0 ? 0 : v
  }
  return b
}

/** Builds a line file from pieces where some lines are raw bytes (binary garbage). */
export function byteLineFile(name: string, lines: (Piece | {bytes: Buffer; bads: RejectReason[]})[]): BuiltFile {
  const parts: Buffer[] = []
  const goodAt: {ev: Ev; line: number}[] = []
  const rejections: ExpectedRejection[] = []
  lines.forEach((l, i) => {
    parts.push('bytes' in l ? l.bytes : Buffer.from(l.text, 'utf8'), Buffer.from('\n'))
    if ('goods' in l) goodAt.push(...l.goods.map((ev) => ({ev, line: i + 1})))
    for (const reason of l.bads) rejections.push({reason, file: name, line: i + 1})
  })
  return {name, data: Buffer.concat(parts), goods: goodAt.map((g) => g.ev), goodAt, rejections}
}

/** Tally of reasons, as `input.skipped.byReason` reports them. */
export function tally(rejections: readonly ExpectedRejection[]): Record<string, number> {
  const out: Record<string, number> = {}
  for (const r of rejections) out[r.reason] = (out[r.reason] ?? 0) + 1
  return out
}
