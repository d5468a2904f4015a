import {datadogEvent, ingressLine, nginxEscape, timeLocal} from '../../../src/lab/access-log'
import type {AccessRecord} from '../../../src/lab/balancer'
import {parseAccessLine} from '../../../src/normalize/access-line'
import {normalizeDatadog, unwrapDatadog} from '../../../src/normalize/datadog'
import {DEFAULT_NORMALIZE} from '../../../src/normalize/fields'

const ctx = {service: 'web', host: 'skewscan-lab-ingress', env: 'lab', upstreamName: 'default-web-80'}
const rec: AccessRecord = {
  time: Date.parse('2026-11-30T10:00:05.123Z'), clientIp: '192.0.2.7', method: 'GET', uri: '/_build/app.1a2b3c4d.js?v=1', status: 200,
  bytes: 1914, referer: 'http://127.0.0.1:8080/products/3', userAgent: 'Mozilla/5.0 "quoted"', requestLength: 310, ms: 12,
  upstreams: [{address: '127.0.0.1:40001', status: 200, bytes: 1914, ms: 11}], requestId: '0123456789abcdef0123456789abcdef',
}

describe('the lab\'s access log', () => {
  it('writes Datadog v2 items that analyze reads back as the same request, with millisecond time', () => {
    const event = datadogEvent(rec, ctx)
    expect(event).toMatchObject({
      type: 'log',
      attributes: {
        timestamp: '2026-11-30T10:00:05.123Z', service: 'web', status: 'ok',
        attributes: {
          http: {url_details: {path: '/_build/app.1a2b3c4d.js', queryString: {v: '1'}}, status_code: 200},
          network: {client: {ip: '192.0.2.7'}, bytes_written: 1914, destination: {ip: '127.0.0.1', port: 40001}},
          date_access: Date.parse('2026-11-30T10:00:05.000Z'),
        },
      },
    })
    const log = unwrapDatadog(JSON.parse(JSON.stringify(event)) as Record<string, unknown>)
    const parsed = log && normalizeDatadog(log, DEFAULT_NORMALIZE)
    expect(parsed).toMatchObject({ok: true, event: {
      time: rec.time, path: '/_build/app.1a2b3c4d.js', status: 200, bytes: 1914, clientIp: '192.0.2.7', userAgent: 'Mozilla/5.0 "quoted"',
      referer: 'http://127.0.0.1:8080/products/3', upstream: '127.0.0.1:40001', requestId: rec.requestId, service: 'web',
    }})
  })

  it('writes ingress-nginx lines, retried upstreams as comma lists (the last one answered)', () => {
    const retried = {...rec, upstreams: [{address: '127.0.0.1:40002', status: 502, bytes: 0, ms: 0}, ...rec.upstreams]}
    const line = ingressLine(retried, ctx)
    expect(line).toBe('192.0.2.7 - - [30/Nov/2026:10:00:05 +0000] "GET /_build/app.1a2b3c4d.js?v=1 HTTP/1.1" 200 1914 ' +
      '"http://127.0.0.1:8080/products/3" "Mozilla/5.0 \\x22quoted\\x22" 310 0.012 [default-web-80] [] ' +
      '127.0.0.1:40002, 127.0.0.1:40001 0, 1914 0.000, 0.011 502, 200 0123456789abcdef0123456789abcdef')
    expect(parseAccessLine(line)).toMatchObject({ok: true, event: {status: 200, bytes: 1914, upstream: '127.0.0.1:40001', userAgent: 'Mozilla/5.0 "quoted"'}})
    // The Datadog pipeline keeps the first upstream; analyze reads the answering one from the message.
    const log = unwrapDatadog(JSON.parse(JSON.stringify(datadogEvent(retried, ctx))) as Record<string, unknown>)
    expect(log && normalizeDatadog(log, DEFAULT_NORMALIZE)).toMatchObject({ok: true, event: {upstream: '127.0.0.1:40001'}})
  })

  it('writes placeholders when no pod answered, and escapes like nginx', () => {
    const line = ingressLine({...rec, status: 503, upstreams: [], referer: undefined, userAgent: undefined}, ctx)
    expect(line).toContain('" 503 1914 "-" "-" 310 0.012 [default-web-80] [] - - - - 0123')
    expect(nginxEscape('a\u001b[31m\\ é')).toBe('a\\x1B[31m\\x5C \\xC3\\xA9')
    expect(timeLocal(Date.parse('2026-01-02T03:04:05.999Z'))).toBe('02/Jan/2026:03:04:05 +0000')
  })
})
