import type {AccessFields, ParseOutcome} from '../model/parse-outcome'
import {answeringUpstream, parseAccessLine, parseIsoTime} from './access-line'
import {parseTextLine} from './formats'
import {looksLikeVercel} from './formats/vercel'
import {urlPath} from '../util/url-path'
import {type AttributeBag, applyMapping, type NormalizeOptions, readsTags, text} from './fields'

/** One Datadog log, from any of its wrappers (API v2 item, v1 `content`, a CSV row). */
export interface DatadogLog {
  id?: string
  timestamp?: unknown
  host?: unknown
  service?: unknown
  message?: unknown
  tags?: unknown
  /** The pipeline-parsed attributes (`attributes.attributes` in API v2). */
  attributes?: Record<string, unknown>
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** Unwraps an API v2 item (`{id, attributes:{…}}`), a v1 item (`{id, content:{…}}`) or a flat log. */
export function unwrapDatadog(obj: Record<string, unknown>): DatadogLog | undefined {
  // A Vercel drain entry has `timestamp` and `message` too: it is Vercel's (formats/vercel).
  if (looksLikeVercel(obj)) return undefined
  const id = text(obj.id)
  const inner = isRecord(obj.content) ? obj.content : isRecord(obj.attributes) && ('timestamp' in obj.attributes || 'message' in obj.attributes) ? obj.attributes : undefined
  const log = inner ?? (('timestamp' in obj || 'date' in obj) && 'message' in obj ? obj : undefined)
  if (!log) return undefined
  return {
    id, timestamp: log.timestamp ?? log.date, host: log.host, service: log.service, message: log.message, tags: log.tags,
    attributes: isRecord(log.attributes) ? log.attributes : undefined,
  }
}

export function looksLikeDatadog(obj: Record<string, unknown>): boolean {
  return unwrapDatadog(obj) !== undefined
}

/**
 * A Datadog log as an access event. Pipeline attributes (standard attribute names) are used when
 * they hold the request; otherwise the raw access line in `message` is parsed (logs that no pipeline
 * parsed). Attributes that are present override what the line says.
 */
export function normalizeDatadog(log: DatadogLog, opts: NormalizeOptions): ParseOutcome {
  const a = log.attributes
  // The tag list is built only when something reads it (most logs carry a `service` of their own).
  let tags: string[] | undefined
  const http = a === undefined ? undefined : obj(a.http)
  const structured = a !== undefined && (or(a['http.url_details.path'], obj(http?.url_details)?.path) !== undefined || or(a['http.url'], http?.url) !== undefined)

  let event: AccessFields
  if (structured) {
    const fromAttrs = fromAttributes(a, log.timestamp)
    if (!fromAttrs.ok) return fromAttrs
    event = fromAttrs.event
    const answered = retriedUpstream(log.message)
    if (answered) event.upstream = answered
  } else {
    const message = typeof log.message === 'string' ? log.message : undefined
    if (message === undefined) return {ok: false, reason: 'missing-path', detail: 'no http attributes and no message'}
    const parsed = parseTextLine(message)
    if (!parsed.ok) return parsed.reason === 'unparsed-message' ? {ok: false, reason: 'unparsed-message', detail: 'message is not an access line'} : parsed
    event = parsed.event
  }
  const service = text(log.service) ?? tagValue((tags = tagsOf(log)), 'service')
  if (service !== undefined) event.service = service
  const host = text(log.host)
  if (host !== undefined) event.host = host
  if (log.id !== undefined) event.id = log.id
  const bag: AttributeBag = {attributes: a, top: log as Record<string, unknown>, tags: readsTags(opts) ? (tags ?? tagsOf(log)) : undefined}
  return {ok: true, event: applyMapping(event, bag, opts)}
}

type Rec = Record<string, unknown>

/** The value when it is an object (what `dig` walks into), else undefined. */
function obj(v: unknown): Rec | undefined {
  return v !== null && typeof v === 'object' ? (v as Rec) : undefined
}

/** `dig`'s rule: a flat key holding the whole path (a CSV `@http.url` column) wins unless undefined. */
function or(flat: unknown, walked: unknown): unknown {
  return flat !== undefined ? flat : walked
}

/**
 * The standard attributes, read with the semantics of `dig` (the flat `http.url` key first, then
 * the walk `http` -> `url`) but with plain property reads: this runs for every record.
 */
function fromAttributes(a: Rec, timestamp: unknown): ParseOutcome {
  const time = parseTime(timestamp) ?? parseTime(a['date_access'])
  if (time === undefined) return {ok: false, reason: timestamp === undefined ? 'missing-time' : 'bad-time', detail: describe(timestamp)}
  const http = obj(a.http)
  const network = obj(a.network)
  const url = text(or(a['http.url'], http?.url))
  const path = text(or(a['http.url_details.path'], obj(http?.url_details)?.path)) ?? (url === undefined ? undefined : urlPath(url))
  if (path === undefined) return {ok: false, reason: 'missing-path'}
  const statusRaw = or(a['http.status_code'], http?.status_code)
  if (statusRaw === undefined) return {ok: false, reason: 'missing-status'}
  const status = toInt(statusRaw)
  if (status === undefined || status < 100 || status > 999) return {ok: false, reason: 'bad-status', detail: describe(statusRaw)}
  const bytesRaw = or(a['network.bytes_written'], network?.bytes_written)
  const bytes = bytesRaw === undefined || bytesRaw === '-' ? 0 : toInt(bytesRaw)
  if (bytes === undefined || bytes < 0) return {ok: false, reason: 'bad-bytes', detail: describe(bytesRaw)}
  const method = text(or(a['http.method'], http?.method))
  const event: AccessFields = {
    time: time.ms, resolutionMs: time.ms % 1000 === 0 ? 1000 : 1,
    method: method === undefined ? 'GET' : upper(method), path, status, bytes,
    clientIp: text(or(a['network.client.ip'], obj(network?.client)?.ip)) ?? '', userAgent: text(or(a['http.useragent'], http?.useragent)) ?? '',
  }
  if (bytesRaw === undefined) event.bytesNotLogged = true
  const referer = text(or(a['http.referer'], http?.referer))
  if (referer !== undefined) event.referer = referer
  const requestId = text(or(a['http.request_id'], http?.request_id))
  if (requestId !== undefined) event.requestId = requestId
  const contentType = text(or(a['http.content_type'], http?.content_type) ?? or(a['http.response.content_type'], obj(http?.response)?.content_type))
  if (contentType !== undefined) event.contentType = contentType
  const userId = text(or(a['usr.id'], obj(a.usr)?.id))
  if (userId !== undefined) event.userId = userId
  const destination = obj(network?.destination)
  const ip = text(or(a['network.destination.ip'], destination?.ip))
  if (ip !== undefined) {
    const port = toInt(or(a['network.destination.port'], destination?.port))
    event.upstream = port === undefined ? ip : `${ip}:${port}`
  } else {
    // Pipelines that keep ingress-nginx's own names: `upstream_addr` (a list after retries: the one with a status answered).
    const list = text(a.upstream_addr)
    const last = list === undefined ? undefined : answeringUpstream(list, text(a.upstream_status))
    if (last !== undefined) event.upstream = last
  }
  // The app's ingress upstream: `proxy.name` in Datadog's ingress-nginx pipeline, or the variable's own name.
  const upstreamName = text(or(a['proxy.name'], obj(a.proxy)?.name)) ?? text(a.proxy_upstream_name)
  if (upstreamName !== undefined) event.upstreamName = upstreamName
  const vhost = text(or(a['http.url_details.host'], obj(http?.url_details)?.host))
  if (vhost !== undefined) event.vhost = vhost
  return {ok: true, event}
}

/** Upper case, without a new string when the method already is (it nearly always is). */
function upper(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 97 && c <= 122) return s.toUpperCase()
    if (c > 127) return s.toUpperCase()
  }
  return s
}

/** The last representable instant of year 9999: later "times" are garbage. */
const MAX_MS = 253_402_300_800_000

/** ISO-8601 strings (checked field by field: no Feb 30, no year before 1970), epoch numbers (ms, or seconds below 1e11) and numeric strings. */
export function parseTime(v: unknown): {ms: number} | undefined {
  // Logs of one second share their timestamp text: the last one read is remembered.
  if (typeof v === 'string' && v === lastTimeText) return lastTime
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v <= 0) return undefined
    const ms = Math.round(v < 1e11 ? v * 1000 : v)
    return ms < MAX_MS ? {ms} : undefined
  }
  if (typeof v !== 'string' || v === '') return undefined
  if (/^\d+(\.\d+)?$/.test(v)) return parseTime(Number(v))
  const iso = parseIsoTime(v.includes(' ') && !v.includes('T') ? v.replace(' ', 'T') : v)
  const time = iso && iso.time < MAX_MS ? {ms: iso.time} : undefined
  lastTimeText = v
  lastTime = time
  return time
}

let lastTimeText: string | undefined
let lastTime: {ms: number} | undefined

/**
 * After retries the ingress pipeline keeps the FIRST upstream (`network.destination.ip`), which is
 * the one that failed; the pod that answered is the last one in the raw line.
 */
function retriedUpstream(message: unknown): string | undefined {
  if (typeof message !== 'string' || !retried(message)) return undefined
  const line = parseAccessLine(message)
  return line.ok ? line.event.upstream : undefined
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57

/**
 * `/\d:\d+, \d/.test(s)`: an upstream list after a retry (`10.0.0.1:80, 10.0.0.2:80`). Found from
 * each `, ` (a native search) instead of trying the pattern at every character of every message.
 */
export function retried(s: string): boolean {
  for (let k = s.indexOf(', '); k !== -1; k = s.indexOf(', ', k + 1)) {
    if (!isDigit(s.charCodeAt(k + 2))) continue
    let m = k - 1
    while (m >= 0 && isDigit(s.charCodeAt(m))) m--
    if (m < k - 1 && m >= 1 && s.charCodeAt(m) === 58 && isDigit(s.charCodeAt(m - 1))) return true
  }
  return false
}

function toInt(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+(\.0+)?\s*$/.test(v) ? Number(v) : Number.NaN
  return Number.isInteger(n) ? n : undefined
}


function tagsOf(log: DatadogLog): string[] {
  return Array.isArray(log.tags) ? log.tags.filter((t): t is string => typeof t === 'string') : []
}

function tagValue(tags: readonly string[], name: string): string | undefined {
  const prefix = `${name}:`
  const t = tags.find((x) => x.startsWith(prefix))
  return t === undefined ? undefined : t.slice(prefix.length)
}

/** A field's value for a rejection's detail. An array or object is named, not written: it may nest as deep as the record (JSON.stringify overflows the stack at a few thousand levels). */
function describe(v: unknown): string {
  const s = typeof v === 'string' ? v : v !== null && typeof v === 'object' ? (Array.isArray(v) ? 'an array' : 'an object') : String(v)
  return s.length > 60 ? `${s.slice(0, 57)}...` : s
}
