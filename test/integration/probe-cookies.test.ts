import http, {type IncomingHttpHeaders} from 'node:http'
import type {AddressInfo, LookupFunction} from 'node:net'
import {CookieJar} from '../../src/probe/cookie-jar'
import {HttpClient} from '../../src/probe/http-client'

/*
 * The probe's jar through its HTTP client against a real server on 127.0.0.1. Every host name
 * resolves to that server, so the jar sees real names (shop.example.co.uk, other.co.uk) while the
 * requests stay on loopback.
 */
const seen: {host: string | undefined; path: string; headers: IncomingHttpHeaders}[] = []
const server = http.createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0] ?? '/'
  seen.push({host: req.headers.host?.split(':')[0], path, headers: req.headers})
  const headers: Record<string, string | string[]> = {'content-type': 'text/plain'}
  if (path === '/set') {
    headers['set-cookie'] = [
      'host=1; Path=/',
      'site=1; Domain=example.co.uk; Path=/',
      // a public suffix: a browser refuses it, or every .co.uk site would get it
      'psl=1; Domain=co.uk; Path=/',
      'other=1; Domain=elsewhere.co.uk; Path=/',
      'short=1; Path=/; Max-Age=0',
    ]
  }
  res.writeHead(200, headers).end('ok\n')
})
let port = 0
const toLoopback: LookupFunction = (_host, options, callback) => {
  if (options.all) callback(null, [{address: '127.0.0.1', family: 4}])
  else callback(null, '127.0.0.1', 4)
}

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

describe('the probe\'s cookie jar over HTTP', () => {
  it('sends the site\'s cookies back to the site and refuses a cookie for a public suffix (Domain=co.uk)', async () => {
    const client = new HttpClient({userAgent: 'test', timeoutMs: 5000, maxSockets: 2, jar: new CookieJar(), lookup: toLoopback})
    try {
      const at = (host: string, path: string) => `http://${host}:${port}${path}`
      expect((await client.get(at('shop.example.co.uk', '/set'))).status).toBe(200)
      for (const host of ['shop.example.co.uk', 'api.example.co.uk', 'other.co.uk', 'elsewhere.co.uk']) {
        expect((await client.get(at(host, '/echo'))).status).toBe(200)
      }
      const cookieAt = (host: string) => seen.find((s) => s.host === host && s.path === '/echo')?.headers.cookie
      expect(cookieAt('shop.example.co.uk')).toBe('host=1; site=1')
      expect(cookieAt('api.example.co.uk')).toBe('site=1')
      expect(cookieAt('other.co.uk')).toBeUndefined()
      expect(cookieAt('elsewhere.co.uk')).toBeUndefined()
    } finally {
      client.close()
    }
  })
})
