import type {ParseOutcome} from '../../model/parse-outcome'
import {snippet} from '../../normalize/text'
import {normalizeDatadog, unwrapDatadog} from '../../normalize/datadog'
import {applyMapping, type NormalizeOptions} from '../../normalize/fields'
import {unwrapCri, unwrapDocker, type Wrapped} from '../../normalize/formats/container'
import {barAt, type Prefixed, unknownPrefix, unwrapCompose, unwrapFluentd, unwrapKubectl} from '../../normalize/formats/prefixes'
import {hasTraefikTail, jsonFormatOf, marked, nginxText, parseJsonRecord, textFormatOf} from '../../normalize/formats'
import {traefikClf} from '../../normalize/formats/traefik'
import {looksLikeAccessLine} from '../../normalize/access-line'
import {cloudfrontWithFields} from '../../normalize/formats/aws'
import {w3cWithFields} from '../../normalize/formats/w3c'
import {elbClassicLog} from '../../normalize/formats/aws-legacy'
import {envoyText} from '../../normalize/formats/envoy'
import {looksLikeHeroku} from '../../normalize/formats/heroku'
import type {TextFormat} from '../../normalize/formats/types'
import {parseNginxJson} from '../../normalize/nginx-json'
import {nonAccess} from '../../normalize/non-access'
import {LOG_FORMAT_ID, parseUserJson, parseUserLine, userJsonFormatId, userTextFormat} from '../../normalize/user-formats'

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** Keys under which a JSON document carries its records: API v2 pages, v1 `logs`. */
const ITEM_KEYS = ['data', 'logs'] as const

/** A response page: an object holding its records under one of ITEM_KEYS, or an Elasticsearch search response (`hits.hits`). */
function isPage(v: unknown): boolean {
  return isRecord(v) && (ITEM_KEYS.some((k) => Array.isArray(v[k])) || searchHits(v) !== undefined)
}

/** The hits of an Elasticsearch search response (`{"hits": {"hits": [{"_source": {…}}, …]}}`). */
function searchHits(v: Record<string, unknown>): unknown[] | undefined {
  const hits = v['hits']
  return isRecord(hits) && Array.isArray(hits['hits']) ? hits['hits'] : undefined
}

/** Parsed JSON as records: a page's items, an array's elements (pages' items for an array of pages), or the value itself. */
export function recordsOf(value: unknown): unknown[] {
  // An array of pages (`jq -s` of saved API responses) holds their items.
  if (Array.isArray(value)) return value.some(isPage) ? value.flatMap((v) => (isPage(v) ? recordsOf(v) : [v])) : value
  if (isRecord(value)) {
    for (const k of ITEM_KEYS) {
      const items = value[k]
      if (Array.isArray(items)) return items
    }
    const hits = searchHits(value)
    if (hits) return hits
  }
  return [value]
}

/** One JSON record (a Datadog log in any wrapper, or an nginx JSON access line) as an event. */
export function normalizeObject(value: unknown, opts: NormalizeOptions): ParseOutcome {
  return objectOutcomes(value, opts)[0] as ParseOutcome
}

/** What one JSON value read as a record gives: one outcome, or none for a part of a split container line. */
function objectOutcomes(value: unknown, opts: NormalizeOptions, ctx?: LineContext): ParseOutcome[] {
  if (isRecord(value)) {
    const docker = unwrapDocker(value)
    if (docker) return unwrapped(docker, opts, ctx)
  }
  return [oneObject(value, opts)]
}

function oneObject(value: unknown, opts: NormalizeOptions): ParseOutcome {
  if (!isRecord(value)) return {ok: false, reason: 'not-an-object', detail: `a JSON ${Array.isArray(value) ? 'array' : typeof value} where a log record was expected`}
  const dd = unwrapDatadog(value)
  if (dd) return normalizeDatadog(dd, opts)
  const out = parseUserJson(value, opts) ?? parseJsonRecord(value) ?? (nginxKeys(value) >= 2 ? parseNginxJson(value) : undefined)
  if (out) return out.ok ? {ok: true, event: applyMapping(out.event, {attributes: value}, opts)} : out
  // Keys are log content: each shown as a short, printable snippet.
  const keys = `a JSON object with keys ${Object.keys(value).slice(0, 5).map((k) => snippet(k)).join(', ')}`
  return {ok: false, reason: 'unknown-format', detail: keys.length > MAX_DETAIL ? `${keys.slice(0, MAX_DETAIL - 1)}…` : keys}
}

/** The longest rejection detail kept. */
const MAX_DETAIL = 120

const NGINX_KEYS = ['remote_addr', 'request', 'request_uri', 'uri', 'request_method', 'status', 'body_bytes_sent', 'bytes_sent',
  'time_iso8601', 'time_local', 'msec', 'http_user_agent', 'http_referer', 'upstream_addr', 'request_id',
  // ingress-nginx's copied JSON log-format-upstream
  'vhost', 'x-forward-for', 'request_query', 'http_referrer', 'proxy_upstream_name']

/** How many typical nginx variable names an object has: enough of them make it an nginx JSON line missing a field. */
function nginxKeys(value: Record<string, unknown>): number {
  let n = 0
  for (const k of NGINX_KEYS) if (k in value) n++
  return n
}

/**
 * The record format of one line, as a file's format is named (`nginx`, `traefik-clf`,
 * `datadog`, `cri/nginx`, `docker/nginx-json`), or undefined when it is in none.
 */
export function lineFormat(text: string, opts?: NormalizeOptions, depth = 0): string | undefined {
  const t = text.trim()
  // Two prefixes at most (compose around forego), then the line.
  const p = depth < 2 ? peelPrefix(t) : undefined
  if (p !== undefined) {
    if ('rejected' in p) return undefined
    const inner = p.line === undefined ? (p.record && (userJsonFormatId(p.record, opts) ?? jsonFormatOf(p.record)?.id)) : lineFormat(p.line, opts, depth + 1)
    return inner === undefined ? undefined : `${p.kind}/${inner}`
  }
  if (t.startsWith('{') || (t.startsWith('[') && !envoyText.looksLike(t))) {
    const value = parseJson(t)
    if (value === NOT_JSON) return undefined
    const first = recordsOf(value)[0]
    if (!isRecord(first)) return undefined
    if (unwrapDatadog(first)) return 'datadog'
    const docker = unwrapDocker(first)
    if (docker) {
      const inner = lineFormat(docker.line, opts)
      return inner === undefined ? undefined : `docker/${inner}`
    }
    return userJsonFormatId(first, opts) ?? jsonFormatOf(first)?.id
  }
  const cri = criRecord(t)
  if (cri) {
    const inner = lineFormat(cri.line, opts)
    return inner === undefined ? undefined : `cri/${inner}`
  }
  // With --log-format every text line is read by it: the file is in that format, its lines matching or not.
  if (userTextFormat(opts) !== undefined) return LOG_FORMAT_ID
  const f = textFormatOf(t)
  return f !== nginxText || looksLikeAccessLine(t) ? f.id : undefined
}

/**
 * What one file's earlier lines said about the later ones: a CloudFront `#Fields:` line gives the
 * column order of the lines after it (a real-time or customised log).
 */
export interface LineContext {
  text?: TextFormat
  /** The parts so far of lines a container runtime split (CRI `P` records, Docker records without a newline), per stream, and the line of the first. */
  parts?: Map<string, {texts: string[]; length: number; line: number}>
  /** The line being read (set by the reader). */
  line?: number
  /** The format the file's lines were last read in: what a line no format claims is told against. */
  last?: TextFormat
}

/** One text line: JSON (NDJSON, a one-line page), a raw access line, or one in a container record. */
export function normalizeLine(text: string, opts: NormalizeOptions, ctx?: LineContext): ParseOutcome[] {
  const first = firstNonSpace(text)
  if (first !== '{') {
    const p = prefixedRecord(text.trim(), opts, ctx)
    if (p !== undefined) return [p]
  }
  // `[` also opens an Envoy line (`[2026-11-30T07:18:26.070Z] "GET …`).
  if (first === '{' || (first === '[' && !envoyText.looksLike(text.trim()))) {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      // `[Mon Dec 01 …] [error] …` (an error log) opens with a bracket but was never JSON.
      if (first === '[' && !/^\s*\[\s*([[{"\d\-\]]|true|false|null)/.test(text)) return [nonAccess(text.trim()) ?? {ok: false, reason: 'unparsed-message', detail: 'not an access line (a bracketed prefix, not JSON)'}]
      return [{ok: false, reason: 'invalid-json', detail: 'the line is not valid JSON'}]
    }
    return recordsOf(value).flatMap((r) => objectOutcomes(r, opts, ctx))
  }
  if (isBinary(text)) return [{ok: false, reason: 'binary', detail: 'binary data'}]
  if (isJsonScalar(text)) return [{ok: false, reason: 'not-an-object', detail: 'a JSON value where a log record was expected'}]
  const t = text.trim()
  const cri = criRecord(t)
  if (cri) return unwrapped(cri, opts, ctx)
  const out = textLine(t, ctx, opts)
  return [out.ok ? {ok: true, event: applyMapping(out.event, {}, opts)} : out]
}

/**
 * A CRI record or a `kubectl logs --timestamps` line (an RFC 3339 time first), not a Classic ELB
 * line or a `heroku logs` line (`TIME heroku[router]: …`), which also start with one.
 */
export function criRecord(t: string): Wrapped | undefined {
  const cri = unwrapCri(t)
  return cri && !elbClassicLog.looksLike(t) && !looksLikeHeroku(t) ? cri : undefined
}

/**
 * A text line, in the format the file's context names, else whichever claims it. The format the
 * file's lines were last read in is tried first: one parse for almost every line, the shape checks
 * of every format only for a line it does not read.
 */
function textLine(line: string, ctx: LineContext | undefined, opts: NormalizeOptions): ParseOutcome {
  // The user's `--log-format` reads every text line; a line it does not match is rejected, not guessed at.
  const out = parseUserLine(line, opts) ?? knownTextLine(line, ctx)
  return out.ok ? out : nonAccess(line) ?? out
}

/** A text line in the formats skewscan knows (see textLine). */
function knownTextLine(line: string, ctx: LineContext | undefined): ParseOutcome {
  if (ctx && line.startsWith('#Fields:')) {
    // CloudFront's fields are `x-edge-…` and friends; any other `#Fields:` line is W3C's (IIS).
    const ordered = /\bx-edge-/.test(line) ? cloudfrontWithFields(line) : w3cWithFields(line)
    if (ordered) ctx.text = ordered
  }
  if (ctx?.text) return marked(ctx.text, line)
  const last = ctx?.last
  const tried = last === undefined ? undefined : marked(last, line)
  if (tried?.ok) return last === nginxText && hasTraefikTail(line) ? marked(traefikClf, line) : tried
  const f = textFormatOf(line)
  if (tried && f === last) return tried
  const out = marked(f, line)
  if (out.ok) {
    if (ctx) ctx.last = f
    return out
  }
  // A line of an ALB file that no format claims is told why it is no ALB line, not why it is no nginx one.
  return tried && f === nginxText && out.reason === 'unparsed-message' ? tried : out
}

/** Where lines a container runtime split begin whose last part never came (the file, or the range read, ended first). */
export function unfinishedParts(ctx: LineContext): number[] {
  return [...(ctx.parts?.values() ?? [])].map((p) => p.line).sort((a, b) => a - b)
}

/** A split line's parts are joined up to this length (what a line file allows). */
const MAX_JOINED = 16 * 1024 * 1024

/**
 * The record inside a container wrapper (Docker json-file, CRI, `kubectl logs --timestamps`). The
 * parts of a line the runtime split (over 16 KB) are joined, in a file read in order, and the
 * record is counted at the line of its last part; without a context (or past MAX_JOINED) a part is
 * counted as such.
 */
function unwrapped(w: Wrapped, opts: NormalizeOptions, ctx?: LineContext): ParseOutcome[] {
  if (w.partial) {
    if (!ctx) return [{ok: false, reason: 'unparsed-message', detail: 'a part of a line the container runtime split, read without its other parts'}]
    const parts = (ctx.parts ??= new Map())
    const key = w.stream ?? ''
    const open = parts.get(key) ?? {texts: [], length: 0, line: ctx.line ?? 0}
    open.length += w.line.length
    if (open.length > MAX_JOINED) {
      parts.delete(key)
      return [{ok: false, reason: 'line-too-long', detail: `a split container line longer than ${MAX_JOINED} characters`}]
    }
    open.texts.push(w.line)
    parts.set(key, open)
    return []
  }
  let whole = w.line
  const open = ctx?.parts?.get(w.stream ?? '')
  if (open) {
    whole = open.texts.join('') + w.line
    ctx?.parts?.delete(w.stream ?? '')
  }
  return [wrappedRecord(whole, opts, ctx)]
}

function wrappedRecord(line: string, opts: NormalizeOptions, ctx?: LineContext): ParseOutcome {
  const inner = line.trim()
  if (inner === '') return {ok: false, reason: 'unparsed-message', detail: 'an empty line in a container log record'}
  const first = inner.charCodeAt(0)
  if (first !== 123) {
    // `docker logs nginx-proxy` holds forego's `nginx.1    | …` lines: a prefix inside a wrapper.
    const p = prefixedRecord(inner, opts, ctx)
    if (p !== undefined) return p
  }
  if (first === 123) {
    let value: unknown
    try {
      value = JSON.parse(inner)
    } catch {
      return {ok: false, reason: 'invalid-json', detail: 'the line in the container log record is not valid JSON'}
    }
    // A wrapper inside a wrapper is no access record.
    if (isRecord(value) && unwrapDocker(value)) return {ok: false, reason: 'unknown-format', detail: 'a container log record inside another'}
    return oneObject(value, opts)
  }
  if (isBinary(inner)) return {ok: false, reason: 'binary', detail: 'binary data'}
  const out = textLine(inner, ctx, opts)
  return out.ok ? {ok: true, event: applyMapping(out.event, {}, opts)} : out
}

/** What a line's known prefix held (kubectl, compose/foreman/forego/honcho, fluentd), or undefined. */
export function peelPrefix(t: string): Prefixed | {rejected: string} | undefined {
  const c = t.charCodeAt(0)
  if (c === 91) return unwrapKubectl(t)
  if (c >= 48 && c <= 57) {
    const f = unwrapFluentd(t)
    if (f !== undefined) return f
  }
  return unwrapCompose(t)
}

/** Whether a line after a prefix reads as a record of some format (not an error log, not a notice). */
function readsAsRecord(line: string): boolean {
  if (line.startsWith('{')) return parseJson(line) !== NOT_JSON
  const cri = criRecord(line)
  const t = cri ? cri.line.trim() : line
  return looksLikeAccessLine(t) || textFormatOf(t) !== nginxText
}

/**
 * A line behind a log tool's prefix, read as the line itself is, its event named after the
 * prefix's pod, service or process where the line names no app; undefined when the line has no
 * prefix. A prefix skewscan does not know, before a line that reads as an access line, is
 * rejected naming it: never read as part of the line (a `$host` or a client).
 */
function prefixedRecord(t: string, opts: NormalizeOptions, ctx: LineContext | undefined, depth = 0): ParseOutcome | undefined {
  const p = peelPrefix(t)
  if (p === undefined) {
    if (depth > 0 || (t.charCodeAt(0) !== 91 && barAt(t, 200, true) < 0) || (t.charCodeAt(0) === 91 && envoyText.looksLike(t))) return undefined
    // A container runtime's wrapper is no unknown prefix (the line inside it is looked at in turn),
    // and a line another format claims keeps its own reading.
    if (criRecord(t) !== undefined || textFormatOf(t) !== nginxText) return undefined
    const unknown = unknownPrefix(t, readsAsRecord)
    return unknown === undefined ? undefined : {ok: false, reason: 'unknown-format', detail: `an unknown prefix ${snippet(unknown)} before the line`}
  }
  if ('rejected' in p) return {ok: false, reason: 'unknown-format', detail: p.rejected}
  const out = p.line === undefined ? oneObject(p.record, opts) : afterPrefix(p, p.line.trim(), opts, ctx, depth)
  if (out.ok && p.service !== undefined && out.event.service === undefined) out.event.service = p.service
  return out
}

/** The line after a prefix: another prefix (compose around forego), a runtime time (`--timestamps`), then the record. */
function afterPrefix(p: Prefixed, line: string, opts: NormalizeOptions, ctx: LineContext | undefined, depth: number): ParseOutcome {
  if (line === '') return {ok: false, reason: 'unparsed-message', detail: `an empty line after a ${p.kind} prefix`}
  if (p.kind === 'compose' && depth === 0) {
    const inner = unwrapCompose(line)
    if (inner !== undefined) {
      const out = prefixedRecord(line, opts, ctx, depth + 1)
      // The outer name (the container) names the app better than the process inside it (`nginx.1`).
      if (out?.ok && p.service !== undefined) out.event.service = p.service
      if (out !== undefined) return out
    }
  }
  let text = line
  const cri = criRecord(line)
  if (cri) {
    if (cri.partial) return {ok: false, reason: 'unparsed-message', detail: `a part of a split line after a ${p.kind} prefix`}
    text = cri.line.trim()
    if (text === '') return {ok: false, reason: 'unparsed-message', detail: `an empty line after a ${p.kind} prefix`}
  }
  if (text.charCodeAt(0) === 123) {
    const value = parseJson(text)
    if (value === NOT_JSON) return {ok: false, reason: 'invalid-json', detail: `the line after a ${p.kind} prefix is not valid JSON`}
    // fluentd tailing a Docker json-file: its `message` or `log` is the runtime's record.
    const docker = isRecord(value) ? unwrapDocker(value) : undefined
    if (docker !== undefined && p.kind === 'fluentd' && !docker.partial) return wrappedRecord(docker.line, opts, ctx)
    return oneObject(value, opts)
  }
  if (isBinary(text)) return {ok: false, reason: 'binary', detail: 'binary data'}
  const out = textLine(text, ctx, opts)
  return out.ok ? {ok: true, event: applyMapping(out.event, {}, opts)} : out
}

/** `42`, `"x"`, `null`, `true`: JSON, but no record. Checked by shape first: an exception per access line is costly. */
function isJsonScalar(text: string): boolean {
  const t = text.trim()
  if (t === 'null' || t === 'true' || t === 'false') return true
  // A number has no space; an access line always has some (most lines stop here).
  if (t.indexOf(' ') === -1 && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(t)) return true
  return t.length >= 2 && t.startsWith('"') && t.endsWith('"') && parseJson(t) !== NOT_JSON
}

/** Returned by parseJson for text that is not JSON (undefined cannot be, JSON has no such value). */
export const NOT_JSON: unique symbol = Symbol('not JSON')

/** The value of a JSON text, or NOT_JSON: one place that turns a parse error into a value. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return NOT_JSON
  }
}

function firstNonSpace(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c !== ' ' && c !== '\t' && c !== '\uFEFF') return c ?? ''
  }
  return ''
}

/** NUL bytes or undecodable bytes (U+FFFD after UTF-8 decoding) mark a binary line. */
export function isBinary(text: string): boolean {
  // Two native scans: a string of one-byte characters cannot hold U+FFFD, so that one is instant.
  return text.indexOf('\u0000') !== -1 || text.indexOf('\uFFFD') !== -1
}
