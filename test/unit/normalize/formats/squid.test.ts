/**
 * Squid native access.log: the format check on the real samples of fixtures/formats/squid and against
 * the other formats' lines, hand-written edge cases, hostile input, and the writer of
 * scripts/captures/formats/squid.ts read back. Every sample against its expected output is samples.test.ts's.
 */
import {readdirSync} from 'node:fs'
import {join} from 'node:path'
import type {ParseOutcome} from '../../../../src/model'
import {squidLog} from '../../../../src/normalize/formats/squid'
import type {CaptureRecord} from '../../../../scripts/captures/formats/capture-record'
import {squidPeer, squidStatus, toSquid} from '../../../../scripts/captures/formats/squid'
import {checkOutcome, gzLines, linesOf} from '../../../helpers/format-samples'

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'fixtures')
const FORMATS = join(FIXTURES, 'formats')
const DIR = join(FORMATS, 'squid')

const samples = readdirSync(DIR).filter((f) => f.endsWith('.log')).sort()

function dirLines(dir: string, ext: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith(ext)).flatMap((f) => linesOf(dir, f))
}

const NGINX = '127.0.0.1 - - [10/Oct/2023:13:55:36 +0000] "GET / HTTP/1.1" 200 5 "-" "curl"'
const AWS = join(FORMATS, 'aws')
const OTHER_LINES = [
  ...dirLines(AWS, '.log'),
  ...dirLines(join(FORMATS, 'w3c'), '.log'),
  ...dirLines(join(FORMATS, 'gcs'), '.csv'),
  ...dirLines(join(FORMATS, 'traefik'), '.log'),
  ...dirLines(join(FORMATS, 'envoy'), '.log'),
  ...dirLines(join(FORMATS, 'nginx'), '.log'),
  NGINX,
]
const CAPTURES = join(FIXTURES, 'captures')
const captureNames = readdirSync(CAPTURES).filter((d) => !d.includes('.')).sort()
const CAPTURE_RECORDS = captureNames.flatMap((c) => gzLines(join(CAPTURES, c, 'nginx.jsonl.gz'), 34)).map((l) => JSON.parse(l) as CaptureRecord)

describe('squidLog.looksLike on the real samples', () => {
  it.each(samples)('%s: every line is claimed', (file) => {
    for (const l of linesOf(DIR, file)) expect([l.slice(0, 40), squidLog.looksLike(l)]).toEqual([l.slice(0, 40), true])
  })
})

describe('squidLog.looksLike', () => {
  it('is false for W3C, GCS, CloudFront, ALB, Traefik, Envoy and nginx lines', () => {
    expect(OTHER_LINES.length).toBeGreaterThan(100)
    for (const l of OTHER_LINES) expect([l.slice(0, 40), squidLog.looksLike(l)]).toEqual([l.slice(0, 40), false])
    expect(squidLog.looksLike('')).toBe(false)
    expect(squidLog.looksLike('1286536308.779')).toBe(false)
    expect(squidLog.looksLike('1286536308 180 192.168.0.224 TCP_MISS/200 411 GET http://www.example.com/ - HIER_DIRECT/1.2.3.4 text/html')).toBe(false)
  })

  it('claims the line of Squid docs, the padded form, and stays cheap on a huge line', () => {
    expect(squidLog.looksLike('1286536308.779    180 192.168.0.224 TCP_MISS/200 411 GET http://www.example.com/ - HIER_DIRECT/1.2.3.4 text/html')).toBe(true)
    expect(squidLog.looksLike(' 999999999.001      0 10.0.0.1 NONE_NONE/400 3894 NONE error:invalid-request - HIER_NONE/- text/html')).toBe(true)
    expect(squidLog.looksLike(`1286536308.779 ${'1'.repeat(1_000_000)}`)).toBe(false)
  })
})

describe('squidLog.parse', () => {
  const LINE = '1286536308.779    180 192.168.0.224 TCP_MISS/200 411 GET http://www.example.com:8080/app/main.js?v=1 - HIER_DIRECT/1.2.3.4 text/html'
  const withField = (i: number, v: string): string => LINE.split(/ +/).map((f, k) => (k === i ? v : f)).join(' ')
  const event = (line: string): Record<string, unknown> => {
    const r = squidLog.parse(line)
    if (!r.ok) throw new Error(`rejected (${r.reason}): ${r.detail ?? ''}`)
    return r.event as unknown as Record<string, unknown>
  }

  it('reads every field it uses', () => {
    expect(event(LINE)).toEqual({
      time: 1286536308779, resolutionMs: 1, method: 'GET', path: '/app/main.js', status: 200, bytes: 411,
      clientIp: '192.168.0.224', userAgent: '', upstream: '1.2.3.4', vhost: 'www.example.com', requestTime: 0.18,
    })
    expect(squidLog).toMatchObject({id: 'squid', bytes: 'response'})
  })

  it('takes the upstream from an address peer only', () => {
    expect(event(withField(8, 'HIER_DIRECT/2001:db8::10')).upstream).toBe('2001:db8::10')
    expect(event(withField(8, 'FIRST_UP_PARENT/10.0.0.5')).upstream).toBe('10.0.0.5')
    expect(event(withField(8, 'FIRST_UP_PARENT/backend')).upstream).toBeUndefined()
    expect(event(withField(8, 'HIER_NONE/-')).upstream).toBeUndefined()
    expect(event(withField(8, 'DIRECT/www.example.com')).upstream).toBeUndefined()
  })

  it('reads lines with extra fields, a missing type, a CRLF ending, an origin-form URL', () => {
    expect(event(`${LINE} [Host:%20x] [HTTP/1.1%20200]`)).toEqual(event(LINE))
    expect(event(LINE.slice(0, LINE.lastIndexOf(' ')))).toEqual(event(LINE))
    expect(event(`${LINE}\r`)).toEqual(event(LINE))
    expect(event(withField(6, '/x?y'))).toMatchObject({path: '/x'})
    expect(event(withField(6, '/x?y')).vhost).toBeUndefined()
  })

  it('rejects CONNECT, error: URLs, status 000, bad numbers and truncated lines', () => {
    expect(squidLog.parse(withField(5, 'CONNECT').replace(/http:\S+/, 'www.example.com:443'))).toMatchObject({ok: false, reason: 'missing-path'})
    expect(squidLog.parse(withField(6, 'error:invalid-request'))).toMatchObject({ok: false, reason: 'missing-path'})
    expect(squidLog.parse(withField(3, 'TCP_MISS_ABORTED/000'))).toMatchObject({ok: false, reason: 'bad-status'})
    expect(squidLog.parse(withField(3, 'TCP_MISS/20'))).toMatchObject({ok: false, reason: 'bad-status'})
    expect(squidLog.parse(withField(4, '-'))).toMatchObject({ok: false, reason: 'bad-bytes'})
    expect(squidLog.parse(withField(0, '1286536308.77x'))).toMatchObject({ok: false, reason: 'unparsed-message'})
    expect(squidLog.parse(withField(5, '[2]GET'))).toMatchObject({ok: false, reason: 'unparsed-message'})
    expect(squidLog.parse(LINE.split(/ +/).slice(0, 8).join(' '))).toMatchObject({ok: false, reason: 'unparsed-message'})
  })

  it('never throws on hostile input and rejects it with a short reason', () => {
    const inputs = [
      '',
      '\r',
      ' '.repeat(100_000),
      `1286536308.779 180 ${'x '.repeat(100_000)}`,
      `1286536308.779 180 1.2.3.4 TCP_MISS/200 411 GET http://h/${'a'.repeat(1_000_000)} - HIER_DIRECT/1.2.3.4 -`,
      `1286536308.779 180 1.2.3.4 ${'/'.repeat(100_000)}`,
      LINE.replace(/ /g, '\u0000'),
      LINE.replace('GET', 'G\u0007T\u001b[2J'),
      '\u0000\u0001\u0002\u0003',
      '\uFFFD'.repeat(1000),
      `${'9'.repeat(400)}.779 180 1.2.3.4 TCP_MISS/200 411 GET http://h/ - HIER_DIRECT/1.2.3.4 -`,
    ]
    for (const l of inputs) {
      let r: ParseOutcome | undefined
      expect(() => (r = squidLog.parse(l))).not.toThrow()
      checkOutcome(r as ParseOutcome, l)
      expect(() => squidLog.looksLike(l)).not.toThrow()
    }
    expect(squidLog.parse(inputs[4] as string)).toMatchObject({ok: true})
    expect(squidLog.parse(inputs[10] as string)).toMatchObject({ok: false, reason: 'unparsed-message'})
  })

  it('rejects every truncation before the hierarchy field, and never throws on any', () => {
    const hierAt = LINE.indexOf(' HIER_DIRECT') + 1
    for (let n = 0; n <= LINE.length; n++) {
      const cut = LINE.slice(0, n)
      let r: ParseOutcome | undefined
      expect(() => (r = squidLog.parse(cut))).not.toThrow()
      checkOutcome(r as ParseOutcome, cut)
      if (n <= hierAt) expect([n, (r as ParseOutcome).ok]).toEqual([n, false])
    }
  })
})

describe('writer: toSquid read back', () => {
  const base: CaptureRecord = {
    time_iso8601: '2026-11-30T07:18:26.070+00:00', msec: 1796023106.07, remote_addr: '127.10.6.90', remote_user: '',
    request_id: '3e6ea6d8e19199aea3d93db6305e4fb6', host: 'webapp.lab.test', request_method: 'GET', request_uri: '/', server_protocol: 'HTTP/1.1',
    status: 200, body_bytes_sent: 3385, bytes_sent: 3702, request_length: 446, request_time: 0.015, http_referer: '',
    http_user_agent: 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0', upstream_addr: '127.30.0.10:46289', upstream_status: '200',
    upstream_response_length: '3385', upstream_response_time: '0.016', proxy_upstream_name: 'default-webapp-80', cookie_session: '9624971b6e3b18dd06d7316e',
  }
  const HANDMADE: CaptureRecord[] = [
    base,
    {...base, msec: 1796023106.999, request_uri: '/_build/vendor.3352fb10.js?v=2&x=%20y', bytes_sent: 38456, upstream_addr: '127.30.0.9:1, 127.30.0.10:46289', upstream_status: '502, 200'},
    {...base, request_uri: '/_build/main.91ab.js', status: 404, bytes_sent: 325, remote_user: 'alice'},
    {...base, status: 499, bytes_sent: 0, upstream_status: '', upstream_response_time: ''},
    {...base, upstream_addr: '', upstream_status: '', status: 304, bytes_sent: 180},
    {...base, upstream_addr: '[2001:db8::10]:8080', remote_addr: '2001:db8::7', host: 'webapp.lab.test:8443'},
    {...base, request_method: '', request_uri: '', status: 400, bytes_sent: 150},
  ]

  const expectedOfRecord = (r: CaptureRecord): Record<string, unknown> => {
    const e: Record<string, unknown> = {
      time: Math.round(r.msec * 1000), resolutionMs: 1, method: r.request_method, path: r.request_uri.split('?')[0], status: r.status,
      bytes: r.bytes_sent, clientIp: r.remote_addr, userAgent: '',
    }
    const peer = squidPeer(r)
    if (peer !== undefined) e['upstream'] = peer
    e['vhost'] = r.host.replace(/:\d+$/, '')
    e['requestTime'] = Math.round(r.request_time * 1000) / 1000
    return e
  }

  const check = (r: CaptureRecord): void => {
    const line = toSquid(r)
    expect([line, squidLog.looksLike(line)]).toEqual([line, true])
    const out = squidLog.parse(line)
    if (r.request_method === '') {
      expect([line, out]).toMatchObject([line, {ok: false, reason: 'missing-path'}])
      return
    }
    if (squidStatus(r) === '000') {
      expect([line, out]).toMatchObject([line, {ok: false, reason: 'bad-status'}])
      return
    }
    if (!out.ok) throw new Error(`rejected (${out.reason}): ${line}`)
    expect([line, out.event]).toEqual([line, expectedOfRecord(r)])
  }

  it.each(HANDMADE.map((r, i) => [i, r] as const))('handmade record %i', (_i, r) => check(r))

  it('writes the peer without its port, and 499 as TCP_MISS_ABORTED/000', () => {
    expect(toSquid(base)).toContain(' HIER_DIRECT/127.30.0.10 ')
    expect(toSquid(HANDMADE[3] as CaptureRecord)).toContain(' TCP_MISS_ABORTED/000 0 GET ')
    expect(toSquid(HANDMADE[4] as CaptureRecord)).toContain(' HIER_NONE/- ')
  })

  it(`reads back ${CAPTURE_RECORDS.length} real capture records`, () => {
    expect(CAPTURE_RECORDS.length).toBeGreaterThanOrEqual(200)
    for (const r of CAPTURE_RECORDS) check(r)
  })
})
