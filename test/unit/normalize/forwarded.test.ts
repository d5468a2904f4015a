/**
 * X-Forwarded-For: hops that are no address (`unknown`, `-`, RFC 7239's obfuscated `_hidden`) are
 * never the client, and `--trusted-proxies` takes the right-most address no trusted proxy added.
 */
import {normalizeSettings} from '../../../src/config/analyze-options'
import {ConfigError} from '../../../src/config/parse'
import type {NormalizeOptions} from '../../../src/normalize/fields'
import {DEFAULT_NORMALIZE} from '../../../src/normalize/fields'
import {compileTrusted, hopAddress, trustedClient} from '../../../src/normalize/forwarded'
import {normalizeLine} from '../../../src/sources/file/records'

const client = (line: string, opts: NormalizeOptions = DEFAULT_NORMALIZE): string => {
  const [out] = normalizeLine(line, opts)
  if (!out?.ok) throw new Error(`not read: ${JSON.stringify(out)}`)
  return out.event.clientIp
}
const trusting = (cidrs: string): NormalizeOptions => normalizeSettings({'session-key': 'auto', 'app-key': 'auto', 'trusted-proxies': cidrs})

const TAIL = '[29/Nov/2026:14:00:00 +0000] "GET /_build/app.1d31a2e5.js HTTP/1.1" 200 1832 "https://web.example/" "Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0"'
/** nginx's `main` with the forwarded-for list before the peer (Filebeat's reading: the first public address). */
const xffHead = (xff: string, peer = '10.2.1.185'): string => `"${xff}" ${peer} - - ${TAIL}`
const nginxJson = (xff: string, peer?: string): string => JSON.stringify({
  time_iso8601: '2026-11-29T14:00:00+00:00', ...(peer ? {remote_addr: peer} : {}), http_x_forwarded_for: xff, request: 'GET / HTTP/1.1', status: '200', body_bytes_sent: '1832',
  http_user_agent: 'Mozilla/5.0', http_referer: '-', request_id: '6d9a3f0c2b1e4f7a8c5d0e1f2a3b4c5d', host: 'web.example',
})
const envoyJson = (xff: string): string => JSON.stringify({
  start_time: '2026-11-29T14:00:00.123Z', method: 'GET', path: '/', protocol: 'HTTP/1.1', response_code: 200, bytes_sent: 1832, x_forwarded_for: xff,
  user_agent: 'Mozilla/5.0', request_id: 'c3b1f0e2-7a4d-4e8b-9c1d-2f3e4a5b6c7d', authority: 'web.example', upstream_host: '10.1.0.5:8080', downstream_remote_address: '10.0.0.9:52344',
})
const envoyText = (xff: string): string => `[2026-11-29T14:00:00.123Z] "GET / HTTP/1.1" 200 - 0 1832 3 2 "${xff}" "Mozilla/5.0" "c3b1f0e2-7a4d-4e8b-9c1d-2f3e4a5b6c7d" "web.example" "10.1.0.5:8080"`
const heroku = (fwd: string): string => `2026-11-29T14:00:00.123456+00:00 heroku[router]: at=info method=GET path="/" host=web.herokuapp.com request_id=2f1e0d9c-8b7a-4c6d-9e5f-4a3b2c1d0e9f fwd="${fwd}" dyno=web.1 connect=0ms service=3ms status=200 bytes=1832 protocol=https`

describe('X-Forwarded-For hops that are no address', () => {
  it.each([
    ['nginx main, unknown first', xffHead('unknown, 203.0.113.7'), '203.0.113.7'],
    ['nginx main, dash first', xffHead('-, 198.51.100.4'), '198.51.100.4'],
    ['nginx main, obfuscated first', xffHead('_hidden, 198.51.100.5'), '198.51.100.5'],
    ['nginx main, unknown before private hops', xffHead('unknown, 10.0.0.3'), '10.0.0.3'],
    ['nginx JSON without remote_addr', nginxJson('unknown, 198.51.100.20'), '198.51.100.20'],
    ['nginx JSON, only unknown', nginxJson('unknown'), ''],
    ['Envoy JSON', envoyJson('_hidden, 198.51.100.3'), '198.51.100.3'],
    ['Envoy JSON, only unknown: the downstream', envoyJson('unknown'), '10.0.0.9'],
    ['Envoy text', envoyText('unknown, [2001:db8::7]:443'), '2001:db8::7'],
    ['Heroku router', heroku('unknown,24.5.226.71'), '24.5.226.71'],
  ])('%s', (_name, line, want) => {
    expect(client(line)).toBe(want)
  })

  it('keeps two people behind an `unknown` hop apart', () => {
    expect(client(xffHead('unknown, 198.51.100.1'))).not.toBe(client(xffHead('unknown, 198.51.100.2')))
    expect(client(envoyJson('unknown, 198.51.100.1'))).not.toBe(client(envoyJson('unknown, 198.51.100.2')))
  })

  it('tells addresses from text', () => {
    expect(['1.2.3.4', '1.2.3.4:80', '[2001:db8::1]:443', '2001:db8::1', '"192.0.2.1"', 'fe80::1%eth0', 'unknown', '-', '_hidden', 'example.com', '300.1.1.1', '']
      .map(hopAddress)).toEqual(['1.2.3.4', '1.2.3.4', '2001:db8::1', '2001:db8::1', '192.0.2.1', 'fe80::1%eth0', undefined, undefined, undefined, undefined, undefined, undefined])
  })
})

describe('--trusted-proxies', () => {
  // A client that writes its own header: `X-Forwarded-For: 1.1.1.1` arrives at the load balancer
  // (10.0.0.1) from 198.51.100.9, which appends it; the ingress logs the list before its peer.
  const spoofed = xffHead('1.1.1.1, 198.51.100.9', '10.0.0.1')

  it('takes the right-most address no trusted proxy added, whatever the client wrote', () => {
    expect(client(spoofed)).toBe('1.1.1.1')
    expect(client(spoofed, trusting('10.0.0.0/8'))).toBe('198.51.100.9')
    expect(client(nginxJson('1.1.1.1, 198.51.100.9', '10.0.0.1'), trusting('10.0.0.0/8'))).toBe('198.51.100.9')
    // A peer that is no trusted proxy is the client, whatever the header says.
    expect(client(nginxJson('1.1.1.1', '203.0.113.50'), trusting('10.0.0.0/8'))).toBe('203.0.113.50')
    expect(client(envoyJson('1.1.1.1, 198.51.100.9, 10.0.0.7'), trusting('10.0.0.0/8'))).toBe('198.51.100.9')
    // Trusting the second proxy too moves one hop left; hops that are no address never count.
    expect(client(xffHead('1.1.1.1, 198.51.100.9, unknown', '10.0.0.1'), trusting('10.0.0.0/8, 198.51.100.9'))).toBe('1.1.1.1')
    expect(client(heroku('1.1.1.1,2001:db8::5,::ffff:10.0.0.2'), trusting('10.0.0.0/8'))).toBe('2001:db8::5')
  })

  it('takes the left-most address when every hop is a trusted proxy', () => {
    expect(trustedClient(['10.0.0.5', '10.0.0.6'], compileTrusted(['10.0.0.0/8']))).toBe('10.0.0.5')
    expect(trustedClient(['unknown'], compileTrusted(['10.0.0.0/8']))).toBeUndefined()
  })

  it('refuses what is no address or CIDR, naming the flag', () => {
    expect(() => trusting('10.0.0.0/33')).toThrow(ConfigError)
    expect(() => trusting('proxy.internal')).toThrow(/--trusted-proxies: not an address or CIDR: "proxy.internal"/)
    expect(() => trusting(' , ')).toThrow(/--trusted-proxies/)
    expect(trusting('10.0.0.0/8, 2001:db8::/32,192.0.2.7').trustedProxies).toEqual(['10.0.0.0/8', '2001:db8::/32', '192.0.2.7'])
  })
})
