/**
 * Traefik access logs (CLF and JSON): the format checks on the real samples of fixtures/formats/traefik
 * and against the other formats' lines, hand-written edge cases, hostile input, and the writers of
 * scripts/captures/formats/traefik.ts read back. Every sample against its expected output is samples.test.ts's.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {gunzipSync} from 'node:zlib'
import type {AccessFields, ParseOutcome} from '../../../../src/model'
import {jsonFormatOf, textFormatOf} from '../../../../src/normalize/formats'
import {caddyJson} from '../../../../src/normalize/formats/caddy'
import {traefikClf, traefikJson} from '../../../../src/normalize/formats/traefik'
import type {CaptureRecord} from '../../../../scripts/captures/formats/capture-record'
import {captureMs} from '../../../../scripts/captures/formats/capture-record'
import {toTraefikClf, toTraefikJson} from '../../../../scripts/captures/formats/traefik'
import {gzLines, linesOf, objectOf} from '../../../helpers/format-samples'

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'fixtures')
const DIR = join(FIXTURES, 'formats', 'traefik')
const CADDY_DIR = join(FIXTURES, 'formats', 'caddy')

type Obj = Record<string, unknown>

/** The JSON samples; the others are CLF. */
const JSON_SAMPLES = new Set(['integrations-test-format-json.log', 'crowdsec-traefik_json.log'])
/** CLF lines without Traefik's `<count> "router" "url" <n>ms` tail: looksLike leaves them to nginx. */
const NO_TAIL: Record<string, number[]> = {
  'integrations-test-format-common.log': [7],
  'crowdsec-traefik_clf.log': [8, 9],
  'traefik-accesslog-unit-tests.log': [7],
}

const samples = readdirSync(DIR).filter((f) => f.endsWith('.log')).sort()

const CAPTURES = join(FIXTURES, 'captures')
const captureNames = readdirSync(CAPTURES).filter((d) => !d.includes('.')).sort()
const NGINX_COMBINED = captureNames.flatMap((c) => gzLines(join(CAPTURES, c, 'combined.log.gz'), 20))
const NGINX_UPSTREAMINFO = captureNames.flatMap((c) => gzLines(join(CAPTURES, c, 'upstreaminfo.log.gz'), 20))
const CAPTURE_RECORDS = captureNames.flatMap((c) => gzLines(join(CAPTURES, c, 'nginx.jsonl.gz'), 40)).map((l) => JSON.parse(l) as CaptureRecord)
const DATADOG_EVENTS = (JSON.parse(gunzipSync(readFileSync(join(CAPTURES, captureNames[0] as string, 'datadog-events.json.gz'))).toString('utf8')) as {data: Obj[]}).data.slice(0, 20)
const CADDY_LINES = readdirSync(CADDY_DIR).filter((f) => f.endsWith('.log')).flatMap((f) => linesOf(CADDY_DIR, f)).filter((l) => l !== '')

describe('Traefik: looksLike on the real samples', () => {
  it.each(samples)('%s', (file) => {
    linesOf(DIR, file).forEach((l, i) => {
      if (JSON_SAMPLES.has(file)) {
        const obj = objectOf(l)
        if (obj !== undefined) {
          expect(traefikJson.looksLike(obj)).toBe(true)
          expect(jsonFormatOf(obj)).toBe(traefikJson)
        }
        expect(traefikClf.looksLike(l)).toBe(false)
      } else {
        const tail = !(NO_TAIL[file] ?? []).includes(i + 1)
        expect(traefikClf.looksLike(l)).toBe(tail)
        if (tail) expect(textFormatOf(l)).toBe(traefikClf)
      }
    })
  })
})

describe('Traefik CLF: details', () => {
  const line = (tail = ' 7 "web@docker" "http://10.0.0.5:8080" 12ms'): string =>
    `203.0.113.7 - - [10/Oct/2023:13:55:36 +0200] "GET /assets/app-1a2b.js?v=3 HTTP/2.0" 200 5120 "https://app.example.com/" "Mozilla/5.0"${tail}`

  it('reads the fields, the service URL as the upstream and the router as the upstream name', () => {
    const r = traefikClf.parse(line())
    expect(r.ok && {...r.event, time: new Date(r.event.time).toISOString()}).toEqual({
      time: '2023-10-10T11:55:36.000Z', resolutionMs: 1000, method: 'GET', path: '/assets/app-1a2b.js', status: 200, bytes: 5120,
      clientIp: '203.0.113.7', userAgent: 'Mozilla/5.0', referer: 'https://app.example.com/', upstream: '10.0.0.5:8080',
      upstreamName: 'web@docker', requestTime: 0.012,
    })
  })

  it('keeps a user agent with unescaped quotes whole (the tail is read from the end)', () => {
    const r = traefikClf.parse(line().replace('"Mozilla/5.0"', '"Mozilla "quoted" x"'))
    expect(r.ok && r.event.userAgent).toBe('Mozilla "quoted" x')
  })

  it('reads an IPv6 service URL and leaves a service URL without host out', () => {
    const v6 = traefikClf.parse(line(' 7 "r" "http://[fd00::5]:8080" 1ms'))
    expect(v6.ok && v6.event.upstream).toBe('[fd00::5]:8080')
    const none = traefikClf.parse(line(' 7 "r" "/" 1ms'))
    expect(none.ok && none.event.upstream).toBeUndefined()
  })

  it("reads genericCLF (Traefik v3's combined) lines, though looksLike leaves them to nginx", () => {
    const r = traefikClf.parse(line(''))
    expect(r.ok && r.event).toMatchObject({userAgent: 'Mozilla/5.0', referer: 'https://app.example.com/'})
    expect(r.ok && r.event.upstream).toBeUndefined()
    expect(traefikClf.looksLike(line(''))).toBe(false)
  })

  it('rejects lines whose tail is cut or malformed', () => {
    for (const tail of [' 7 "web@docker" "http://10.0.0.5:8080" 12', ' 7 "web@docker" "http://10.0.0.5:8080"', ' 7 "web@docker', ' 7', ' junk']) {
      expect(traefikClf.parse(line(tail))).toMatchObject({ok: false, reason: 'unparsed-message'})
    }
  })

  it('rejects a `-` status as missing-status and an unreadable time as bad-time', () => {
    expect(traefikClf.parse(line().replace('" 200 5120 ', '" - - '))).toMatchObject({ok: false, reason: 'missing-status'})
    expect(traefikClf.parse(line().replace('10/Oct/2023', '10/Foo/2023'))).toMatchObject({ok: false, reason: 'bad-time'})
    expect(traefikClf.parse(line().replace('[10/Oct/2023:13:55:36 +0200]', '[-]'))).toMatchObject({ok: false, reason: 'missing-time'})
  })
})

describe('Traefik JSON: details', () => {
  const base: Obj = {
    ClientAddr: '203.0.113.7:51234', ClientHost: '203.0.113.7', DownstreamContentSize: 5120, DownstreamStatus: 200, Duration: 12000000,
    RequestHost: 'app.example.com', RequestMethod: 'GET', RequestPath: '/assets/app.js?v=3', ServiceURL: 'http://10.0.0.5:8080',
    StartUTC: '2023-10-10T11:55:36.123456789Z', time: '2023-10-10T11:55:36Z', 'request_X-Request-Id': 'req-1', 'request_Referer': 'https://app.example.com/',
  }

  it('reads a v3 record (ServiceURL as a string) and the X-Request-Id header', () => {
    const r = traefikJson.parse(base)
    expect(r.ok && {...r.event, time: new Date(r.event.time).toISOString()}).toEqual({
      time: '2023-10-10T11:55:36.123Z', resolutionMs: 1, method: 'GET', path: '/assets/app.js', status: 200, bytes: 5120,
      clientIp: '203.0.113.7', userAgent: '', referer: 'https://app.example.com/', requestId: 'req-1', upstream: '10.0.0.5:8080',
      vhost: 'app.example.com', requestTime: 0.012,
    })
  })

  it('falls back to ClientAddr without its port, StartLocal, then time', () => {
    const {ClientHost: _h, StartUTC: _s, ...rest} = base
    const local = traefikJson.parse({...rest, ClientAddr: '[2001:db8::7]:443', StartLocal: '2023-10-10T13:55:36.5+02:00'})
    expect(local.ok && local.event).toMatchObject({clientIp: '2001:db8::7', time: Date.UTC(2023, 9, 10, 11, 55, 36, 500), resolutionMs: 1})
    const logTime = traefikJson.parse(rest)
    expect(logTime.ok && logTime.event).toMatchObject({time: Date.UTC(2023, 9, 10, 11, 55, 36), resolutionMs: 1000})
  })

  it('rejects records without time, path, status or bytes, and status 0', () => {
    const {StartUTC: _s, time: _t, ...noTime} = base
    expect(traefikJson.parse(noTime)).toMatchObject({ok: false, reason: 'missing-time'})
    expect(traefikJson.parse({...base, StartUTC: 'yesterday'})).toMatchObject({ok: false, reason: 'bad-time'})
    expect(traefikJson.parse({...base, RequestPath: undefined})).toMatchObject({ok: false, reason: 'missing-path'})
    expect(traefikJson.parse({...base, DownstreamStatus: undefined})).toMatchObject({ok: false, reason: 'missing-status'})
    expect(traefikJson.parse({...base, DownstreamStatus: 0})).toMatchObject({ok: false, reason: 'bad-status'})
    expect(traefikJson.parse({...base, DownstreamContentSize: undefined})).toMatchObject({ok: false, reason: 'missing-bytes'})
    expect(traefikJson.parse({...base, DownstreamContentSize: -1})).toMatchObject({ok: false, reason: 'bad-bytes'})
  })
})

describe('Traefik: looksLike against the other formats', () => {
  it('is false for nginx combined and ingress-nginx upstreaminfo lines, which stay nginx', () => {
    expect(NGINX_COMBINED.length).toBeGreaterThan(20)
    for (const l of [...NGINX_COMBINED, ...NGINX_UPSTREAMINFO]) {
      expect(traefikClf.looksLike(l)).toBe(false)
      expect(textFormatOf(l)).not.toBe(traefikClf)
    }
  })

  it('is false for Datadog events, nginx JSON lines and Caddy records', () => {
    for (const e of DATADOG_EVENTS) {
      expect(traefikJson.looksLike(e)).toBe(false)
      expect(traefikJson.looksLike(e['attributes'] as Obj)).toBe(false)
      expect(traefikClf.looksLike(JSON.stringify(e))).toBe(false)
    }
    for (const r of CAPTURE_RECORDS.slice(0, 50)) expect(traefikJson.looksLike(r as unknown as Obj)).toBe(false)
    expect(CADDY_LINES.length).toBeGreaterThan(10)
    for (const l of CADDY_LINES) {
      expect(traefikClf.looksLike(l)).toBe(false)
      const obj = objectOf(l)
      if (obj !== undefined) expect(traefikJson.looksLike(obj)).toBe(false)
    }
  })

  it('leaves Traefik records to traefikJson (caddyJson does not claim them)', () => {
    for (const f of JSON_SAMPLES) {
      for (const l of linesOf(DIR, f)) {
        const obj = objectOf(l)
        if (obj !== undefined) expect(caddyJson.looksLike(obj)).toBe(false)
      }
    }
  })

  it('very long lines are turned down', () => {
    const head = '10.0.0.1 - - [10/Oct/2023:13:55:36 +0000] "GET /'
    for (const long of [`${head}${'a'.repeat(5_000_000)}`, `${head}${'a'.repeat(5_000_000)} 12ms`, `${'9'.repeat(5_000_000)}ms`, `${'x'.repeat(5_000_000)} - - [a] "GET / HTTP/1.1" 200 1 "-" "-" 1 "r" "u" 12ms`]) {
      expect(traefikClf.looksLike(long)).toBe(false)
    }
  })
})

describe('Traefik: hostile input', () => {
  const good = '192.168.33.1 - - [02/Oct/2017:20:22:07 +0000] "GET /ui/favicons/favicon-16x16.png HTTP/1.1" 304 0 "http://example.com/login" "Mozilla/5.0 (X11)" 262 "Host-host-1" "http://172.19.0.3:5601" 2ms'
  const cases: string[] = [
    '',
    ' ',
    '\r',
    '\u0000\u0001\u0002\u0003\u001b[2J',
    '- - [',
    '- - [-] "',
    `a - - [${'9'.repeat(100_000)}] "GET / HTTP/1.1" 200 1`,
    `${'x'.repeat(1_000_000)} - - [02/Oct/2017:20:22:07 +0000] "GET / HTTP/1.1" 200 1`,
    `1.2.3.4 - - [02/Oct/2017:20:22:07 +0000] "${'"'.repeat(200_000)}`,
    `1.2.3.4 - - [02/Oct/2017:20:22:07 +0000] "GET /${'x'.repeat(1_000_000)}`,
    `1.2.3.4 - - [02/Oct/2017:20:22:07 +0000] "GET / HTTP/1.1" 200 0 ${'"a '.repeat(100_000)}`,
    `1.2.3.4 - - [02/Oct/2017:20:22:07 +0000] "GET / HTTP/1.1" 200 0 "-" "-" 1 ${'"x" '.repeat(100_000)}1ms`,
    `1.2.3.4 - - [02/Oct/2017:20:22:07 +0000] "GET / HTTP/1.1" 200 0 "${'\\"'.repeat(100_000)}`,
    '1.2.3.4 - - [02/Oct/2017:20:22:07 +0000] "GET / HTTP/1.1" 2000 0 "-" "-" 1 "-" "-" 0ms',
    '1.2.3.4 - - [02/Oct/2017:20:22:07 +0000] "GET / HTTP/1.1" 200 9999999999999999 "-" "-" 1 "-" "-" 0ms',
    '1.2.3.4 - - [02/Oct/2017:20:22:07 +0000] "G\u0000T \u0001 HTTP/1.1" 200 0 "-" "-" 1 "-" "-" 0ms',
    '1.2.3.4 - - [02/Oct/2017:20:22:07 +0000] "GET / HTTP/1.1" 200 0 "-" "-" 1 "-" "-" 99999999999999999999ms',
    // Every cut inside the referer, the user agent or the tail (a cut after the size or right after
    // the user agent is a common / combined line: those are records).
    ...Array.from({length: good.length - good.indexOf('"http://example') - 1}, (_, n) => good.slice(0, good.indexOf('"http://example') + n + 1))
      .filter((s) => !s.endsWith('(X11)"')),
  ]

  it('never throws and rejects with a reason and a short detail', () => {
    for (const s of cases) {
      let r: ParseOutcome | undefined
      expect(() => (r = traefikClf.parse(s))).not.toThrow()
      expect(() => traefikClf.looksLike(s)).not.toThrow()
      if (r?.ok) throw new Error(`accepted: ${s.slice(0, 200)}`)
      if (r && !r.ok) {
        expect(r.reason).toEqual(expect.any(String))
        expect((r.detail ?? '').length).toBeGreaterThan(0)
        expect((r.detail ?? '').length).toBeLessThanOrEqual(120)
      }
    }
  })

  it('never throws on any cut of a good line, and reads the head of one cut after the size or the user agent', () => {
    for (let n = 0; n <= good.length; n++) {
      const s = good.slice(0, n)
      let r: ParseOutcome | undefined
      expect(() => (r = traefikClf.parse(s))).not.toThrow()
      if (r?.ok) expect(r.event).toMatchObject({path: '/ui/favicons/favicon-16x16.png', status: 304})
    }
  })

  it('rejects hostile JSON objects without throwing', () => {
    const base = JSON.parse(toTraefikJson(capture({}))) as Obj
    const objects: unknown[] = [
      null, [], 'x', 42, {},
      {...base, StartUTC: 'not a time'},
      {...base, StartUTC: null, StartLocal: null, time: null},
      {...base, StartUTC: 'x'.repeat(100_000)},
      {...base, StartUTC: 1796023106},
      {...base, DownstreamStatus: 0},
      {...base, DownstreamStatus: '20x'},
      {...base, DownstreamStatus: 99999},
      {...base, DownstreamStatus: null},
      {...base, DownstreamContentSize: -5},
      {...base, DownstreamContentSize: '1e3'},
      {...base, DownstreamContentSize: 1.5},
      {...base, DownstreamContentSize: null},
      {...base, RequestPath: '-'},
      {...base, RequestPath: 'no-slash'},
      {...base, RequestPath: {nested: true}},
      {...base, RequestPath: `\u0000${'/'.repeat(100_000)}`},
    ]
    for (const o of objects) {
      let r: ParseOutcome | undefined
      expect(() => (r = traefikJson.parse(o as Obj))).not.toThrow()
      expect(() => traefikJson.looksLike(o as Obj)).not.toThrow()
      expect(r?.ok).toBe(false)
      if (r && !r.ok) expect((r.detail ?? '').length).toBeLessThanOrEqual(120)
    }
  })

  it('survives odd but valid JSON values', () => {
    const base = JSON.parse(toTraefikJson(capture({}))) as Obj
    for (const o of [{...base, ClientHost: 7}, {...base, ServiceURL: ['x']}, {...base, ServiceURL: {Host: 5}}, {...base, Duration: 'slow'}, {...base, 'request_User-Agent': {}}]) {
      const r = traefikJson.parse(o)
      expect(r.ok).toBe(true)
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
    http_referer: 'http://webapp.lab.test/', upstream_addr: '127.30.0.9:1, 127.30.0.10:37873', upstream_status: '502, 200', upstream_response_time: '0.001, 0.006'}),
  capture({msec: 1796023200, request_method: 'HEAD', request_uri: '/assets/app.js', status: 404, body_bytes_sent: 0, remote_addr: '2001:db8::7',
    http_user_agent: '', request_id: '', upstream_addr: '', upstream_status: '', upstream_response_time: '', proxy_upstream_name: '', server_protocol: 'HTTP/2.0'}),
  capture({request_method: 'POST', request_uri: '/api/v1/items', status: 201, body_bytes_sent: 12, upstream_addr: '10.244.1.7:8080 : 10.244.1.8:8080',
    http_user_agent: 'Mozilla/5.0 "quoted" \\ x', http_referer: 'http://webapp.lab.test/a "b"', remote_user: 'alice'}),
]

function roundTrip(r: CaptureRecord, e: AccessFields, clf: boolean): void {
  const upstream = r.upstream_addr.split(/, | : /).pop()
  const ms = captureMs(r)
  expect(e).toMatchObject({
    time: clf ? Math.floor(ms / 1000) * 1000 : ms,
    resolutionMs: clf ? 1000 : 1,
    method: r.request_method,
    path: r.request_uri.split('?')[0],
    status: r.status,
    bytes: r.body_bytes_sent,
    clientIp: r.remote_addr,
    userAgent: r.http_user_agent,
  })
  expect(e.referer).toBe(r.http_referer === '' ? undefined : r.http_referer)
  expect(e.upstream).toBe(upstream === '' ? undefined : upstream)
  expect(e.upstreamName).toBe(r.proxy_upstream_name === '' ? undefined : `${r.proxy_upstream_name}@kubernetes`)
  // CLF logs no request header but the referer and the user agent.
  expect(e.requestId).toBe(clf || r.request_id === '' ? undefined : r.request_id)
  if (!clf) expect(e.vhost).toBe(r.host)
  expect(e.requestTime).toBeCloseTo(r.request_time, clf ? 3 : 9)
}

describe('writers: parse(write(r)) gives the request back', () => {
  const clf = (r: CaptureRecord): ParseOutcome => traefikClf.parse(toTraefikClf(r))
  const json = (r: CaptureRecord): ParseOutcome => traefikJson.parse(JSON.parse(toTraefikJson(r)) as Obj)

  it.each([
    ['toTraefikClf', clf, true],
    ['toTraefikJson', json, false],
  ] as const)('%s, for handmade records and real capture records', (name, parse, isClf) => {
    expect(CAPTURE_RECORDS.length).toBeGreaterThan(100)
    for (const r of [...RECORDS, ...CAPTURE_RECORDS]) {
      const out = parse(r)
      if (!out.ok) throw new Error(`${name} ${r.request_uri}: ${out.reason} ${out.detail}`)
      roundTrip(r, out.event, isClf)
    }
  })

  it('writes lines the format checks recognise', () => {
    for (const r of RECORDS) {
      expect(traefikClf.looksLike(toTraefikClf(r))).toBe(true)
      expect(textFormatOf(toTraefikClf(r))).toBe(traefikClf)
      expect(jsonFormatOf(JSON.parse(toTraefikJson(r)) as Obj)).toBe(traefikJson)
    }
  })

  it("writes Traefik's layout", () => {
    expect(toTraefikClf(RECORDS[0] as CaptureRecord)).toBe(
      '127.10.6.90 - - [30/Nov/2026:07:18:26 +0000] "GET / HTTP/1.1" 200 3385 "-" "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0" 1 "default-webapp-80@kubernetes" "http://127.30.0.10:46289" 18ms',
    )
    const j = JSON.parse(toTraefikJson(RECORDS[1] as CaptureRecord)) as Obj
    expect(Object.keys(j)).toEqual([...Object.keys(j)].sort())
    expect(j).toMatchObject({StartUTC: '2026-11-30T07:18:44.658000000Z', time: '2026-11-30T07:18:44Z', RetryAttempts: 1, OriginStatus: 200, OriginDuration: 6000000, ServiceAddr: '127.30.0.10:37873'})
  })
})
