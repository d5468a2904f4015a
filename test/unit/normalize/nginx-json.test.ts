import {looksLikeNginxJson, parseNginxJson} from '../../../src/normalize/nginx-json'
import {parseJsonRecord} from '../../../src/normalize/formats'
import type {ParseOutcome} from '../../../src/model'

type Obj = Record<string, unknown>

function parsed(obj: Obj): Record<string, unknown> {
  const r = parseNginxJson(obj)
  if (!r.ok) throw new Error(`rejected (${r.reason}): ${r.detail ?? ''}`)
  return {...r.event, time: new Date(r.event.time).toISOString()}
}

function reason(obj: Obj): string {
  const r = parseNginxJson(obj)
  if (r.ok) throw new Error(`accepted: ${JSON.stringify(r.event)}`)
  expect((r.detail ?? '').length).toBeGreaterThan(0)
  expect((r.detail ?? '').length).toBeLessThanOrEqual(120)
  return r.reason
}

/** A typical `log_format json escape=json` line, as JSON.parse returns it. */
const LINE =
  '{"time_iso8601":"2023-10-10T15:55:36+02:00","remote_addr":"203.0.113.7","remote_user":"","request":"GET /assets/app-1a2b.js?v=3 HTTP/2.0","request_method":"GET","request_uri":"/assets/app-1a2b.js?v=3","status":"200","body_bytes_sent":"5120","request_time":"0.004","http_referer":"https://app.example.com/","http_user_agent":"Mozilla/5.0 \\"x\\"","request_id":"7f3c2a9e8b1d4c6fa0e5b2c1d3e4f5a6","upstream_addr":"10.0.0.1:80, 10.0.0.2:80","upstream_status":"502, 200","sent_http_content_type":"application/javascript","host":"app.example.com"}'
const FULL = JSON.parse(LINE) as Obj

/** The minimum accepted record; variants override fields. */
const MIN: Obj = {time_iso8601: '2023-10-10T13:55:36+00:00', request: 'GET /a.js HTTP/1.1', status: 200, body_bytes_sent: 10}
const MIN_EVENT = {
  time: '2023-10-10T13:55:36.000Z',
  resolutionMs: 1000,
  method: 'GET',
  path: '/a.js',
  status: 200,
  bytes: 10,
  clientIp: '',
  userAgent: '',
}

/** MIN with some fields replaced; an undefined value removes the field. */
function withFields(fields: Obj): Obj {
  const out: Obj = {...MIN}
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) delete out[k]
    else out[k] = v
  }
  return out
}

describe('parseNginxJson: a full escape=json record', () => {
  it('fills every field', () => {
    expect(parsed(FULL)).toStrictEqual({
      time: '2023-10-10T13:55:36.000Z',
      resolutionMs: 1000,
      method: 'GET',
      path: '/assets/app-1a2b.js',
      status: 200,
      bytes: 5120,
      clientIp: '203.0.113.7',
      userAgent: 'Mozilla/5.0 "x"',
      referer: 'https://app.example.com/',
      requestId: '7f3c2a9e8b1d4c6fa0e5b2c1d3e4f5a6',
      requestTime: 0.004,
      upstream: '10.0.0.2:80',
      contentType: 'application/javascript',
      vhost: 'app.example.com',
    })
    expect(looksLikeNginxJson(FULL)).toBe(true)
  })

  it('parses the minimum record', () => {
    expect(parsed(MIN)).toStrictEqual(MIN_EVENT)
  })
})

describe('parseNginxJson: time fields', () => {
  const noTime: Obj = {time_iso8601: undefined}
  it.each<[string, Obj, string, number]>([
    ['time_iso8601 with an offset', {time_iso8601: '2023-10-10T15:55:36+02:00'}, '2023-10-10T13:55:36.000Z', 1000],
    ['time_iso8601 in UTC', {time_iso8601: '2023-10-10T13:55:36+00:00'}, '2023-10-10T13:55:36.000Z', 1000],
    ['msec as a string', {...noTime, msec: '1700000000.123'}, '2023-11-14T22:13:20.123Z', 1],
    ['msec as a number', {...noTime, msec: 1700000000.123}, '2023-11-14T22:13:20.123Z', 1],
    ['msec without a fraction', {...noTime, msec: '1700000000'}, '2023-11-14T22:13:20.000Z', 1],
    ['time_local', {...noTime, time_local: '10/Oct/2023:06:55:36 -0700'}, '2023-10-10T13:55:36.000Z', 1000],
    ['time_local holding an ISO time', {...noTime, time_local: '2023-10-10T13:55:36Z'}, '2023-10-10T13:55:36.000Z', 1000],
    ['timestamp ISO with millis', {...noTime, timestamp: '2023-10-10T13:55:36.456Z'}, '2023-10-10T13:55:36.456Z', 1],
    ['timestamp ISO without millis', {...noTime, timestamp: '2023-10-10T13:55:36Z'}, '2023-10-10T13:55:36.000Z', 1000],
    ['timestamp epoch ms', {...noTime, timestamp: 1700000000123}, '2023-11-14T22:13:20.123Z', 1],
    ['timestamp epoch seconds', {...noTime, timestamp: 1700000000}, '2023-11-14T22:13:20.000Z', 1000],
    ['timestamp epoch seconds with a fraction', {...noTime, timestamp: 1700000000.5}, '2023-11-14T22:13:20.500Z', 1],
    ['timestamp epoch seconds as a string', {...noTime, timestamp: '1700000000'}, '2023-11-14T22:13:20.000Z', 1000],
    ['timestamp epoch ms as a string', {...noTime, timestamp: '1700000000123'}, '2023-11-14T22:13:20.123Z', 1],
    ['time holding $time_local', {...noTime, time: '10/Oct/2023:13:55:36 +0000'}, '2023-10-10T13:55:36.000Z', 1000],
    ['time ISO', {...noTime, time: '2023-10-10T13:55:36.1+00:00'}, '2023-10-10T13:55:36.100Z', 1],
    ['@timestamp', {...noTime, '@timestamp': '2023-10-10T15:55:36.456+02:00'}, '2023-10-10T13:55:36.456Z', 1],
    ['time_iso8601 wins over msec', {msec: '1700000000.123'}, '2023-10-10T13:55:36.000Z', 1000],
    ['msec wins over time_local', {...noTime, msec: '1700000000.123', time_local: '10/Oct/2023:13:55:36 +0000'}, '2023-11-14T22:13:20.123Z', 1],
    ['a `-` time field is skipped', {time_iso8601: '-', msec: '1700000000.123'}, '2023-11-14T22:13:20.123Z', 1],
    ['an empty time field is skipped', {time_iso8601: '', time_local: '10/Oct/2023:13:55:36 +0000'}, '2023-10-10T13:55:36.000Z', 1000],
  ])('%s', (_name, fields, iso, resolutionMs) => {
    const event = parsed(withFields(fields))
    expect(event['time']).toBe(iso)
    expect(event['resolutionMs']).toBe(resolutionMs)
  })

  it.each<[string, Obj, string]>([
    ['no time field', noTime, 'missing-time'],
    ['only `-` and null time fields', {time_iso8601: '-', msec: null, time_local: ''}, 'missing-time'],
    ['ISO without an offset', {time_iso8601: '2023-10-10T13:55:36'}, 'bad-time'],
    ['words', {time_iso8601: 'yesterday'}, 'bad-time'],
    ['an impossible date', {time_iso8601: '2023-02-30T13:55:36Z'}, 'bad-time'],
    ['msec not a number', {...noTime, msec: 'abc'}, 'bad-time'],
    ['msec as an ISO string', {...noTime, msec: '2023-10-10T13:55:36Z'}, 'bad-time'],
    ['negative epoch', {...noTime, timestamp: -5}, 'bad-time'],
    ['zero epoch', {...noTime, timestamp: 0}, 'bad-time'],
    ['NaN', {...noTime, timestamp: NaN}, 'bad-time'],
    ['Infinity', {...noTime, timestamp: Infinity}, 'bad-time'],
    ['an epoch beyond year 9999', {...noTime, timestamp: 1e17}, 'bad-time'],
    ['an object', {...noTime, timestamp: {s: 1}}, 'bad-time'],
    ['a boolean', {...noTime, time: true}, 'bad-time'],
    ['an unreadable first field is not skipped', {time_iso8601: 'garbage', msec: '1700000000.123'}, 'bad-time'],
  ])('%s', (_name, fields, expected) => {
    expect(reason(withFields(fields))).toBe(expected)
  })
})

describe('parseNginxJson: request fields', () => {
  it.each<[string, Obj, Record<string, unknown>]>([
    ['method and path from request', {}, {}],
    ['request_method wins', {request_method: 'HEAD'}, {method: 'HEAD'}],
    ['request_uri wins, query stripped', {request_uri: '/b.js?x=1'}, {path: '/b.js'}],
    ['uri (already without query)', {uri: '/c.js'}, {path: '/c.js'}],
    ['request_uri before uri', {request_uri: '/b.js', uri: '/index.html'}, {path: '/b.js'}],
    ['uri only, no request', {request: undefined, uri: '/c.js'}, {path: '/c.js', method: ''}],
    ['uri and request_method, no request', {request: undefined, uri: '/c.js', request_method: 'GET'}, {path: '/c.js'}],
    ['request query and fragment stripped', {request: 'GET /a.js?v=1#x HTTP/1.1'}, {}],
    ['HTTP/0.9 request', {request: 'GET /a.js'}, {}],
    ['absolute-form request gives the host', {request: 'GET http://cdn.example.com/a.js?v=1 HTTP/1.1'}, {vhost: 'cdn.example.com'}],
    ['a host field wins over the target host', {request: 'GET http://cdn.example.com/a.js HTTP/1.1', host: 'app.example.com'}, {vhost: 'app.example.com'}],
    ['`-` request_uri falls back to request', {request_uri: '-'}, {}],
    ['OPTIONS *', {request: 'OPTIONS * HTTP/1.1'}, {method: 'OPTIONS', path: '*'}],
  ])('%s', (_name, fields, expected) => {
    expect(parsed(withFields(fields))).toStrictEqual({...MIN_EVENT, ...expected})
  })

  it.each<[string, Obj]>([
    ['no request, request_uri nor uri', {request: undefined}],
    ['request `-` (nginx 400)', {request: '-'}],
    ['request without a target', {request: 'GET'}],
    ['binary request', {request: '\u0016\u0003\u0001\u0002\u0000'}],
    ['CONNECT authority-form', {request: 'CONNECT example.com:443 HTTP/1.1'}],
    ['target not a path', {request_uri: 'index.html'}],
    ['request_uri a number', {request: undefined, request_uri: 5}],
  ])('%s -> missing-path', (_name, fields) => {
    expect(reason(withFields(fields))).toBe('missing-path')
  })
})

describe('parseNginxJson: status and bytes', () => {
  it.each<[string, Obj, Record<string, unknown>]>([
    ['status as a string', {status: '404'}, {status: 404}],
    ['status as a float-typed integer', {status: 304.0}, {status: 304}],
    ['bytes as a string', {body_bytes_sent: '123'}, {bytes: 123}],
    // $bytes_sent counts the headers too: the event says so, to be compared with other such lengths.
    ['bytes_sent as the fallback', {body_bytes_sent: undefined, bytes_sent: '456'}, {bytes: 456, responseBytes: true}],
    ['body_bytes_sent wins over bytes_sent', {body_bytes_sent: 1, bytes_sent: 400}, {bytes: 1}],
    ['an empty body_bytes_sent falls back', {body_bytes_sent: '', bytes_sent: 400}, {bytes: 400, responseBytes: true}],
    ['bytes `-` is 0', {body_bytes_sent: '-'}, {bytes: 0}],
    ['bytes 0', {body_bytes_sent: 0}, {bytes: 0}],
  ])('%s', (_name, fields, expected) => {
    expect(parsed(withFields(fields))).toStrictEqual({...MIN_EVENT, ...expected})
  })

  it.each<[string, Obj, string]>([
    ['no status', {status: undefined}, 'missing-status'],
    ['null status', {status: null}, 'missing-status'],
    ['empty status', {status: ''}, 'missing-status'],
    ['status word', {status: 'OK'}, 'bad-status'],
    ['status `-`', {status: '-'}, 'bad-status'],
    ['status 99', {status: 99}, 'bad-status'],
    ['status 1000', {status: 1000}, 'bad-status'],
    ['status "2000"', {status: '2000'}, 'bad-status'],
    ['status with a space', {status: '200 '}, 'bad-status'],
    ['fractional status', {status: 200.5}, 'bad-status'],
    ['boolean status', {status: true}, 'bad-status'],
    ['object status', {status: {code: 200}}, 'bad-status'],
    ['no bytes', {body_bytes_sent: undefined}, 'missing-bytes'],
    ['null bytes', {body_bytes_sent: null}, 'missing-bytes'],
    ['bytes with a letter', {body_bytes_sent: '12a'}, 'bad-bytes'],
    ['negative bytes', {body_bytes_sent: -1}, 'bad-bytes'],
    ['negative bytes string', {body_bytes_sent: '-1'}, 'bad-bytes'],
    ['fractional bytes', {body_bytes_sent: 1.5}, 'bad-bytes'],
    ['exponent bytes', {body_bytes_sent: '1e3'}, 'bad-bytes'],
    ['bytes beyond 2^53', {body_bytes_sent: '123456789012345678'}, 'bad-bytes'],
    ['array bytes', {body_bytes_sent: [1]}, 'bad-bytes'],
  ])('%s', (_name, fields, expected) => {
    expect(reason(withFields(fields))).toBe(expected)
  })
})

describe('parseNginxJson: optional fields', () => {
  it.each<[string, Obj, Record<string, unknown>]>([
    ['remote_addr', {remote_addr: '203.0.113.7', client_ip: '198.51.100.1'}, {clientIp: '203.0.113.7'}],
    ['client_ip', {client_ip: '198.51.100.1', realip_remote_addr: '10.0.0.1'}, {clientIp: '198.51.100.1'}],
    ['realip_remote_addr', {realip_remote_addr: '10.0.0.1', http_x_forwarded_for: '198.51.100.1'}, {clientIp: '10.0.0.1'}],
    ['x-forwarded-for as a last resort, first entry', {http_x_forwarded_for: '198.51.100.1, 10.0.0.1'}, {clientIp: '198.51.100.1'}],
    ['x-forwarded-for `-`', {http_x_forwarded_for: '-'}, {}],
    ['`-` remote_addr falls through', {remote_addr: '-', client_ip: '198.51.100.1'}, {clientIp: '198.51.100.1'}],
    ['user agent', {http_user_agent: 'curl/8.0'}, {userAgent: 'curl/8.0'}],
    ['user agent `-`', {http_user_agent: '-'}, {}],
    ['referer', {http_referer: 'https://app.example.com/'}, {referer: 'https://app.example.com/'}],
    ['referer `-` and empty are absent', {http_referer: '-'}, {}],
    ['empty referer', {http_referer: ''}, {}],
    ['request_id', {request_id: 'abc', req_id: 'def'}, {requestId: 'abc'}],
    ['req_id', {req_id: 'def'}, {requestId: 'def'}],
    ['`-` request_id falls back to req_id', {request_id: '-', req_id: 'def'}, {requestId: 'def'}],
    ['upstream: last of a retry list', {upstream_addr: '10.0.0.1:80, 10.0.0.2:80'}, {upstream: '10.0.0.2:80'}],
    ['upstream: trailing `-` skipped', {upstream_addr: '10.0.0.1:80, -'}, {upstream: '10.0.0.1:80'}],
    ['upstream: internal redirect', {upstream_addr: '10.0.0.1:80 : 10.0.0.9:80'}, {upstream: '10.0.0.9:80'}],
    ['upstream `-`', {upstream_addr: '-'}, {}],
    ['content type', {sent_http_content_type: 'text/html', content_type: 'x/y'}, {contentType: 'text/html'}],
    ['content_type', {content_type: 'text/css', upstream_http_content_type: 'x/y'}, {contentType: 'text/css'}],
    ['upstream_http_content_type', {upstream_http_content_type: 'application/javascript'}, {contentType: 'application/javascript'}],
    ['host', {host: 'a.example.com', http_host: 'b.example.com:8080'}, {vhost: 'a.example.com'}],
    ['http_host', {http_host: 'b.example.com:8080', server_name: 'c'}, {vhost: 'b.example.com:8080'}],
    ['server_name', {server_name: 'c.example.com'}, {vhost: 'c.example.com'}],
    ['version', {version: '1.4.2', app_version: '0.0.1'}, {version: '1.4.2'}],
    ['app_version', {app_version: 'abc123'}, {version: 'abc123'}],
    ['numeric version', {version: 42}, {version: '42'}],
    ['service', {service: 'web'}, {service: 'web'}],
    ['ingress upstream name (the app)', {proxy_upstream_name: 'default-webapp-80'}, {upstreamName: 'default-webapp-80'}],
    ['ingress upstream name `-`', {proxy_upstream_name: '-'}, {}],
    ['non-string optional values are ignored', {http_referer: {a: 1}, http_user_agent: ['x'], service: true, request_id: null}, {}],
  ])('%s', (_name, fields, expected) => {
    expect(parsed(withFields(fields))).toStrictEqual({...MIN_EVENT, ...expected})
  })
})

describe('parseNginxJson: robustness', () => {
  it.each<[string, unknown]>([
    ['null', null],
    ['an array', [1, 2]],
    ['a string', 'GET / HTTP/1.1'],
  ])('%s -> not-an-object', (_name, value) => {
    const r = parseNginxJson(value as Obj)
    expect(r.ok ? 'accepted' : r.reason).toBe('not-an-object')
  })

  it('keeps the detail short for huge values', () => {
    const r = parseNginxJson(withFields({status: 'x'.repeat(1 << 20)}))
    expect(r.ok ? 'accepted' : r.reason).toBe('bad-status')
    expect(r.ok ? 0 : (r.detail ?? '').length).toBeLessThanOrEqual(120)
  })

  it('never throws on random values in every known field', () => {
    const keys = [
      'time_iso8601', 'msec', 'time_local', 'timestamp', 'time', '@timestamp', 'remote_addr', 'client_ip', 'realip_remote_addr',
      'http_x_forwarded_for', 'request_method', 'request', 'request_uri', 'uri', 'status', 'body_bytes_sent', 'bytes_sent',
      'http_referer', 'http_user_agent', 'request_id', 'req_id', 'upstream_addr', 'sent_http_content_type', 'host', 'version', 'service',
    ]
    const values: unknown[] = [
      undefined, null, '', '-', ' ', 0, -1, 1.5, 1e300, NaN, true, [], {}, [1], {a: 1}, '200', 'GET', 'GET /', 'GET / HTTP/1.1',
      '1700000000.123', '2023-10-10T13:55:36Z', '10/Oct/2023:13:55:36 +0000', ', , ', '\u0000\ud800', 'x'.repeat(1000),
    ]
    let seed = 7
    const rand = (n: number): number => {
      seed ^= seed << 13
      seed ^= seed >>> 17
      seed ^= seed << 5
      return (seed >>> 0) % n
    }
    for (let k = 0; k < 5000; k++) {
      const obj: Obj = {}
      for (const key of keys) if (rand(2)) obj[key] = values[rand(values.length)]
      let r: ParseOutcome | undefined
      expect(() => {
        r = parseNginxJson(obj)
        looksLikeNginxJson(obj)
      }).not.toThrow()
      if (r !== undefined && !r.ok) expect((r.detail ?? '').length).toBeLessThanOrEqual(120)
    }
  })
})

describe('looksLikeNginxJson', () => {
  it.each<[string, boolean, Obj]>([
    ['a full record', true, FULL],
    ['the minimum record', true, MIN],
    ['uri and msec', true, {status: '200', uri: '/', msec: '1700000000.123'}],
    ['request_uri and @timestamp', true, {status: 200, request_uri: '/', '@timestamp': 'x'}],
    ['no status', false, withFields({status: undefined})],
    ['null status', false, withFields({status: null})],
    ['no request', false, withFields({request: undefined})],
    ['no time', false, withFields({time_iso8601: undefined})],
    ['a Datadog log event', false, {status: 'info', timestamp: '2022-04-11T16:29:47.402Z', message: '169.254.0.1 - - …', host: 'h'}],
    ['empty', false, {}],
  ])('%s -> %s', (_name, expected, obj) => {
    expect(looksLikeNginxJson(obj)).toBe(expected)
  })
})

describe('parseNginxJson: field names of real configs', () => {
  const BASE = {time_local: '10/Oct/2023:13:55:36 +0000', remote_addr: '203.0.113.7', request: 'GET /a.js?v=1 HTTP/1.1', status: '200', body_bytes_sent: '10'}
  it('http_referrer is the referer, time_local the time, request the request line', () => {
    expect(parsed({...BASE, http_referrer: 'https://a.example/', http_user_agent: 'curl/8'})).toMatchObject({
      time: '2023-10-10T13:55:36.000Z', method: 'GET', path: '/a.js', referer: 'https://a.example/', userAgent: 'curl/8', clientIp: '203.0.113.7',
    })
  })
  it('the answering upstream of a retry list is the one with a status', () => {
    expect(parsed({...BASE, upstream_addr: '172.17.0.6:8080, 172.17.0.7:8080', upstream_status: '200, -'}).upstream).toBe('172.17.0.6:8080')
    expect(parsed({...BASE, upstream_addr: '172.17.0.6:8080, 172.17.0.7:8080', upstream_status: '502, 200'}).upstream).toBe('172.17.0.7:8080')
  })
})

/**
 * ingress-nginx's JSON log-format-upstream, the one copied from blog to blog:
 * `{"time": "$time_iso8601", "remote_addr": "$remote_addr", "x-forward-for": "$proxy_add_x_forwarded_for",
 * "request_id": "$req_id", "remote_user": "$remote_user", "bytes_sent": $bytes_sent, "request_time": $request_time,
 * "status": $status, "vhost": "$host", "request_proto": "$server_protocol", "path": "$uri", "request_query": "$args",
 * "request_length": $request_length, "duration": $request_time, "method": "$request_method",
 * "http_referrer": "$http_referer", "http_user_agent": "$http_user_agent"}`
 */
describe('parseNginxJson: ingress-nginx\'s JSON log-format-upstream', () => {
  const INGRESS: Obj = {
    time: '2024-03-22T03:41:02+00:00', remote_addr: '172.20.217.64', 'x-forward-for': '192.168.13.236, 172.20.217.64', request_id: 'f127d086445b137135ce5514a656be84',
    remote_user: '-', bytes_sent: 230, request_time: 0.001, status: 200, vhost: 'nginx02.hs.com', request_proto: 'HTTP/1.1', path: '/static/js/main.1a2b.js',
    request_query: 'v=2', request_length: 177, duration: 0.001, method: 'GET', http_referrer: '-', http_user_agent: 'curl/7.29.0',
  }

  it('is recognised, and reads path, method, vhost, client and request id under its key names', () => {
    expect(looksLikeNginxJson(INGRESS)).toBe(true)
    expect(parsed(INGRESS)).toStrictEqual({
      time: '2024-03-22T03:41:02.000Z', resolutionMs: 1000, method: 'GET', path: '/static/js/main.1a2b.js', status: 200, bytes: 230, responseBytes: true,
      clientIp: '172.20.217.64', userAgent: 'curl/7.29.0', requestId: 'f127d086445b137135ce5514a656be84', vhost: 'nginx02.hs.com', requestTime: 0.001,
    })
  })

  it('$bytes_sent alone counts the headers: marked responseBytes; $body_bytes_sent, when logged, wins unmarked', () => {
    expect(parsed(INGRESS)).toMatchObject({bytes: 230, responseBytes: true})
    const both = parsed({...INGRESS, body_bytes_sent: 12})
    expect(both.bytes).toBe(12)
    expect(both.responseBytes).toBeUndefined()
    // `-` is a logged body length (0), not an absent one.
    expect(parsed({...INGRESS, body_bytes_sent: '-'}).responseBytes).toBeUndefined()
  })

  it('the format check and the file reader keep the mark (the format itself counts bodies)', () => {
    const out = parseJsonRecord(INGRESS)
    expect(out?.ok && out.event.responseBytes).toBe(true)
    const body = parseJsonRecord({...INGRESS, body_bytes_sent: 12})
    expect(body?.ok && body.event.responseBytes).toBeUndefined()
  })

  it('the client: remote_addr, else the first X-Forwarded-For entry under the names configs give it', () => {
    for (const key of ['x-forward-for', 'x_forward_for', 'http_x_forwarded_for', 'x_forwarded_for', 'proxy_add_x_forwarded_for']) {
      expect(parsed({...INGRESS, remote_addr: '-', 'x-forward-for': undefined, [key]: '172.22.0.3, 10.0.0.1'}).clientIp).toBe('172.22.0.3')
    }
    expect(parsed({...INGRESS, remote_addr: '-', 'x-forward-for': '-'}).clientIp).toBe('')
  })

  it('request_uri and uri win over path; the method of "$request" only when no method key', () => {
    expect(parsed({...INGRESS, uri: '/u', request_uri: '/r?q'}).path).toBe('/r')
    expect(parsed({...INGRESS, uri: '/u'}).path).toBe('/u')
    expect(parsed({...INGRESS, method: undefined, request: 'POST /x HTTP/1.1'}).method).toBe('POST')
    expect(parsed({...INGRESS, method: 'HEAD', request: 'POST /x HTTP/1.1'}).method).toBe('HEAD')
  })

  it('the app: $proxy_upstream_name, else ingress-nginx\'s own name for it from $namespace, $service_name and $service_port', () => {
    expect(parsed({...INGRESS, proxy_upstream_name: 'web-frontend-80', upstream_addr: '10.0.0.5:80'})).toMatchObject({upstreamName: 'web-frontend-80', upstream: '10.0.0.5:80'})
    expect(parsed({...INGRESS, namespace: 'web', service_name: 'frontend', service_port: '80'}).upstreamName).toBe('web-frontend-80')
    expect(parsed({...INGRESS, namespace: 'web', service_name: 'frontend'}).upstreamName).toBeUndefined()
    expect(parsed({...INGRESS, namespace: 'web', service_name: 'frontend', service_port: '80', proxy_upstream_name: 'x-y-1'}).upstreamName).toBe('x-y-1')
  })

  it('without its path it is still missing-path (not unknown), naming the keys looked for', () => {
    const r = parseNginxJson({...INGRESS, path: undefined})
    expect(r.ok ? '' : `${r.reason}: ${r.detail ?? ''}`).toMatch(/^missing-path: .*path/)
  })
})
