/**
 * W3C extended logs (IIS, Azure App Service): the format check on the real samples of
 * fixtures/formats/w3c and against the other formats' lines, hand-written edge cases, hostile input,
 * and the writer of scripts/captures/formats/w3c.ts read back. Every sample against its expected
 * output, read as a reader would (a `#Fields:` line switches the field order), is samples.test.ts's.
 */
import {readdirSync} from 'node:fs'
import {join} from 'node:path'
import type {ParseOutcome} from '../../../../src/model'
import {albLog, cloudfrontLog} from '../../../../src/normalize/formats/aws'
import type {TextFormat} from '../../../../src/normalize/formats/types'
import {w3cLog, w3cWithFields} from '../../../../src/normalize/formats/w3c'
import type {CaptureRecord} from '../../../../scripts/captures/formats/capture-record'
import {toW3c, W3C_FIELDS_LINE, w3cHeader, w3cStatus} from '../../../../scripts/captures/formats/w3c'
import {checkOutcome, gzLines, linesOf} from '../../../helpers/format-samples'

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'fixtures')
const FORMATS = join(FIXTURES, 'formats')
const DIR = join(FORMATS, 'w3c')

const samples = readdirSync(DIR).filter((f) => f.endsWith('.log')).sort()

const NGINX = '127.0.0.1 - - [10/Oct/2023:13:55:36 +0000] "GET / HTTP/1.1" 200 5 "-" "curl"'
const AWS = join(FORMATS, 'aws')
const CLOUDFRONT_LINES = readdirSync(AWS).filter((f) => f.startsWith('cloudfront-') && f.endsWith('.log')).flatMap((f) => linesOf(AWS, f))
const ALB_LINES = readdirSync(AWS).filter((f) => f.startsWith('alb-') && f.endsWith('.log')).flatMap((f) => linesOf(AWS, f))
const SQUID = join(FORMATS, 'squid')
const SQUID_LINES = readdirSync(SQUID).filter((f) => f.endsWith('.log')).flatMap((f) => linesOf(SQUID, f))
const GCS = join(FORMATS, 'gcs')
const GCS_LINES = readdirSync(GCS).filter((f) => f.endsWith('.csv')).flatMap((f) => linesOf(GCS, f))
const CAPTURES = join(FIXTURES, 'captures')
const captureNames = readdirSync(CAPTURES).filter((d) => !d.includes('.')).sort()
const CAPTURE_RECORDS = captureNames.flatMap((c) => gzLines(join(CAPTURES, c, 'nginx.jsonl.gz'), 34)).map((l) => JSON.parse(l) as CaptureRecord)
const COMBINED_LINES = captureNames.flatMap((c) => gzLines(join(CAPTURES, c, 'combined.log.gz'), 10))

describe('w3cLog.looksLike', () => {
  it('claims the #Software and #Fields lines of IIS logs, and their records in the default order', () => {
    for (const file of samples) {
      for (const l of linesOf(DIR, file)) {
        const want =
          /^#Software: Microsoft (Internet Information Services|HTTP Server API)/.test(l) ||
          (l.startsWith('#Fields:') && / cs-method /.test(l) && / cs-uri-stem/.test(l) && / date /.test(l)) ||
          /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [\d.:a-f%]+ [A-Z]+ \//.test(l)
        expect([file, l.slice(0, 50), w3cLog.looksLike(l)]).toEqual([file, l.slice(0, 50), want])
      }
    }
  })

  it('claims the header lines IIS writes', () => {
    expect(w3cLog.looksLike('#Software: Microsoft Internet Information Services 10.0')).toBe(true)
    expect(w3cLog.looksLike('#Software: Microsoft Internet Information Services 8.5')).toBe(true)
    expect(w3cLog.looksLike('#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken')).toBe(true)
    expect(w3cLog.looksLike(W3C_FIELDS_LINE)).toBe(true)
    expect(w3cLog.looksLike('2018-01-01 08:09:10 127.0.0.1 GET / q=100 80 - 81.2.69.143 Mozilla/5.0 - 200 0 0 123')).toBe(true)
    expect(w3cLog.looksLike('2018-01-01 08:09:10 fe80::d9e3:e981:da2d:427b%3 GET / - 80 - ::1 - - 200 0 0 123')).toBe(true)
  })

  it('is false for CloudFront (header lines included), ALB, nginx, Squid and GCS lines', () => {
    expect(CLOUDFRONT_LINES.length).toBeGreaterThan(0)
    for (const l of [...CLOUDFRONT_LINES, ...ALB_LINES, ...SQUID_LINES, ...GCS_LINES, ...COMBINED_LINES, NGINX]) {
      expect([l.slice(0, 40), w3cLog.looksLike(l)]).toEqual([l.slice(0, 40), false])
    }
    expect(w3cLog.looksLike('#Version: 1.0')).toBe(false)
    expect(w3cLog.looksLike('#Fields: date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status')).toBe(false)
    expect(w3cLog.looksLike('#Software: IIS Advanced Logging Module')).toBe(false)
    expect(w3cLog.looksLike('2023-10-10 13:55:36 INFO GET /health ok')).toBe(false)
    expect(w3cLog.looksLike('2023-10-10\t13:55:36\tFRA56\t3702\t10.0.0.1\tGET\td1.cloudfront.net\t/\t200')).toBe(false)
    expect(w3cLog.looksLike('')).toBe(false)
  })

  it('leaves W3C lines to w3cLog: CloudFront claims only their `#Version: 1.0` (a file opens with `#Software:`), ALB none', () => {
    for (const file of samples) {
      for (const l of linesOf(DIR, file)) {
        expect([file, l.slice(0, 40), cloudfrontLog.looksLike(l)]).toEqual([file, l.slice(0, 40), l.startsWith('#Version: 1.0')])
        expect(albLog.looksLike(l)).toBe(false)
      }
    }
  })

  it('stays cheap on huge lines', () => {
    expect(w3cLog.looksLike(`#Fields: ${'x '.repeat(500_000)} date time cs-method cs-uri-stem`)).toBe(false)
    expect(w3cLog.looksLike(`2018-01-01 08:09:10 ${'1'.repeat(1_000_000)}`)).toBe(false)
  })
})

describe('w3cWithFields', () => {
  it('is undefined for a line that is not #Fields, names CloudFront fields, or lacks a needed field', () => {
    expect(w3cWithFields('#Version: 1.0')).toBeUndefined()
    expect(w3cWithFields('date time c-ip cs-method cs-uri-stem sc-status')).toBeUndefined()
    expect(w3cWithFields('#Fields:')).toBeUndefined()
    expect(w3cWithFields('#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query')).toBeUndefined()
    expect(w3cWithFields('#Fields: time c-ip cs-method cs-uri-stem sc-status')).toBeUndefined()
    expect(w3cWithFields('#Fields: date time cs-method cs-uri-stem sc-status')).toBeUndefined()
    expect(w3cWithFields('#Fields: date time c-ip cs-uri-stem sc-status')).toBeUndefined()
    expect(w3cWithFields('#Fields: date time c-ip cs-method sc-status')).toBeUndefined()
    expect(w3cWithFields('#Fields: date time c-ip cs-method cs-uri-stem')).toBeUndefined()
    for (const l of CLOUDFRONT_LINES.filter((x) => x.startsWith('#Fields:'))) expect(w3cWithFields(l)).toBeUndefined()
  })

  it('reads a customised order, sc-bytes when named (0 without), and parsers do not share it', () => {
    const a = w3cWithFields('#Fields: sc-status c-ip date time cs-method cs-uri-stem sc-bytes cs(User-Agent) cs-host') as TextFormat
    const b = w3cWithFields('#Fields:\tdate\ttime\tc-ip\tcs-method\tcs-uri-stem\tsc-status\tcs(Referer)\r') as TextFormat
    expect(a).toMatchObject({id: 'w3c', bytes: 'response'})
    expect(b).toMatchObject({id: 'w3c', bytes: 'response'})
    const la = '404 198.51.100.1 2026-11-30 07:18:26 GET /x.js 120 curl/8.0 shop.example.com:8443'
    const ra = a.parse(la)
    const rb = b.parse('2026-11-30 07:18:27.250 198.51.100.2 HEAD /a/b?c 200 https://shop.example.com/')
    expect(a.parse(la)).toEqual(ra)
    expect(ra).toEqual({ok: true, event: {time: Date.UTC(2026, 10, 30, 7, 18, 26), resolutionMs: 1000, method: 'GET', path: '/x.js', status: 404, bytes: 120, clientIp: '198.51.100.1', userAgent: 'curl/8.0', vhost: 'shop.example.com'}})
    expect(rb).toEqual({ok: true, event: {time: Date.UTC(2026, 10, 30, 7, 18, 27, 250), resolutionMs: 1, method: 'HEAD', path: '/a/b?c', status: 200, bytes: 0, clientIp: '198.51.100.2', userAgent: '', referer: 'https://shop.example.com/'}})
    expect(a.parse('404 198.51.100.1 2026-11-30 07:18:26 GET /x.js 120 curl/8.0')).toMatchObject({ok: false, reason: 'unparsed-message'})
  })

  it('reads an absolute stem (a proxy request) as its path and host, IIS field names in any case', () => {
    const p = w3cWithFields('#Fields: DATE TIME C-IP CS-METHOD CS-URI-STEM SC-STATUS SC-BYTES') as TextFormat
    expect(p.parse('2026-11-30 07:18:26 10.0.0.1 GET http://app.example.com:8080/main.js?v=1 200 512')).toMatchObject({ok: true, event: {path: '/main.js', vhost: 'app.example.com', bytes: 512}})
  })
})

describe('w3cLog.parse', () => {
  const LINE = '2026-11-30 07:18:26 10.0.0.4 GET /app/main.3f2a.js v=1 443 - 203.0.113.9 Mozilla/5.0+(X11;+Linux+x86_64) https://shop.example.com/ 200 0 0 15'
  const withField = (i: number, v: string): string => LINE.split(' ').map((f, k) => (k === i ? v : f)).join(' ')
  const event = (line: string): Record<string, unknown> => {
    const r = w3cLog.parse(line)
    if (!r.ok) throw new Error(`rejected (${r.reason}): ${r.detail ?? ''}`)
    return r.event as unknown as Record<string, unknown>
  }

  it('reads the default field order', () => {
    expect(event(LINE)).toEqual({
      time: Date.UTC(2026, 10, 30, 7, 18, 26), resolutionMs: 1000, method: 'GET', path: '/app/main.3f2a.js', status: 200, bytes: 0,
      clientIp: '203.0.113.9', userAgent: 'Mozilla/5.0 (X11; Linux x86_64)', referer: 'https://shop.example.com/', requestTime: 0.015,
    })
    expect(w3cLog).toMatchObject({id: 'w3c', bytes: 'response'})
  })

  it('rejects the header lines, whatever follows the #', () => {
    for (const h of ['#Software: Microsoft Internet Information Services 10.0', '#Version: 1.0', '#Date: 2018-01-01 08:09:10', '#Fields: date time', '#Fields:\tdate', '#Remark: x', '# a comment', '#']) {
      expect(w3cLog.parse(h)).toMatchObject({ok: false, reason: 'header-line'})
    }
  })

  it('reads - as empty, an IPv6 client without its zone, a CRLF line', () => {
    expect(event(withField(9, '-')).userAgent).toBe('')
    expect(event(withField(10, '-')).referer).toBeUndefined()
    expect(event(withField(8, 'fe80::d9e3:e981:da2d:427b%3')).clientIp).toBe('fe80::d9e3:e981:da2d:427b')
    expect(event(`${LINE}\r`)).toEqual(event(LINE))
  })

  it('rejects records of another field count, bad times, statuses and requests', () => {
    expect(w3cLog.parse(`${LINE} 512`)).toMatchObject({ok: false, reason: 'unparsed-message'})
    expect(w3cLog.parse(LINE.split(' ').slice(0, 14).join(' '))).toMatchObject({ok: false, reason: 'unparsed-message'})
    expect(w3cLog.parse(withField(1, '25:00:00'))).toMatchObject({ok: false, reason: 'bad-time'})
    expect(w3cLog.parse(withField(0, '30/11/2026'))).toMatchObject({ok: false, reason: 'bad-time'})
    expect(w3cLog.parse(withField(11, '-'))).toMatchObject({ok: false, reason: 'bad-status'})
    expect(w3cLog.parse(withField(11, '2000'))).toMatchObject({ok: false, reason: 'bad-status'})
    expect(w3cLog.parse(withField(3, '-'))).toMatchObject({ok: false, reason: 'missing-path'})
    expect(w3cLog.parse(withField(4, '-'))).toMatchObject({ok: false, reason: 'missing-path'})
    expect(w3cLog.parse(withField(4, 'anonymous'))).toMatchObject({ok: false, reason: 'missing-path'})
    expect(w3cLog.parse(withField(3, '[2]USER'))).toMatchObject({ok: false, reason: 'unparsed-message'})
    const bytes = w3cWithFields('#Fields: date time c-ip cs-method cs-uri-stem sc-status sc-bytes') as TextFormat
    expect(bytes.parse('2026-11-30 07:18:26 10.0.0.1 GET / 200 lots')).toMatchObject({ok: false, reason: 'bad-bytes'})
    expect(bytes.parse('2026-11-30 07:18:26 10.0.0.1 GET / 200 -')).toMatchObject({ok: false, reason: 'bad-bytes'})
  })

  it('never throws on hostile input and rejects it with a short reason', () => {
    const inputs = [
      '',
      '\r',
      ' '.repeat(100_000),
      `2026-11-30 07:18:26 ${'x '.repeat(100_000)}`,
      `2026-11-30 07:18:26 10.0.0.4 GET /${'a'.repeat(1_000_000)} - 443 - 1.2.3.4 - - 200 0 0 15`,
      LINE.replace(/ /g, '\u0000'),
      LINE.replace('GET', 'G\u0007T\u001b[2J'),
      LINE.replace(/ /g, '\t'),
      '\u0000\u0001\u0002\u0003',
      '\uFFFD'.repeat(1000),
      `#Fields: ${'\u0000'.repeat(10_000)}`,
    ]
    for (const l of inputs) {
      let r: ParseOutcome | undefined
      expect(() => (r = w3cLog.parse(l))).not.toThrow()
      checkOutcome(r as ParseOutcome, l)
    }
    expect(w3cLog.parse(inputs[3] as string)).toMatchObject({ok: false, reason: 'unparsed-message'})
    expect(w3cLog.parse(inputs[4] as string)).toMatchObject({ok: true})
    expect(() => w3cWithFields(`#Fields: ${'date '.repeat(200_000)}`)).not.toThrow()
  })

  it('rejects every truncation that cuts a field off, and never throws on any', () => {
    const statusAt = LINE.indexOf(' 200 ')
    for (let n = 0; n <= LINE.length; n++) {
      const cut = LINE.slice(0, n)
      let r: ParseOutcome | undefined
      expect(() => (r = w3cLog.parse(cut))).not.toThrow()
      checkOutcome(r as ParseOutcome, cut)
      if (n < statusAt) expect([n, (r as ParseOutcome).ok]).toEqual([n, false])
    }
  })
})

describe('writer: toW3c read back', () => {
  const base: CaptureRecord = {
    time_iso8601: '2026-11-30T07:18:26.070+00:00', msec: 1796023106.07, remote_addr: '127.10.6.90', remote_user: '',
    request_id: '3e6ea6d8e19199aea3d93db6305e4fb6', host: 'webapp.lab.test', request_method: 'GET', request_uri: '/', server_protocol: 'HTTP/1.1',
    status: 200, body_bytes_sent: 3385, bytes_sent: 3702, request_length: 446, request_time: 0.015, http_referer: '',
    http_user_agent: 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0', upstream_addr: '127.30.0.10:46289', upstream_status: '200',
    upstream_response_length: '3385', upstream_response_time: '0.016', proxy_upstream_name: 'default-webapp-80', cookie_session: '9624971b6e3b18dd06d7316e',
  }
  const HANDMADE: CaptureRecord[] = [
    base,
    {...base, msec: 1796023106.999, request_uri: '/_build/vendor.3352fb10.js?v=2&x=%20y', body_bytes_sent: 38097, bytes_sent: 38456, http_referer: 'http://webapp.lab.test/', upstream_addr: '127.30.0.9:1, 127.30.0.10:46289', upstream_status: '502, 200'},
    {...base, request_uri: '/_build/main.91ab.js', status: 404, bytes_sent: 325, http_user_agent: 'Ünïcode ("agent") 100% \\o/ +bot', http_referer: 'http://webapp.lab.test/page?q=a b', remote_user: 'alice smith'},
    {...base, status: 499, body_bytes_sent: 0, bytes_sent: 0, upstream_status: '', upstream_response_time: ''},
    {...base, status: 499, body_bytes_sent: 0, bytes_sent: 0, upstream_status: '304'},
    {...base, remote_addr: '2001:db8::7', http_user_agent: '', cookie_session: '', host: ''},
    {...base, request_method: '', request_uri: '', status: 400, bytes_sent: 150},
  ]
  const parser = w3cWithFields(W3C_FIELDS_LINE) as TextFormat

  const expectedOfRecord = (r: CaptureRecord): Record<string, unknown> => {
    const e: Record<string, unknown> = {
      time: Math.floor(Math.round(r.msec * 1000) / 1000) * 1000, resolutionMs: 1000, method: r.request_method, path: r.request_uri.split('?')[0], status: w3cStatus(r),
      bytes: r.bytes_sent, clientIp: r.remote_addr, userAgent: r.http_user_agent.replace(/\+/g, ' '), requestTime: Math.round(r.request_time * 1000) / 1000,
    }
    if (r.http_referer !== '') e['referer'] = r.http_referer.replace(/ /g, '+')
    if (r.host !== '') e['vhost'] = r.host
    return e
  }

  it('writes a header block the format claims and builds its parser from', () => {
    const header = w3cHeader(base).split('\n')
    expect(header.map((l) => w3cLog.looksLike(l))).toEqual([true, false, false, true])
    expect(header[3]).toBe(W3C_FIELDS_LINE)
    expect(parser).toBeDefined()
  })

  it.each(HANDMADE.map((r, i) => [i, r] as const))('handmade record %i', (_i, r) => {
    const out = parser.parse(toW3c(r))
    if (r.request_method === '') {
      expect(out).toMatchObject({ok: false, reason: 'missing-path'})
      return
    }
    if (!out.ok) throw new Error(`rejected (${out.reason}): ${out.detail ?? ''}`)
    expect(out.event).toEqual(expectedOfRecord(r))
  })

  it('maps nginx 499 to the status IIS logs for a client gone (sc-win32-status 64)', () => {
    expect(toW3c(HANDMADE[3] as CaptureRecord).split(' ').slice(16, 20)).toEqual(['200', '0', '64', '0'])
    expect(toW3c(HANDMADE[4] as CaptureRecord).split(' ').slice(16, 19)).toEqual(['304', '0', '64'])
  })

  it(`reads back ${CAPTURE_RECORDS.length} real capture records`, () => {
    expect(CAPTURE_RECORDS.length).toBeGreaterThanOrEqual(200)
    for (const r of CAPTURE_RECORDS) {
      const line = toW3c(r)
      const out = parser.parse(line)
      if (r.request_method === '') {
        expect(out).toMatchObject({ok: false, reason: 'missing-path'})
        continue
      }
      if (!out.ok) throw new Error(`rejected (${out.reason}): ${line}`)
      expect([line, out.event]).toEqual([line, expectedOfRecord(r)])
    }
  })
})
