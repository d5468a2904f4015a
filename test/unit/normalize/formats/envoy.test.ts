/**
 * Envoy / Istio access logs: the format check on the real samples of fixtures/formats/envoy and
 * against other formats, hand-written edge cases, hostile input, and the writers of
 * scripts/captures/formats/envoy.ts read back. Every sample against its expected output is samples.test.ts's.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import type {AccessFields, ParseOutcome} from '../../../../src/model'
import {envoyJson, envoyText} from '../../../../src/normalize/formats/envoy'
import type {CaptureRecord} from '../../../../scripts/captures/formats/capture-record'
import {toEnvoy, toEnvoyJson, toIstio} from '../../../../scripts/captures/formats/envoy'

const DIR = join(__dirname, '..', '..', '..', '..', 'fixtures', 'formats', 'envoy')

const isJsonFixture = (f: string): boolean => f.endsWith('.ndjson')
const samples = readdirSync(DIR).filter((f) => f.endsWith('.log') || isJsonFixture(f)).sort()

function linesOf(file: string): string[] {
  const lines = readFileSync(join(DIR, file), 'utf8').split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

describe('Envoy / Istio: looksLike on the real samples', () => {
  it.each(samples)('%s: every Envoy record, TCP lines included', (file) => {
    for (const l of linesOf(file)) {
      // The Docker-envelope lines of integrations-envoyproxy.log are not Envoy records.
      const envoyRecord = isJsonFixture(file) || !l.startsWith('{')
      const looks = isJsonFixture(file) ? envoyJson.looksLike(JSON.parse(l) as Record<string, unknown>) : envoyText.looksLike(l)
      expect(looks).toBe(envoyRecord)
    }
  })
})

describe('Envoy / Istio text: details', () => {
  const line = (tail = ''): string =>
    `[2016-04-15T20:17:00.310Z] "GET /app/main.js?v=2 HTTP/1.1" 200 - 0 1234 3 2 "203.0.113.7, 10.0.0.1" "Mozilla/5.0" "req-1" "app.example.com" "10.1.2.3:8080"${tail}`

  it('takes the first X-Forwarded-For address, strips the query string and keeps the path undecoded', () => {
    const r = envoyText.parse(line().replace('/app/main.js', '/a%20b/main.js'))
    expect(r.ok && r.event).toMatchObject({clientIp: '203.0.113.7', path: '/a%20b/main.js', bytes: 1234, upstream: '10.1.2.3:8080'})
  })

  it('drops tcp:// from %UPSTREAM_HOST% and leaves out Envoy internal listeners', () => {
    const tcp = envoyText.parse(line().replace('"10.1.2.3:8080"', '"tcp://10.0.2.1:80"'))
    expect(tcp.ok && tcp.event.upstream).toBe('10.0.2.1:80')
    const internal = envoyText.parse(line().replace('"10.1.2.3:8080"', '"envoy://main_internal/10.0.0.5:80"'))
    expect(internal.ok && internal.event.upstream).toBeUndefined()
  })

  it('falls back to %DOWNSTREAM_REMOTE_ADDRESS% without its port when there is no X-Forwarded-For (Istio)', () => {
    const istio = '[2020-11-25T21:26:18.409Z] "GET / HTTP/1.1" 200 - via_upstream - "-" 0 135 4 4 "-" "curl" "id" "web:80" "10.44.1.27:80" outbound|80||webapp.default.svc.cluster.local 10.44.1.23:37652 10.0.45.184:8000 [2001:db8::1]:46520 - default'
    const r = envoyText.parse(istio)
    expect(r.ok && r.event).toMatchObject({clientIp: '2001:db8::1', upstreamName: 'outbound|80||webapp.default.svc.cluster.local'})
  })

  it('reads Istio 1.5-1.8 lines ("%DYNAMIC_METADATA(istio.mixer:status)%" before the byte counts)', () => {
    const old = '[2020-05-13T22:03:44.187Z] "GET /ip HTTP/1.1" 200 - "-" "-" 0 770 26 26 "-" "curl/7.64.0" "f097c809" "httpbin.org" "10.0.4.13:80" outbound|80||istio-egressgateway.istio-system.svc.cluster.local - 35.170.216.115:80 10.0.0.93:39849 - -'
    const r = envoyText.parse(old)
    expect(r.ok && r.event).toMatchObject({bytes: 770, clientIp: '10.0.0.93', path: '/ip'})
  })

  it('reads the `ACCESS ` prefix of Ambassador/Emissary', () => {
    expect(envoyText.parse(`ACCESS ${line()}`).ok).toBe(true)
    expect(envoyText.looksLike(`ACCESS ${line()}`)).toBe(true)
  })

  it('rejects status 0 (no response) as bad-status and TCP connections as missing-path', () => {
    const zero = envoyText.parse(line().replace('" 200 - ', '" 0 DC '))
    expect(zero).toMatchObject({ok: false, reason: 'bad-status'})
    expect(!zero.ok && zero.detail).toMatch(/no response/)
    const tcp = envoyText.parse('[2019-04-08T16:50:12.533Z] "- - -" 0 - 87 254 4 - "-" "-" "-" "-" "172.27.0.2:80"')
    expect(tcp).toMatchObject({ok: false, reason: 'missing-path'})
    expect(!tcp.ok && tcp.detail).toMatch(/TCP connection/)
  })

  it('rejects an unreadable time as bad-time', () => {
    expect(envoyText.parse(line().replace('2016-04-15T20:17:00.310Z', '2016-13-15T20:17:00.310Z'))).toMatchObject({ok: false, reason: 'bad-time'})
  })
})

describe('Envoy / Istio: looksLike', () => {
  const NGINX = '127.0.0.1 - - [10/Oct/2023:13:55:36 +0000] "GET / HTTP/1.1" 200 5 "-" "curl"'
  const NGINX_ISO = '[2023-10-10T13:55:36+00:00] "GET / HTTP/1.1" 200 5 "-" "curl"'

  it('is false for nginx combined lines (also with an ISO time first)', () => {
    expect(envoyText.looksLike(NGINX)).toBe(false)
    expect(envoyText.looksLike(NGINX_ISO)).toBe(false)
    expect(envoyText.parse(NGINX).ok).toBe(false)
  })

  it('is false for Datadog events, nginx JSON and other JSON', () => {
    const datadog = {id: 'AQAAAAAAAaIr', type: 'log', attributes: {timestamp: '2026-11-30T07:18:44.638Z', host: 'ingress', service: 'ingress-nginx', message: NGINX,
      attributes: {http: {url: '/', method: 'GET', status_code: 200, url_details: {path: '/'}}, network: {client: {ip: '127.10.25.25'}, bytes_written: 3385}}}}
    expect(envoyJson.looksLike(datadog)).toBe(false)
    expect(envoyJson.looksLike(datadog.attributes as Record<string, unknown>)).toBe(false)
    expect(envoyJson.looksLike({time_iso8601: '2026-11-30T07:18:26.070+00:00', status: 200, request_uri: '/', request_method: 'GET', body_bytes_sent: 5})).toBe(false)
    expect(envoyJson.looksLike({})).toBe(false)
    expect(envoyText.looksLike(JSON.stringify(datadog))).toBe(false)
  })

  it('stays cheap on a very long line: it looks no further than a bounded window, whatever the line\'s length', () => {
    const long = `[2016-04-15T20:17:00.310Z] "GET /${'a'.repeat(5_000_000)}`
    expect(envoyText.looksLike(long)).toBe(false)
    // The same valid line with its request field closing past the window is not looked for (no
    // wall-clock assertion: one failed on a busy machine; what keeps it cheap is the window).
    const valid = (path: string): string => `[2020-05-13T22:03:44.187Z] "GET /${path} HTTP/1.1" 200 - "-" "-" 0 770 26 26 "-" "curl/7.64.0" "f097c809" "httpbin.org" "10.0.4.13:80" outbound|80||x.svc.cluster.local - 35.170.216.115:80 10.0.0.93:39849 - -`
    expect(envoyText.looksLike(valid('ip'))).toBe(true)
    expect(envoyText.looksLike(valid('a'.repeat(9000)))).toBe(false)
    expect(envoyText.looksLike(valid('a'.repeat(5_000_000)))).toBe(false)
  })
})

describe('Envoy / Istio: hostile input', () => {
  const good = '[2022-06-22T10:27:00.362Z] "GET /status/418 HTTP/1.1" 418 - via_upstream - "-" 0 135 25 25 "-" "curl/7.83.1-DEV" "adc1465d" "httpbin:8000" "172.17.0.7:80" outbound|8000||httpbin.default.svc.cluster.local 172.17.0.6:57130 10.99.37.119:8000 172.17.0.6:50514 - default'
  const cases: string[] = [
    '',
    ' ',
    '\u0000\u0001\u0002\u0003\u001b[2J',
    '[\u0000\u0000\u0000\u0000-\u0000\u0000-\u0000\u0000T\u0000\u0000:\u0000\u0000:\u0000\u0000]',
    '[',
    '[2022-06-22T10:27:00.362Z',
    '[2022-06-22T10:27:00.362Z] ',
    '[2022-06-22T10:27:00.362Z] "',
    `[2022-06-22T10:27:00.362Z] "${'"'.repeat(200_000)}`,
    `[2022-06-22T10:27:00.362Z] "GET /${'x'.repeat(1_000_000)}`,
    `[2022-06-22T10:27:00.362Z] "GET / HTTP/1.1" 200 - ${'0 '.repeat(100_000)}`,
    `[2022-06-22T10:27:00.362Z] "GET / HTTP/1.1" 200 - via_upstream - "-" 0 135 25 25 ${'"a '.repeat(100_000)}`,
    `[${'9'.repeat(100_000)}] "GET / HTTP/1.1" 200`,
    '[2022-06-22T10:27:00.362Z] "GET / HTTP/1.1" 2000 - 0 5 1 1 "-" "-" "-" "-" "-"',
    '[2022-06-22T10:27:00.362Z] "GET / HTTP/1.1" 200 - 0 9999999999999999 1 1 "-" "-" "-" "-" "-"',
    '[2022-06-22T10:27:00.362Z] "G\u0000T / HTTP/1.1" 200 - 0 5 1 1 "-" "-" "-" "-" "-"',
    ...Array.from({length: good.length - 1}, (_, n) => good.slice(0, n)).filter((s) => !s.endsWith('"172.17.0.7:80"') && s.length < good.indexOf(' outbound|')),
  ]

  it('never throws and rejects with a reason and a short detail', () => {
    for (const s of cases) {
      let r: ParseOutcome | undefined
      expect(() => (r = envoyText.parse(s))).not.toThrow()
      expect(() => envoyText.looksLike(s)).not.toThrow()
      expect(r?.ok).toBe(false)
      if (r && !r.ok) {
        expect(r.reason).toEqual(expect.any(String))
        expect((r.detail ?? '').length).toBeLessThanOrEqual(120)
      }
    }
  })

  it('rejects hostile JSON objects without throwing', () => {
    const base = JSON.parse(toEnvoyJson(capture({}))) as Record<string, unknown>
    const objects: unknown[] = [
      null, [], 'x', 42,
      {...base, start_time: 'not a time'},
      {...base, start_time: null},
      {...base, start_time: 'x'.repeat(100_000)},
      {...base, response_code: 0},
      {...base, response_code: '20x'},
      {...base, response_code: 99999},
      {...base, response_code: null},
      {...base, bytes_sent: -5},
      {...base, bytes_sent: '1e3'},
      {...base, bytes_sent: null},
      {...base, path: '-', method: '-', protocol: '-'},
      {...base, path: 'no-slash'},
      {...base, path: {nested: true}},
    ]
    for (const o of objects) {
      let r: ParseOutcome | undefined
      expect(() => (r = envoyJson.parse(o as Record<string, unknown>))).not.toThrow()
      expect(() => envoyJson.looksLike(o as Record<string, unknown>)).not.toThrow()
      expect(r?.ok).toBe(false)
      if (r && !r.ok) expect((r.detail ?? '').length).toBeLessThanOrEqual(120)
    }
  })
})

// ---------------------------------------------------------------------------------------------
// Writers

function capture(over: Partial<CaptureRecord>): CaptureRecord {
  return {
    time_iso8601: '2026-11-30T07:18:26.070+00:00', msec: 1796023106.07, remote_addr: '127.10.6.90', remote_user: '',
    request_id: 'f5612a509b42dde5faddfb021f59eed5', host: 'webapp.lab.test', request_method: 'GET', request_uri: '/',
    server_protocol: 'HTTP/1.1', status: 200, body_bytes_sent: 3385, bytes_sent: 3780, request_length: 456, request_time: 0.018,
    http_referer: '', http_user_agent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
    upstream_addr: '127.30.0.10:46289', upstream_status: '200', upstream_response_length: '3385', upstream_response_time: '0.018',
    proxy_upstream_name: 'default-webapp-80', cookie_session: '851ca27ae335927d938defe5',
    ...over,
  }
}

const RECORDS: CaptureRecord[] = [
  capture({}),
  capture({msec: 1796023124.658, time_iso8601: '2026-11-30T07:18:44.658+00:00', request_uri: '/_build/runtime-config.b9c210df.js?v=3', body_bytes_sent: 1466,
    http_referer: 'http://webapp.lab.test/', upstream_addr: '127.30.0.9:1, 127.30.0.10:37873', upstream_response_time: '0.001, 0.006'}),
  capture({msec: 1796023200.001, request_method: 'HEAD', request_uri: '/assets/app.js', status: 404, body_bytes_sent: 0, remote_addr: '2001:db8::7',
    http_user_agent: '', request_id: '', upstream_addr: '', upstream_response_time: '', proxy_upstream_name: '', server_protocol: 'HTTP/2.0'}),
  capture({request_method: 'POST', request_uri: '/api/v1/items', status: 201, body_bytes_sent: 12, upstream_addr: '10.244.1.7:8080 : 10.244.1.8:8080'}),
]

function roundTrip(r: CaptureRecord, e: AccessFields): void {
  const upstream = r.upstream_addr.split(/, | : /).pop()
  expect(e).toMatchObject({
    time: Math.round(r.msec * 1000),
    resolutionMs: 1,
    method: r.request_method,
    path: r.request_uri.split('?')[0],
    status: r.status,
    bytes: r.body_bytes_sent,
    clientIp: r.remote_addr,
    userAgent: r.http_user_agent,
  })
  expect(e.upstream).toBe(upstream === '' ? undefined : upstream)
  expect(e.requestId).toBe(r.request_id === '' ? undefined : r.request_id)
  expect(e.vhost).toBe(r.host)
  // None of the three formats logs the Referer.
  expect(e.referer).toBeUndefined()
}

describe('writers: parse(write(r)) gives the request back', () => {
  it.each([
    ['toEnvoy', (r: CaptureRecord) => envoyText.parse(toEnvoy(r)), (r: CaptureRecord) => envoyText.looksLike(toEnvoy(r))],
    ['toIstio', (r: CaptureRecord) => envoyText.parse(toIstio(r)), (r: CaptureRecord) => envoyText.looksLike(toIstio(r))],
    ['toEnvoyJson', (r: CaptureRecord) => envoyJson.parse(JSON.parse(toEnvoyJson(r)) as Record<string, unknown>),
      (r: CaptureRecord) => envoyJson.looksLike(JSON.parse(toEnvoyJson(r)) as Record<string, unknown>)],
  ])('%s', (_name, parse, looks) => {
    for (const r of RECORDS) {
      const out = parse(r)
      expect(looks(r)).toBe(true)
      if (!out.ok) throw new Error(`${_name} ${r.request_uri}: ${out.reason} ${out.detail}`)
      roundTrip(r, out.event)
    }
  })

  it('writes Istio\'s cluster name from proxy_upstream_name', () => {
    const r = envoyText.parse(toIstio(capture({})))
    expect(r.ok && r.event.upstreamName).toBe('outbound|80||webapp.default.svc.cluster.local')
    const j = envoyJson.parse(JSON.parse(toEnvoyJson(capture({}))) as Record<string, unknown>)
    expect(j.ok && j.event.upstreamName).toBe('outbound|80||webapp.default.svc.cluster.local')
  })

  it('writes nginx\'s 499 as Envoy does (status 0, DC), which is rejected', () => {
    const r = capture({status: 499, body_bytes_sent: 0})
    expect(toEnvoy(r)).toContain('" 0 DC ')
    expect(envoyText.parse(toEnvoy(r))).toMatchObject({ok: false, reason: 'bad-status'})
    expect(envoyJson.parse(JSON.parse(toEnvoyJson(r)) as Record<string, unknown>)).toMatchObject({ok: false, reason: 'bad-status'})
  })
})
