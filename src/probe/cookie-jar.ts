import {Cookie, CookieJar as ToughJar, MemoryCookieStore} from 'tough-cookie'

/**
 * A browser's cookie jar for the probe and the lab's browsers: tough-cookie's (RFC 6265: host-only
 * and domain cookies, paths, Secure, HttpOnly, Max-Age over Expires, cookie prefixes) with the
 * public-suffix list, so a page cannot set a cookie for `co.uk` or `com` that the probe would then
 * send to every other site under it. What is added here: the clock is passed in (the lab runs on a
 * simulated one, and expiry is testable), and the jar's size is capped.
 */

/** A jar never holds more than this: a hostile site cannot grow the probe's memory. */
const MAX_COOKIES = 200

export class CookieJar {
  private readonly cookies = new MemoryCookieStore()
  // Secure cookies only over https, localhost included, as before: a probe of http://127.0.0.1
  // sends what a browser would send to a production origin over http.
  private readonly jar = new ToughJar(this.cookies, {rejectPublicSuffixes: true, allowSecureOnLocal: false})

  constructor(private readonly now: () => number = Date.now) {}

  get size(): number {
    return this.all().length
  }

  /** Stores one `Set-Cookie` header value received for `requestUrl`; ignores it when malformed, for another domain or for a public suffix. */
  store(setCookie: string, requestUrl: URL): void {
    const cookie = Cookie.parse(setCookie)
    if (!cookie) return
    const now = this.now()
    // tough-cookie counts Max-Age from the last access by the wall clock: made a date here, by ours.
    if (typeof cookie.maxAge === 'number') {
      cookie.expires = new Date(Math.max(0, now + cookie.maxAge * 1000))
      cookie.maxAge = null
    }
    const stored = this.jar.setCookieSync(cookie, requestUrl, {now: new Date(now), ignoreError: true})
    if (!stored) return
    // One that has already expired deletes the cookie it replaces (RFC 6265 §5.3, step 11).
    if (expired(stored, now)) this.remove(stored)
    const all = this.all()
    if (all.length > MAX_COOKIES) this.remove(all.reduce((a, b) => (b.creationIndex < a.creationIndex ? b : a)))
  }

  /** The Cookie header to send to `url`, or undefined when no cookie applies. */
  header(url: URL): string | undefined {
    const now = this.now()
    // Expiry by our clock, not tough-cookie's (the wall clock): it is asked not to expire any. Sorted as
    // RFC 6265 §5.4 orders them: longer paths first, then the earliest set.
    const cookies = this.jar.getCookiesSync(url, {expire: false, sort: true}).filter((c) => {
      if (!expired(c, now)) return true
      this.remove(c)
      return false
    })
    return cookies.length === 0 ? undefined : cookies.map((c) => c.cookieString()).join('; ')
  }

  private all(): Cookie[] {
    let all: Cookie[] = []
    // MemoryCookieStore answers synchronously.
    this.cookies.getAllCookies((err, cookies) => {
      if (!err && cookies) all = cookies
    })
    return all
  }

  private remove(c: Cookie): void {
    if (c.domain !== null && c.path !== null) this.cookies.removeCookie(c.domain, c.path, c.key, () => undefined)
  }
}

function expired(c: Cookie, now: number): boolean {
  const at = c.expiryTime()
  return at !== undefined && at <= now
}
