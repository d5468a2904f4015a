import type {AccessFields} from '../model/parse-outcome'

/** Event fields a user may map to a custom attribute with `--field NAME=PATH`. */
export const MAPPABLE_FIELDS = ['session', 'userId', 'version', 'upstream', 'contentType', 'requestId', 'clientIp', 'userAgent', 'referer', 'service', 'host'] as const
export type MappableField = (typeof MAPPABLE_FIELDS)[number]

export type SessionKeySpec =
  | {kind: 'auto'}
  | {kind: 'ip-ua'}
  | {kind: 'cookie'; name: string}
  | {kind: 'attr'; path: string}

export interface NormalizeOptions {
  /** Attribute paths (`http.cookies.x`, `@usr.id`, `tag:version`) for mapped fields. */
  fields: Partial<Record<MappableField, string>>
  sessionKey: SessionKeySpec
}

export const DEFAULT_NORMALIZE: NormalizeOptions = {fields: {}, sessionKey: {kind: 'auto'}}

/** A record's raw attributes and tags, where mapped fields are looked up. */
export interface AttributeBag {
  attributes?: Record<string, unknown>
  /** Top-level event properties (service, host) tried when the attributes lack a path. */
  top?: Record<string, unknown>
  tags?: readonly string[]
}

const AUTO_SESSION_PATHS = ['session.id', 'session_id', 'http.session_id', 'sessionId']
const AUTO_USER_PATHS = ['usr.id', 'user_id', 'userId']
const COOKIE_HEADER_PATHS = ['http.cookie', 'http.request.headers.cookie', 'http_cookie', 'cookie']

/** The value at a path: `tag:NAME` reads a `NAME:value` tag, else a dotted path (a leading `@` is ignored). */
export function lookup(bag: AttributeBag, path: string): unknown {
  if (path.startsWith('tag:')) {
    const prefix = `${path.slice(4)}:`
    const tag = bag.tags?.find((t) => t.startsWith(prefix))
    return tag === undefined ? undefined : tag.slice(prefix.length)
  }
  const p = path.startsWith('@') ? path.slice(1) : path
  return dig(bag.attributes, p) ?? dig(bag.top, p)
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

/** A usable string from a logged value: numbers are stringified, `-` and empty mean absent. */
export function text(v: unknown): string | undefined {
  if (typeof v === 'string') return v === '' || v === '-' ? undefined : v
  if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  return undefined
}

/** Applies `--field` mappings and resolves the session key. Mutates and returns `event`. */
export function applyMapping(event: AccessFields, bag: AttributeBag, opts: NormalizeOptions): AccessFields {
  for (const name of MAPPABLE_FIELDS) {
    const path = opts.fields[name]
    if (path === undefined) continue
    const v = text(lookup(bag, path))
    if (v !== undefined) event[name] = v
  }
  const session = resolveSession(event, bag, opts)
  if (session !== undefined) event.session = session
  else delete event.session
  return event
}

function resolveSession(event: AccessFields, bag: AttributeBag, opts: NormalizeOptions): string | undefined {
  const spec = opts.sessionKey
  switch (spec.kind) {
    case 'ip-ua': return undefined
    case 'attr': return text(lookup(bag, spec.path))
    case 'cookie': return cookieValue(bag, spec.name)
    case 'auto': {
      if (event.session) return event.session
      for (const p of AUTO_SESSION_PATHS) {
        const v = text(lookup(bag, p))
        if (v) return v
      }
      const user = event.userId ?? first(bag, AUTO_USER_PATHS)
      return user ? `user:${user}` : undefined
    }
  }
}

function first(bag: AttributeBag, paths: readonly string[]): string | undefined {
  for (const p of paths) {
    const v = text(lookup(bag, p))
    if (v) return v
  }
  return undefined
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
