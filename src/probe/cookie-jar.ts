/**
 * A browser-like cookie jar (the parts of RFC 6265 a probe needs): host-only and domain cookies,
 * paths, Secure, Max-Age and Expires. The clock is passed in, so expiry is testable.
 */
interface StoredCookie {
  name: string
  value: string
  domain: string
  hostOnly: boolean
  path: string
  secure: boolean
  /** Epoch ms; undefined for a session cookie. */
  expires: number | undefined
  created: number
}

/** A jar never holds more than this: a hostile site cannot grow the probe's memory. */
const MAX_COOKIES = 200

export class CookieJar {
  private readonly cookies = new Map<string, StoredCookie>()
  private created = 0

  constructor(private readonly now: () => number = Date.now) {}

  get size(): number {
    return this.cookies.size
  }

  /** Stores one `Set-Cookie` header value received for `requestUrl`; ignores it when malformed or for another domain. */
  store(setCookie: string, requestUrl: URL): void {
    const [pair = '', ...attrs] = setCookie.split(';')
    const eq = pair.indexOf('=')
    if (eq <= 0) return
    const name = pair.slice(0, eq).trim()
    const value = pair.slice(eq + 1).trim()
    if (name === '') return
    const host = requestUrl.hostname.toLowerCase()
    let domain = host
    let hostOnly = true
    let path = defaultPath(requestUrl.pathname)
    let secure = false
    let maxAge: number | undefined
    let expires: number | undefined
    for (const a of attrs) {
      const i = a.indexOf('=')
      const key = (i === -1 ? a : a.slice(0, i)).trim().toLowerCase()
      const val = i === -1 ? '' : a.slice(i + 1).trim()
      if (key === 'domain' && val !== '') {
        const d = val.replace(/^\./, '').toLowerCase()
        if (!domainMatches(host, d)) return
        domain = d
        hostOnly = false
      } else if (key === 'path' && val.startsWith('/')) path = val
      else if (key === 'secure') secure = true
      else if (key === 'max-age' && /^-?\d+$/.test(val)) maxAge = Number(val)
      else if (key === 'expires') {
        const t = Date.parse(val)
        if (!Number.isNaN(t)) expires = t
      }
    }
    const now = this.now()
    if (maxAge !== undefined) expires = now + maxAge * 1000
    const key = `${domain}\t${path}\t${name}`
    if (expires !== undefined && expires <= now) {
      this.cookies.delete(key)
      return
    }
    const created = this.cookies.get(key)?.created ?? this.created++
    this.cookies.set(key, {name, value, domain, hostOnly, path, secure, expires, created})
    if (this.cookies.size > MAX_COOKIES) this.cookies.delete(this.cookies.keys().next().value as string)
  }

  /** The Cookie header to send to `url`, or undefined when no cookie applies. */
  header(url: URL): string | undefined {
    const now = this.now()
    const host = url.hostname.toLowerCase()
    const matching: StoredCookie[] = []
    for (const [key, c] of this.cookies) {
      if (c.expires !== undefined && c.expires <= now) {
        this.cookies.delete(key)
        continue
      }
      if (c.hostOnly ? host !== c.domain : !domainMatches(host, c.domain)) continue
      if (!pathMatches(url.pathname, c.path) || (c.secure && url.protocol !== 'https:')) continue
      matching.push(c)
    }
    if (matching.length === 0) return undefined
    matching.sort((a, b) => b.path.length - a.path.length || a.created - b.created)
    return matching.map((c) => `${c.name}=${c.value}`).join('; ')
  }
}

function domainMatches(host: string, domain: string): boolean {
  return host === domain || (host.endsWith(`.${domain}`) && !/^\d+\.\d+\.\d+\.\d+$/.test(host))
}

function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true
  if (!requestPath.startsWith(cookiePath)) return false
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/'
}

/** RFC 6265 §5.1.4: the directory of the request path. */
function defaultPath(p: string): string {
  if (!p.startsWith('/')) return '/'
  const last = p.lastIndexOf('/')
  return last <= 0 ? '/' : p.slice(0, last)
}
