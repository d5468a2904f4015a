import {ConfigError} from '../../../src/config/parse'
import {MIN_INTERVAL_MS, parseCookies, parseHeaders, probeSettings} from '../../../src/probe/options'

const flags = {interval: '300ms', timeout: '5s', sticky: false, concurrency: 6, 'give-up-after': 10}

describe('probe options', () => {
  it('turns flags into settings', () => {
    expect(probeSettings('http://127.0.0.1:8080', {...flags, duration: '2m', count: 5, header: ['X-Env: lab'], cookie: ['a=1; b=2']})).toEqual({
      url: 'http://127.0.0.1:8080/', intervalMs: 300, timeoutMs: 5000, durationMs: 120_000, count: 5, sticky: false, concurrency: 6, giveUpAfter: 10,
      headers: {'x-env': 'lab'}, cookies: ['a=1', 'b=2'],
    })
  })

  it.each([
    ['not a url', {}, /not a URL/],
    ['ftp://h/', {}, /must be http/],
    ['http://h/', {interval: 'soon'}, /--interval/],
    ['http://h/', {timeout: '0s'}, /--timeout/],
    ['http://h/', {interval: '0'}, /^--interval must be at least 100ms \(got "0"\)/],
    ['http://h/', {interval: '0ms'}, /--interval must be at least 100ms/],
    ['http://h/', {interval: '99ms'}, /--interval must be at least 100ms/],
    ['http://h/', {interval: '0.05'}, /--interval must be at least 100ms/],
  ])('rejects %s %j', (url, over, message) => {
    expect(() => probeSettings(url, {...flags, ...over})).toThrow(message)
  })

  it('accepts the minimum interval, and gives no --count or --duration of its own (the probe applies its bound)', () => {
    expect(probeSettings('http://h/', {...flags, interval: '100ms'}).intervalMs).toBe(MIN_INTERVAL_MS)
    expect(() => probeSettings('http://h/', {...flags, interval: '0'})).toThrow(ConfigError)
    const s = probeSettings('http://h/', {...flags, 'give-up-after': 0})
    expect(s.giveUpAfter).toBe(0)
    expect(s).not.toHaveProperty('count')
    expect(s).not.toHaveProperty('durationMs')
  })

  it('checks headers and cookies', () => {
    expect(parseHeaders(['Authorization: Bearer a:b', 'authorization: Bearer c'])).toEqual({authorization: 'Bearer c'})
    expect(() => parseHeaders(['no colon'])).toThrow(ConfigError)
    expect(() => parseHeaders(['Bad Name: x'])).toThrow(/Name: value/)
    expect(() => parseHeaders(['X: a\r\nInjected: 1'])).toThrow(/control characters/)
    expect(parseCookies(['INGRESSCOOKIE=abc|def', ' x = y ;'])).toEqual(['INGRESSCOOKIE=abc|def', 'x=y'])
    expect(() => parseCookies(['=nameless'])).toThrow(/name=value/)
  })
})
