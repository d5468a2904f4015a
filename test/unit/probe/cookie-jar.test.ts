import {CookieJar} from '../../../src/probe/cookie-jar'

const u = (s: string) => new URL(s)

describe('CookieJar', () => {
  let now = 1_000_000
  const jar = () => new CookieJar(() => now)

  it('sends back a session cookie to the host that set it, on every path under its default path', () => {
    const j = jar()
    j.store('INGRESSCOOKIE=abc123|def; Path=/; HttpOnly', u('http://127.0.0.1:8080/'))
    expect(j.header(u('http://127.0.0.1:8080/_build/app.js'))).toBe('INGRESSCOOKIE=abc123|def')
    expect(j.header(u('http://127.0.0.2:8080/'))).toBeUndefined()
    j.store('dir=1', u('http://h.example/a/b/page'))
    expect(j.header(u('http://h.example/a/b/other'))).toBe('dir=1')
    expect(j.header(u('http://h.example/a/bc'))).toBeUndefined()
    expect(j.header(u('http://h.example/'))).toBeUndefined()
  })

  it('replaces a cookie of the same name, domain and path, and orders longer paths first', () => {
    const j = jar()
    j.store('a=1; Path=/', u('http://h/'))
    j.store('b=2; Path=/x', u('http://h/'))
    j.store('a=3; Path=/', u('http://h/'))
    expect(j.header(u('http://h/x/y'))).toBe('b=2; a=3')
    expect(j.size).toBe(2)
  })

  it('handles Domain: subdomains match, other domains are refused', () => {
    const j = jar()
    j.store('d=1; Domain=.example.com; Path=/', u('https://www.example.com/'))
    j.store('evil=1; Domain=other.com', u('https://www.example.com/'))
    expect(j.header(u('https://cdn.example.com/x.js'))).toBe('d=1')
    expect(j.header(u('https://other.com/'))).toBeUndefined()
  })

  it('expires cookies by Max-Age (which wins over Expires) and deletes with Max-Age=0', () => {
    const j = jar()
    j.store('s=1; Max-Age=10; Expires=Thu, 01 Jan 1970 00:00:00 GMT', u('http://h/'))
    expect(j.header(u('http://h/'))).toBe('s=1')
    now += 10_001
    expect(j.header(u('http://h/'))).toBeUndefined()
    j.store('t=1', u('http://h/'))
    j.store('t=; Max-Age=0', u('http://h/'))
    expect(j.header(u('http://h/'))).toBeUndefined()
    j.store(`e=1; Expires=${new Date(now + 5000).toUTCString()}`, u('http://h/'))
    expect(j.header(u('http://h/'))).toBe('e=1')
  })

  it('keeps Secure cookies off plain http and ignores malformed ones', () => {
    const j = jar()
    j.store('sec=1; Secure', u('https://h/'))
    j.store('=nameless', u('https://h/'))
    j.store('no-equals-sign', u('https://h/'))
    expect(j.header(u('https://h/'))).toBe('sec=1')
    expect(j.header(u('http://h/'))).toBeUndefined()
  })
})

describe('CookieJar: public suffixes and bounds', () => {
  const jar = () => new CookieJar(() => 1_000_000)

  it('refuses a cookie whose Domain is a public suffix (co.uk, com, github.io), keeps one for the site', () => {
    const j = jar()
    j.store('psl=1; Domain=co.uk; Path=/', u('https://shop.example.co.uk/'))
    j.store('tld=1; Domain=com; Path=/', u('https://www.example.com/'))
    j.store('pages=1; Domain=github.io; Path=/', u('https://me.github.io/'))
    j.store('site=1; Domain=example.co.uk; Path=/', u('https://shop.example.co.uk/'))
    expect(j.header(u('https://other.co.uk/'))).toBeUndefined()
    expect(j.header(u('https://other.com/'))).toBeUndefined()
    expect(j.header(u('https://you.github.io/'))).toBeUndefined()
    expect(j.header(u('https://api.example.co.uk/'))).toBe('site=1')
    expect(j.size).toBe(1)
  })

  it('holds at most 200 cookies, letting the oldest go', () => {
    const j = jar()
    for (let i = 0; i < 250; i++) j.store(`c${i}=${i}; Path=/`, u('http://h/'))
    expect(j.size).toBe(200)
    const sent = j.header(u('http://h/'))?.split('; ') ?? []
    expect(sent).toHaveLength(200)
    expect(sent[0]).toBe('c50=50')
    expect(sent.at(-1)).toBe('c249=249')
  })
})
