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

export function dig(obj: unknown, path: string): unknown {
  if (obj === null || typeof obj !== 'object') return undefined
  const rec = obj as Record<string, unknown>
  if (path in rec) return rec[path] // flat keys such as nginx's `cookie_INGRESSCOOKIE` or CSV's dotted columns
  const dot = path.indexOf('.')
  if (dot === -1) return undefined
  // Try every split point: attribute names may themselves contain dots.
  for (let i = dot; i !== -1; i = path.indexOf('.', i + 1)) {
    const head = rec[path.slice(0, i)]
    if (head !== undefined) {
      const v = dig(head, path.slice(i + 1))
      if (v !== undefined) return v
    }
  }
  return undefined
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
