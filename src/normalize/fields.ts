import type {AccessFields} from '../model/parse-outcome'
import {boundText, MAX_FIELD_LENGTH} from '../util/bounded-text'
import {detach} from '../util/detach'
import {chainOf, compileTrusted, trustedClient, type TrustedProxies} from './forwarded'

/** Event fields a user may map to a custom attribute with `--field NAME=PATH`. */
export const MAPPABLE_FIELDS = ['session', 'userId', 'version', 'upstream', 'upstreamName', 'vhost', 'app', 'contentType', 'requestId', 'clientIp', 'userAgent', 'referer', 'service', 'host'] as const
export type MappableField = (typeof MAPPABLE_FIELDS)[number]
/**
 * The fields every access event has, mappable too (`--field path=req.uri`): a JSON log no known format
 * claims is read with them (normalize/mapped-json). `bytes` is a body length, `responseBytes` a length
 * with the response headers counted (one or the other).
 */
export const CORE_FIELDS = ['time', 'method', 'path', 'status', 'bytes', 'responseBytes'] as const
export type CoreField = (typeof CORE_FIELDS)[number]

export type SessionKeySpec =
  | {kind: 'auto'}
  | {kind: 'ip-ua'}
  | {kind: 'cookie'; name: string}
  | {kind: 'attr'; path: string}

export interface NormalizeOptions {
  /** Attribute paths (`http.cookies.x`, `@usr.id`, `tag:version`) for mapped fields. */
  fields: Partial<Record<MappableField | CoreField, string>>
  sessionKey: SessionKeySpec
  /** An nginx `log_format` (`--log-format`): text lines, or JSON records for an `escape=json` template, are read with it (normalize/log-format). */
  logFormat?: string
  /** `--trusted-proxies`: the client is the right-most address of a logged X-Forwarded-For chain that is none of these (normalize/forwarded). */
  trustedProxies?: string[]
}

export const DEFAULT_NORMALIZE: NormalizeOptions = {fields: {}, sessionKey: {kind: 'auto'}}

/** A record's raw attributes and tags, where mapped fields are looked up. */
export interface AttributeBag {
  attributes?: Record<string, unknown>
  /** Top-level event properties (service, host) tried when the attributes lack a path. */
  top?: Record<string, unknown>
  tags?: readonly string[]
}

const COOKIE_HEADER_PATHS = ['http.cookie', 'http.request.headers.cookie', 'http_cookie', 'cookie']

/** The value at a path: `tag:NAME` reads a `NAME:value` tag, else a dotted path (a leading `@` is ignored). */
export function lookup(bag: AttributeBag, path: string): unknown {
  return compiled(path)(bag)
}

const SEGMENTS = new Map<string, string[]>()

/**
 * The value at a dotted path. A key holding the whole path wins (CSV `@http.status_code` columns
 * become such flat keys); otherwise the path is walked object by object.
 */
export function dig(obj: unknown, path: string): unknown {
  if (obj === null || typeof obj !== 'object') return undefined
  const direct = (obj as Record<string, unknown>)[path]
  if (direct !== undefined) return direct
  let parts = SEGMENTS.get(path)
  if (!parts) SEGMENTS.set(path, (parts = path.split('.')))
  if (parts.length === 1) return undefined
  let cur: unknown = obj
  for (const p of parts) {
    if (cur === null || typeof cur !== 'object') return undefined
    cur = (cur as Record<string, unknown>)[p]
  }
  return cur
}

/** `dig(obj, flat)` for a path of two segments `k1.k2`, without splitting it on every call. */
function dig2(obj: unknown, flat: string, k1: string, k2: string): unknown {
  if (obj === null || typeof obj !== 'object') return undefined
  const direct = (obj as Record<string, unknown>)[flat]
  if (direct !== undefined) return direct
  const x = (obj as Record<string, unknown>)[k1]
  return x === null || typeof x !== 'object' ? undefined : (x as Record<string, unknown>)[k2]
}

/** `dig(obj, flat)` for a path of three segments `k1.k2.k3`. */
function dig3(obj: unknown, flat: string, k1: string, k2: string, k3: string): unknown {
  if (obj === null || typeof obj !== 'object') return undefined
  const direct = (obj as Record<string, unknown>)[flat]
  if (direct !== undefined) return direct
  const x = (obj as Record<string, unknown>)[k1]
  if (x === null || typeof x !== 'object') return undefined
  const y = (x as Record<string, unknown>)[k2]
  return y === null || typeof y !== 'object' ? undefined : (y as Record<string, unknown>)[k3]
}

type Lookup = (bag: AttributeBag) => unknown

/** Compiled lookups by path: the paths come from the options and the code, so there are few. */
const COMPILED = new Map<string, Lookup>()

/** `lookup` for one path, with the path taken apart once (lookups run for every record). */
function compiled(path: string): Lookup {
  let f = COMPILED.get(path)
  if (f) return f
  if (path.startsWith('tag:')) {
    const prefix = `${path.slice(4)}:`
    f = (bag) => {
      const tag = bag.tags?.find((t) => t.startsWith(prefix))
      return tag === undefined ? undefined : tag.slice(prefix.length)
    }
  } else if (path.includes('"')) {
    // `req."x.y".z`: a quoted segment is one key, dots and all; such a path is walked key by key.
    const parts = pathSegments(path.startsWith('@') ? path.slice(1) : path)
    f = (bag) => walk(bag.attributes, parts) ?? walk(bag.top, parts)
  } else {
    const p = path.startsWith('@') ? path.slice(1) : path
    const parts = p.split('.')
    const [k1 = '', k2 = '', k3 = ''] = parts
    if (parts.length === 1) f = (bag) => dig1(bag.attributes, p) ?? dig1(bag.top, p)
    else if (parts.length === 2) f = (bag) => dig2(bag.attributes, p, k1, k2) ?? dig2(bag.top, p, k1, k2)
    else if (parts.length === 3) f = (bag) => dig3(bag.attributes, p, k1, k2, k3) ?? dig3(bag.top, p, k1, k2, k3)
    else f = (bag) => dig(bag.attributes, p) ?? dig(bag.top, p)
  }
  COMPILED.set(path, f)
  return f
}

/**
 * The keys of a path: split on dots, except inside double quotes (`req."x.y".z` is req, x.y, z).
 * Undefined for a path whose quotes do not close or that has an empty key.
 */
export function pathSegments(path: string): string[] {
  const out: string[] = []
  let cur = ''
  let quoted = false
  let wasQuoted = false
  for (const c of path) {
    if (c === '"') {
      quoted = !quoted
      wasQuoted = true
    } else if (c === '.' && !quoted) {
      out.push(cur)
      cur = ''
      wasQuoted = false
    } else {
      cur += c
    }
  }
  if (cur !== '' || wasQuoted) out.push(cur)
  return out
}

/** Whether a `--field` path is well formed: quotes closed, no empty key. */
export function validPath(path: string): boolean {
  if ((path.match(/"/g) ?? []).length % 2 !== 0) return false
  if (path.startsWith('tag:')) return path.length > 4
  const p = path.startsWith('@') ? path.slice(1) : path
  if (!p.includes('"')) return p.split('.').every((k) => k !== '')
  return /^("[^"]+"|[^".]+)(\.("[^"]+"|[^".]+))*$/.test(p)
}

/** The value at these keys, walked object by object. */
function walk(obj: unknown, keys: readonly string[]): unknown {
  let cur = obj
  for (const k of keys) {
    if (cur === null || typeof cur !== 'object') return undefined
    cur = (cur as Record<string, unknown>)[k]
  }
  return cur
}

function dig1(obj: unknown, key: string): unknown {
  return obj === null || typeof obj !== 'object' ? undefined : (obj as Record<string, unknown>)[key]
}

/** A usable string from a logged value: numbers are stringified, `-` and empty mean absent. */
export function text(v: unknown): string | undefined {
  if (typeof v === 'string') return v === '' || v === '-' ? undefined : v
  if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  return undefined
}

/** What `applyMapping` does for one options object, worked out once. */
interface MappingPlan {
  fields: [MappableField, Lookup][]
  /** Some lookup reads the record's tags (a `tag:` path), so readers build the list only then. */
  readsTags: boolean
  /** `--trusted-proxies`, compiled. */
  trusted?: TrustedProxies
}

const PLANS = new WeakMap<NormalizeOptions, MappingPlan>()

function planOf(opts: NormalizeOptions): MappingPlan {
  let plan = PLANS.get(opts)
  if (plan) return plan
  const fields: [MappableField, Lookup][] = []
  let readsTags = opts.sessionKey.kind === 'attr' && opts.sessionKey.path.startsWith('tag:')
  for (const name of MAPPABLE_FIELDS) {
    const path = opts.fields[name]
    if (path === undefined) continue
    fields.push([name, compiled(path)])
    if (path.startsWith('tag:')) readsTags = true
  }
  plan = {fields, readsTags}
  if (opts.trustedProxies !== undefined) plan.trusted = compileTrusted(opts.trustedProxies)
  PLANS.set(opts, plan)
  return plan
}

/** Whether `applyMapping` reads the record's tags: when it does not, readers need not build the list. */
export function readsTags(opts: NormalizeOptions): boolean {
  return planOf(opts).readsTags
}

/**
 * Chooses the client by `--trusted-proxies`, applies `--field` mappings, resolves the session key and bounds the event's text fields (see
 * boundFields). Every reader's records pass through here. Mutates and returns `event`.
 */
export function applyMapping(event: AccessFields, bag: AttributeBag, opts: NormalizeOptions): AccessFields {
  const plan = planOf(opts)
  if (plan.trusted !== undefined) {
    const chain = chainOf(event)
    const client = chain === undefined ? undefined : trustedClient(chain, plan.trusted)
    if (client !== undefined) event.clientIp = client
  }
  for (const [name, f] of plan.fields) {
    const v = text(f(bag))
    if (v !== undefined) event[name] = v
  }
  const session = resolveSession(event, bag, opts)
  if (session !== undefined) event.session = session
  else if ('session' in event) delete event.session
  return boundFields(event)
}

const len = (s: string | undefined): number => (s === undefined ? 0 : s.length)

/** Whether every text field is within the bound: property by property, as this runs for every record (a loop over names costs ten times as much). */
function fits(e: AccessFields): boolean {
  const M = MAX_FIELD_LENGTH
  return e.path.length <= M && e.userAgent.length <= M && e.clientIp.length <= M && e.method.length <= M && len(e.referer) <= M && len(e.session) <= M &&
    len(e.userId) <= M && len(e.requestId) <= M && len(e.upstream) <= M && len(e.upstreamName) <= M && len(e.vhost) <= M && len(e.app) <= M &&
    len(e.version) <= M && len(e.contentType) <= M && len(e.service) <= M && len(e.host) <= M && len(e.id) <= M && (e.extra === undefined || e.extra.every((v) => v.length <= M))
}

/** The event's text fields: what boundFields looks at (all those fits reads). */
const TEXT_FIELDS = ['method', 'path', 'clientIp', 'userAgent', 'referer', 'session', 'userId', 'requestId', 'upstream', 'upstreamName', 'vhost', 'app', 'version', 'contentType', 'service', 'host', 'id'] as const

/**
 * Log fields are attacker-controlled, and any size: a field longer than MAX_FIELD_LENGTH is cut
 * to that length around a digest of the whole (boundText), so a 5 MB user agent costs 2 KB in
 * every place the analysis keeps it and two agents that differ anywhere are still two sessions.
 * When a field was that long, so was the record: its other fields are then copied too, so none of
 * them keeps the record's text alive while the event waits to be judged. Mutates and returns `event`.
 */
export function boundFields(event: AccessFields): AccessFields {
  if (fits(event)) return event
  let cut = false
  for (const name of TEXT_FIELDS) {
    const v = event[name]
    if (v !== undefined && v.length > MAX_FIELD_LENGTH) {
      event[name] = boundText(v)
      cut = true
    }
  }
  const extra = event.extra
  if (extra !== undefined && extra.some((v) => v.length > MAX_FIELD_LENGTH)) {
    event.extra = extra.map((v) => boundText(v))
    cut = true
  }
  if (cut) {
    for (const name of TEXT_FIELDS) {
      const v = event[name]
      if (v !== undefined && v.length <= MAX_FIELD_LENGTH) event[name] = detach(v)
    }
    if (event.extra) event.extra = event.extra.map(detach)
  }
  return event
}

function resolveSession(event: AccessFields, bag: AttributeBag, opts: NormalizeOptions): string | undefined {
  const spec = opts.sessionKey
  switch (spec.kind) {
    case 'ip-ua': return undefined
    case 'attr': return text(compiled(spec.path)(bag))
    case 'cookie': return cookieValue(bag, spec.name)
    case 'auto': {
      if (event.session) return event.session
      // A bag with neither attributes nor top-level fields (a raw access line) holds no session.
      if (bag.attributes === undefined && bag.top === undefined) return event.userId ? `user:${event.userId}` : undefined
      const v = autoSession(bag)
      if (v !== undefined) return v
      const user = event.userId ?? firstOf(bag, AUTO_USER_READS)
      return user ? `user:${user}` : undefined
    }
  }
}

type Rec = Record<string, unknown>
const obj = (v: unknown): Rec | undefined => (v !== null && typeof v === 'object' ? (v as Rec) : undefined)
const or = (flat: unknown, walked: unknown): unknown => (flat !== undefined ? flat : walked)

/**
 * The paths `--session-key auto` tries, in order (`session.id`, `session_id`, `http.session_id`,
 * `sessionId`; then for a user id `usr.id`, `user_id`, `userId`), as plain property reads with
 * `dig`'s rules (a flat key holding the whole path first, then the walk): they run for every record.
 */
/** The attributes AUTO_SESSION_READS and AUTO_USER_READS read: where a record names a session of its own. */
export const AUTO_SESSION_ATTRIBUTES = ['session.id', 'session_id', 'http.session_id', 'sessionId', 'usr.id', 'user_id', 'userId'] as const

const AUTO_SESSION_READS: ((o: Rec) => unknown)[] = [
  (o) => or(o['session.id'], obj(o.session)?.id),
  (o) => o.session_id,
  (o) => or(o['http.session_id'], obj(o.http)?.session_id),
  (o) => o.sessionId,
]

const AUTO_USER_READS: ((o: Rec) => unknown)[] = [
  (o) => or(o['usr.id'], obj(o.usr)?.id),
  (o) => o.user_id,
  (o) => o.userId,
]

/** What `lookup` of each path in turn gives (in the attributes, then the top level): the first usable value. */
function firstOf(bag: AttributeBag, reads: readonly ((o: Rec) => unknown)[]): string | undefined {
  const a = obj(bag.attributes)
  const t = obj(bag.top)
  for (const read of reads) {
    const v = text((a === undefined ? undefined : read(a)) ?? (t === undefined ? undefined : read(t)))
    if (v) return v
  }
  return undefined
}

function autoSession(bag: AttributeBag): string | undefined {
  return firstOf(bag, AUTO_SESSION_READS)
}

/** A cookie from an attribute of its own (`cookie_NAME`, `http.cookies.NAME`) or a Cookie header. */
export function cookieValue(bag: AttributeBag, name: string): string | undefined {
  const own = text(lookup(bag, `cookie_${name}`)) ?? text(lookup(bag, `http.cookies.${name}`))
  if (own) return own
  for (const p of COOKIE_HEADER_PATHS) {
    const header = text(lookup(bag, p))
    if (!header) continue
    for (const part of header.split(';')) {
      const eq = part.indexOf('=')
      if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined
    }
  }
  return undefined
}
