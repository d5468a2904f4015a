import {compileLogFormat, formatText, LogFormatError, parseLogFormatJson, parseLogFormatLine, type JsonLogFormat, type TextLogFormat} from '../../../src/normalize/log-format'
import {claimsMapped, coreMapping, parseMappedJson} from '../../../src/normalize/mapped-json'
import {nonAccessKind} from '../../../src/normalize/non-access'
import {readTime} from '../../../src/normalize/values'
import {lookup} from '../../../src/normalize/fields'
import {normalizeSettings} from '../../../src/config/analyze-options'
import {ConfigError} from '../../../src/config/parse'
import {describeUnreadable} from '../../../src/sources/file/describe'

const text = (spec: string): TextLogFormat => compileLogFormat(spec) as TextLogFormat
const COMBINED = '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"'
const LINE = '10.0.0.1 - - [30/Nov/2026:07:18:26 +0000] "GET /_build/app.js?v=1 HTTP/1.1" 200 1832 "https://shop.example/" "Mozilla/5.0 (X11)"'

describe('--log-format: what the user pastes', () => {
  it('takes the directive, its quoted pieces, or the bare format', () => {
    const directive = `log_format main '$remote_addr - $remote_user [$time_local] "$request" '\n    '$status $body_bytes_sent "$http_referer" '\n    "\\"$http_user_agent\\"";`
    expect(formatText(directive)).toEqual({format: COMBINED, json: false})
    expect(formatText(`'$remote_addr - $remote_user [$time_local] "$request" ' '$status $body_bytes_sent "$http_referer" "$http_user_agent"';`).format).toBe(COMBINED)
    expect(formatText(COMBINED).format).toBe(COMBINED)
    // nginx.conf has no name in some pastes; `escape=json` marks a JSON template.
    expect(formatText(`log_format '$status $request';`).format).toBe('$status $request')
    expect(formatText(`log_format j escape=json '{"s":$status}';`)).toEqual({format: '{"s":$status}', json: true})
  })

  it('refuses formats it cannot read, saying why', () => {
    expect(() => compileLogFormat('$remote_addr $request')).toThrow(/no a time .*, no \$status, no the bytes/)
    expect(() => compileLogFormat('[$time_local] "$request" $status $body_bytes_sent $foo$bar')).toThrow('$foo$bar: nothing between them tells where $foo ends')
    expect(() => compileLogFormat(`log_format x '$status`)).toThrow(LogFormatError)
    expect(() => normalizeSettings({'session-key': 'auto', 'app-key': 'auto', 'log-format': '$status'})).toThrow(ConfigError)
  })
})

describe('--log-format: lines read with nginx variable names', () => {
  it('reads combined: time, method, path without query, status, body bytes, client, agent, referer', () => {
    const out = parseLogFormatLine(text(COMBINED), LINE)
    expect(out).toEqual({ok: true, event: {time: Date.parse('2026-11-30T07:18:26Z'), resolutionMs: 1000, method: 'GET', path: '/_build/app.js', status: 200, bytes: 1832,
      clientIp: '10.0.0.1', userAgent: 'Mozilla/5.0 (X11)', referer: 'https://shop.example/'}})
  })

  it('reads $bytes_sent as a length with headers (responseBytes), $msec to the millisecond, $request_method $uri, upstreams and ids', () => {
    const f = text('$msec $request_method $uri?$args $status $bytes_sent [$proxy_upstream_name] $upstream_addr $upstream_status $request_id $request_time $upstream_response_time $host')
    const out = parseLogFormatLine(f, '1764487106.070 GET /index.html?x=1 200 2100 [shop-web-80] 10.1.0.3:8080, 10.1.0.4:8080 502, 200 abc123 0.005 0.002, 0.003 shop.example')
    expect(out).toEqual({ok: true, event: expect.objectContaining({time: 1764487106070, resolutionMs: 1, method: 'GET', path: '/index.html', bytes: 2100, responseBytes: true,
      upstreamName: 'shop-web-80', upstream: '10.1.0.4:8080', requestId: 'abc123', requestTime: 0.005, upstreamTime: 0.003, vhost: 'shop.example'})})
  })

  it('reads values that touch: $scheme://$host$request_uri, and unquoted $time_local and $request by their shape', () => {
    const f = text('$remote_addr $time_local $request $status $body_bytes_sent $scheme://$host$request_uri')
    const out = parseLogFormatLine(f, '10.0.0.1 30/Nov/2026:07:18:26 +0100 GET /a HTTP/2.0 304 0 https://shop.example/assets/x.css')
    expect(out).toEqual({ok: true, event: expect.objectContaining({time: Date.parse('2026-11-30T06:18:26Z'), path: '/assets/x.css', status: 304, bytes: 0, vhost: 'shop.example'})})
  })

  it('rejects a line that does not match, saying where, in at most 120 characters of printable text', () => {
    const out = parseLogFormatLine(text(COMBINED), '10.0.0.1 - - [30/Nov/2026:07:18:26 +0000] "GET / HTTP/1.1" 200 1832 "-" \u001b[31m' + 'x'.repeat(5000))
    expect(out).toMatchObject({ok: false, reason: 'log-format-mismatch'})
    const detail = (out as {detail: string}).detail
    expect(detail).toMatch(/^--log-format: expected `" "` after \$http_referer at column 70; found /)
    expect(detail.length).toBeLessThanOrEqual(120)
    // eslint-disable-next-line no-control-regex
    expect(detail).not.toMatch(/[\u0000-\u001f]/)
    expect(parseLogFormatLine(text(COMBINED), '10.0.0.1 - -')).toMatchObject({reason: 'log-format-mismatch', detail: '--log-format: expected ` [` after $remote_user at column 12; found "-"'})
    expect(parseLogFormatLine(text(COMBINED), '10.0.0.1 - - [')).toMatchObject({detail: expect.stringContaining('; the line ends')})
    expect(parseLogFormatLine(text(COMBINED), `${LINE} extra`)).toMatchObject({detail: expect.stringContaining('expected the end of the line')})
  })

  it('rejects broken values of a matching line with the reasons every format uses', () => {
    const f = text(COMBINED)
    expect(parseLogFormatLine(f, LINE.replace(' 200 ', ' OK ')).ok).toBe(false)
    expect(parseLogFormatLine(f, LINE.replace(' 200 ', ' 2000 '))).toMatchObject({reason: 'bad-status'})
    expect(parseLogFormatLine(f, LINE.replace(' 1832 ', ' many '))).toMatchObject({reason: 'bad-bytes'})
    expect(parseLogFormatLine(f, LINE.replace('"GET /_build/app.js?v=1 HTTP/1.1"', '"-"'))).toMatchObject({reason: 'missing-path'})
  })
})

describe('--log-format: escape=json templates read JSON records by their keys', () => {
  const f = compileLogFormat(`log_format j escape=json '{"t":"$time_iso8601","req":{"line":"$request","ms":$request_time},'
    '"res":{"code":$status,"len":$bytes_sent},"ip":"$remote_addr","pod":"$upstream_addr","note":"took $request_time s"}';`) as JsonLogFormat

  it('reads the variables under the keys the template puts them, numbers unquoted or not', () => {
    const rec = {t: '2026-11-30T07:18:26+00:00', req: {line: 'GET /x.js HTTP/1.1', ms: 0.004}, res: {code: 200, len: 2100}, ip: '10.0.0.1', pod: '10.1.0.3:8080', note: 'took 0.004 s'}
    expect(f.kind).toBe('json')
    expect(parseLogFormatJson(f, rec)).toEqual({ok: true, event: expect.objectContaining({time: Date.parse('2026-11-30T07:18:26Z'), method: 'GET', path: '/x.js', status: 200, bytes: 2100, responseBytes: true, clientIp: '10.0.0.1', upstream: '10.1.0.3:8080', requestTime: 0.004})})
  })

  it('refuses a template that is no JSON object', () => {
    expect(() => compileLogFormat(`log_format j escape=json '{"s":$status,';`)).toThrow(/not a JSON object/)
  })
})

describe('--field: a JSON log by mapping', () => {
  const opts = normalizeSettings({'session-key': 'auto', 'app-key': 'auto', field: ['path=req.url', 'status=res.statusCode', 'time=ts', 'responseBytes=res."size.total"', 'method=req.method']})
  const m = coreMapping(opts)

  it('needs path, status, time and one kind of bytes, and well-formed paths', () => {
    const settings = (field: string[]) => () => normalizeSettings({'session-key': 'auto', 'app-key': 'auto', field})
    expect(settings(['path=a', 'status=b'])).toThrow('time, bytes not mapped')
    expect(settings(['path=a', 'status=b', 'time=c', 'bytes=d', 'responseBytes=e'])).toThrow(/not both/)
    expect(settings(['path=a..b'])).toThrow(/is no path/)
    expect(settings(['path="a.b', 'status=b', 'time=c', 'bytes=d'])).toThrow(/is no path/)
  })

  it('reads nested keys, a quoted key holding dots, a flat dotted key, and marks headers-counted bytes', () => {
    expect(m).toBeDefined()
    const rec = {ts: 1764487106070, req: {url: 'https://shop.example/a.js?x', method: 'GET'}, res: {statusCode: 200, 'size.total': 2100}, remote_addr: '10.0.0.1'}
    expect(claimsMapped(rec, m!)).toBe(true)
    expect(parseMappedJson(rec, m!)).toEqual({ok: true, event: {time: 1764487106070, resolutionMs: 1, method: 'GET', path: '/a.js', status: 200, bytes: 2100, responseBytes: true, clientIp: '10.0.0.1', userAgent: '', vhost: 'shop.example'}})
    expect(lookup({attributes: {'url.original': '/flat'}}, 'url.original')).toBe('/flat')
    expect(lookup({attributes: {url: {original: '/nested'}}}, 'url.original')).toBe('/nested')
    expect(parseMappedJson({...rec, ts: 'yesterday'}, m!)).toMatchObject({ok: false, reason: 'bad-time'})
    expect(parseMappedJson({...rec, res: {statusCode: 200}}, m!)).toMatchObject({ok: false, reason: 'missing-bytes'})
    expect(claimsMapped({ts: 1}, m!)).toBe(false)
  })

  it('tells epoch units by magnitude: seconds, milliseconds, microseconds, nanoseconds; RFC 3339 and nginx local times', () => {
    const t = Date.parse('2025-11-30T07:18:26.070Z')
    expect(readTime(1764487106)).toEqual([t - 70, 1000])
    expect(readTime(1764487106.07)).toEqual([t, 1])
    expect(readTime('1764487106070')).toEqual([t, 1])
    expect(readTime(1764487106070123)).toEqual([t, 1])
    expect(readTime('1764487106070123456')).toEqual([t, 1])
    expect(readTime('2025-11-30T07:18:26.070Z')).toEqual([t, 1])
    expect(readTime('30/Nov/2025:08:18:26 +0100')).toEqual([t - 70, 1000])
    expect(readTime('99999999999999999999999')).toBeUndefined()
  })
})

describe('lines that are no request', () => {
  it('are told apart: nginx error log, klog notices, the nginx image entrypoint, the controller banner', () => {
    expect(nonAccessKind('2021/12/01 13:53:33 [error] 31#31: *46 "/usr/share/nginx/html/market/index.html" is not found')).toBe('an nginx error log line')
    expect(nonAccessKind('I1221 13:00:58.488494       7 controller.go:202] Initial sync, sleeping for 1 second.')).toMatch(/klog/)
    expect(nonAccessKind('W1130 07:18:26.070123       7 controller.go:1104] Service "default/web" does not have any active Endpoint.')).toMatch(/klog/)
    expect(nonAccessKind('/docker-entrypoint.sh: Configuration complete; ready for start up')).toMatch(/entrypoint/)
    expect(nonAccessKind('  Release:       v1.5.1')).toMatch(/banner/)
    expect(nonAccessKind(LINE)).toBeUndefined()
  })
})

describe('what an unreadable file looked like', () => {
  it('JSON: its keys, the nearest format by keys in common, and the --field flags that would read it', () => {
    const lines = describeUnreadable([JSON.stringify({ts: 1, level: 'info', request: {uri: '/x', method: 'GET'}, status: 200, size: 10, 'bad\u001bkey': 1})])
    expect(lines[0]).toBe('It holds JSON objects; the first has the keys ts, level, request, status, size, bad?key.')
    expect(lines[1]).toMatch(/^Nearest known format: Caddy JSON \(keys in common: ts, request, status, size/)
    expect(lines[2]).toMatch(/--field path=request.uri --field status=status --field time=ts --field bytes=size --field method=request.method/)
  })

  it('text: its first tokens, and an nginx log_format to start from', () => {
    const lines = describeUnreadable(['12.1.1.1 - - [31/Mar/2016:03:10:51 +0530] "GET /api/x HTTP/1.1" example.com 404 39 "-" "-" 0.003'])
    expect(lines[0]).toMatch(/^Its first line begins: 12.1.1.1 - - \[31\/Mar/)
    expect(lines[2]).toContain(`(it reads this line): --log-format '$remote_addr - $remote_user [$time_local] "$request" $field6 $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_time'`)
    expect(describeUnreadable(['2021/12/01 13:53:33 [error] 31#31: *46 open() failed'])[1]).toMatch(/^That is an nginx error log line, no access log/)
  })
})
