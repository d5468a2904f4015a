/**
 * Issue 24 (3), CDNs and hosts in front of SPAs: what each format's time and byte count mean, read
 * from the real sample records of fixtures/formats (origins in SOURCES.md) with one field changed
 * at a time, and how a record is told from the formats it resembles (a Vercel entry from a Datadog
 * log, a `heroku logs` line from a `kubectl logs --timestamps` one).
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import type {AccessFields, ParseOutcome} from '../../../../src/model'
import {unwrapDatadog} from '../../../../src/normalize/datadog'
import {DEFAULT_NORMALIZE} from '../../../../src/normalize/fields'
import {jsonFormatOf, marked, parseJsonRecord, parseTextLine, textFormatOf} from '../../../../src/normalize/formats'
import {azureFrontDoor} from '../../../../src/normalize/formats/azure'
import {cloudflareHttp, cloudflareTime} from '../../../../src/normalize/formats/cloudflare'
import {haproxyLog} from '../../../../src/normalize/formats/haproxy'
import {herokuRouter} from '../../../../src/normalize/formats/heroku'
import {vercelDrain} from '../../../../src/normalize/formats/vercel'
import {criRecord, lineFormat, normalizeLine} from '../../../../src/sources/file/records'

type Obj = Record<string, unknown>
const FORMATS = join(__dirname, '..', '..', '..', '..', 'fixtures', 'formats')
const lines = (file: string): string[] => readFileSync(join(FORMATS, file), 'utf8').split('\n').filter((l) => l.trim() !== '')
const records = (file: string): Obj[] => lines(file).map((l) => JSON.parse(l) as Obj)

function event(out: ParseOutcome | undefined): AccessFields {
  if (out === undefined || !out.ok) throw new Error(`expected an event, got ${JSON.stringify(out)}`)
  return out.event
}
function reason(out: ParseOutcome | undefined): string {
  if (out === undefined || out.ok) throw new Error('expected a rejection')
  return out.reason
}
const iso = (ms: number): string => new Date(ms).toISOString()

const CF = records('cloudflare/integrations-http-request.log')[0] as Obj
const AZ = records('azure/integrations-test-fdaccess.log')[0] as Obj
const VERCEL = records('vercel/relay-docs-example.ndjson')[0] as Obj

describe('Cloudflare http_requests', () => {
  it('reads EdgeStartTimestamp in every Logpush timestamp_format: rfc3339, unix, unixnano (number or text), ms', () => {
    const at = (v: unknown): AccessFields => event(cloudflareHttp.parse({...CF, EdgeStartTimestamp: v}))
    expect([iso(at('2022-05-25T13:25:26Z').time), at('2022-05-25T13:25:26Z').resolutionMs]).toEqual(['2022-05-25T13:25:26.000Z', 1000])
    expect([iso(at('2022-05-25T13:25:26.123Z').time), at('2022-05-25T13:25:26.123Z').resolutionMs]).toEqual(['2022-05-25T13:25:26.123Z', 1])
    expect([iso(at(1653485126).time), at(1653485126).resolutionMs]).toEqual(['2022-05-25T13:25:26.000Z', 1000])
    expect([iso(at('1653485126').time), at('1653485126').resolutionMs]).toEqual(['2022-05-25T13:25:26.000Z', 1000])
    // unixnano, the default: text is cut to ms on its digits; a JSON number keeps ms in a double.
    expect([iso(at('1653485126123456789').time), at('1653485126123456789').resolutionMs]).toEqual(['2022-05-25T13:25:26.123Z', 1])
    expect(iso(at(1653485126123000000).time)).toBe('2022-05-25T13:25:26.123Z')
    expect(iso(at(1653485126123).time)).toBe('2022-05-25T13:25:26.123Z')
    expect(cloudflareTime('not a time')).toBeUndefined()
    expect(cloudflareTime(-5)).toBeUndefined()
  })

  it('falls back to EdgeEndTimestamp, and rejects a record with neither', () => {
    const {EdgeStartTimestamp: _s, ...noStart} = CF
    expect(iso(event(cloudflareHttp.parse(noStart)).time)).toBe('2022-05-25T13:25:32.000Z')
    const {EdgeEndTimestamp: _e, ...neither} = noStart
    expect(reason(cloudflareHttp.parse(neither))).toBe('missing-time')
  })

  it('bytes: EdgeResponseBodyBytes is the body; EdgeResponseBytes alone counts headers and marks the record', () => {
    const both = event(marked(cloudflareHttp, CF))
    expect([both.bytes, both.responseBytes]).toEqual([980397, undefined])
    const {EdgeResponseBodyBytes: _b, ...wholeOnly} = CF
    const whole = event(marked(cloudflareHttp, wholeOnly))
    expect([whole.bytes, whole.responseBytes]).toEqual([981308, true])
    const {EdgeResponseBytes: _w, ...none} = wholeOnly
    expect(reason(cloudflareHttp.parse(none))).toBe('missing-bytes')
  })

  it('no pod: OriginIP (the origin, not the pod that answered) is not the upstream; the path drops the query', () => {
    const e = event(cloudflareHttp.parse({...CF, ClientRequestURI: '/static/js/main.1a2b3c4d.js?v=2'}))
    expect([e.upstream, e.path, e.requestId, e.vhost, e.contentType]).toEqual([undefined, '/static/js/main.1a2b3c4d.js', '710e98d9367f357d', 'xyz.example.com', 'application/json'])
  })

  it('is claimed by two of its own keys, and no other sample record is', () => {
    expect(jsonFormatOf(CF)).toBe(cloudflareHttp)
    expect(jsonFormatOf({ClientRequestURI: '/', EdgeResponseStatus: 200})).toBe(cloudflareHttp)
    expect(cloudflareHttp.looksLike({ClientIP: '1.2.3.4', RayID: 'x'} as Obj)).toBe(false)
    for (const r of [AZ, VERCEL]) expect(cloudflareHttp.looksLike(r)).toBe(false)
  })
})

describe('Vercel log drains', () => {
  it('an entry with timestamp and message is Vercel\'s, never a Datadog log: in detection and in reading', () => {
    expect(unwrapDatadog(VERCEL)).toBeUndefined()
    expect(lineFormat(JSON.stringify(VERCEL))).toBe('vercel')
    const [out] = normalizeLine(JSON.stringify(VERCEL), DEFAULT_NORMALIZE, {})
    const e = event(out)
    expect([e.version, e.path, e.status, e.clientIp, e.vhost, e.service]).toEqual(['dpl_233NRGRjVZX1caZrXWtz5g1TAksD', '/api/users', 200, '120.75.16.101', 'my-app.vercel.app', 'gdufoJxB6b9b1fEqr1jUtFkyavUU'])
    // A Datadog log keeps being one.
    expect(unwrapDatadog({timestamp: 1573817250283, message: 'x', service: 'web'})).toBeDefined()
  })

  it('time: proxy.timestamp (the request), else the entry\'s timestamp', () => {
    expect(iso(event(vercelDrain.parse(VERCEL)).time)).toBe('2019-11-15T11:27:30.172Z')
    const proxy = {...(VERCEL['proxy'] as Obj)}
    delete proxy['timestamp']
    expect(iso(event(vercelDrain.parse({...VERCEL, proxy})).time)).toBe('2019-11-15T11:27:30.283Z')
  })

  it('bytes: proxy.responseByteSize when logged (read as a whole response), else 0 (no shell length)', () => {
    const sized = event(marked(vercelDrain, {...VERCEL, proxy: {...(VERCEL['proxy'] as Obj), responseByteSize: 1523}}))
    expect([sized.bytes, sized.responseBytes]).toEqual([1523, true])
    expect(event(vercelDrain.parse(VERCEL)).bytes).toBe(0)
  })

  it('rejects a background revalidation (-1), a 0 status, and entries without a request', () => {
    const withStatus = (statusCode: unknown): Obj => ({...VERCEL, proxy: {...(VERCEL['proxy'] as Obj), statusCode}})
    expect(reason(vercelDrain.parse(withStatus(-1)))).toBe('bad-status')
    expect(reason(vercelDrain.parse(withStatus(0)))).toBe('bad-status')
    const {proxy: _p, ...build} = VERCEL
    expect(vercelDrain.looksLike({...build, source: 'build'})).toBe(true)
    expect(reason(parseJsonRecord({...build, source: 'build'}))).toBe('unparsed-message')
  })

  it('the user agent array is joined; two log lines of one request have the same time, path, status and request id', () => {
    const ua = event(vercelDrain.parse({...VERCEL, proxy: {...(VERCEL['proxy'] as Obj), userAgent: ['Mozilla/5.0', '(X11)']}}))
    expect(ua.userAgent).toBe('Mozilla/5.0 (X11)')
    const a = event(vercelDrain.parse(VERCEL))
    const b = event(vercelDrain.parse({...VERCEL, id: 'another-line', message: 'second line', timestamp: 1573817250400}))
    expect([b.time, b.path, b.status, b.requestId, b.bytes]).toEqual([a.time, a.path, a.status, a.requestId, a.bytes])
  })
})

describe('Azure Front Door', () => {
  it('resource log records: time with 7 fraction digits, URL host without its port, responseBytes as a whole response', () => {
    const e = event(marked(azureFrontDoor, AZ))
    expect([iso(e.time), e.resolutionMs, e.vhost, e.path, e.bytes, e.responseBytes, e.requestTime]).toEqual(['2021-12-15T03:10:11.647Z', 1, 'erp.testcloud.com', '/StockSetup/GetStockListByCir', 1205, true, 0.384])
    expect(e.upstream).toBeUndefined()
  })

  it('AzureDiagnostics rows (flattened _s / _d columns, TimeGenerated) read the same request', () => {
    const p = AZ['properties'] as Obj
    const row: Obj = {Category: 'FrontdoorAccessLog', TimeGenerated: AZ['time'], ResourceType: 'FRONTDOORS'}
    for (const [k, v] of Object.entries(p)) if (typeof v === 'string') row[`${k}_s`] = v
    row['httpStatusCode_d'] = 200
    delete row['httpStatusCode_s']
    row['responseBytes_d'] = 1205
    delete row['responseBytes_s']
    expect(jsonFormatOf(row)).toBe(azureFrontDoor)
    const a = event(azureFrontDoor.parse(AZ))
    const b = event(azureFrontDoor.parse(row))
    expect(b).toEqual(a)
  })

  it('a Standard/Premium record names the host and the referer; other categories are not claimed', () => {
    const std = {...AZ, category: 'FrontDoorAccessLog', properties: {...(AZ['properties'] as Obj), hostName: 'www.contoso.com', referer: 'https://www.contoso.com/'}}
    const e = event(azureFrontDoor.parse(std))
    expect([e.vhost, e.referer]).toEqual(['www.contoso.com', 'https://www.contoso.com/'])
    expect(azureFrontDoor.looksLike({...AZ, category: 'FrontdoorWebApplicationFirewallLog'})).toBe(false)
    expect(azureFrontDoor.looksLike({Category: 'ApplicationGatewayAccessLog', requestUri_s: '/', httpStatus_d: 200})).toBe(false)
  })
})

describe('Heroku router', () => {
  const [router, app] = lines('heroku/cra-buildpack-issue-98.log') as [string, string]

  it('bytes count the headers: the router logged 400 where the dyno\'s nginx logged a body of 232 for the same request', () => {
    const e = event(marked(herokuRouter, router))
    expect([e.bytes, e.responseBytes, e.userAgent, e.upstream]).toEqual([400, true, '', 'web.1'])
    expect(app).toContain('" 404 232 "')
  })

  it('a `heroku logs` line is no kubectl --timestamps line; other dynos\' lines are Heroku\'s, rejected', () => {
    expect(criRecord(router)).toBeUndefined()
    expect(textFormatOf(router)).toBe(herokuRouter)
    expect(lineFormat(router)).toBe('heroku-router')
    expect(reason(parseTextLine(app))).toBe('unparsed-message')
    // A real kubectl --timestamps line is still unwrapped.
    expect(criRecord('2026-11-30T07:18:26.070Z 10.0.0.1 - - [30/Nov/2026:07:18:26 +0000] "GET / HTTP/1.1" 200 5 "-" "curl"')).toBeDefined()
  })

  it('the logplex drain form, at=error lines, forwarded-for lists and microsecond times', () => {
    const drain = event(parseTextLine(lines('heroku/loki-logplex-drain.log')[0] as string))
    expect([iso(drain.time), drain.resolutionMs]).toEqual(['2022-06-13T14:52:23.622Z', 1])
    // The H12 example of Heroku Dev Center's router log format, its fwd made a list of two.
    const h12 = event(parseTextLine('2012-10-11T03:47:20+00:00 heroku[router]: at=error code=H12 desc="Request timeout" method=GET path=/ host=myapp.herokuapp.com fwd="10.0.0.9,204.204.204.204" dyno=web.1 connect= service=30000ms status=503 bytes=0'))
    expect([h12.status, h12.bytes, h12.clientIp, h12.resolutionMs, h12.requestTime]).toEqual([503, 0, '204.204.204.204', 1000, 30])
  })
})

describe('HAProxy httplog', () => {
  const DOC = lines('haproxy/haproxy-docs-httplog.log')[0] as string
  const body = DOC.slice(DOC.indexOf(']: ') + 3)

  it('bare (log stdout format raw), short (<PRI>) and syslog-prefixed lines read the same request', () => {
    const a = event(parseTextLine(DOC))
    expect(event(parseTextLine(body))).toEqual(a)
    expect(event(parseTextLine(`<134>${body}`))).toEqual(a)
    expect(textFormatOf(body)).toBe(haproxyLog)
    expect([a.upstream, a.upstreamName, a.bytes, a.requestTime]).toEqual(['srv1', 'static', 2750, 0.109])
  })

  it('bytes count the headers (%B); a + (logasap) is dropped; the accept date has no zone and is read as UTC', () => {
    const e = event(marked(haproxyLog, body.replace(' 2750 ', ' +2750 ')))
    expect([e.bytes, e.responseBytes, iso(e.time), e.resolutionMs]).toEqual([2750, true, '2009-02-06T12:14:14.655Z', 1])
  })

  it('rejects requests without a path, tcplog lines and HAProxy\'s own messages', () => {
    expect(reason(parseTextLine(body.replace('"GET /index.html HTTP/1.1"', '"<BADREQ>"')))).toBe('missing-path')
    expect(reason(parseTextLine(body.replace('"GET /index.html HTTP/1.1"', '""')))).toBe('missing-path')
    expect(reason(parseTextLine(lines('haproxy/beats-tcplog.log')[0] as string))).toBe('unparsed-message')
    expect(reason(haproxyLog.parse('Sep 20 15:42:59 1.128.3.4 haproxy[24551]: Connect from 1.128.3.4:40780 to 1.128.3.4:5000 (main/HTTP)'))).toBe('unparsed-message')
  })
})
