import {
  lastUpstream,
  looksLikeAccessLine,
  parseAccessLine,
  parseIsoTime,
  parseNginxTime,
  splitTarget,
} from '../../../src/normalize/access-line'
import {checkOutcome} from '../../helpers/format-samples'

/** The parsed event with its time as an ISO string, for readable exact assertions (timings: see `timings`). */
function parsed(line: string): Record<string, unknown> {
  const r = parseAccessLine(line)
  if (!r.ok) throw new Error(`rejected (${r.reason}): ${r.detail ?? ''}`)
  const {requestTime: _r, upstreamTime: _u, ...event} = r.event
  return {...event, time: new Date(r.event.time).toISOString()}
}

/** The timings and unknown extra fields a line gave. */
function timings(line: string): Record<string, unknown> {
  const r = parseAccessLine(line)
  if (!r.ok) throw new Error(`rejected (${r.reason}): ${r.detail ?? ''}`)
  const {requestTime, upstreamTime, extra} = r.event
  return {requestTime, upstreamTime, extra}
}

function rejection(line: string): {reason: string; detail: string} {
  const r = parseAccessLine(line)
  if (r.ok) throw new Error(`accepted: ${JSON.stringify(r.event)}`)
  return {reason: r.reason, detail: r.detail ?? ''}
}


const FIREFOX = 'Mozilla/5.0 (Windows NT 5.1; rv:31.0) Gecko/20100101 Firefox/31.0'
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36'
const HEAD = '203.0.113.7 - - [10/Oct/2023:13:55:36 +0000]'
const BASE = {
  time: '2023-10-10T13:55:36.000Z',
  resolutionMs: 1000,
  method: 'GET',
  path: '/assets/index-4f2a.js',
  status: 200,
  bytes: 5120,
  clientIp: '203.0.113.7',
  userAgent: CHROME,
}
/** An ingress-nginx line up to and including the user agent. */
const INGRESS_HEAD = `10.1.2.3 - - [10/Oct/2023:13:55:36 +0000] "GET /assets/index-4f2a.js HTTP/1.1" 200 5120 "-" "${CHROME}" 512 0.004`
const INGRESS = {...BASE, clientIp: '10.1.2.3'}

describe('parseAccessLine: real samples (datadog.md §4)', () => {
  it.each<[string, string, Record<string, unknown>]>([
    [
      'ingress-nginx v1.1.1, empty alternative upstream',
      '172.16.30.1 - - [21/Mar/2022:16:05:33 +0000] "GET /v2 HTTP/1.1" 200 61 "-" "curl/7.77.0" 82 0.013 [default-web2-8080] [] 10.244.151.3:8080 61 0.013 200 e90cf46a8385a64ac01c834734768488',
      {
        time: '2022-03-21T16:05:33.000Z',
        resolutionMs: 1000,
        method: 'GET',
        path: '/v2',
        status: 200,
        bytes: 61,
        clientIp: '172.16.30.1',
        userAgent: 'curl/7.77.0',
        upstream: '10.244.151.3:8080',
        upstreamName: 'default-web2-8080',
        requestId: 'e90cf46a8385a64ac01c834734768488',
      },
    ],
    [
      'legacy the_real_ip segment, retried upstreams',
      '172.17.0.1 - [172.17.0.1] - - [07/Dec/2018:18:31:33 +0000] "GET /datadoghq/company?test=var1%20Pl HTTP/1.1" 200 261 "-" "Mozilla/5.0 (Windows NT 5.1; rv:31.0) Gecko/20100101 Firefox/31.0" 1904 0.011 [proxyname-8080] 172.17.0.1:9000, 100.110.0.3:80 298, 0 0.012, - 200, - abcdefg12345abcdef',
      {
        time: '2018-12-07T18:31:33.000Z',
        resolutionMs: 1000,
        method: 'GET',
        path: '/datadoghq/company',
        status: 200,
        bytes: 261,
        clientIp: '172.17.0.1',
        userAgent: FIREFOX,
        // The statuses are `200, -`: the first upstream answered (the second was never asked).
        upstream: '172.17.0.1:9000',
        upstreamName: 'proxyname-8080',
        requestId: 'abcdefg12345abcdef',
      },
    ],
    [
      'no upstream reached, every upstream field `-`',
      '172.16.99.64 - - [19/Mar/2020:16:02:20 +0000] "GET /datadoghq/company?test=var1%20Pl HTTP/1.1" 503 605 "-" "Mozilla/5.0 (Windows NT 5.1; rv:31.0) Gecko/20100101 Firefox/31.0" 4033 0.000 [proxyname-8080] [] - - - - abcdefg12345abcdef',
      {
        time: '2020-03-19T16:02:20.000Z',
        resolutionMs: 1000,
        method: 'GET',
        path: '/datadoghq/company',
        status: 503,
        bytes: 605,
        clientIp: '172.16.99.64',
        userAgent: FIREFOX,
        upstreamName: 'proxyname-8080',
        requestId: 'abcdefg12345abcdef',
      },
    ],
    [
      'Datadog message (Rack common log with a trailing duration)',
      '169.254.0.1 - - [11/Apr/2022:16:29:47 +0000] "GET / HTTP/1.1" 200 117 0.0027',
      {
        time: '2022-04-11T16:29:47.000Z',
        resolutionMs: 1000,
        method: 'GET',
        path: '/',
        status: 200,
        bytes: 117,
        clientIp: '169.254.0.1',
        userAgent: '',
      },
    ],
    [
      'Datadog unparsed message with a UTC zone',
      '169.254.0.1 - - [11/Apr/2022:16:29:47 UTC] "GET / HTTP/1.1" 200 117',
      {
        time: '2022-04-11T16:29:47.000Z',
        resolutionMs: 1000,
        method: 'GET',
        path: '/',
        status: 200,
        bytes: 117,
        clientIp: '169.254.0.1',
        userAgent: '',
      },
    ],
  ])('%s', (_name, line, expected) => {
    expect(parsed(line)).toStrictEqual(expected)
    expect(looksLikeAccessLine(line)).toBe(true)
  })

  it('agrees with the date_access Datadog derived for the sample', () => {
    const r = parseAccessLine('169.254.0.1 - - [11/Apr/2022:16:29:47 +0000] "GET / HTTP/1.1" 200 117 0.0027')
    expect(r.ok && r.event.time).toBe(1649694587000)
  })
})

describe('parseAccessLine: nginx combined and common', () => {
  it.each<[string, string, Record<string, unknown>]>([
    [
      'combined',
      `${HEAD} "GET /assets/index-4f2a.js HTTP/2.0" 200 5120 "https://app.example.com/" "${CHROME}"`,
      {...BASE, referer: 'https://app.example.com/'},
    ],
    [
      'combined with "$http_x_forwarded_for" appended',
      `${HEAD} "GET /assets/index-4f2a.js HTTP/1.1" 200 5120 "-" "${CHROME}" "198.51.100.1, 10.0.0.1"`,
      BASE,
    ],
    [
      'combined with $request_time appended',
      `${HEAD} "GET /assets/index-4f2a.js HTTP/1.1" 200 5120 "-" "${CHROME}" 0.004`,
      BASE,
    ],
    [
      'common with a remote user and a negative offset',
      '127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326',
      {...BASE, time: '2000-10-10T20:55:36.000Z', path: '/apache_pb.gif', bytes: 2326, clientIp: '127.0.0.1', userAgent: ''},
    ],
    ['bytes `-` is 0', `${HEAD} "GET /assets/index-4f2a.js HTTP/1.1" 200 - "-" "${CHROME}"`, {...BASE, bytes: 0}],
    [
      'large byte counts',
      `${HEAD} "GET /assets/index-4f2a.js HTTP/1.1" 200 123456789012 "-" "${CHROME}"`,
      {...BASE, bytes: 123456789012},
    ],
    ['UA `-` is empty, referer "" is absent', `${HEAD} "GET /assets/index-4f2a.js HTTP/1.1" 200 5120 "" "-"`, {...BASE, userAgent: ''}],
    ['HTTP/0.9 request without a protocol', `${HEAD} "GET /assets/index-4f2a.js" 200 5120 "-" "${CHROME}"`, BASE],
    ['POST', `${HEAD} "POST /api/v1/events HTTP/1.1" 201 2 "-" "${CHROME}"`, {...BASE, method: 'POST', path: '/api/v1/events', status: 201, bytes: 2}],
    ['OPTIONS *', `${HEAD} "OPTIONS * HTTP/1.1" 204 0 "-" "${CHROME}"`, {...BASE, method: 'OPTIONS', path: '*', status: 204, bytes: 0}],
    ['IPv6 client', `2001:db8::2 - - [10/Oct/2023:13:55:36 +0000] "GET /assets/index-4f2a.js HTTP/1.1" 200 5120 "-" "${CHROME}"`, {...BASE, clientIp: '2001:db8::2'}],
    ['hostname client (Apache HostnameLookups)', `client.example.net - - [10/Oct/2023:13:55:36 +0000] "GET /assets/index-4f2a.js" 200 5120`, {...BASE, clientIp: 'client.example.net', userAgent: ''}],
    ['format without $remote_user', `203.0.113.7 - [10/Oct/2023:13:55:36 +0000] "GET /assets/index-4f2a.js HTTP/1.1" 200 5120`, {...BASE, userAgent: ''}],
    ['trailing CR (CRLF file)', `${HEAD} "GET /assets/index-4f2a.js HTTP/1.1" 200 5120 "-" "${CHROME}"\r`, BASE],
    ['lower-case month', '203.0.113.7 - - [10/oct/2023:13:55:36 +0000] "GET /assets/index-4f2a.js HTTP/1.1" 200 5120', {...BASE, userAgent: ''}],
    ['[$time_iso8601] instead of [$time_local]', '203.0.113.7 - - [2023-10-10T15:55:36+02:00] "GET /assets/index-4f2a.js HTTP/1.1" 200 5120', {...BASE, userAgent: ''}],
    [
      'ISO time with milliseconds has millisecond resolution',
      '203.0.113.7 - - [2023-10-10T13:55:36.789Z] "GET /assets/index-4f2a.js HTTP/1.1" 200 5120',
      {...BASE, time: '2023-10-10T13:55:36.789Z', resolutionMs: 1, userAgent: ''},
    ],
  ])('%s', (_name, line, expected) => {
    expect(parsed(line)).toStrictEqual(expected)
  })
})

describe('parseAccessLine: time zones', () => {
  it.each([
    ['10/Oct/2023:13:55:36 +0000', '2023-10-10T13:55:36.000Z'],
    ['10/Oct/2023:13:55:36 -0000', '2023-10-10T13:55:36.000Z'],
    ['10/Oct/2023:15:55:36 +0200', '2023-10-10T13:55:36.000Z'],
    ['10/Oct/2023:06:55:36 -0700', '2023-10-10T13:55:36.000Z'],
    ['10/Oct/2023:19:25:36 +0530', '2023-10-10T13:55:36.000Z'],
    ['10/Oct/2023:19:25:36 +05:30', '2023-10-10T13:55:36.000Z'],
    ['10/Oct/2023:13:55:36 UTC', '2023-10-10T13:55:36.000Z'],
    ['10/Oct/2023:13:55:36 GMT', '2023-10-10T13:55:36.000Z'],
    ['10/Oct/2023:13:55:36 Z', '2023-10-10T13:55:36.000Z'],
    ['01/Jan/2024:00:30:00 +0100', '2023-12-31T23:30:00.000Z'],
    ['31/Dec/2023:20:00:00 -0500', '2024-01-01T01:00:00.000Z'],
    ['29/Feb/2024:12:00:00 +0000', '2024-02-29T12:00:00.000Z'],
  ])('[%s]', (time, iso) => {
    expect(parsed(`1.2.3.4 - - [${time}] "GET /a.js HTTP/1.1" 200 1`).time).toBe(iso)
    const t = parseNginxTime(time)
    expect(t === undefined ? t : new Date(t).toISOString()).toBe(iso)
  })

  it.each([
    '32/Mar/2022:16:05:33 +0000',
    '29/Feb/2023:16:05:33 +0000',
    '31/Apr/2022:16:05:33 +0000',
    '00/Mar/2022:16:05:33 +0000',
    '21/Foo/2022:16:05:33 +0000',
    '21/Mar/2022:24:05:33 +0000',
    '21/Mar/2022:16:60:33 +0000',
    '21/Mar/2022:16:05:61 +0000',
    '21/Mar/2022:16:05:33',
    '21/Mar/2022:16:05:33 ',
    '21/Mar/2022:16:05:33 +2500',
    '21/Mar/2022:16:05:33 +0060',
    '21/Mar/2022:16:05:33 CET',
    '21/Mar/2022:16:05:33 0000',
    '21/Mar/22:16:05:33 +0000',
    '1/Mar/2022:16:05:33 +0000',
    '21/Mar/1969:16:05:33 +0000',
    '21-Mar-2022 16:05:33 +0000',
    '2022-03-21T16:05:33',
    '-',
    '',
  ])('rejects [%s] as bad-time', (time) => {
    expect(rejection(`1.2.3.4 - - [${time}] "GET /a.js HTTP/1.1" 200 1`).reason).toBe('bad-time')
    expect(parseNginxTime(time)).toBeUndefined()
  })
})

describe('parseAccessLine: request targets', () => {
  it.each<[string, string, string | undefined]>([
    ['/assets/app.js?v=2&x=1', '/assets/app.js', undefined],
    ['/assets/app.js#frag', '/assets/app.js', undefined],
    ['/?q=1', '/', undefined],
    ['/caf%C3%A9/a%20b.js', '/caf%C3%A9/a%20b.js', undefined],
    ['/a?b?c', '/a', undefined],
    ['http://app.example.com/assets/a.js?v=2', '/assets/a.js', 'app.example.com'],
    ['https://app.example.com:8443', '/', 'app.example.com'],
    ['http://app.example.com?x=1', '/', 'app.example.com'],
    ['HTTP://user:pw@app.example.com/a', '/a', 'app.example.com'],
    ['http://[2001:db8::1]:8080/x', '/x', '2001:db8::1'],
  ])('%s', (target, path, host) => {
    const event = parsed(`1.2.3.4 - - [21/Mar/2022:16:05:33 +0000] "GET ${target} HTTP/1.1" 200 1`)
    expect(event['path']).toBe(path)
    // An absolute-form target names the virtual host (without a port, as nginx's $host).
    expect(event['vhost']).toBe(host)
    expect('vhost' in event).toBe(host !== undefined)
    const split = splitTarget(target)
    expect(split?.path).toBe(path)
    expect(split?.host === undefined).toBe(host === undefined)
  })

  it.each(['example.com:443', 'foo', '', '-', 'http://', 'http:/x', '://x', '1http://x/'])('splitTarget(%j) is undefined', (target) => {
    expect(splitTarget(target)).toBeUndefined()
  })
})

describe('parseAccessLine: escapes in quoted fields', () => {
  const line = (request: string, referer: string, ua: string): string =>
    `1.2.3.4 - - [21/Mar/2022:16:05:33 +0000] "${request}" 200 1 "${referer}" "${ua}"`

  it.each<[string, string, string, string, Record<string, unknown>]>([
    ['JSON-escaped quotes in the UA', 'GET /a.js HTTP/1.1', '-', String.raw`Mozilla \"quoted\" x`, {userAgent: 'Mozilla "quoted" x'}],
    ['\\x22 quotes in the UA (default escaping)', 'GET /a.js HTTP/1.1', '-', String.raw`Mozilla \x22quoted\x22 x`, {userAgent: 'Mozilla "quoted" x'}],
    ['a UA ending in an escaped quote', 'GET /a.js HTTP/1.1', '-', String.raw`evil\"`, {userAgent: 'evil"'}],
    ['a UA ending in \\x22', 'GET /a.js HTTP/1.1', '-', String.raw`evil\x22`, {userAgent: 'evil"'}],
    ['an escaped backslash before the closing quote', 'GET /a.js HTTP/1.1', '-', String.raw`back\\`, {userAgent: 'back\\'}],
    ['\\x5C is a backslash', 'GET /a.js HTTP/1.1', '-', String.raw`a\x5Cb`, {userAgent: 'a\\b'}],
    ['UTF-8 bytes decode together', 'GET /a.js HTTP/1.1', '-', String.raw`caf\xC3\xA9 \xE2\x9C\x93`, {userAgent: 'café ✓'}],
    ['invalid UTF-8 falls back to one char per byte', 'GET /a.js HTTP/1.1', '-', String.raw`\xE9t\xE9`, {userAgent: 'été'}],
    ['JSON escapes', 'GET /a.js HTTP/1.1', '-', String.raw`a\tb\u00e9\/c\n`, {userAgent: 'a\tbé/c\n'}],
    ['unknown and incomplete escapes are kept', 'GET /a.js HTTP/1.1', '-', String.raw`a\qb\x4 \u12`, {userAgent: String.raw`a\qb\x4 \u12`}],
    ['a raw quote not followed by a space (escape=none)', 'GET /a.js HTTP/1.1', '-', 'say "hi"there', {userAgent: 'say "hi"there'}],
    ['an escaped quote in the referer', 'GET /a.js HTTP/1.1', String.raw`https://x/?q=\"a b\"`, 'UA', {referer: 'https://x/?q="a b"', userAgent: 'UA'}],
    ['\\x22 in the request path', String.raw`GET /a\x22b.js HTTP/1.1`, '-', 'UA', {path: '/a"b.js', userAgent: 'UA'}],
    ['JSON-escaped quote in the request', String.raw`GET /a.js?x=\"1\" HTTP/1.1`, '-', 'UA', {path: '/a.js', userAgent: 'UA'}],
  ])('%s', (_name, request, referer, ua, expected) => {
    expect(parsed(line(request, referer, ua))).toMatchObject({status: 200, bytes: 1, ...expected})
  })
})

describe('parseAccessLine: ingress-nginx log-format-upstream variants', () => {
  it.each<[string, string, Record<string, unknown>]>([
    [
      'alternative upstream named',
      `${INGRESS_HEAD} [default-web-80] [default-web-canary-80] 10.244.0.5:8080 5120 0.004 200 0123456789abcdef0123456789abcdef`,
      {...INGRESS, upstreamName: 'default-web-80', upstream: '10.244.0.5:8080', requestId: '0123456789abcdef0123456789abcdef'},
    ],
    [
      'empty [] alternative upstream',
      `${INGRESS_HEAD} [default-web-80] [] 10.244.0.5:8080 5120 0.004 200 abc123`,
      {...INGRESS, upstreamName: 'default-web-80', upstream: '10.244.0.5:8080', requestId: 'abc123'},
    ],
    [
      'no alternative-upstream bracket (old controller)',
      `${INGRESS_HEAD} [default-web-80] 10.244.0.5:8080 5120 0.004 200 abc123`,
      {...INGRESS, upstreamName: 'default-web-80', upstream: '10.244.0.5:8080', requestId: 'abc123'},
    ],
    [
      'no $req_id (old controller)',
      `${INGRESS_HEAD} [default-web-80] [] 10.244.0.5:8080 5120 0.004 200`,
      {...INGRESS, upstreamName: 'default-web-80', upstream: '10.244.0.5:8080'},
    ],
    [
      'no alternative bracket and no $req_id',
      `${INGRESS_HEAD} [default-web-80] 10.244.0.5:8080 5120 0.004 200`,
      {...INGRESS, upstreamName: 'default-web-80', upstream: '10.244.0.5:8080'},
    ],
    [
      '$req_id `-`',
      `${INGRESS_HEAD} [default-web-80] [] 10.244.0.5:8080 5120 0.004 200 -`,
      {...INGRESS, upstreamName: 'default-web-80', upstream: '10.244.0.5:8080'},
    ],
    [
      'three attempts: the last one answered',
      `${INGRESS_HEAD} [default-web-80] [] 10.244.0.5:8080, 10.244.0.6:8080, 10.244.0.7:8080 0, 0, 5120 0.001, 0.001, 0.002 502, 502, 200 abc123`,
      {...INGRESS, upstreamName: 'default-web-80', upstream: '10.244.0.7:8080', requestId: 'abc123'},
    ],
    [
      'trailing `-` in the upstream list is skipped',
      `${INGRESS_HEAD} [default-web-80] [] 10.244.0.5:8080, - 5120, - 0.004, - 200, - abc123`,
      {...INGRESS, upstreamName: 'default-web-80', upstream: '10.244.0.5:8080', requestId: 'abc123'},
    ],
    [
      'internal redirect (` : ` between upstream groups)',
      `${INGRESS_HEAD} [default-web-80] [] 10.244.0.5:8080, 10.244.0.6:8080 : 10.244.9.9:80 0, 0 : 5120 0.001, 0.002 : 0.003 502, 502 : 200 abc123`,
      {...INGRESS, upstreamName: 'default-web-80', upstream: '10.244.9.9:80', requestId: 'abc123'},
    ],
    [
      'all upstream fields `-`, no $req_id',
      `${INGRESS_HEAD} [default-web-80] [] - - - -`,
      {...INGRESS, upstreamName: 'default-web-80'},
    ],
    [
      'IPv6 upstream without an alternative bracket',
      `${INGRESS_HEAD} [default-web-80] [fd00::1]:8080 5120 0.004 200 abc123`,
      {...INGRESS, upstreamName: 'default-web-80', upstream: '[fd00::1]:8080', requestId: 'abc123'},
    ],
    [
      'IPv6 upstream after an empty alternative',
      `${INGRESS_HEAD} [default-web-80] [] [fd00::1]:8080 5120 0.004 200 abc123`,
      {...INGRESS, upstreamName: 'default-web-80', upstream: '[fd00::1]:8080', requestId: 'abc123'},
    ],
    [
      'unix socket upstream',
      `${INGRESS_HEAD} [default-web-80] [] unix:/tmp/app.sock 5120 0.004 200 abc123`,
      {...INGRESS, upstreamName: 'default-web-80', upstream: 'unix:/tmp/app.sock', requestId: 'abc123'},
    ],
    [
      'legacy the_real_ip differs from remote_addr: the real ip is the client',
      `10.1.2.3 - [203.0.113.9] - - [10/Oct/2023:13:55:36 +0000] "GET /assets/index-4f2a.js HTTP/1.1" 200 5120 "-" "${CHROME}" 512 0.004 [default-web-80] 10.244.0.5:8080 5120 0.004 200`,
      {...INGRESS, upstreamName: 'default-web-80', clientIp: '203.0.113.9', upstream: '10.244.0.5:8080'},
    ],
    [
      'legacy the_real_ip IPv6',
      `10.1.2.3 - [2001:db8::9] - - [10/Oct/2023:13:55:36 +0000] "GET /assets/index-4f2a.js HTTP/1.1" 200 5120 "-" "${CHROME}"`,
      {...INGRESS, clientIp: '2001:db8::9'},
    ],
    [
      'legacy the_real_ip `-` keeps remote_addr',
      `10.1.2.3 - [-] - - [10/Oct/2023:13:55:36 +0000] "GET /assets/index-4f2a.js HTTP/1.1" 200 5120 "-" "${CHROME}"`,
      INGRESS,
    ],
    [
      'legacy the_real_ip that is not an address keeps remote_addr',
      `10.1.2.3 - [999.1.1.1] - alice [10/Oct/2023:13:55:36 +0000] "GET /assets/index-4f2a.js HTTP/1.1" 200 5120 "-" "${CHROME}"`,
      INGRESS,
    ],
  ])('%s', (_name, line, expected) => {
    expect(parsed(line)).toStrictEqual(expected)
  })

  it.each<[string, string | undefined]>([
    ['172.17.0.1:9000, 100.110.0.3:80', '100.110.0.3:80'],
    ['10.0.0.1:80', '10.0.0.1:80'],
    ['10.0.0.1:80, -', '10.0.0.1:80'],
    ['10.0.0.1:80, 10.0.0.2:80 : 10.0.0.3:80', '10.0.0.3:80'],
    ['10.0.0.1:80 : -', '10.0.0.1:80'],
    ['-', undefined],
    ['-, -', undefined],
    ['', undefined],
    [' , ', undefined],
  ])('lastUpstream(%j) is %j', (list, expected) => {
    expect(lastUpstream(list)).toBe(expected)
  })
})

describe('parseAccessLine: rejections', () => {
  const OK_HEAD = '172.16.30.1 - - [21/Mar/2022:16:05:33 +0000]'
  it.each<[string, string, string]>([
    ['empty line', '', 'unparsed-message'],
    ['blank line', '    ', 'unparsed-message'],
    ['a lone CR', '\r', 'unparsed-message'],
    ['JSON', '{"status":200,"request":"GET / HTTP/1.1"}', 'unparsed-message'],
    ['syslog', 'Mar 21 16:05:33 web-1 nginx: started', 'unparsed-message'],
    ['nginx error log', '2022/03/21 16:05:33 [error] 7#7: *1 open() "/usr/share/nginx/html/x.js" failed (2: No such file or directory)', 'unparsed-message'],
    ['klog controller line', 'I1221 13:00:58.488494       7 controller.go:202] "Backend successfully reloaded"', 'unparsed-message'],
    ['CSV', 'time,path,status\n2022-03-21T16:05:33Z,/a.js,200', 'unparsed-message'],
    ['a leading space', ` ${OK_HEAD} "GET / HTTP/1.1" 200 1`, 'unparsed-message'],
    ['time bracket not followed by a request', '1.2.3.4 - - [21/Mar/2022:16:05:33 +0000] GET / 200 1', 'unparsed-message'],
    ['truncated in the time', '172.16.30.1 - - [21/Mar/2022:16:0', 'unparsed-message'],
    ['truncated after the time', OK_HEAD, 'unparsed-message'],
    ['truncated in the request', `${OK_HEAD} "GET /v2 HT`, 'unparsed-message'],
    ['truncated after the request', `${OK_HEAD} "GET /v2 HTTP/1.1"`, 'missing-status'],
    ['truncated after the request and a space', `${OK_HEAD} "GET /v2 HTTP/1.1" `, 'missing-status'],
    ['truncated after the status', `${OK_HEAD} "GET /v2 HTTP/1.1" 200`, 'missing-bytes'],
    ['truncated after the status and a space', `${OK_HEAD} "GET /v2 HTTP/1.1" 200 `, 'missing-bytes'],
    ['truncated in the referer', `${OK_HEAD} "GET /v2 HTTP/1.1" 200 61 "http://x`, 'unparsed-message'],
    ['truncated in the user agent', `${OK_HEAD} "GET /v2 HTTP/1.1" 200 61 "-" "curl/7.7`, 'unparsed-message'],
    ['truncated on an escape', `${OK_HEAD} "GET /v2 HTTP/1.1" 200 61 "-" "curl\\`, 'unparsed-message'],
    ['month name unknown', '1.2.3.4 - - [21/Foo/2022:16:05:33 +0000] "GET / HTTP/1.1" 200 1', 'bad-time'],
    ['status of 2 digits', `${OK_HEAD} "GET / HTTP/1.1" 20 1`, 'bad-status'],
    ['status of 4 digits', `${OK_HEAD} "GET / HTTP/1.1" 2000 1`, 'bad-status'],
    ['status `-`', `${OK_HEAD} "GET / HTTP/1.1" - 1`, 'bad-status'],
    ['status 000', `${OK_HEAD} "GET / HTTP/1.1" 000 1`, 'bad-status'],
    ['status with a letter', `${OK_HEAD} "GET / HTTP/1.1" 2x0 1`, 'bad-status'],
    ['status word', `${OK_HEAD} "GET / HTTP/1.1" OK 1`, 'bad-status'],
    ['bytes with a letter', `${OK_HEAD} "GET / HTTP/1.1" 200 12a`, 'bad-bytes'],
    ['negative bytes', `${OK_HEAD} "GET / HTTP/1.1" 200 -5`, 'bad-bytes'],
    ['fractional bytes', `${OK_HEAD} "GET / HTTP/1.1" 200 1.5 "-" "-"`, 'bad-bytes'],
    ['bytes beyond 2^53', `${OK_HEAD} "GET / HTTP/1.1" 200 1234567890123456`, 'bad-bytes'],
    ['bytes as a quoted field', `${OK_HEAD} "GET / HTTP/1.1" 200 "-" "-"`, 'bad-bytes'],
    ['request `-` (nginx 400 for an empty request)', `${OK_HEAD} "-" 400 0 "-" "-"`, 'missing-path'],
    ['empty request', `${OK_HEAD} "" 400 0 "-" "-"`, 'missing-path'],
    ['TLS handshake on the HTTP port (escaped)', String.raw`${OK_HEAD} "\x16\x03\x01\x02\x00\x01\x00\x01\xFC\x03\x03" 400 157 "-" "-"`, 'missing-path'],
    ['SOCKS probe (escaped)', String.raw`${OK_HEAD} "\x05\x01\x00" 400 157 "-" "-"`, 'missing-path'],
    ['raw control bytes (escape=none)', `${OK_HEAD} "\u0016\u0003\u0001\u0000" 400 157 "-" "-"`, 'missing-path'],
    ['method only', `${OK_HEAD} "GET" 400 0 "-" "-"`, 'missing-path'],
    ['method and a space', `${OK_HEAD} "GET " 400 0 "-" "-"`, 'missing-path'],
    ['CONNECT authority-form', `${OK_HEAD} "CONNECT example.com:443 HTTP/1.1" 400 0 "-" "-"`, 'missing-path'],
    ['target not a path', `${OK_HEAD} "GET index.html HTTP/1.1" 400 0 "-" "-"`, 'missing-path'],
    ['two words of text', `${OK_HEAD} "hello world" 400 0 "-" "-"`, 'missing-path'],
    ['numeric method', `${OK_HEAD} "123 /x HTTP/1.1" 400 0 "-" "-"`, 'missing-path'],
    ['PROXY protocol header as a request', `${OK_HEAD} "PROXY TCP4 1.2.3.4 5.6.7.8 80 443" 400 0 "-" "-"`, 'missing-path'],
  ])('%s', (_name, line, reason) => {
    const r = rejection(line)
    expect(r.reason).toBe(reason)
    expect(r.detail.length).toBeGreaterThan(0)
    expect(r.detail.length).toBeLessThanOrEqual(120)
  })

  it('puts only a short excerpt of a bad field in the detail', () => {
    const r = rejection(`${OK_HEAD} "GET / HTTP/1.1" ${'9'.repeat(500)} 1`)
    expect(r.reason).toBe('bad-status')
    expect(r.detail).toMatch(/^status is not a 3-digit number: "9{40}…"$/)
  })

  it('replaces unprintable chars in the detail', () => {
    const r = rejection(`${OK_HEAD} "\u0000\u0001 x" 400 0`)
    expect(r.detail).toBe('request is not "METHOD TARGET": "?? x"')
  })
})

describe('parseAccessLine: hostile input', () => {
  const MB = 1 << 20
  const OK_HEAD = '172.16.30.1 - - [21/Mar/2022:16:05:33 +0000]'

  it.each<[string, string, () => string]>([
    ['1 MB without spaces', 'unparsed-message', () => 'x'.repeat(MB)],
    ['1 MB of spaces', 'unparsed-message', () => ' '.repeat(MB)],
    ['1 MB of quotes', 'unparsed-message', () => '"'.repeat(MB)],
    ['1 MB of NULs', 'unparsed-message', () => '\u0000'.repeat(MB)],
    ['1 MB of brackets after a head', 'unparsed-message', () => `1.2.3.4 - - [${'['.repeat(MB)}`],
    ['a head then a 1 MB unterminated request', 'unparsed-message', () => `${OK_HEAD} "GET /${'a'.repeat(MB)}`],
    ['a head then 1 MB of backslashes', 'unparsed-message', () => `${OK_HEAD} "GET /${'\\'.repeat(MB)}`],
    ['a 1 MB status', 'bad-status', () => `${OK_HEAD} "GET / HTTP/1.1" ${'2'.repeat(MB)}`],
    ['a 1 MB byte count', 'bad-bytes', () => `${OK_HEAD} "GET / HTTP/1.1" 200 ${'1'.repeat(MB)}`],
    ['a 1 MB unterminated user agent', 'unparsed-message', () => `${OK_HEAD} "GET / HTTP/1.1" 200 1 "-" "${'a'.repeat(MB)}`],
    ['a 1 MB request of \\x escapes', 'missing-path', () => `${OK_HEAD} "${'\\x16'.repeat(MB / 4)}" 400 0`],
  ])('%s is rejected as %s (in linear time: a backtracking blow-up on 1 MB would not finish within the test\'s time)', (_name, reason, make) => {
    const line = make()
    const r = parseAccessLine(line)
    expect(r.ok ? 'accepted' : r.reason).toBe(reason)
    checkOutcome(r, line)
  })

  it('parses a valid line with a 1 MB user agent (capping line length is the reader’s job)', () => {
    const line = `${OK_HEAD} "GET /a.js HTTP/1.1" 200 1 "-" "${'a'.repeat(MB)}"`
    const r = parseAccessLine(line)
    expect(r.ok && r.event.userAgent.length).toBe(MB)
  })

  it('never throws on random binary garbage', () => {
    let seed = 42
    const rand = (n: number): number => {
      // xorshift32: deterministic, so a failure is reproducible
      seed ^= seed << 13
      seed ^= seed >>> 17
      seed ^= seed << 5
      return (seed >>> 0) % n
    }
    const alphabet = ' -"[]\\x/:.,0123456789GETHP+\u0000\u00ff\ud800'
    for (let k = 0; k < 3000; k++) {
      let line = ''
      const len = rand(200)
      for (let j = 0; j < len; j++) line += k % 2 ? String.fromCharCode(rand(0x10000)) : (alphabet[rand(alphabet.length)] ?? '')
      const r = parseAccessLine(line)
      checkOutcome(r, line)
    }
  })

  it('never throws on any prefix or single-char corruption of the real samples', () => {
    const samples = [
      '172.16.30.1 - - [21/Mar/2022:16:05:33 +0000] "GET /v2 HTTP/1.1" 200 61 "-" "curl/7.77.0" 82 0.013 [default-web2-8080] [] 10.244.151.3:8080 61 0.013 200 e90cf46a8385a64ac01c834734768488',
      '172.17.0.1 - [172.17.0.1] - - [07/Dec/2018:18:31:33 +0000] "GET /datadoghq/company?test=var1%20Pl HTTP/1.1" 200 261 "-" "Mozilla/5.0 (Windows NT 5.1; rv:31.0) Gecko/20100101 Firefox/31.0" 1904 0.011 [proxyname-8080] 172.17.0.1:9000, 100.110.0.3:80 298, 0 0.012, - 200, - abcdefg12345abcdef',
      String.raw`1.2.3.4 - - [21/Mar/2022:16:05:33 +0000] "GET /a\x22b HTTP/1.1" 200 1 "\"r\"" "caf\xC3\xA9 \u00e9"`,
    ]
    for (const s of samples) {
      for (let n = 0; n <= s.length; n++) checkOutcome(parseAccessLine(s.slice(0, n)), s.slice(0, n))
      for (let n = 0; n < s.length; n++) {
        for (const c of ['"', '\\', ' ', '[', ']', 'x', '\u0000']) {
          const line = s.slice(0, n) + c + s.slice(n + 1)
          checkOutcome(parseAccessLine(line), line)
        }
      }
    }
  })
})

describe('looksLikeAccessLine', () => {
  it('is false for a 1 MB junk line', () => {
    expect(looksLikeAccessLine('x'.repeat(1 << 20))).toBe(false)
  })

  it.each<[string, boolean]>([
    ['1.2.3.4 - - [21/Mar/2022:16:05:33 +0000] "GET / HTTP/1.1" 200 1', true],
    ['1.2.3.4 - bob [21/Mar/2022:16:05:33 +0000] "', true],
    ['1.2.3.4 - [5.6.7.8] - - [21/Mar/2022:16:05:33 +0000] "GET / HTTP/1.1" 200 1', true],
    ['1.2.3.4 - - [not a time] "GET / HTTP/1.1" 200 1', true],
    ['1.2.3.4 - - [21/Mar/2022:16:05:33 +0000] GET', false],
    ['{"remote_addr":"1.2.3.4"}', false],
    ['[21/Mar/2022:16:05:33 +0000] "GET /"', false],
    ['2022/03/21 16:05:33 [error] 7#7: *1 x', false],
    ['', false],
  ])('%j -> %s', (line, expected) => {
    expect(looksLikeAccessLine(line)).toBe(expected)
  })
})

describe('parseIsoTime', () => {
  it.each<[string, string, number]>([
    ['2023-10-10T13:55:36+00:00', '2023-10-10T13:55:36.000Z', 1000],
    ['2023-10-10T15:55:36+02:00', '2023-10-10T13:55:36.000Z', 1000],
    ['2023-10-10T13:55:36Z', '2023-10-10T13:55:36.000Z', 1000],
    ['2023-10-10 13:55:36Z', '2023-10-10T13:55:36.000Z', 1000],
    ['2023-10-10T13:55Z', '2023-10-10T13:55:00.000Z', 1000],
    ['2023-10-10T13:55:36.5Z', '2023-10-10T13:55:36.500Z', 1],
    ['2023-10-10T13:55:36.123456789Z', '2023-10-10T13:55:36.123Z', 1],
    ['2023-10-10T06:55:36.123-0700', '2023-10-10T13:55:36.123Z', 1],
    ['2023-10-10T16:55:36+03', '2023-10-10T13:55:36.000Z', 1000],
  ])('%s', (s, iso, resolutionMs) => {
    const r = parseIsoTime(s)
    expect(r && {time: new Date(r.time).toISOString(), resolutionMs: r.resolutionMs}).toStrictEqual({time: iso, resolutionMs})
  })

  it.each(['2023-10-10T13:55:36', '2023-10-10', '2023-13-10T13:55:36Z', '2023-10-10T13:55:36.Z', '2023-10-10X13:55:36Z', 'yesterday', ''])(
    '%j is undefined',
    (s) => {
      expect(parseIsoTime(s)).toBeUndefined()
    },
  )
})

describe('parseAccessLine: heads and tails of real configurations (Filebeat nginx module test logs)', () => {
  const TAIL = '[07/Dec/2016:11:05:07 +0100] "GET /ocelot HTTP/1.1" 200 571 "-" "Firefox/49.0"'
  it.each<[string, string, string, string | undefined]>([
    ['an X-Forwarded-For list, all private: the first', `10.0.0.2, 10.0.0.1, 127.0.0.1 - - ${TAIL}`, '10.0.0.2', undefined],
    ['an X-Forwarded-For list: the first public address', `10.0.0.2, 10.0.0.1, 85.181.35.98 - - ${TAIL}`, '85.181.35.98', undefined],
    ['a quoted list before the address', `"10.5.102.222, 199.96.1.1, 204.246.1.1" 10.2.1.185 - - ${TAIL}`, '199.96.1.1', undefined],
    ['a list then an address', `2a03:0000:10ff:f00f:0000:0000:0:8000, 10.225.192.17 10.2.2.121 - - ${TAIL}`, '2a03:0000:10ff:f00f:0000:0000:0:8000', undefined],
    ['a $host prefix', `example.com 172.17.0.1 - - ${TAIL}`, '172.17.0.1', 'example.com'],
    ['a $host:port prefix and a quoted list', `example.com:80 "10.5.102.222, 175.16.199.1" 10.2.1.185 - - ${TAIL}`, '175.16.199.1', 'example.com'],
    ['an address as the host', `1.128.3.4 localhost - - ${TAIL}`, 'localhost', '1.128.3.4'],
    ['a user with a trailing space', `203.0.113.7 - bob  ${TAIL}`, '203.0.113.7', undefined],
    ['a user with a space inside', `203.0.113.7 - John Doe ${TAIL}`, '203.0.113.7', undefined],
  ])('%s', (_name, line, client, vhost) => {
    const e = parsed(line)
    expect(e.clientIp).toBe(client)
    expect(e.vhost).toBe(vhost)
    expect(e.path).toBe('/ocelot')
    expect(e.userAgent).toBe('Firefox/49.0')
    expect(e.time).toBe('2016-12-07T10:05:07.000Z')
  })

  it('extra fields after the bytes keep the referer and user agent, and read the request time', () => {
    const line = '203.0.113.7 - - [10/Oct/2023:13:55:36 +0000] "GET /big.bin HTTP/1.1" 206 33973115 0.202 "-" "Mozilla/5.0 (X11)"'
    expect(parsed(line)).toMatchObject({status: 206, bytes: 33973115, userAgent: 'Mozilla/5.0 (X11)'})
    expect(parsed(line).referer).toBeUndefined()
    expect(timings(line)).toEqual({requestTime: 0.202, upstreamTime: undefined, extra: undefined})
  })

  it('request and upstream time, then unknown fields kept apart', () => {
    const line = '203.0.113.7 - - [10/Oct/2023:13:55:36 +0000] "GET / HTTP/1.1" 200 612 0.010 0.008 MISS "https://a.example/" "curl/8"'
    expect(parsed(line)).toMatchObject({referer: 'https://a.example/', userAgent: 'curl/8'})
    expect(timings(line)).toEqual({requestTime: 0.01, upstreamTime: 0.008, extra: ['MISS']})
  })

  it('a Rack common line with a trailing duration', () => {
    expect(timings('169.254.0.1 - - [11/Apr/2022:16:29:47 +0000] "GET / HTTP/1.1" 200 117 0.0027')).toEqual({requestTime: 0.0027, upstreamTime: undefined, extra: undefined})
  })

  it('ingress-nginx timings: $request_time and the last $upstream_response_time', () => {
    const line = '192.168.64.14 - - [07/Feb/2020:12:02:42 +0000] "GET /v2/some HTTP/1.1" 200 61 "-" "Firefox/72.0" 348 0.001 [default-web2-8080] [] 172.17.0.6:8080, 172.17.0.7:8080 61, 100 0.100, 0.004 200, 203 835136ae24486dbb4156dcbe21f5d402'
    expect(timings(line)).toEqual({requestTime: 0.001, upstreamTime: 0.004, extra: undefined})
    expect(parsed(line).upstream).toBe('172.17.0.7:8080')
  })

  it('ingress-nginx retries: the upstream whose status answered, not the one logged `-`', () => {
    const line = '192.168.64.14 - - [07/Feb/2020:12:02:42 +0000] "GET /test/test.mp4 HTTP/1.1" 200 61 "-" "Firefox/72.0" 348 0.001 [default-web2-8080] [] 172.17.0.6:8080, 172.17.0.7:8080 - 0.100, - 200, - 835136ae24486dbb4156dcbe21f5d402'
    expect(parsed(line)).toMatchObject({upstream: '172.17.0.6:8080', requestId: '835136ae24486dbb4156dcbe21f5d402'})
  })
})
