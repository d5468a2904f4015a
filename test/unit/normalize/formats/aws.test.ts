/**
 * AWS Application Load Balancer and CloudFront access logs: the format checks against the real
 * samples of fixtures/formats/aws and other formats' lines, hand-written edge cases, hostile input,
 * and the writers of scripts/captures/formats/aws.ts read back. Every sample against its expected
 * output (albLog, cloudfrontLog, cloudfrontWithFields of its own #Fields line) is samples.test.ts's.
 */
import {readdirSync} from 'node:fs'
import {join} from 'node:path'
import type {ParseOutcome} from '../../../../src/model'
import {albLog, cloudfrontLog, cloudfrontWithFields} from '../../../../src/normalize/formats/aws'
import type {TextFormat} from '../../../../src/normalize/formats/types'
import {albStatus, albTraceId, cloudfrontStatus, toAlb, toCloudfront} from '../../../../scripts/captures/formats/aws'
import type {CaptureRecord} from '../../../../scripts/captures/formats/capture-record'
import {checkOutcome, FIRST_REQUEST, linesOf} from '../../../helpers/format-samples'

const FORMATS = join(__dirname, '..', '..', '..', '..', 'fixtures', 'formats')
const DIR = join(FORMATS, 'aws')

const samples = readdirSync(DIR).filter((f) => f.endsWith('.log')).sort()
const albSamples = samples.filter((f) => f.startsWith('alb-'))
const cloudfrontSamples = samples.filter((f) => f.startsWith('cloudfront-'))
const isRealtime = (f: string): boolean => f.startsWith('cloudfront-realtime-')

const NGINX = '127.0.0.1 - - [10/Oct/2023:13:55:36 +0000] "GET / HTTP/1.1" 200 5 "-" "curl"'
const DATADOG = '{"id":"AQAAAYx","type":"log","attributes":{"timestamp":"2026-11-30T07:18:26.070Z","message":"x","attributes":{}}}'

describe('albLog.looksLike', () => {
  it('claims every ALB line of the samples, and no Classic ELB, NLB or connection-log line', () => {
    for (const file of albSamples) {
      for (const l of linesOf(DIR, file)) {
        const alb = /^(https?|h2|grpcs|wss?) /.test(l)
        expect([file, l.slice(0, 30), albLog.looksLike(l)]).toEqual([file, l.slice(0, 30), alb])
      }
    }
  })

  it('is false for CloudFront, nginx, Datadog and Google Cloud lines', () => {
    for (const file of cloudfrontSamples) for (const l of linesOf(DIR, file)) expect(albLog.looksLike(l)).toBe(false)
    for (const l of linesOf(join(FORMATS, 'gcp'), 'integrations-test-load-balancer.log')) expect(albLog.looksLike(l)).toBe(false)
    expect(albLog.looksLike(NGINX)).toBe(false)
    expect(albLog.looksLike(DATADOG)).toBe(false)
    expect(albLog.looksLike('')).toBe(false)
    expect(albLog.looksLike('http')).toBe(false)
    expect(albLog.looksLike('http not-a-time')).toBe(false)
  })
})

describe('cloudfrontLog.looksLike', () => {
  it('claims every line of the standard samples, header lines included', () => {
    for (const file of cloudfrontSamples.filter((f) => !isRealtime(f))) {
      for (const l of linesOf(DIR, file)) expect([file, l.slice(0, 30), cloudfrontLog.looksLike(l)]).toEqual([file, l.slice(0, 30), true])
    }
  })

  it('is false for ALB, nginx, Datadog, Google Cloud and other W3C lines', () => {
    for (const file of albSamples) for (const l of linesOf(DIR, file)) expect(cloudfrontLog.looksLike(l)).toBe(false)
    for (const l of linesOf(join(FORMATS, 'gcp'), 'integrations-test-load-balancer.log')) expect(cloudfrontLog.looksLike(l)).toBe(false)
    expect(cloudfrontLog.looksLike(NGINX)).toBe(false)
    expect(cloudfrontLog.looksLike(DATADOG)).toBe(false)
    expect(cloudfrontLog.looksLike('#Software: Microsoft Internet Information Services 10.0')).toBe(false)
    expect(cloudfrontLog.looksLike('#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port')).toBe(false)
    expect(cloudfrontLog.looksLike('2023-10-10 13:55:36 10.0.0.1 GET / - 80 - 10.0.0.2 curl - 200 0 0 5')).toBe(false)
    expect(cloudfrontLog.looksLike('')).toBe(false)
  })

  it('stays cheap on a huge #Fields line', () => {
    expect(cloudfrontLog.looksLike(`#Fields: ${'x'.repeat(1_000_000)} x-edge-location`)).toBe(false)
  })
})

describe('albLog.parse', () => {
  const LINE =
    'h2 2022-11-01T23:50:27.908737Z app/my-alb/1234567890abcdef 203.0.113.9:65432 10.0.10.5:8080 0.000 0.004 0.000 200 200 288 131 ' +
    '"GET https://shop.example.com:443/app/main.3f2a.js?v=1 HTTP/2.0" "Mozilla/5.0 (X11; Linux x86_64)" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 ' +
    'arn:aws:elasticloadbalancing:eu-west-1:1:targetgroup/web/0 "Root=1-6361b0c3-0123456789abcdef01234567" "shop.example.com" "session-reused" 5 ' +
    '2022-11-01T23:50:27.904000Z "forward" "-" "-" "10.0.10.5:8080" "200" "-" "-" TID_0123'
  const parsed = (line: string): Record<string, unknown> => {
    const r = albLog.parse(line)
    if (!r.ok) throw new Error(`rejected (${r.reason}): ${r.detail ?? ''}`)
    return {...r.event, time: new Date(r.event.time).toISOString()}
  }

  it('reads a current line with every field, conn_trace_id included', () => {
    expect(parsed(LINE)).toEqual({
      time: '2022-11-01T23:50:27.908Z',
      resolutionMs: 1,
      method: 'GET',
      path: '/app/main.3f2a.js',
      status: 200,
      bytes: 131,
      clientIp: '203.0.113.9',
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64)',
      upstream: '10.0.10.5:8080',
      requestId: 'Root=1-6361b0c3-0123456789abcdef01234567',
      vhost: 'shop.example.com',
    })
  })

  it('accepts older lines that end early and lines with fields appended', () => {
    const head = LINE.slice(0, LINE.indexOf(' ECDHE'))
    expect(parsed(head)).toMatchObject({path: '/app/main.3f2a.js', userAgent: 'Mozilla/5.0 (X11; Linux x86_64)'})
    expect(parsed(head).requestId).toBeUndefined()
    expect(parsed(`${LINE} "new-field" 42 "another"`)).toEqual(parsed(LINE))
  })

  it('reads a URL without a path as /, and bracketed IPv6 clients and targets', () => {
    const v6 = LINE.replace('203.0.113.9:65432', '[2001:db8::7]:65432').replace('10.0.10.5:8080 0.000', '[2001:db8::10]:8080 0.000')
    expect(parsed(v6)).toMatchObject({clientIp: '2001:db8::7', upstream: '[2001:db8::10]:8080'})
    expect(parsed(LINE.replace('https://shop.example.com:443/app/main.3f2a.js?v=1', 'https://shop.example.com'))).toMatchObject({path: '/', vhost: 'shop.example.com'})
  })

  it('rejects a line the load balancer answered nothing to (status -)', () => {
    const r = albLog.parse(LINE.replace(' 200 200 288 ', ' - - 288 '))
    expect(r).toMatchObject({ok: false, reason: 'bad-status'})
  })

  it('rejects lines whose request could not be read, and bad numbers', () => {
    expect(albLog.parse(LINE.replace('GET https://shop.example.com:443/app/main.3f2a.js?v=1 HTTP/2.0', '- - -'))).toMatchObject({ok: false, reason: 'missing-path'})
    expect(albLog.parse(LINE.replace(' 288 131 ', ' 288 lots '))).toMatchObject({ok: false, reason: 'bad-bytes'})
    expect(albLog.parse(LINE.replace('2022-11-01T23:50:27.908737Z', '2022-13-01T23:50:27.908737Z'))).toMatchObject({ok: false, reason: 'bad-time'})
  })

  it('rejects Classic ELB and NLB lines with a reason that says what they are', () => {
    const classic = albLog.parse('2015-05-13T23:39:43.945958Z my-loadbalancer 192.168.131.39:2817 10.0.0.1:80 0.000073 0.001048 0.000057 200 200 0 29 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.38.0" - -')
    expect(classic).toMatchObject({ok: false, reason: 'unparsed-message'})
    expect(classic.ok ? '' : classic.detail).toContain('Classic Load Balancer')
    const nlb = albLog.parse('tls 2.0 2018-12-20T02:59:40 net/my-network-loadbalancer/c6e77e28c25b2234 g3d4b5e8bb8464cd 192.168.131.39:2817 10.0.0.1:80 5 2 98 246 -')
    expect(nlb).toMatchObject({ok: false, reason: 'unparsed-message'})
  })

  it('never throws on hostile input and rejects it with a short reason', () => {
    const inputs = [
      '',
      '\r',
      'http',
      'http ',
      `http ${'x'.repeat(200_000)}`,
      `h2 2022-11-01T23:50:27.908737Z ${'"'.repeat(100_000)}`,
      `h2 2022-11-01T23:50:27.908737Z app/x 1.2.3.4:5 - 0 0 0 200 200 0 0 "GET /${'a'.repeat(1_000_000)}`,
      LINE.replace(/ /g, '\u0000'),
      LINE.replace('GET', 'G\u0007T\u001b[2J'),
      '\u0000\u0001\u0002\u0003',
      '\uFFFD'.repeat(1000),
    ]
    for (const l of inputs) {
      let r: ParseOutcome | undefined
      expect(() => (r = albLog.parse(l))).not.toThrow()
      checkOutcome(r as ParseOutcome, l)
    }
    expect(albLog.parse(inputs[6] as string)).toMatchObject({ok: false, reason: 'unparsed-message'})
  })

  it('rejects every truncation of a line that cuts the request off, and never throws on any', () => {
    const requestEnd = LINE.indexOf('HTTP/2.0"') + 'HTTP/2.0"'.length
    for (let n = 0; n <= LINE.length; n++) {
      const cut = LINE.slice(0, n)
      let r: ParseOutcome | undefined
      expect(() => (r = albLog.parse(cut))).not.toThrow()
      checkOutcome(r as ParseOutcome, cut)
      if (n < requestEnd) expect([n, (r as ParseOutcome).ok]).toEqual([n, false])
    }
  })
})

describe('cloudfrontLog.parse', () => {
  const FIELDS =
    '#Fields: date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query cs(Cookie) x-edge-result-type x-edge-request-id x-host-header cs-protocol cs-bytes time-taken x-forwarded-for ssl-protocol ssl-cipher x-edge-response-result-type cs-protocol-version fle-status fle-encrypted-fields c-port time-to-first-byte x-edge-detailed-result-type sc-content-type sc-content-len sc-range-start sc-range-end'
  const LINE = [
    '2026-11-30', '07:18:26', 'FRA56-P1', '3702', '203.0.113.9', 'GET', 'd111111abcdef8.cloudfront.net', '/app/main.3f2a.js', '200',
    'https://shop.example.com/', 'Mozilla/5.0%20(X11;%20Linux%20x86_64)', 'v=1', '-', 'Miss', 'reqid==', 'shop.example.com', 'https', '446',
    '0.015', '-', 'TLSv1.3', 'TLS_AES_128_GCM_SHA256', 'Miss', 'HTTP/2.0', '-', '-', '54321', '0.015', 'Miss', 'text/javascript', '3385', '-', '-',
  ].join('\t')
  const parse = (line: string): ParseOutcome => cloudfrontLog.parse(line)
  const event = (line: string): Record<string, unknown> => {
    const r = parse(line)
    if (!r.ok) throw new Error(`rejected (${r.reason}): ${r.detail ?? ''}`)
    return r.event as unknown as Record<string, unknown>
  }
  const withField = (i: number, v: string): string => LINE.split('\t').map((f, k) => (k === i ? v : f)).join('\t')

  it('rejects the header lines, whichever separator they use', () => {
    for (const h of ['#Version: 1.0', '#Version:\t1.0', FIELDS, FIELDS.replace(/ /g, '\t'), '# a comment']) {
      expect(parse(h)).toMatchObject({ok: false, reason: 'header-line'})
    }
  })

  it('decodes the user agent and referer, once, and the doubly encoded space, quote and backslash of older logs', () => {
    expect(event(LINE)).toMatchObject({userAgent: 'Mozilla/5.0 (X11; Linux x86_64)', referer: 'https://shop.example.com/', path: '/app/main.3f2a.js'})
    expect(event(withField(10, 'a%2520b%2522c%255Cd%255cе'))).toMatchObject({userAgent: 'a b"c\\d\\е'})
    expect(event(withField(10, '100%25%20sure%2541'))).toMatchObject({userAgent: '100% sure%41'})
    expect(event(withField(10, 'caf%C3%A9%20%E2%9C%93'))).toMatchObject({userAgent: 'café ✓'})
    expect(event(withField(10, 'bad%ZZ%4%'))).toMatchObject({userAgent: 'bad%ZZ%4%'})
    expect(event(withField(10, 'latin%E9x'))).toMatchObject({userAgent: 'latin\u00e9x'})
    expect(event(withField(10, '-')).userAgent).toBe('')
    expect(event(withField(9, '-')).referer).toBeUndefined()
  })

  it('keeps the path as logged', () => {
    expect(event(withField(7, '/a%20b/%C3%A9.js'))).toMatchObject({path: '/a%20b/%C3%A9.js'})
  })

  it('takes the vhost from x-host-header, else cs(Host)', () => {
    expect(event(LINE).vhost).toBe('shop.example.com')
    expect(event(withField(15, '-')).vhost).toBe('d111111abcdef8.cloudfront.net')
    const short = LINE.split('\t').slice(0, 15).join('\t')
    expect(event(short)).toMatchObject({vhost: 'd111111abcdef8.cloudfront.net', requestId: 'reqid=='})
  })

  it('rejects a record of fewer than 15 fields, status 000 and bad numbers', () => {
    expect(parse(LINE.split('\t').slice(0, 14).join('\t'))).toMatchObject({ok: false, reason: 'unparsed-message'})
    expect(parse(withField(8, '000'))).toMatchObject({ok: false, reason: 'bad-status'})
    expect(parse(withField(8, '-'))).toMatchObject({ok: false, reason: 'bad-status'})
    expect(parse(withField(3, '-'))).toMatchObject({ok: false, reason: 'bad-bytes'})
    expect(parse(withField(1, '25:00:00'))).toMatchObject({ok: false, reason: 'bad-time'})
    expect(parse(withField(7, '-'))).toMatchObject({ok: false, reason: 'missing-path'})
  })

  it('never throws on hostile input and rejects it with a short reason', () => {
    const inputs = [
      '',
      '\t'.repeat(100_000),
      `2026-11-30\t07:18:26\t${'x\t'.repeat(50_000)}`,
      `${'2026-11-30\t'.repeat(14)}${'%'.repeat(500_000)}`,
      LINE.replace(/\t/g, ' '),
      withField(10, '%'.repeat(300_000)),
      LINE.replace('GET', '\u0000\u0007\u001b'),
      `#Version: 1.0${'\u0000'.repeat(10_000)}`,
    ]
    for (const l of inputs) {
      let r: ParseOutcome | undefined
      expect(() => (r = parse(l))).not.toThrow()
      checkOutcome(r as ParseOutcome, l)
    }
    expect(parse(inputs[4] as string)).toMatchObject({ok: false, reason: 'unparsed-message'})
  })

  it('rejects every truncation before the request id, and never throws on any', () => {
    const idEnd = LINE.indexOf('\treqid==') + 1
    for (let n = 0; n <= LINE.length; n++) {
      const cut = LINE.slice(0, n)
      let r: ParseOutcome | undefined
      expect(() => (r = parse(cut))).not.toThrow()
      checkOutcome(r as ParseOutcome, cut)
      if (n < idEnd) expect([n, (r as ParseOutcome).ok]).toEqual([n, false])
    }
  })
})

describe('cloudfrontWithFields', () => {
  it('is undefined for a line that is not #Fields or lacks a needed field', () => {
    expect(cloudfrontWithFields('#Version: 1.0')).toBeUndefined()
    expect(cloudfrontWithFields('date time c-ip')).toBeUndefined()
    expect(cloudfrontWithFields('#Fields: date time c-ip cs-method cs-uri-stem sc-status')).toBeUndefined()
    expect(cloudfrontWithFields('#Fields: c-ip cs-method cs-uri-stem sc-status sc-bytes')).toBeUndefined()
    expect(cloudfrontWithFields('#Fields: date c-ip cs-method cs-uri-stem sc-status sc-bytes')).toBeUndefined()
  })

  it('reads a customised order, and parsers built from different lines do not share it', () => {
    const a = cloudfrontWithFields('#Fields: sc-status c-ip date time cs-method cs-uri-stem sc-bytes cs(User-Agent)') as TextFormat
    const b = cloudfrontWithFields('#Fields:\ttimestamp\tc-ip\tsc-status\tsc-bytes\tcs-method\tcs-uri-stem\tcs-host\tcs-user-agent') as TextFormat
    expect(a).toMatchObject({id: 'aws-cloudfront', bytes: 'response'})
    const ra = a.parse(['404', '198.51.100.1', '2026-11-30', '07:18:26', 'GET', '/x.js', '120', 'curl/8.0'].join('\t'))
    const rb = b.parse(['1796023106.070', '198.51.100.2', '200', '3702', 'GET', '/', 'd1.cloudfront.net', 'Mozilla%2F5.0'].join('\t'))
    const ra2 = a.parse(['404', '198.51.100.1', '2026-11-30', '07:18:26', 'GET', '/x.js', '120', 'curl/8.0'].join('\t'))
    expect(ra).toEqual(ra2)
    expect(ra).toEqual({ok: true, event: {time: Date.UTC(2026, 10, 30, 7, 18, 26), resolutionMs: 1000, method: 'GET', path: '/x.js', status: 404, bytes: 120, clientIp: '198.51.100.1', userAgent: 'curl/8.0'}})
    expect(rb).toEqual({ok: true, event: {time: 1796023106070, resolutionMs: 1, method: 'GET', path: '/', status: 200, bytes: 3702, clientIp: '198.51.100.2', userAgent: 'Mozilla/5.0', vhost: 'd1.cloudfront.net'}})
    expect(a.parse(['200', '198.51.100.1'].join('\t'))).toMatchObject({ok: false, reason: 'unparsed-message'})
    expect(b.parse(['17960231x6', '198.51.100.2', '200', '3702', 'GET', '/'].join('\t'))).toMatchObject({ok: false, reason: 'bad-time'})
  })
})

describe('writers: toAlb and toCloudfront read back', () => {
  const base: CaptureRecord = FIRST_REQUEST
  const records: CaptureRecord[] = [
    base,
    {
      ...base,
      msec: 1796023106.092,
      time_iso8601: '2026-11-30T07:18:26.092+00:00',
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
      msec: 1796023107.999,
      request_id: 'ab0c0ffee0c0ffee0c0ffee0c0ffee00',
      request_uri: '/_build/main.91ab.js',
      status: 404,
      body_bytes_sent: 153,
      bytes_sent: 325,
      http_user_agent: 'Ünïcode ("agent") 100% \\o/',
      http_referer: 'http://webapp.lab.test/page?q=a b',
    },
    {...base, request_id: 'ffff0000ffff0000ffff0000ffff0000', status: 499, body_bytes_sent: 0, bytes_sent: 0, upstream_status: '', upstream_response_time: ''},
  ]

  it.each(records.map((r, i) => [i, r] as const))('ALB, record %i', (_i, r) => {
    const out = albLog.parse(toAlb(r))
    expect(albLog.looksLike(toAlb(r))).toBe(true)
    if (!out.ok) throw new Error(`rejected (${out.reason}): ${out.detail ?? ''}`)
    const uri = r.request_uri.split('?')[0]
    expect(out.event).toEqual({
      time: Math.round(r.msec * 1000),
      resolutionMs: 1,
      method: r.request_method,
      path: uri,
      status: albStatus(r),
      bytes: r.bytes_sent,
      clientIp: r.remote_addr,
      userAgent: r.http_user_agent,
      upstream: '127.30.0.10:46289',
      requestId: albTraceId(r),
      vhost: r.host,
    })
  })

  it.each(records.map((r, i) => [i, r] as const))('CloudFront, record %i', (_i, r) => {
    const line = toCloudfront(r)
    expect(cloudfrontLog.looksLike(line)).toBe(true)
    const out = cloudfrontLog.parse(line)
    if (cloudfrontStatus(r) === '000') {
      expect(out).toMatchObject({ok: false, reason: 'bad-status'})
      return
    }
    if (!out.ok) throw new Error(`rejected (${out.reason}): ${out.detail ?? ''}`)
    const expected: Record<string, unknown> = {
      time: Math.floor(r.msec) * 1000,
      resolutionMs: 1000,
      method: r.request_method,
      path: r.request_uri.split('?')[0],
      status: r.status,
      bytes: r.bytes_sent,
      clientIp: r.remote_addr,
      userAgent: r.http_user_agent,
      requestId: r.request_id,
      vhost: r.host,
    }
    if (r.http_referer !== '') expected['referer'] = r.http_referer
    expect(out.event).toEqual(expected)
  })
})
