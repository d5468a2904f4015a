import type {AccessFields, ParseOutcome} from '../../model'
import {answeringUpstream, parseIsoTime, splitTarget} from '../access-line'
import type {JsonFormat} from './types'
import {isObject, reject, show} from '../text'

/*
 * Elastic: what Filebeat, Elastic Agent and Elasticsearch exports hold.
 *
 * 1. ECS documents, as Elastic's nginx, nginx_ingress_controller and other web pipelines write
 *    them (https://www.elastic.co/guide/en/ecs/current/ecs-field-reference.html), with the fields
 *    nested (`{"url":{"original":…}}`), dotted (`{"url.original":…}`, as Filebeat's module tests
 *    and flattened exports hold them) or both, bare or as an Elasticsearch hit
 *    (`{"_index":…,"_id":…,"_source":{…}}`; the hits of a search response are its records).
 * 2. Filebeat's envelope around a raw line: `{"@timestamp":…,"message":"<access line>",
 *    "log":{"file":{"path":…}},"input":{"type":…},"kubernetes":{…},…}`. The line is read as an
 *    unparsed Datadog log's message is: by the text formats, its time its own (`@timestamp` is
 *    when Filebeat read it).
 *
 * Precedence: a document whose ECS request fields read is taken from them; its raw line
 * (`message`, or `event.original` kept by `preserve_original_event`) is read only when they do
 * not (no ECS request fields, or not enough of them).
 *
 * Field choices (ECS name: event field):
 * - `@timestamp`: time; `url.path`, else the path of `url.original`: path; `http.request.method`
 *   (upper-cased when all lower-case: Filebeat's nginx module lower-cased it): method; `http.response.status_code`.
 * - bytes: `http.response.body.bytes` (the body, as nginx's $body_bytes_sent); when only
 *   `http.response.bytes` (headers included) is there, the event is marked `responseBytes`.
 * - client: `source.ip`, `client.ip`, then `source.address`/`client.address` as logged.
 * - vhost: `url.domain`, else `destination.domain` (Filebeat's nginx module puts $host there).
 *   `host.name` is the machine that shipped the log (the Filebeat agent's): it goes to `host`,
 *   never to the vhost. `destination.ip`/`address` are the nginx server's own address in Elastic's
 *   nginx pipelines, not the pod that answered, so they are not the upstream.
 * - upstream and app: Elastic's ingress-nginx integration (`nginx_ingress_controller.access.upstream`:
 *   `ip`, `port`, `name`, and the retry lists `upstream_address_list`/`response.status_code_list`).
 * - host: `kubernetes.pod.name` (the pod that wrote the line: for ingress logs the controller, as
 *   Datadog's host is), else `host.name`; service: `service.name`, else the container's name
 *   (`kubernetes.container.name`, `container.name`): the log's service, what an app falls back to.
 * - id: the hit's `_id`, so overlapping exports of one index drop their duplicates.
 */

type Rec = Record<string, unknown>

/** Deepest object walk: ECS nests a few levels; anything deeper is not one of its fields. */
const MAX_PARTS = 8

/** A path split once (lookups run for every record). */
const PARTS = new Map<string, readonly string[]>()

function partsOf(path: string): readonly string[] {
  let p = PARTS.get(path)
  if (!p) PARTS.set(path, (p = path.split('.')))
  return p
}

/**
 * The value at an ECS path in a document whose keys may be nested, dotted or mixed
 * (`{"http.response": {"status_code": 200}}`): at each level the longest dotted key that is there
 * is tried first. A one-element array (an Elasticsearch `fields` value) is its element.
 */
export function ecsValue(doc: unknown, path: string): unknown {
  return walk(doc, partsOf(path), 0)
}

function walk(o: unknown, parts: readonly string[], i: number): unknown {
  if (i === parts.length) return Array.isArray(o) && o.length === 1 ? o[0] : o
  if (!isObject(o) || i >= MAX_PARTS) return undefined
  for (let j = parts.length; j > i; j--) {
    const k = j === i + 1 ? (parts[i] as string) : parts.slice(i, j).join('.')
    if (!Object.hasOwn(o, k)) continue
    const v = walk(o[k], parts, j)
    if (v !== undefined) return v
  }
  return undefined
}

/** A usable string: numbers stringified, `-` and '' absent. */
function text(v: unknown): string | undefined {
  if (typeof v === 'string') return v === '' || v === '-' ? undefined : v
  if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  return undefined
}

function str(doc: Rec, ...paths: string[]): string | undefined {
  for (const p of paths) {
    const v = text(ecsValue(doc, p))
    if (v !== undefined) return v
  }
  return undefined
}

/** The document of an Elasticsearch hit (`_source`, else `fields`), or the object itself. */
export function elasticDocument(obj: Rec): Rec {
  if (!Object.hasOwn(obj, '_index') && !Object.hasOwn(obj, '_id')) return obj
  const src = obj['_source']
  if (isObject(src)) return src
  const fields = obj['fields']
  return isObject(fields) ? fields : obj
}

/** Keys Filebeat and Elastic Agent put beside a shipped line. */
const ENVELOPE_KEYS = ['@timestamp', 'agent', 'ecs', 'input', 'log.file.path', 'kubernetes', 'container', 'fileset', 'data_stream', 'event.dataset'] as const

/** ECS request fields: one of them makes a document one to read from its fields. */
const ECS_REQUEST = ['http.response.status_code', 'url.original', 'url.path', 'http.request.method'] as const

function hasEcsRequest(doc: Rec): boolean {
  for (const p of ECS_REQUEST) if (ecsValue(doc, p) !== undefined) return true
  return false
}

function isEnvelope(doc: Rec): boolean {
  if (typeof doc['message'] !== 'string') return false
  for (const k of ENVELOPE_KEYS) if (ecsValue(doc, k) !== undefined) return true
  return false
}

/**
 * Cheap format check: an Elasticsearch hit, a document with ECS request fields, or a line in
 * Filebeat's envelope (`message` with `@timestamp` or one of the keys Filebeat adds).
 */
export function looksLikeElastic(obj: Record<string, unknown>): boolean {
  if (!isObject(obj)) return false
  const doc = elasticDocument(obj)
  if (doc !== obj) return true
  return hasEcsRequest(doc) || isEnvelope(doc)
}

/** The last representable instant of year 9999: later "times" are garbage. */
const MAX_MS = 253_402_300_800_000

/** `@timestamp`: RFC 3339, or epoch milliseconds (what Elasticsearch returns for dates in `fields` with `epoch_millis`). */
function parseTimestamp(v: unknown): [number, number] | undefined {
  if (typeof v === 'number' || (typeof v === 'string' && /^\d{1,16}$/.test(v))) {
    const ms = Number(v)
    return Number.isSafeInteger(ms) && ms > 0 && ms < MAX_MS ? [ms, ms % 1000 === 0 ? 1000 : 1] : undefined
  }
  if (typeof v !== 'string') return undefined
  const iso = parseIsoTime(v)
  if (iso === undefined || iso.time >= MAX_MS) return undefined
  // A pipeline writes `.000` after a second-resolution line: a whole second is no finer than that.
  return [iso.time, iso.time % 1000 === 0 ? 1000 : iso.resolutionMs]
}

function toInt(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : undefined
  return typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : undefined
}

/** A method the pipeline lower-cased (`get`) in upper case; one logged in mixed case (`PATCHp`, a bad request) as logged. */
function upper(s: string): string {
  return /[a-z]/.test(s) && !/[A-Z]/.test(s) ? s.toUpperCase() : s
}

/** The request from a document's ECS fields. Never throws. */
export function parseEcs(doc: Rec): ParseOutcome {
  const ts = ecsValue(doc, '@timestamp')
  if (ts === undefined || ts === null || ts === '') return reject('missing-time', 'no @timestamp')
  const time = parseTimestamp(ts)
  if (time === undefined) return reject('bad-time', `unreadable @timestamp ${show(ts)}`)

  const urlPath = str(doc, 'url.path')
  const original = str(doc, 'url.original')
  const target = urlPath ?? original
  if (target === undefined) return reject('missing-path', 'no url.path or url.original')
  const split = splitTarget(target)
  if (split === undefined) return reject('missing-path', `url is not a path: ${show(target)}`)

  const rawStatus = ecsValue(doc, 'http.response.status_code')
  if (rawStatus === undefined || rawStatus === null || rawStatus === '') return reject('missing-status', 'no http.response.status_code')
  const status = toInt(rawStatus)
  if (status === undefined || status < 100 || status > 999) return reject('bad-status', `status is not a 3-digit number: ${show(rawStatus)}`)

  const bodyRaw = ecsValue(doc, 'http.response.body.bytes')
  const body = bodyRaw !== undefined && bodyRaw !== null && bodyRaw !== ''
  const rawBytes = body ? bodyRaw : ecsValue(doc, 'http.response.bytes')
  if (rawBytes === undefined || rawBytes === null || rawBytes === '') return reject('missing-bytes', 'no http.response.body.bytes or http.response.bytes')
  const bytes = toInt(rawBytes)
  if (bytes === undefined) return reject('bad-bytes', `bytes is not a number: ${show(rawBytes)}`)

  const method = str(doc, 'http.request.method')
  const event: AccessFields = {
    time: time[0],
    resolutionMs: time[1],
    method: method === undefined ? '' : upper(method),
    path: split.path,
    status,
    bytes,
    clientIp: str(doc, 'source.ip', 'client.ip', 'source.address', 'client.address') ?? '',
    userAgent: str(doc, 'user_agent.original') ?? '',
  }
  if (!body) event.responseBytes = true
  const referer = str(doc, 'http.request.referrer')
  if (referer !== undefined) event.referer = referer
  const requestId = str(doc, 'http.request.id', 'nginx_ingress_controller.access.http.request.id')
  if (requestId !== undefined) event.requestId = requestId
  const vhost = str(doc, 'url.domain', 'destination.domain') ?? (original === undefined ? undefined : splitTarget(original)?.host)
  if (vhost !== undefined) event.vhost = vhost
  const contentType = str(doc, 'http.response.mime_type')
  if (contentType !== undefined) event.contentType = contentType
  const upstream = ingressUpstream(doc)
  if (upstream !== undefined) event.upstream = upstream
  const upstreamName = str(doc, 'nginx_ingress_controller.access.upstream.name')
  if (upstreamName !== undefined) event.upstreamName = upstreamName
  return {ok: true, event}
}

/** The pod that answered, from Elastic's ingress-nginx fields: the retry list's answering entry, else `ip:port`. */
function ingressUpstream(doc: Rec): string | undefined {
  const list = ecsValue(doc, 'nginx_ingress_controller.access.upstream_address_list')
  if (Array.isArray(list) && list.length > 0 && list.every((x) => typeof x === 'string')) {
    const statuses = ecsValue(doc, 'nginx_ingress_controller.access.upstream.response.status_code_list')
    const st = Array.isArray(statuses) && statuses.every((x) => typeof x === 'string' || typeof x === 'number') ? statuses.join(', ') : undefined
    const answered = answeringUpstream(list.join(', '), st)
    if (answered !== undefined) return answered
  }
  const ip = str(doc, 'nginx_ingress_controller.access.upstream.ip')
  if (ip === undefined) return undefined
  const port = str(doc, 'nginx_ingress_controller.access.upstream.port')
  return port === undefined ? ip : ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`
}

/** How the reader reads a raw line: the text formats, and the JSON ones for a JSON line (not this reader again). */
export interface LineReaders {
  text(line: string): ParseOutcome
  json(obj: Record<string, unknown>): ParseOutcome | undefined
}

/** A raw line longer than this is not read (no access line is; a JSON blob might be). */
const MAX_RAW = 64 * 1024

function parseRaw(raw: string, readers: LineReaders): ParseOutcome {
  const line = raw.trim()
  if (line === '') return reject('unparsed-message', 'an empty message')
  if (line.length > MAX_RAW) return reject('line-too-long', `a message longer than ${MAX_RAW} characters`)
  if (line.startsWith('{')) {
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      return reject('unparsed-message', 'message is not an access line (a JSON-like text that does not parse)')
    }
    const out = isObject(value) ? readers.json(value) : undefined
    return out ?? reject('unparsed-message', 'message is JSON of no access-log format')
  }
  const out = readers.text(line)
  return out.ok || out.reason !== 'unparsed-message' ? out : reject('unparsed-message', 'message is not an access line')
}

/** Parses one Elastic document (bare, a hit, or Filebeat's envelope). Never throws. */
export function parseElastic(obj: Record<string, unknown>, readers: LineReaders): ParseOutcome {
  if (!isObject(obj)) return reject('not-an-object', 'record is not a JSON object')
  const doc = elasticDocument(obj)
  const rawValue = ecsValue(doc, 'message') ?? ecsValue(doc, 'event.original')
  const raw = typeof rawValue === 'string' ? rawValue : undefined
  let out: ParseOutcome
  if (hasEcsRequest(doc)) {
    out = parseEcs(doc)
    if (!out.ok && raw !== undefined) {
      const line = parseRaw(raw, readers)
      if (line.ok) out = line
    }
  } else if (raw !== undefined) {
    out = parseRaw(raw, readers)
  } else {
    return reject('unknown-format', 'an Elastic document with neither ECS request fields nor a message')
  }
  if (!out.ok) return out
  const event = out.event
  const host = str(doc, 'kubernetes.pod.name', 'host.name', 'host.hostname')
  if (host !== undefined && event.host === undefined) event.host = host
  const service = str(doc, 'service.name', 'kubernetes.container.name', 'container.name')
  if (service !== undefined && event.service === undefined) event.service = service
  const id = text(obj['_id'])
  if (id !== undefined && doc !== obj) event.id = id
  return out
}

/** The Elastic reader, given how it reads a raw line (the text and JSON formats, registered in formats/index). */
export function elasticFormat(readers: LineReaders): JsonFormat {
  return {
    id: 'elastic',
    name: 'Elastic documents (ECS fields, nested or dotted; Elasticsearch hits) and Filebeat envelopes around a raw access line',
    bytes: 'body',
    looksLike: looksLikeElastic,
    parse: (obj) => parseElastic(obj, readers),
  }
}
