import type {RejectReason} from '../model/rejection'
import type {RumError, RumEvent, RumResource} from '../model/rum'
import {boundText, MAX_FIELD_LENGTH} from '../util/bounded-text'
import {detach} from '../util/detach'
import {urlPath} from '../util/url-path'
import {parseTime} from './datadog'
import {dig, text} from './fields'
import {isObject, show, snippet} from './text'

/*
 * One Datadog RUM record -> a RumEvent. The shapes read, outermost first:
 * - an item of the RUM events API (`GET /api/v2/rum/events`, `POST /api/v2/rum/events/search`):
 *   `{id, type: 'rum', attributes: {timestamp, service, tags, attributes: {type, session, view, …}}}`;
 * - that item's `attributes` alone: `{timestamp, service, tags, attributes: {type, …}}`;
 * - a bare event as the Browser SDK sends it (DataDog/rum-events-format): `{date, type, session, view, …}`,
 *   `date` in epoch ms, tags in a `ddtags` string.
 * Where the client is differs by who made the record: the standard attributes `network.client.ip` and
 * `http.useragent` (what skewscan's captures hold, as logs name them), or `session.ip` and
 * `session.useragent`, which Datadog's own recorded RUM search responses hold (DataDog/datadog-api-client-typescript,
 * cassettes/v2/RUM_2896677143/Search-RUM-events-returns-OK-response-with-pagination_2020559724) and its docs name
 * (`session.ip`, "Client IP address": DataDog/documentation content/en/real_user_monitoring/browser/data_collected.md).
 * Both are read, the standard attributes first.
 */

/** Why a RUM record was skipped, beyond the reasons access logs share (RejectReason). */
export type RumRejectReason =
  /** A view, resource or error event without `session.id`: it belongs to no session. */
  | 'missing-session'
  /** A view, resource or error event without `view.id`: it belongs to no page. */
  | 'missing-view'
  /** An error event without `error.message`. */
  | 'missing-message'

export type RumSkipReason = RejectReason | RumRejectReason

/** A RUM event before the reader attaches where it came from. */
export type RumFields = Omit<RumEvent, 'location'>

/** What one RUM record gives: an event, valid RUM of a type not read (counted apart), or why it was skipped. */
export type RumOutcome =
  | {ok: true; event: RumFields}
  | {ok: false; ignored: string}
  | {ok: false; reason: RumSkipReason; detail?: string}

/** The RUM event types read. */
const READ: ReadonlySet<unknown> = new Set<RumEvent['kind']>(['view', 'resource', 'error'])
const isRead = (t: unknown): t is RumEvent['kind'] => READ.has(t)

/**
 * The other RUM event types (DataDog/rum-events-format, schemas/rum), and `session`, which the RUM
 * explorer and search return too: valid RUM that skewscan does not read. In an API item (`type: 'rum'`)
 * any type is RUM's word; a bare object must name one of these, `type` being a common key.
 */
const OTHER_RUM: ReadonlySet<string> = new Set(['action', 'long_task', 'vital', 'session', 'view_update', 'transition'])

type Rec = Record<string, unknown>

/** Where one record keeps its event (`inner`), its wrapper's fields (`outer`: timestamp, service, tags) and id. */
interface Unwrapped {
  outer: Rec
  inner: Rec
  id?: unknown
  /** The API said it is RUM (`type: 'rum'`). */
  rum: boolean
}

function unwrap(o: Rec): Unwrapped {
  const a = o.attributes
  if (isObject(a) && isObject(a.attributes)) return {outer: a, inner: a.attributes, id: o.id, rum: o.type === 'rum'}
  if (isObject(a) && typeof a.type === 'string') return {outer: o, inner: a, rum: false}
  return {outer: o, inner: o, rum: false}
}

/** One RUM record (a parsed JSON value) as an event. Pure; never throws. */
export function normalizeRum(value: unknown): RumOutcome {
  if (!isObject(value)) return {ok: false, reason: 'not-an-object', detail: `a JSON ${Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value} where a RUM event was expected`}
  const {outer, inner, id, rum} = unwrap(value)
  const kind = inner.type
  if (!isRead(kind)) {
    if (typeof kind === 'string' && kind !== '' && (rum || OTHER_RUM.has(kind))) return {ok: false, ignored: kind}
    return {ok: false, reason: 'unknown-format', detail: notRum(inner, kind)}
  }
  const stamp = outer.timestamp
  const time = parseTime(stamp) ?? parseTime(inner.date)
  if (time === undefined) {
    const given = stamp ?? inner.date
    return given === undefined ? {ok: false, reason: 'missing-time'} : {ok: false, reason: 'bad-time', detail: show(given)}
  }
  const session = text(dig(inner, 'session.id'))
  if (session === undefined) return {ok: false, reason: 'missing-session', detail: `${article(kind)} event without session.id`}
  // A Synthetic Monitoring browser test (`session.type: synthetics`, `ci_test` for CI runs) is no
  // person: valid RUM, not read, as a crawler's requests are never a user's.
  const sessionType = text(dig(inner, 'session.type'))
  if (sessionType === 'synthetics' || sessionType === 'ci_test') return {ok: false, ignored: `${kind} of a ${sessionType} session`}
  const view = text(dig(inner, 'view.id'))
  if (view === undefined) return {ok: false, reason: 'missing-view', detail: `${article(kind)} event without view.id`}

  const event: RumFields = {kind, time: time.ms, session, view}
  const part = kind === 'resource' ? resourceOf(inner) : kind === 'error' ? errorOf(inner) : undefined
  if (part !== undefined && 'reason' in part) return part
  optional(event, 'id', id)
  optional(event, 'viewUrl', dig(inner, 'view.url'))
  optional(event, 'loadingType', dig(inner, 'view.loading_type'))
  optional(event, 'version', text(inner.version) ?? tagged(outer.tags, inner.ddtags, 'version'))
  optional(event, 'service', text(inner.service) ?? text(outer.service) ?? tagged(outer.tags, inner.ddtags, 'service'))
  optional(event, 'application', dig(inner, 'application.id'))
  optional(event, 'user', dig(inner, 'usr.id'))
  optional(event, 'clientIp', text(dig(inner, 'network.client.ip')) ?? text(dig(inner, 'session.ip')))
  optional(event, 'userAgent', text(dig(inner, 'http.useragent')) ?? text(dig(inner, 'session.useragent')))
  if (part !== undefined) {
    if ('message' in part) event.error = part
    else event.resource = part
  }
  return {ok: true, event: bounded(event)}
}

const article = (kind: RumEvent['kind']): string => (kind === 'error' ? `an ${kind}` : `a ${kind}`)

type TextField = 'id' | 'viewUrl' | 'loadingType' | 'version' | 'service' | 'application' | 'user' | 'clientIp' | 'userAgent'

/** Sets a text field when the value is usable text (a number as its decimal text; objects, arrays, '' and '-' are absent). */
function optional(event: RumFields, field: TextField, v: unknown): void {
  const s = text(v)
  if (s !== undefined) event[field] = s
}

type Skip = {ok: false; reason: RumSkipReason; detail?: string}

/** A resource event's request; its URL is what it is about, so one without is skipped. */
function resourceOf(inner: Rec): RumResource | Skip {
  const url = text(dig(inner, 'resource.url'))
  if (url === undefined) return {ok: false, reason: 'missing-path', detail: 'a resource event without resource.url'}
  const out: RumResource = {url, path: urlPath(url)}
  const type = text(dig(inner, 'resource.type'))
  if (type !== undefined) out.type = type
  // 0 is a status RUM reports: a request that got no response (blocked, failed, opaque).
  const status = integer(dig(inner, 'resource.status_code'))
  if (status !== undefined && status <= 999) out.status = status
  // `size` is the body as decoded (the SDK takes PerformanceResourceTiming's decodedBodySize);
  // `decoded_body_size` is that same count under its newer name. `encoded_body_size` (the body as
  // sent, compressed) is another measure, never put in its place.
  const size = integer(dig(inner, 'resource.size')) ?? integer(dig(inner, 'resource.decoded_body_size'))
  if (size !== undefined) out.size = size
  return out
}

/** An error event's error; one without a message says nothing, and is skipped. */
function errorOf(inner: Rec): RumError | Skip {
  const message = text(dig(inner, 'error.message'))
  if (message === undefined) return {ok: false, reason: 'missing-message', detail: 'an error event without error.message'}
  const out: RumError = {message}
  const source = text(dig(inner, 'error.source'))
  if (source !== undefined) out.source = source
  const type = text(dig(inner, 'error.type'))
  if (type !== undefined) out.type = type
  // Only the URL RUM names: one in the message (a failed import's) is the analysis's to read
  // (analysis/rum-errors), in one place.
  const url = text(dig(inner, 'error.resource.url'))
  if (url !== undefined) {
    out.url = url
    out.path = urlPath(url)
  }
  return out
}

/** A non-negative whole number, given as one or as its digits. */
function integer(v: unknown): number | undefined {
  const n = typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : v
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined
}

/** A `name:value` tag of the API's `tags` list, or of the SDK's comma-separated `ddtags`. */
function tagged(tags: unknown, ddtags: unknown, name: string): string | undefined {
  const prefix = `${name}:`
  const list = Array.isArray(tags) ? tags : typeof ddtags === 'string' ? ddtags.split(',') : []
  for (const t of list) if (typeof t === 'string' && t.startsWith(prefix)) return text(t.slice(prefix.length))
  return undefined
}

/** Why an object is no RUM event read here: its type, or its keys when it has none. */
function notRum(inner: Rec, type: unknown): string {
  if (type !== undefined) return `type ${show(type)} is no RUM event type`
  const keys = `no RUM event type: a JSON object with keys ${Object.keys(inner).slice(0, 5).map((k) => snippet(k)).join(', ')}`
  return keys.length > MAX_DETAIL ? `${keys.slice(0, MAX_DETAIL - 1)}…` : keys
}

/** The longest rejection detail (as sources/file/records.ts keeps them). */
const MAX_DETAIL = 120

/**
 * Every text field within MAX_FIELD_LENGTH (normalize/fields.ts boundFields' rule for access
 * events): a longer one keeps its start and end around a digest (boundText). When one was cut the
 * others are copied too, so none (a path cut from a 5 MB URL) keeps the long text alive. Mutates
 * and returns `event`.
 */
function bounded(event: RumFields): RumFields {
  const parts: Rec[] = [event as unknown as Rec]
  if (event.resource) parts.push(event.resource as unknown as Rec)
  if (event.error) parts.push(event.error as unknown as Rec)
  let cut = false
  for (const part of parts) {
    for (const [k, v] of Object.entries(part)) {
      if (typeof v === 'string' && v.length > MAX_FIELD_LENGTH) {
        part[k] = boundText(v)
        cut = true
      }
    }
  }
  if (cut) {
    for (const part of parts) for (const [k, v] of Object.entries(part)) if (typeof v === 'string' && v.length <= MAX_FIELD_LENGTH) part[k] = detach(v)
  }
  return event
}
