/**
 * Caddy JSON access logs: the format check on the real samples of fixtures/formats/caddy and against
 * the other formats' records, hand-written edge cases, hostile input, and the writer of
 * scripts/captures/formats/caddy.ts read back. Every sample against its expected output is samples.test.ts's.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {gunzipSync} from 'node:zlib'
import type {AccessFields, ParseOutcome} from '../../../../src/model'
import {jsonFormatOf} from '../../../../src/normalize/formats'
import {caddyJson} from '../../../../src/normalize/formats/caddy'
import {traefikJson} from '../../../../src/normalize/formats/traefik'
import type {CaptureRecord} from '../../../../scripts/captures/formats/capture-record'
import {toCaddyJson} from '../../../../scripts/captures/formats/caddy'
import {expectedFor, gzLines, linesOf, objectOf} from '../../../helpers/format-samples'

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'fixtures')
const DIR = join(FIXTURES, 'formats', 'caddy')
const TRAEFIK_DIR = join(FIXTURES, 'formats', 'traefik')

type Obj = Record<string, unknown>

const samples = readdirSync(DIR).filter((f) => f.endsWith('.log')).sort()

const CAPTURES = join(FIXTURES, 'captures')
const captureNames = readdirSync(CAPTURES).filter((d) => !d.includes('.')).sort()
const CAPTURE_RECORDS = captureNames.flatMap((c) => gzLines(join(CAPTURES, c, 'nginx.jsonl.gz'), 40)).map((l) => JSON.parse(l) as CaptureRecord)
const DATADOG_EVENTS = (JSON.parse(gunzipSync(readFileSync(join(CAPTURES, captureNames[0] as string, 'datadog-events.json.gz'))).toString('utf8')) as {data: Obj[]}).data.slice(0, 20)
const TRAEFIK_LINES = readdirSync(TRAEFIK_DIR).filter((f) => f.endsWith('.log')).flatMap((f) => linesOf(TRAEFIK_DIR, f))

describe('Caddy: looksLike on the real samples', () => {
  it.each(samples)('%s: every access record, not the other loggers', (file) => {
    const expected = expectedFor(DIR, file)
    linesOf(DIR, file).forEach((l, i) => {
      const obj = objectOf(l)
      if (obj === undefined) return
      const access = expected[i]?.reason !== 'unparsed-message'
      expect(caddyJson.looksLike(obj)).toBe(access)
      if (access) expect(jsonFormatOf(obj)).toBe(caddyJson)
    })
  })
})

describe('Caddy: details', () => {
  const base: Obj = {
    level: 'info', ts: 1646861401.5241024, logger: 'http.log.access.log0', msg: 'handled request',
    request: {remote_ip: '10.0.0.2', remote_port: '41342', client_ip: '203.0.113.7', proto: 'HTTP/2.0', method: 'GET', host: 'app.example.com:8443',
      uri: '/assets/app.js?v=3', headers: {'User-Agent': ['curl/7.82.0'], Referer: ['https://app.example.com/'], 'X-Request-Id': ['req-1']}},
    bytes_read: 0, user_id: '', duration: 0.000929675, size: 10900, status: 200, resp_headers: {Server: ['Caddy']},
  }
  const withRequest = (over: Obj): Obj => ({...base, request: {...(base['request'] as Obj), ...over}})

  it('reads the fields: client_ip, the path without its query, the Host without its port, the X-Request-Id header', () => {
    const r = caddyJson.parse(base)
    expect(r.ok && {...r.event, time: new Date(r.event.time).toISOString()}).toEqual({
      time: '2022-03-09T21:30:01.524Z', resolutionMs: 1, method: 'GET', path: '/assets/app.js', status: 200, bytes: 10900,
      clientIp: '203.0.113.7', userAgent: 'curl/7.82.0', referer: 'https://app.example.com/', requestId: 'req-1', vhost: 'app.example.com',
      requestTime: 0.000929675,
    })
  })

  it('falls back to remote_ip, then to remote_addr without its port (Caddy 2.0-2.4)', () => {
    const {client_ip: _c, ...noClient} = base['request'] as Obj
    const r = caddyJson.parse({...base, request: noClient})
    expect(r.ok && r.event.clientIp).toBe('10.0.0.2')
    const {remote_ip: _r, ...old} = noClient
    for (const [addr, ip] of [['1.2.3.4:41844', '1.2.3.4'], ['[2001:db8::7]:443', '2001:db8::7']]) {
      const o = caddyJson.parse({...base, request: {...old, remote_addr: addr}})
      expect(o.ok && o.event.clientIp).toBe(ip)
    }
  })

  it('reads the time formats Caddy can be set to', () => {
    const at = (ts: unknown): [number, number] | string => {
      const r = caddyJson.parse({...base, ts})
      return r.ok ? [r.event.time, r.event.resolutionMs] : r.reason
    }
    const ms = Date.UTC(2022, 2, 9, 21, 30, 1, 524)
    expect(at(1646861401.5241024)).toEqual([ms, 1])
    expect(at(1646861401)).toEqual([ms - 524, 1])
    expect(at(1646861401524.102)).toEqual([ms, 1])
    expect(at(1.646861401524e18)).toEqual([ms, 1])
    expect(at('2022-03-09T21:30:01.524102Z')).toEqual([ms, 1])
    expect(at('09/Mar/2022:21:30:01 +0000')).toEqual([ms - 524, 1000])
    expect(at('2022/03/09 21:30:01.524')).toBe('bad-time')
    expect(at(-1)).toBe('bad-time')
    expect(at(undefined)).toBe('missing-time')
  })

  it('cuts epoch seconds to the millisecond from their digits, not from the float', () => {
    // Math.floor(1791772218.5509999 * 1000) is …551: the product rounds up in binary floating point.
    const r = caddyJson.parse({...base, ts: 1791772218.5509999})
    expect(r.ok && r.event.time).toBe(1791772218550)
  })

  it('reads the upstream when log_append adds it, and duration strings', () => {
    const r = caddyJson.parse({...base, upstream_hostport: '10.0.0.9:8080', duration: '1.5ms'})
    expect(r.ok && r.event).toMatchObject({upstream: '10.0.0.9:8080', requestTime: 0.0015})
    const host = caddyJson.parse({...base, upstream_host: 'node1'})
    expect(host.ok && host.event.upstream).toBe('node1')
    const none = caddyJson.parse(base)
    expect(none.ok && none.event.upstream).toBeUndefined()
  })

  it('reads headers whatever their case, and empty header lists as absent', () => {
    const r = caddyJson.parse(withRequest({headers: {'user-agent': ['x'], Referer: [], 'X-Request-Id': ['']}}))
    expect(r.ok && r.event).toMatchObject({userAgent: 'x'})
    expect(r.ok && r.event.referer).toBeUndefined()
    expect(r.ok && r.event.requestId).toBeUndefined()
  })

  it('rejects status 0 (no response written), non-access records and records without path or size', () => {
    const zero = caddyJson.parse({...base, status: 0})
    expect(zero).toMatchObject({ok: false, reason: 'bad-status'})
    expect(!zero.ok && zero.detail).toMatch(/status 0/)
    expect(caddyJson.parse({level: 'info', ts: 1, logger: 'tls', msg: 'finished cleaning storage units'})).toMatchObject({ok: false, reason: 'unparsed-message'})
    expect(caddyJson.parse(withRequest({uri: undefined}))).toMatchObject({ok: false, reason: 'missing-path'})
    expect(caddyJson.parse({...base, size: undefined})).toMatchObject({ok: false, reason: 'missing-bytes'})
    expect(caddyJson.parse({...base, status: undefined})).toMatchObject({ok: false, reason: 'missing-status'})
  })
})

describe('Caddy: looksLike against the other formats', () => {
  it('is false for Datadog events, nginx JSON lines, Traefik records and other Caddy loggers', () => {
    for (const e of DATADOG_EVENTS) {
      expect(caddyJson.looksLike(e)).toBe(false)
      expect(caddyJson.looksLike(e['attributes'] as Obj)).toBe(false)
    }
    for (const r of CAPTURE_RECORDS.slice(0, 50)) expect(caddyJson.looksLike(r as unknown as Obj)).toBe(false)
    expect(TRAEFIK_LINES.length).toBeGreaterThan(10)
    for (const l of TRAEFIK_LINES) {
      const obj = objectOf(l)
      if (obj !== undefined) expect(caddyJson.looksLike(obj)).toBe(false)
    }
    expect(caddyJson.looksLike({level: 'info', ts: 1, logger: 'http.handlers.reverse_proxy', msg: 'selected upstream', request: {}})).toBe(false)
    expect(caddyJson.looksLike({})).toBe(false)
  })

  it('leaves Caddy records to caddyJson (traefikJson does not claim them)', () => {
    for (const f of samples) {
      for (const l of linesOf(DIR, f)) {
        const obj = objectOf(l)
        if (obj !== undefined) expect(traefikJson.looksLike(obj)).toBe(false)
      }
    }
  })
})

describe('Caddy: hostile input', () => {
  it('rejects hostile objects without throwing, with short details', () => {
    const base = JSON.parse(toCaddyJson(capture({}))) as Obj
    const req = base['request'] as Obj
    const objects: unknown[] = [
      null, [], 'x', 42, {},
      {...base, request: null},
      {...base, request: 'GET /'},
      {...base, request: []},
      {...base, ts: 'not a time'},
      {...base, ts: 'x'.repeat(100_000)},
      {...base, ts: null},
      {...base, ts: Number.NaN},
      {...base, ts: 1e300},
      {...base, ts: {}},
      {...base, status: 0},
      {...base, status: '200'},
      {...base, status: 2000},
      {...base, status: 200.5},
      {...base, size: -1},
      {...base, size: '12'},
      {...base, size: 2 ** 60},
      {...base, request: {...req, uri: '-'}},
      {...base, request: {...req, uri: 'x'.repeat(100_000)}},
      {...base, request: {...req, uri: {path: '/'}}},
      {...base, request: {...req, uri: '\u0000\u001b[2J'}},
      {level: 'info', ts: 1, logger: 'x'.repeat(100_000), msg: '\u0000'.repeat(1000)},
    ]
    for (const o of objects) {
      let r: ParseOutcome | undefined
      expect(() => (r = caddyJson.parse(o as Obj))).not.toThrow()
      expect(() => caddyJson.looksLike(o as Obj)).not.toThrow()
      expect(r?.ok).toBe(false)
      if (r && !r.ok) {
        expect((r.detail ?? '').length).toBeGreaterThan(0)
        expect((r.detail ?? '').length).toBeLessThanOrEqual(120)
      }
    }
  })

  it('survives odd but valid values', () => {
    const base = JSON.parse(toCaddyJson(capture({}))) as Obj
    const req = base['request'] as Obj
    for (const o of [
      {...base, request: {...req, headers: 'x'}},
      {...base, request: {...req, headers: {'User-Agent': [7, 'x']}}},
      {...base, request: {...req, client_ip: 7}},
      {...base, duration: 'forever'},
      {...base, upstream_hostport: {}},
    ]) {
      let r: ParseOutcome | undefined
      expect(() => (r = caddyJson.parse(o))).not.toThrow()
      expect(r?.ok).toBe(true)
    }
  })
})

// ---------------------------------------------------------------------------------------------
// Writer

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
  capture({msec: 1796023200, request_method: 'HEAD', request_uri: '/assets/app.js', status: 404, body_bytes_sent: 0, remote_addr: '2001:db8::7',
    http_user_agent: '', request_id: '', upstream_addr: '', upstream_response_time: '', proxy_upstream_name: '', server_protocol: 'HTTP/2.0'}),
  capture({msec: 1796023106.691, request_method: 'POST', request_uri: '/api/v1/items', status: 502, body_bytes_sent: 12, upstream_addr: '10.244.1.7:8080 : 10.244.1.8:8080',
    http_user_agent: 'Mozilla/5.0 "quoted" \\ x', remote_user: 'alice'}),
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
    requestTime: r.request_time,
  })
  expect(e.referer).toBe(r.http_referer === '' ? undefined : r.http_referer)
  expect(e.upstream).toBe(upstream === '' ? undefined : upstream)
  expect(e.requestId).toBe(r.request_id === '' ? undefined : r.request_id)
  expect(e.vhost).toBe(r.host)
}

describe('writer: parse(write(r)) gives the request back', () => {
  it('toCaddyJson, for handmade records and real capture records', () => {
    expect(CAPTURE_RECORDS.length).toBeGreaterThan(100)
    for (const r of [...RECORDS, ...CAPTURE_RECORDS]) {
      const obj = JSON.parse(toCaddyJson(r)) as Obj
      expect(jsonFormatOf(obj)).toBe(caddyJson)
      const out = caddyJson.parse(obj)
      if (!out.ok) throw new Error(`${r.request_uri}: ${out.reason} ${out.detail}`)
      roundTrip(r, out.event)
    }
  })

  it("writes Caddy's layout", () => {
    const o = JSON.parse(toCaddyJson(RECORDS[3] as CaptureRecord)) as Obj
    expect(o).toMatchObject({level: 'error', ts: 1796023106.691, logger: 'http.log.access.log0', msg: 'handled request', user_id: 'alice', size: 12, status: 502,
      upstream_hostport: '10.244.1.8:8080'})
    expect((o['request'] as Obj)['headers']).toEqual({'User-Agent': ['Mozilla/5.0 "quoted" \\ x'], 'X-Request-Id': ['f5612a509b42dde5faddfb021f59eed5']})
  })
})
