import type {AccessFields, ParseOutcome} from '../model/parse-outcome'
import {parseAccessLine, parseIsoTime} from './access-line'
import {urlPath} from '../util/url-path'
import {type AttributeBag, applyMapping, dig, type NormalizeOptions, text} from './fields'

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
  const tags = Array.isArray(log.tags) ? log.tags.filter((t): t is string => typeof t === 'string') : []
  const bag: AttributeBag = {attributes: a, top: log as Record<string, unknown>, tags}
  const structured = a !== undefined && (dig(a, 'http.url_details.path') !== undefined || dig(a, 'http.url') !== undefined)

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
    const parsed = parseAccessLine(message)
    if (!parsed.ok) return parsed.reason === 'unparsed-message' ? {ok: false, reason: 'unparsed-message', detail: 'message is not an access line'} : parsed
    event = parsed.event
  }
  const service = text(log.service) ?? tagValue(tags, 'service')
  if (service !== undefined) event.service = service
  const host = text(log.host)
  if (host !== undefined) event.host = host
  if (log.id !== undefined) event.id = log.id
  return {ok: true, event: applyMapping(event, bag, opts)}
}

function fromAttributes(a: Record<string, unknown>, timestamp: unknown): ParseOutcome {
  const time = parseTime(timestamp) ?? parseTime(dig(a, 'date_access'))
  if (time === undefined) return {ok: false, reason: timestamp === undefined ? 'missing-time' : 'bad-time', detail: describe(timestamp)}
  const url = text(dig(a, 'http.url'))
  const path = text(dig(a, 'http.url_details.path')) ?? (url === undefined ? undefined : urlPath(url))
  if (path === undefined) return {ok: false, reason: 'missing-path'}
  const statusRaw = dig(a, 'http.status_code')
  if (statusRaw === undefined) return {ok: false, reason: 'missing-status'}
  const status = toInt(statusRaw)
  if (status === undefined || status < 100 || status > 999) return {ok: false, reason: 'bad-status', detail: describe(statusRaw)}
  const bytesRaw = dig(a, 'network.bytes_written')
  const bytes = bytesRaw === undefined || bytesRaw === '-' ? 0 : toInt(bytesRaw)
  if (bytes === undefined || bytes < 0) return {ok: false, reason: 'bad-bytes', detail: describe(bytesRaw)}
  const event: AccessFields = {
    time: time.ms, resolutionMs: time.ms % 1000 === 0 ? 1000 : 1,
    method: (text(dig(a, 'http.method')) ?? 'GET').toUpperCase(), path, status, bytes,
    clientIp: text(dig(a, 'network.client.ip')) ?? '', userAgent: text(dig(a, 'http.useragent')) ?? '',
  }
  const optional: [keyof AccessFields, unknown][] = [
    ['referer', dig(a, 'http.referer')], ['requestId', dig(a, 'http.request_id')],
    ['contentType', dig(a, 'http.content_type') ?? dig(a, 'http.response.content_type')],
    ['userId', dig(a, 'usr.id')],
  ]
  for (const [k, v] of optional) {
    const s = text(v)
    if (s !== undefined) (event as unknown as Record<string, unknown>)[k] = s
  }
  const ip = text(dig(a, 'network.destination.ip'))
  if (ip !== undefined) {
    const port = toInt(dig(a, 'network.destination.port'))
    event.upstream = port === undefined ? ip : `${ip}:${port}`
  }
  return {ok: true, event}
}

/** The last representable instant of year 9999: later "times" are garbage. */
const MAX_MS = 253_402_300_800_000

/** ISO-8601 strings (checked field by field: no Feb 30, no year before 1970), epoch numbers (ms, or seconds below 1e11) and numeric strings. */
export function parseTime(v: unknown): {ms: number} | undefined {
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v <= 0) return undefined
    const ms = Math.round(v < 1e11 ? v * 1000 : v)
    return ms < MAX_MS ? {ms} : undefined
  }
  if (typeof v !== 'string' || v === '') return undefined
  if (/^\d+(\.\d+)?$/.test(v)) return parseTime(Number(v))
  const iso = parseIsoTime(v.includes(' ') && !v.includes('T') ? v.replace(' ', 'T') : v)
  return iso && iso.time < MAX_MS ? {ms: iso.time} : undefined
}

/**
 * After retries the ingress pipeline keeps the FIRST upstream (`network.destination.ip`), which is
 * the one that failed; the pod that answered is the last one in the raw line.
 */
function retriedUpstream(message: unknown): string | undefined {
  if (typeof message !== 'string' || !RETRIED.test(message)) return undefined
  const line = parseAccessLine(message)
  return line.ok ? line.event.upstream : undefined
}

const RETRIED = /\d:\d+, \d/

function toInt(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+(\.0+)?\s*$/.test(v) ? Number(v) : Number.NaN
  return Number.isInteger(n) ? n : undefined
}


function tagValue(tags: readonly string[], name: string): string | undefined {
  const prefix = `${name}:`
  const t = tags.find((x) => x.startsWith(prefix))
  return t === undefined ? undefined : t.slice(prefix.length)
}

function describe(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v) ?? String(v)
  return s.length > 60 ? `${s.slice(0, 57)}...` : s
}
