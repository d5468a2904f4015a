import type {AccessFields, ParseOutcome} from '../model/parse-outcome'
import {answeringUpstream, splitTarget} from './access-line'
import {stripPort} from '../util/host-port'
import {firstClient, splitHops, withChain} from './forwarded'
import {reject, snippet} from './text'
import {readCount, readSeconds, readStatus, readText, readTime, requestLine} from './values'

/*
 * `--log-format`: lines read by the nginx `log_format` that wrote them, with nginx's variable
 * names. The user pastes the directive from nginx.conf (`log_format main '…' '…';`), its quoted
 * pieces, or the bare format. A format that is a JSON object (`escape=json` templates) reads JSON
 * records by the keys its variables sit under.
 *
 * A variable's value runs to the first place where the text after it in the format occurs (nginx
 * writes `"` inside values as `\x22`, so quoted values end at their closing quote). Values that hold
 * spaces unquoted (`[$time_local]` does not, `$time_local` bare does) are read by their shape.
 */

/** A log_format that cannot be read as one; the message says why. */
export class LogFormatError extends Error {}

type Piece = {lit: string} | {name: string}

/** How a variable's value is found in a line. */
interface Slot {
  name: string
  /** The text that follows it in the format ('' at the end of the line). */
  after: string
  /** A sticky pattern for the value, where the text after it cannot tell where it ends. */
  shape?: RegExp
}

export interface TextLogFormat {
  kind: 'text'
  /** The literal text before the first variable. */
  head: string
  slots: Slot[]
  names: ReadonlySet<string>
  /** The format counts the response headers in its bytes ($bytes_sent, no $body_bytes_sent). */
  headersCounted: boolean
}

export interface JsonLogFormat {
  kind: 'json'
  /** Each value of the template that holds variables: its keys and how to read it. */
  leaves: {keys: string[]; format: TextLogFormat}[]
  names: ReadonlySet<string>
  headersCounted: boolean
  /** The keys whose presence makes an object a record of this format (status's and the path's). */
  claim: string[][]
}

export type LogFormat = TextLogFormat | JsonLogFormat

/** Shapes of values that can hold spaces (when not quoted) or that touch the next variable. */
const SHAPES: Record<string, RegExp> = {
  time_local: /\d{1,2}\/[A-Za-z]{3}\/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}/y,
  request: /[A-Za-z_-]+ \S+ [A-Z]+\/\d(?:\.\d)?|[A-Za-z_-]+ \S+|\S*/y,
  time_iso8601: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})/y,
  scheme: /[a-z][a-z0-9+.-]*/y,
  host: /[^\s/"?]*/y,
  http_host: /[^\s/"?]*/y,
  server_name: /[^\s/"?]*/y,
  server_port: /\d*/y,
  status: /\d{3}/y,
  msec: /\d+\.\d+/y,
  remote_addr: /[0-9A-Fa-f.:]+|-/y,
}
/**
 * The upstream variables: one value per upstream tried, `, ` between them and ` : ` across internal
 * redirects (`10.1.0.3:8080, 10.1.0.4:8080 : 10.1.0.5:8080`), so an unquoted list holds spaces.
 */
const UPSTREAM_LIST = /[^\s,]+(?:(?:, | : )[^\s,]+)*/y
for (const name of ['upstream_addr', 'upstream_status', 'upstream_response_time', 'upstream_response_length', 'upstream_connect_time', 'upstream_header_time',
  'upstream_bytes_sent', 'upstream_bytes_received', 'upstream_cache_status']) SHAPES[name] = UPSTREAM_LIST
/** Values with spaces: read by shape even when text follows them (unless quoted). */
const SPACED = new Set(['time_local', 'request', 'upstream_addr', 'upstream_status', 'upstream_response_time', 'upstream_response_length', 'upstream_connect_time',
  'upstream_header_time', 'upstream_bytes_sent', 'upstream_bytes_received'])

const cache = new Map<string, LogFormat>()

/** The compiled format (cached: a run compiles each once, workers included). Throws LogFormatError. */
export function logFormatOf(spec: string): LogFormat {
  let f = cache.get(spec)
  if (!f) {
    f = compileLogFormat(spec)
    cache.set(spec, f)
  }
  return f
}

/** Reads a `--log-format` value into a compiled format. Throws LogFormatError saying what is wrong. */
export function compileLogFormat(spec: string): LogFormat {
  const {format, json} = formatText(spec)
  if (format.trim() === '') throw new LogFormatError('the format is empty')
  if (json || format.trimStart().startsWith('{')) return jsonFormat(format)
  const text = textFormat(format)
  required(text.names)
  return text
}

/** The format string of a `log_format` directive, of its quoted pieces, or of a bare format. */
export function formatText(spec: string): {format: string; json: boolean} {
  let s = spec.trim()
  let json = false
  if (s.endsWith(';')) s = s.slice(0, -1).trimEnd()
  const directive = /^log_format\s+(?:([^\s'"]+)\s*)?/.exec(s)
  if (directive) {
    s = s.slice(directive[0].length)
    for (let p = /^(escape=\S+|if=\S+)\s*/.exec(s); p; p = /^(escape=\S+|if=\S+)\s*/.exec(s)) {
      if (p[1] === 'escape=json') json = true
      s = s.slice(p[0].length)
    }
    if (!s.startsWith("'") && !s.startsWith('"')) {
      // An unquoted one-word format (`log_format x $remote_addr;`) is rare but legal.
      if (/\s/.test(s)) throw new LogFormatError('after `log_format NAME` the format must be quoted (\'...\' pieces, as in nginx.conf)')
      return {format: s, json}
    }
  }
  if (s.startsWith("'") || s.startsWith('"')) {
    const pieces = quotedPieces(s)
    if (pieces !== undefined) return {format: pieces, json}
    if (directive) throw new LogFormatError('a quoted piece of the format does not close')
  }
  return {format: s, json}
}

/** `'a' "b"` -> `ab` (nginx's escapes `\'`, `\"`, `\\`, `\n`, `\t`), or undefined when s is not all quoted pieces. */
function quotedPieces(s: string): string | undefined {
  let out = ''
  let i = 0
  while (i < s.length) {
    const q = s[i]
    if (q !== "'" && q !== '"') return undefined
    i++
    let closed = false
    while (i < s.length) {
      const c = s[i] as string
      if (c === '\\' && i + 1 < s.length) {
        const n = s[i + 1] as string
        out += n === 'n' ? '\n' : n === 't' ? '\t' : n === 'r' ? '\r' : n === q || n === '\\' ? n : `\\${n}`
        i += 2
        continue
      }
      if (c === q) {
        closed = true
        i++
        break
      }
      out += c
      i++
    }
    if (!closed) return undefined
    while (i < s.length && /\s/.test(s[i] as string)) i++
  }
  return out
}

/** The format's literal text and variables (`$name`, `${name}`); a `$` not before a name is text. */
function pieces(format: string): Piece[] {
  const out: Piece[] = []
  let lit = ''
  const re = /\$(?:\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))/g
  let last = 0
  for (let m = re.exec(format); m; m = re.exec(format)) {
    lit += format.slice(last, m.index)
    out.push({lit})
    lit = ''
    out.push({name: (m[1] ?? m[2] ?? '').toLowerCase()})
    last = re.lastIndex
  }
  out.push({lit: lit + format.slice(last)})
  return out
}

function textFormat(format: string): TextLogFormat {
  const ps = pieces(format)
  const head = (ps[0] as {lit: string}).lit
  const slots: Slot[] = []
  const names = new Set<string>()
  for (let i = 1; i < ps.length; i += 2) {
    const name = (ps[i] as {name: string}).name
    const after = (ps[i + 1] as {lit: string}).lit
    const before = (ps[i - 1] as {lit: string}).lit
    const quoted = before.endsWith('"') && after.startsWith('"')
    const shape = SHAPES[name]
    if (after === '' && i + 2 < ps.length && shape === undefined) {
      const next = (ps[i + 2] as {name: string}).name
      throw new LogFormatError(`$${name}$${next}: nothing between them tells where $${name} ends`)
    }
    const slot: Slot = {name, after}
    if (shape && !quoted && (after === '' ? i + 2 < ps.length : SPACED.has(name))) slot.shape = new RegExp(shape.source, 'y')
    slots.push(slot)
    names.add(name)
  }
  return {kind: 'text', head, slots, names, headersCounted: !names.has('body_bytes_sent') && names.has('bytes_sent')}
}

/** What the analysis cannot do without: a time, a path, a status and a byte count. */
function required(names: ReadonlySet<string>): void {
  const missing: string[] = []
  if (!['time_iso8601', 'time_local', 'msec'].some((n) => names.has(n))) missing.push('a time ($time_local, $time_iso8601 or $msec)')
  if (!['request', 'request_uri', 'uri'].some((n) => names.has(n))) missing.push('the request ($request, $request_uri or $uri)')
  if (!names.has('status')) missing.push('$status')
  if (!names.has('body_bytes_sent') && !names.has('bytes_sent')) missing.push('the bytes ($body_bytes_sent or $bytes_sent)')
  if (missing.length > 0) throw new LogFormatError(`the format logs no ${missing.join(', no ')}: skewscan needs them`)
}

const OPEN = '\u0001'
const CLOSE = '\u0002'

/** An escape=json template: its variables found by the keys they sit under. */
function jsonFormat(format: string): JsonLogFormat {
  // Variables outside strings (`"status": $status`) are quoted, those inside become markers, so the
  // template parses as JSON; each string that holds markers is then a little text format.
  let json = ''
  let inString = false
  const re = /\$(?:\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))/y
  for (let i = 0; i < format.length; i++) {
    const c = format[i] as string
    if (inString && c === '\\') {
      json += c + (format[i + 1] ?? '')
      i++
      continue
    }
    if (c === '"') inString = !inString
    if (c === '$') {
      re.lastIndex = i
      const m = re.exec(format)
      if (m) {
        const marker = `\\u0001${(m[1] ?? m[2] ?? '').toLowerCase()}\\u0002`
        json += inString ? marker : `"${marker}"`
        i = re.lastIndex - 1
        continue
      }
    }
    json += c
  }
  let template: unknown
  try {
    template = JSON.parse(json)
  } catch {
    throw new LogFormatError('the escape=json template is not a JSON object once its variables are filled in')
  }
  if (template === null || typeof template !== 'object' || Array.isArray(template)) throw new LogFormatError('the escape=json template is not a JSON object')
  const leaves: JsonLogFormat['leaves'] = []
  const names = new Set<string>()
  const visit = (v: unknown, keys: string[]): void => {
    if (typeof v === 'string' && v.includes(OPEN)) {
      const format = textFormat(v.replaceAll(OPEN, '$').replaceAll(CLOSE, ''))
      leaves.push({keys, format})
      for (const n of format.names) names.add(n)
    } else if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const [k, x] of Object.entries(v)) visit(x, [...keys, k])
    }
  }
  visit(template, [])
  required(names)
  const keysOf = (vars: string[]): string[] | undefined => leaves.find((l) => vars.some((n) => l.format.names.has(n)))?.keys
  const claim = [keysOf(['status']), keysOf(['request_uri', 'uri', 'request'])].filter((k): k is string[] => k !== undefined)
  return {kind: 'json', leaves, names, headersCounted: !names.has('body_bytes_sent') && names.has('bytes_sent'), claim}
}

/** A line's variables by the format, or where it stops matching. */
export function matchLine(f: TextLogFormat, line: string): {vars: Map<string, string>} | {at: number; want: string; after?: string} {
  let end = line.length
  if (end > 0 && line.charCodeAt(end - 1) === 13) end--
  const vars = new Map<string, string>()
  if (!line.startsWith(f.head)) return {at: 0, want: f.head}
  let pos = f.head.length
  for (const slot of f.slots) {
    let stop: number
    if (slot.shape) {
      slot.shape.lastIndex = pos
      const m = slot.shape.exec(line)
      if (!m || pos + m[0].length > end) return {at: pos, want: `$${slot.name}`}
      stop = pos + m[0].length
      if (!line.startsWith(slot.after, stop)) return {at: stop, want: slot.after, after: slot.name}
    } else if (slot.after === '') {
      stop = end
    } else {
      stop = line.indexOf(slot.after, pos)
      if (stop === -1 || stop + slot.after.length > end) return {at: pos, want: slot.after, after: slot.name}
    }
    vars.set(slot.name, line.slice(pos, stop))
    pos = stop + slot.after.length
  }
  // Text after the last field: spaces are let go (some loggers pad), anything else is another format.
  while (pos < end && line.charCodeAt(pos) === 32) pos++
  if (pos < end) return {at: pos, want: 'the end of the line', ...(f.slots.length > 0 ? {after: f.slots[f.slots.length - 1]?.name} : {})}
  return {vars}
}

/** Whether a line is written in this format (no event built: for telling a file's format). */
export function matchesLine(f: TextLogFormat, line: string): boolean {
  return 'vars' in matchLine(f, line)
}

/** One text line read by the format. Never throws. */
export function parseLogFormatLine(f: TextLogFormat, line: string): ParseOutcome {
  const m = matchLine(f, line)
  if (!('vars' in m)) {
    const want = m.want === 'the end of the line' || m.want.startsWith('$') ? m.want : `\`${m.want.replace(/[^\x20-\x7e]/g, '?').slice(0, 20)}\``
    const found = m.at >= line.length ? 'the line ends' : `found ${snippet(line, m.at, Math.min(line.length, m.at + 24))}`
    return reject('log-format-mismatch', `--log-format: expected ${want}${m.after === undefined ? '' : ` after $${m.after}`} at column ${m.at + 1}; ${found}`)
  }
  return eventOf(m.vars, f.headersCounted)
}

/** Whether a JSON object is a record of this template (it has the keys of $status and of the request). */
export function claimsJson(f: JsonLogFormat, obj: Record<string, unknown>): boolean {
  return f.claim.length > 0 && f.claim.every((keys) => valueAt(obj, keys) !== undefined)
}

/** One JSON record read by the template. Never throws. */
export function parseLogFormatJson(f: JsonLogFormat, obj: Record<string, unknown>): ParseOutcome {
  const vars = new Map<string, string>()
  for (const leaf of f.leaves) {
    const v = valueAt(obj, leaf.keys)
    const text = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined
    if (text === undefined) continue
    const m = leaf.format.slots.length === 1 && leaf.format.head === '' && leaf.format.slots[0]?.after === '' ? {vars: new Map([[leaf.format.slots[0].name, text]])} : matchLine(leaf.format, text)
    if (!('vars' in m)) return reject('log-format-mismatch', `--log-format: the value of ${leaf.keys.join('.').slice(0, 40)} is not as the template writes it`)
    for (const [k, x] of m.vars) vars.set(k, x)
  }
  return eventOf(vars, f.headersCounted)
}

function valueAt(obj: unknown, keys: readonly string[]): unknown {
  let cur = obj
  for (const k of keys) {
    if (cur === null || typeof cur !== 'object') return undefined
    cur = (cur as Record<string, unknown>)[k]
  }
  return cur
}

/** nginx's variables -> an event, by what each variable means in nginx. */
function eventOf(vars: ReadonlyMap<string, string>, headersCounted: boolean): ParseOutcome {
  const v = (name: string): string | undefined => {
    const x = vars.get(name)
    return x === undefined ? undefined : readText(x)
  }
  // Time: $time_iso8601, $msec (seconds with milliseconds), $time_local, whichever the format has.
  let time: [number, number] | undefined
  let timeVar: string | undefined
  for (const name of ['time_iso8601', 'msec', 'time_local']) {
    if (!vars.has(name)) continue
    timeVar = name
    const raw = v(name)
    time = raw === undefined ? undefined : readTime(raw, name === 'msec')
    if (time !== undefined) break
  }
  if (time === undefined) return reject(timeVar === undefined ? 'missing-time' : 'bad-time', `$${timeVar ?? 'time_local'} is no time: ${snippet(vars.get(timeVar ?? '') ?? '')}`)

  const request = v('request')
  const line = request === undefined ? undefined : requestLine(request)
  const uri = v('request_uri') ?? v('uri')
  const target = uri ?? line?.target
  if (target === undefined) return reject('missing-path', request === undefined ? 'no $request_uri, $uri or $request value' : `$request is no request line: ${snippet(request)}`)
  const split = splitTarget(target)
  if (split === undefined) return reject('missing-path', `the request target is no path: ${snippet(target)}`)

  const rawStatus = vars.get('status')
  const status = readStatus(rawStatus)
  if (status === undefined) return reject(rawStatus === undefined || rawStatus === '' || rawStatus === '-' ? 'missing-status' : 'bad-status', `$status is no 3-digit status: ${snippet(rawStatus ?? '')}`)

  const bytesVar = vars.has('body_bytes_sent') ? 'body_bytes_sent' : 'bytes_sent'
  const rawBytes = vars.get(bytesVar)
  const bytes = rawBytes === undefined || rawBytes === '' ? undefined : readCount(rawBytes)
  if (bytes === undefined) return reject(rawBytes === undefined || rawBytes === '' ? 'missing-bytes' : 'bad-bytes', `$${bytesVar} is no byte count: ${snippet(rawBytes ?? '')}`)

  const peer = v('remote_addr') ?? v('realip_remote_addr') ?? v('proxy_protocol_addr') ?? v('the_real_ip')
  // X-Forwarded-For is the client's to write: only a last resort, its first address the client.
  const xff = v('http_x_forwarded_for') ?? v('proxy_add_x_forwarded_for')
  const hops = xff === undefined ? [] : splitHops(xff)
  const clientIp = peer ?? firstClient(hops) ?? ''
  const event: AccessFields = {
    time: time[0],
    resolutionMs: time[1],
    method: v('request_method') ?? line?.method ?? '',
    path: split.path,
    status,
    bytes,
    clientIp,
    userAgent: v('http_user_agent') ?? '',
  }
  if (headersCounted) event.responseBytes = true
  const referer = v('http_referer')
  if (referer !== undefined) event.referer = referer
  const requestId = v('request_id') ?? v('req_id')
  if (requestId !== undefined) event.requestId = requestId
  const upstreamList = v('upstream_addr')
  const upstream = upstreamList === undefined ? undefined : answeringUpstream(upstreamList, v('upstream_status'))
  if (upstream !== undefined) event.upstream = upstream
  const upstreamName = v('proxy_upstream_name')
  if (upstreamName !== undefined) event.upstreamName = upstreamName
  const host = v('host') ?? v('http_host') ?? v('server_name') ?? split.host
  if (host !== undefined) event.vhost = stripPort(host)
  const contentType = v('sent_http_content_type') ?? v('upstream_http_content_type')
  if (contentType !== undefined) event.contentType = contentType
  const requestTime = readSeconds(v('request_time'))
  if (requestTime !== undefined) event.requestTime = requestTime
  const upstreamTime = readSeconds(v('upstream_response_time'))
  if (upstreamTime !== undefined) event.upstreamTime = upstreamTime
  // The chain as nginx's realip would walk it: the header's hops, then the peer.
  return {ok: true, event: hops.length > 0 ? withChain(event, peer === undefined ? hops : [...hops, peer]) : event}
}
