/**
 * Amazon S3 server access logs and AWS Classic Load Balancer access logs: the format checks against
 * the real samples of fixtures/formats/aws-legacy and every other format's samples, hand-written edge
 * cases, hostile input, and the writers of scripts/captures/formats/aws-legacy.ts read back. Every
 * sample against its expected output (`s3-*` by s3AccessLog, `elb-classic-*` by elbClassicLog) is
 * samples.test.ts's.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {gunzipSync} from 'node:zlib'
import type {AccessFields, ParseOutcome} from '../../../../src/model'
import {lastUpstream} from '../../../../src/normalize/access-line'
import {elbClassicLog, s3AccessLog} from '../../../../src/normalize/formats/aws-legacy'
import type {TextFormat} from '../../../../src/normalize/formats/types'
import {s3EpochMs, s3RequestId, toElbClassic, toS3} from '../../../../scripts/captures/formats/aws-legacy'
import type {CaptureRecord} from '../../../../scripts/captures/formats/capture-record'
import {checkOutcome, FIRST_REQUEST, linesOf} from '../../../helpers/format-samples'

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'fixtures')
const FORMATS = join(FIXTURES, 'formats')
const DIR = join(FORMATS, 'aws-legacy')

const samples = readdirSync(DIR).filter((f) => f.endsWith('.log')).sort()
const s3Samples = samples.filter((f) => f.startsWith('s3-'))
const elbSamples = samples.filter((f) => f.startsWith('elb-classic-'))

function parseSafely(f: TextFormat, line: string): ParseOutcome {
  let r: ParseOutcome | undefined
  expect(() => (r = f.parse(line))).not.toThrow()
  checkOutcome(r as ParseOutcome, line)
  return r as ParseOutcome
}

function eventOf(f: TextFormat, line: string): AccessFields {
  const r = f.parse(line)
  if (!r.ok) throw new Error(`rejected (${r.reason}): ${r.detail ?? ''}`)
  return r.event
}

/** Lines of every other format's samples (text and NDJSON), by directory. */
function otherFormatLines(): {file: string; line: string}[] {
  const out: {file: string; line: string}[] = []
  for (const d of ['aws', 'nginx', 'traefik', 'envoy', 'caddy', 'gcp']) {
    const dir = join(FORMATS, d)
    for (const f of readdirSync(dir).filter((x) => /\.(log|jsonl|ndjson)$/.test(x)).sort()) {
      for (const line of linesOf(dir, f)) out.push({file: `${d}/${f}`, line})
    }
  }
  return out
}

const NGINX = '127.0.0.1 - - [10/Oct/2023:13:55:36 +0000] "GET / HTTP/1.1" 200 5 "-" "curl"'
const NGINX_WITH_HOST = 'example.com 172.17.0.1 - - [29/May/2017:19:02:48 +0000] "GET /stringpatch HTTP/1.1" 404 612 "-" "Mozilla/5.0" "-"'
const ALB =
  'http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.46.0" - - arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337262-36d228ad5d99923122bbe354" "-" "-" 0 2018-07-02T22:22:48.364000Z "forward" "-" "-" "10.0.0.1:80" "200" "-" "-"'

// A website-endpoint GET of a hashed bundle, with every field of a 2023 log.
const S3_LINE =
  '7e1c2dcc1527ebbd9a81efbefb6a7d5945b7c6fe00160f682c2b7c056d301e83 shop.example.com [11/Nov/2023:03:37:50 +0000] 203.0.113.9 - YDYP07R0QHFNH76W ' +
  'WEBSITE.GET.OBJECT assets/main.3f2a.js "GET /assets/main.3f2a.js?v=1 HTTP/1.1" 200 - 3385 3385 39 12 "https://shop.example.com/" ' +
  '"Mozilla/5.0 (X11; Linux x86_64)" - m3PGwDN1s8smqpOSEELewHILMcdm7xri7/UsWHBhRrT0w23Pp0YcEmgboXyHFTv7qR7RvFMrUgo= - - - shop.example.com - - -'
const ELB_LINE =
  '2015-05-13T23:39:43.945958Z my-loadbalancer 203.0.113.9:2817 10.0.0.1:80 0.000086 0.001048 0.001337 200 200 0 3385 ' +
  '"GET https://shop.example.com:443/assets/main.3f2a.js?v=1 HTTP/1.1" "Mozilla/5.0 (X11; Linux x86_64)" DHE-RSA-AES128-SHA TLSv1.2'

describe('s3AccessLog.looksLike', () => {
  /**
   * Lines of the S3 samples that are not claimed: icodeforlove's junk line (`- - - …`) and its
   * line without a bucket owner (both "bad matches" upstream), and the two logstash spec lines
   * whose owner the spec cut to `79a5` (a real owner is a 64-hex canonical id; parse reads them).
   */
  const NOT_CLAIMED: Record<string, number[]> = {'s3-icodeforlove-matches.log': [2, 4], 's3-logstash-aws-spec.log': [1, 2]}

  it('claims every record of the S3 samples, rejected ones (lifecycle, batch delete) included', () => {
    for (const file of s3Samples) {
      linesOf(DIR, file).forEach((l, i) => {
        const claimed = !(NOT_CLAIMED[file] ?? []).includes(i + 1)
        expect([file, i + 1, s3AccessLog.looksLike(l)]).toEqual([file, i + 1, claimed])
      })
    }
  })

  it('is false for Classic ELB lines and every other format’s samples', () => {
    for (const file of elbSamples) for (const l of linesOf(DIR, file)) expect(s3AccessLog.looksLike(l)).toBe(false)
    for (const {file, line} of otherFormatLines()) expect([file, line.slice(0, 40), s3AccessLog.looksLike(line)]).toEqual([file, line.slice(0, 40), false])
    for (const l of [NGINX, NGINX_WITH_HOST, ALB, '', '[', S3_LINE.slice(1), S3_LINE.replace('shop.example.com [', 'shop.example.com x [')]) {
      expect([l.slice(0, 40), s3AccessLog.looksLike(l)]).toEqual([l.slice(0, 40), false])
    }
    // 64 hex chars then a host and an IP: an nginx `$request_id $host $remote_addr - - [time]` line.
    expect(s3AccessLog.looksLike(`${'a'.repeat(64)} example.com 10.0.0.1 - - [10/Oct/2023:13:55:36 +0000] "GET / HTTP/1.1" 200 5`)).toBe(false)
  })

  it('accepts an upper-case owner, and stays cheap on a huge line', () => {
    expect(s3AccessLog.looksLike(S3_LINE.replace(/^[0-9a-f]{64}/, (h) => h.toUpperCase()))).toBe(true)
    expect(s3AccessLog.looksLike(`${'a'.repeat(64)} ${'b'.repeat(1_000_000)} [11/Nov/2023:03:37:50 +0000]`)).toBe(false)
  })
})

describe('elbClassicLog.looksLike', () => {
  it('claims every line of the Classic ELB samples (TCP and SSL listener lines included)', () => {
    for (const file of elbSamples) for (const l of linesOf(DIR, file)) expect([file, l.slice(0, 40), elbClassicLog.looksLike(l)]).toEqual([file, l.slice(0, 40), true])
  })

  it('is false for S3 lines and every other format’s samples (ALB, NLB and ALB connection logs among them)', () => {
    for (const file of s3Samples) for (const l of linesOf(DIR, file)) expect(elbClassicLog.looksLike(l)).toBe(false)
    for (const {file, line} of otherFormatLines()) {
      expect([file, line.slice(0, 40), elbClassicLog.looksLike(line)]).toEqual([file, line.slice(0, 40), false])
    }
    const others = [
      NGINX,
      NGINX_WITH_HOST,
      ALB,
      '',
      '2015-05-13T23:39:43.945958Z',
      // kubectl logs --timestamps, and a CRI container line, in front of an nginx line
      `2023-10-10T13:55:36.123456789Z ${NGINX}`,
      `2023-10-10T13:55:36.123456789Z stdout F ${NGINX}`,
      // ALB connection log: the client's port is a field of its own
      '2024-10-04T17:05:15.514108Z 192.168.131.39 36280 443 TLSv1.2 ECDHE-RSA-AES128-GCM-SHA256 4.036 "CN=x" NotBefore=2023-09-21T22:00:00Z',
    ]
    for (const l of others) expect([l.slice(0, 40), elbClassicLog.looksLike(l)]).toEqual([l.slice(0, 40), false])
  })

  it('stays cheap on a huge line', () => {
    expect(elbClassicLog.looksLike(`2015-05-13T23:39:43.945958Z ${'x'.repeat(1_000_000)}`)).toBe(false)
    expect(elbClassicLog.looksLike(`2015-05-13T23:39:43.945958Z lb 1.2.3.4:5 ${'-'.repeat(1_000_000)}`)).toBe(false)
  })
})

describe('s3AccessLog.parse', () => {
  const parse = (line: string): ParseOutcome => s3AccessLog.parse(line)

  it('reads a website GET with every field', () => {
    const e = eventOf(s3AccessLog, S3_LINE)
    expect({...e, time: new Date(e.time).toISOString()}).toEqual({
      time: '2023-11-11T03:37:50.000Z',
      resolutionMs: 1000,
      method: 'GET',
      path: '/assets/main.3f2a.js',
      status: 200,
      bytes: 3385,
      clientIp: '203.0.113.9',
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64)',
      referer: 'https://shop.example.com/',
      requestId: 'YDYP07R0QHFNH76W',
      vhost: 'shop.example.com',
    })
  })

  it('accepts the oldest lines (through version_id, or the user agent) and lines with fields appended', () => {
    const head = S3_LINE.slice(0, S3_LINE.indexOf(' m3PGw'))
    const {vhost: _v, ...noHost} = eventOf(s3AccessLog, S3_LINE)
    expect(eventOf(s3AccessLog, head)).toEqual(noHost)
    expect(eventOf(s3AccessLog, head.slice(0, head.lastIndexOf(' -')))).toEqual(noHost)
    expect(eventOf(s3AccessLog, `${S3_LINE} NewField 42 "quoted new field"`)).toEqual(eventOf(s3AccessLog, S3_LINE))
    expect(eventOf(s3AccessLog, `${S3_LINE}\r`)).toEqual(eventOf(s3AccessLog, S3_LINE))
  })

  it('reads a request line without a protocol, an absolute URL (its host when no host_header) and `-` fields', () => {
    const copyGet = S3_LINE.replace('"GET /assets/main.3f2a.js?v=1 HTTP/1.1"', '"GET /bucket/photos/puppy.jpg?x-foo=bar"')
    expect(eventOf(s3AccessLog, copyGet)).toMatchObject({method: 'GET', path: '/bucket/photos/puppy.jpg'})
    const abs = S3_LINE.replace('"GET /assets/main.3f2a.js?v=1 HTTP/1.1"', '"GET http://b.s3.amazonaws.com:80/k HTTP/1.1"')
    expect(eventOf(s3AccessLog, abs)).toMatchObject({path: '/k', vhost: 'shop.example.com'})
    expect(eventOf(s3AccessLog, abs.replace(' shop.example.com - - -', ' - - - -'))).toMatchObject({path: '/k', vhost: 'b.s3.amazonaws.com'})
    const dashes = S3_LINE.replace(' 203.0.113.9 - YDYP07R0QHFNH76W ', ' - - - ').replace(' 3385 3385 ', ' - 3385 ').replace('"https://shop.example.com/" "Mozilla/5.0 (X11; Linux x86_64)"', '- -')
    const e = eventOf(s3AccessLog, dashes)
    expect(e).toMatchObject({clientIp: '', userAgent: '', bytes: 0})
    expect(e.referer).toBeUndefined()
    expect(e.requestId).toBeUndefined()
    expect(eventOf(s3AccessLog, S3_LINE.replace(' 203.0.113.9 ', ' 2001:db8::7 ')).clientIp).toBe('2001:db8::7')
    expect(eventOf(s3AccessLog, S3_LINE.replace('[11/Nov/2023:03:37:50 +0000]', '[11/Nov/2023:05:37:50 +0200]')).time).toBe(Date.UTC(2023, 10, 11, 3, 37, 50))
  })

  it('parses other operations that carry a request line (PUT, DELETE, HEAD) and keeps the path as logged', () => {
    const put = S3_LINE.replace('WEBSITE.GET.OBJECT', 'REST.PUT.OBJECT').replace('"GET /assets/main.3f2a.js?v=1 HTTP/1.1"', '"PUT /bucket/a%20b.js HTTP/1.1"')
    expect(eventOf(s3AccessLog, put)).toMatchObject({method: 'PUT', path: '/bucket/a%20b.js'})
    const head = S3_LINE.replace('WEBSITE.GET.OBJECT', 'REST.HEAD.OBJECT').replace('"GET /', '"HEAD /')
    expect(eventOf(s3AccessLog, head)).toMatchObject({method: 'HEAD', path: '/assets/main.3f2a.js'})
  })

  it('rejects records without a request line, saying which operation they are', () => {
    for (const uri of ['"-"', '-']) {
      const r = parse(S3_LINE.replace('WEBSITE.GET.OBJECT', 'S3.EXPIRE.OBJECT').replace('"GET /assets/main.3f2a.js?v=1 HTTP/1.1"', uri))
      expect(r).toMatchObject({ok: false, reason: 'missing-path'})
      expect(r.ok ? '' : r.detail).toContain('S3.EXPIRE.OBJECT')
    }
    expect(parse(S3_LINE.replace('"GET /assets/main.3f2a.js?v=1 HTTP/1.1"', '"GET"'))).toMatchObject({ok: false, reason: 'missing-path'})
    expect(parse(S3_LINE.replace('"GET /assets/main.3f2a.js?v=1 HTTP/1.1"', '"- - -"'))).toMatchObject({ok: false, reason: 'missing-path'})
    expect(parse(S3_LINE.replace('"GET /assets/main.3f2a.js?v=1 HTTP/1.1"', '"GET assets HTTP/1.1"'))).toMatchObject({ok: false, reason: 'missing-path'})
  })

  it('rejects a missing status, bad numbers and bad times', () => {
    expect(parse(S3_LINE.replace(' 200 - 3385 ', ' - - 3385 '))).toMatchObject({ok: false, reason: 'bad-status'})
    expect(parse(S3_LINE.replace(' 200 - 3385 ', ' 20x - 3385 '))).toMatchObject({ok: false, reason: 'bad-status'})
    expect(parse(S3_LINE.replace(' 200 - 3385 ', ' 200 - lots '))).toMatchObject({ok: false, reason: 'bad-bytes'})
    expect(parse(S3_LINE.replace(' 200 - 3385 ', ` 200 - ${'9'.repeat(16)} `))).toMatchObject({ok: false, reason: 'bad-bytes'})
    expect(parse(S3_LINE.replace('11/Nov/2023', '11/Nob/2023'))).toMatchObject({ok: false, reason: 'bad-time'})
    expect(parse(S3_LINE.replace('03:37:50 +0000', '03:37:50'))).toMatchObject({ok: false, reason: 'bad-time'})
    expect(parse(S3_LINE.replace('11/Nov/2023', '31/Nov/2023'))).toMatchObject({ok: false, reason: 'bad-time'})
  })

  it('never throws on hostile input and rejects it with a short reason', () => {
    const owner = '7e1c2dcc1527ebbd9a81efbefb6a7d5945b7c6fe00160f682c2b7c056d301e83'
    const inputs = [
      '',
      '\r',
      ' ',
      '  [',
      `${owner} b [`,
      `${owner} b [${'1'.repeat(200_000)}]`,
      `${owner} b [11/Nov/2023:03:37:50 +0000]${'x'.repeat(100_000)}`,
      `${owner} b [11/Nov/2023:03:37:50 +0000] ${'"'.repeat(100_000)}`,
      `${owner} b [11/Nov/2023:03:37:50 +0000] ${'" '.repeat(100_000)}`,
      `${owner} b [11/Nov/2023:03:37:50 +0000] 1.2.3.4 - X OP k "GET /${'a'.repeat(1_000_000)}`,
      `${'x'.repeat(1_000_000)} b [11/Nov/2023:03:37:50 +0000]`,
      S3_LINE.replace(/ /g, '\u0000'),
      S3_LINE.replace('"GET', '"G\u0007T\u001b[2J').replace(' 200 - 3385 ', ' 2\u0000 - 3385 '),
      '\u0000\u0001\u0002\u0003',
      '\uFFFD'.repeat(1000),
    ]
    for (const l of inputs) expect(parseSafely(s3AccessLog, l).ok).toBe(false)
    // Control characters inside a field are kept as logged, not a reason to throw.
    expect(parseSafely(s3AccessLog, S3_LINE.replace('Linux', 'Li\u0000nux\u001b')).ok).toBe(true)
  })

  it('rejects every truncation that cuts the record before its user agent ends, and never throws on any', () => {
    const uaEnd = S3_LINE.indexOf('x86_64)"') + 'x86_64)"'.length
    for (let n = 0; n <= S3_LINE.length; n++) {
      const cut = S3_LINE.slice(0, n)
      const r = parseSafely(s3AccessLog, cut)
      if (n < uaEnd) expect([n, r.ok]).toEqual([n, false])
    }
  })
})

describe('elbClassicLog.parse', () => {
  const parse = (line: string): ParseOutcome => elbClassicLog.parse(line)

  it('reads an HTTPS line with every field', () => {
    const e = eventOf(elbClassicLog, ELB_LINE)
    expect({...e, time: new Date(e.time).toISOString()}).toEqual({
      time: '2015-05-13T23:39:43.945Z',
      resolutionMs: 1,
      method: 'GET',
      path: '/assets/main.3f2a.js',
      status: 200,
      bytes: 3385,
      clientIp: '203.0.113.9',
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64)',
      upstream: '10.0.0.1:80',
      vhost: 'shop.example.com',
    })
  })

  it('accepts lines from before 2015 (ending after the request) and lines with fields appended', () => {
    const old = ELB_LINE.slice(0, ELB_LINE.indexOf(' "Mozilla'))
    expect(eventOf(elbClassicLog, old)).toEqual({...eventOf(elbClassicLog, ELB_LINE), userAgent: ''})
    expect(eventOf(elbClassicLog, `${ELB_LINE} new-field "another one"`)).toEqual(eventOf(elbClassicLog, ELB_LINE))
    expect(eventOf(elbClassicLog, `${ELB_LINE}\r`)).toEqual(eventOf(elbClassicLog, ELB_LINE))
  })

  it('reads IPv6 clients and backends, a URL without a path, and a request that reached no backend', () => {
    const v6 = ELB_LINE.replace('203.0.113.9:2817 10.0.0.1:80', '[2001:db8::7]:2817 [2001:db8::10]:80')
    expect(eventOf(elbClassicLog, v6)).toMatchObject({clientIp: '2001:db8::7', upstream: '[2001:db8::10]:80'})
    expect(elbClassicLog.looksLike(v6)).toBe(true)
    expect(eventOf(elbClassicLog, ELB_LINE.replace('https://shop.example.com:443/assets/main.3f2a.js?v=1', 'https://shop.example.com'))).toMatchObject({path: '/', vhost: 'shop.example.com'})
    const lost = ELB_LINE.replace('10.0.0.1:80 0.000086 0.001048 0.001337 200 200', '- -1 -1 -1 504 -')
    const e = eventOf(elbClassicLog, lost)
    expect(e).toMatchObject({status: 504})
    expect(e.upstream).toBeUndefined()
  })

  it('rejects TCP/SSL listener lines, unread requests, a missing status, bad numbers and bad times', () => {
    const tcp = parse('2015-05-13T23:39:43.945958Z my-loadbalancer 192.168.131.39:2817 10.0.0.1:80 0.001069 0.000028 0.000041 - - 82 305 "- - - " "-" - -')
    expect(tcp).toMatchObject({ok: false, reason: 'missing-path'})
    expect(tcp.ok ? '' : tcp.detail).toContain('TCP')
    expect(parse(ELB_LINE.replace('"GET https://shop.example.com:443/assets/main.3f2a.js?v=1 HTTP/1.1"', '"GET http://www.example.com:80- -"'))).toMatchObject({ok: false, reason: 'missing-path'})
    expect(parse(ELB_LINE.replace('"GET https://shop.example.com:443/assets/main.3f2a.js?v=1 HTTP/1.1"', '"- http://www.example.com:80- -"'))).toMatchObject({ok: false, reason: 'missing-path'})
    expect(parse(ELB_LINE.replace(' 200 200 0 3385 ', ' - - 0 3385 '))).toMatchObject({ok: false, reason: 'bad-status'})
    expect(parse(ELB_LINE.replace(' 200 200 0 3385 ', ' 200 200 0 lots '))).toMatchObject({ok: false, reason: 'bad-bytes'})
    expect(parse(ELB_LINE.replace('2015-05-13T23', '2015-13-13T23'))).toMatchObject({ok: false, reason: 'bad-time'})
    expect(parse(ELB_LINE.replace('.945958Z', '.945958'))).toMatchObject({ok: false, reason: 'bad-time'})
    expect(parse(NGINX)).toMatchObject({ok: false, reason: 'unparsed-message'})
    expect(parse(ALB)).toMatchObject({ok: false, reason: 'unparsed-message'})
  })

  it('never throws on hostile input and rejects it with a short reason', () => {
    const inputs = [
      '',
      '\r',
      '2015-05-13T23:39:43.945958Z',
      `2015-05-13T23:39:43.945958Z ${'x'.repeat(200_000)}`,
      `2015-05-13T23:39:43.945958Z ${'"'.repeat(100_000)}`,
      `2015-05-13T23:39:43.945958Z ${'" '.repeat(100_000)}`,
      `2015-05-13T23:39:43.945958Z lb 1.2.3.4:5 - -1 -1 -1 200 - 0 0 "GET /${'a'.repeat(1_000_000)}`,
      `${'2015-05-13T23:39:43.945958Z '.repeat(20_000)}`,
      ELB_LINE.replace(/ /g, '\u0000'),
      ELB_LINE.replace('GET', 'G\u0007T\u001b[2J').replace(' 200 200 ', ' 2\u0000 200 '),
      '\u0000\u0001\u0002\u0003',
      '\uFFFD'.repeat(1000),
    ]
    for (const l of inputs) expect(parseSafely(elbClassicLog, l).ok).toBe(false)
  })

  it('rejects every truncation that cuts the request off, and never throws on any', () => {
    const requestEnd = ELB_LINE.indexOf('HTTP/1.1"') + 'HTTP/1.1"'.length
    for (let n = 0; n <= ELB_LINE.length; n++) {
      const cut = ELB_LINE.slice(0, n)
      const r = parseSafely(elbClassicLog, cut)
      if (n < requestEnd) expect([n, r.ok]).toEqual([n, false])
    }
  })
})

describe('writers: toS3 and toElbClassic read back', () => {
  const base: CaptureRecord = FIRST_REQUEST
  const handmade: CaptureRecord[] = [
    base,
    {
      ...base,
      msec: 1796023106.999,
      time_iso8601: '2026-11-30T07:18:26.999+00:00',
      request_id: '311bc24311a0e86a42f6e4704ee9957a',
      request_uri: '/_build/vendor.3352fb10.js?v=2&x=%20y',
      body_bytes_sent: 38097,
      bytes_sent: 38456,
      http_referer: 'http://webapp.lab.test/',
      upstream_addr: '127.30.0.9:1, 127.30.0.10:46289',
      upstream_status: '502, 200',
      server_protocol: 'HTTP/2.0',
    },
    {
      ...base,
      msec: 1796023107.5,
      request_id: 'ab0c0ffee0c0ffee0c0ffee0c0ffee00',
      request_uri: '/_build/main.91ab.js',
      status: 404,
      body_bytes_sent: 153,
      bytes_sent: 325,
      http_user_agent: 'Ünïcode ("agent") 100% \\o/',
      http_referer: 'http://webapp.lab.test/page?q=a b',
    },
    {...base, request_id: 'ffff0000ffff0000ffff0000ffff0000', status: 304, body_bytes_sent: 0, bytes_sent: 180, upstream_addr: '', upstream_status: '', upstream_response_time: ''},
    {...base, request_method: 'HEAD', request_uri: '/index.html', http_user_agent: '', request_id: ''},
    {...base, request_method: 'POST', request_uri: '/api/events', status: 204, body_bytes_sent: 0},
  ]

  const CAPTURES = join(FIXTURES, 'captures')
  const PER_CAPTURE = 34
  /** About 200 records: PER_CAPTURE spread over each capture (404s, 304s, POSTs and HEADs among them). */
  const captured: CaptureRecord[] = readdirSync(CAPTURES)
    .filter((d) => !d.includes('.'))
    .sort()
    .flatMap((c) => {
      const lines = gunzipSync(readFileSync(join(CAPTURES, c, 'nginx.jsonl.gz'))).toString('utf8').split('\n').filter((l) => l !== '')
      const step = Math.max(1, Math.floor(lines.length / PER_CAPTURE))
      return lines.filter((_, i) => i % step === 0).slice(0, PER_CAPTURE)
    })
    .map((l) => JSON.parse(l) as CaptureRecord)

  function s3Expected(r: CaptureRecord): AccessFields {
    const e: AccessFields = {
      time: s3EpochMs(r),
      resolutionMs: 1000,
      method: r.request_method,
      path: r.request_uri.split('?')[0] as string,
      status: r.status,
      bytes: r.body_bytes_sent,
      clientIp: r.remote_addr,
      userAgent: r.http_user_agent,
      vhost: r.host,
    }
    if (r.http_referer !== '') e.referer = r.http_referer
    const id = s3RequestId(r)
    if (id !== undefined) e.requestId = id
    return e
  }

  function elbExpected(r: CaptureRecord): AccessFields {
    const e: AccessFields = {
      time: Math.round(r.msec * 1000),
      resolutionMs: 1,
      method: r.request_method,
      path: r.request_uri.split('?')[0] as string,
      status: r.status,
      bytes: r.body_bytes_sent,
      clientIp: r.remote_addr,
      userAgent: r.http_user_agent,
      vhost: r.host,
    }
    const up = lastUpstream(r.upstream_addr)
    if (up !== undefined) e.upstream = up
    return e
  }

  it('has about 200 capture records, with every status and method the captures hold', () => {
    expect(captured.length).toBeGreaterThanOrEqual(190)
    expect(new Set(captured.map((r) => r.status))).toEqual(new Set([200, 204, 304, 404]))
    expect(new Set(captured.map((r) => r.request_method))).toEqual(new Set(['GET', 'POST', 'HEAD']))
  })

  it.each(handmade.map((r, i) => [i, r] as const))('S3, handmade record %i', (_i, r) => {
    const line = toS3(r)
    expect(s3AccessLog.looksLike(line)).toBe(true)
    expect(elbClassicLog.looksLike(line)).toBe(false)
    expect(eventOf(s3AccessLog, line)).toEqual(s3Expected(r))
  })

  it.each(handmade.map((r, i) => [i, r] as const))('Classic ELB, handmade record %i', (_i, r) => {
    const line = toElbClassic(r)
    expect(elbClassicLog.looksLike(line)).toBe(true)
    expect(s3AccessLog.looksLike(line)).toBe(false)
    expect(eventOf(elbClassicLog, line)).toEqual(elbExpected(r))
  })

  it('S3: every capture record reads back', () => {
    for (const r of captured) {
      const line = toS3(r)
      expect([r.request_id, s3AccessLog.looksLike(line)]).toEqual([r.request_id, true])
      expect(eventOf(s3AccessLog, line)).toEqual(s3Expected(r))
    }
  })

  it('Classic ELB: every capture record reads back', () => {
    for (const r of captured) {
      const line = toElbClassic(r)
      expect([r.request_id, elbClassicLog.looksLike(line)]).toEqual([r.request_id, true])
      expect(eventOf(elbClassicLog, line)).toEqual(elbExpected(r))
    }
  })

  it('writes a request nginx could not read as one the parsers reject as missing-path', () => {
    const unread = {...base, request_method: '', request_uri: '', server_protocol: '', status: 400}
    expect(s3AccessLog.parse(toS3(unread))).toMatchObject({ok: false, reason: 'missing-path'})
    expect(elbClassicLog.parse(toElbClassic(unread))).toMatchObject({ok: false, reason: 'missing-path'})
  })

  it('writes what S3 and Classic ELB write for a body-less response and a request that reached no backend', () => {
    const none = {...base, status: 304, body_bytes_sent: 0, upstream_addr: '', upstream_status: '', upstream_response_time: ''}
    expect(toS3(none)).toContain(' 304 - - - ')
    expect(toElbClassic(none)).toContain(' - -1 -1 -1 304 - 0 0 "GET http://webapp.lab.test:80/ HTTP/1.1" ')
    // S3 logs `-` for a requester it has no address for (AWS services delivering logs).
    const line = toS3({...base, remote_addr: ''})
    expect(line).toContain('] - - ')
    expect(eventOf(s3AccessLog, line).clientIp).toBe('')
  })
})
