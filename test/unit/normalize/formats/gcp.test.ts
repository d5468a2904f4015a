/**
 * Google Cloud HTTP(S) load balancer logs (Cloud Logging LogEntry with httpRequest): the format check
 * on the real samples of fixtures/formats/gcp (NDJSON `*.log`, or a JSON array `*.json`) and against
 * other formats, hand-written edge cases, hostile input, and the writer of
 * scripts/captures/formats/gcp.ts read back. Every record against its expected output is samples.test.ts's.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import type {ParseOutcome} from '../../../../src/model'
import {gcpHttpLoadBalancer} from '../../../../src/normalize/formats/gcp'
import {looksLikeNginxJson} from '../../../../src/normalize/nginx-json'
import type {CaptureRecord} from '../../../../scripts/captures/formats/capture-record'
import {gcpTraceId, toGcp} from '../../../../scripts/captures/formats/gcp'
import {checkOutcome, FIRST_REQUEST} from '../../../helpers/format-samples'

const FORMATS = join(__dirname, '..', '..', '..', '..', 'fixtures', 'formats')
const DIR = join(FORMATS, 'gcp')

const samples = readdirSync(DIR).filter((f) => (f.endsWith('.log') || f.endsWith('.json')) && !f.endsWith('.expected.json')).sort()

/** The records of a sample: parsed JSON values, or the text of a line that is not JSON. */
function recordsOf(file: string): Array<{value?: unknown; text: string}> {
  const text = readFileSync(join(DIR, file), 'utf8')
  if (file.endsWith('.json')) return (JSON.parse(text) as unknown[]).map((value) => ({value, text: JSON.stringify(value)}))
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines.map((l) => {
    try {
      return {value: JSON.parse(l) as unknown, text: l}
    } catch {
      return {text: l}
    }
  })
}

describe('gcpHttpLoadBalancer.looksLike on the real samples', () => {
  it.each(samples)('%s: exactly the entries with an httpRequest', (file) => {
    for (const r of recordsOf(file)) {
      if (!('value' in r) || typeof r.value !== 'object' || r.value === null) continue
      const v = r.value as Record<string, unknown>
      expect(gcpHttpLoadBalancer.looksLike(v)).toBe(typeof v['httpRequest'] === 'object')
    }
  })
})

describe('gcpHttpLoadBalancer.looksLike', () => {
  it('is false for nginx JSON, Datadog events, AWS lines and other Cloud Logging entries', () => {
    const nginx = JSON.parse(
      '{"time_iso8601":"2026-11-30T07:18:26.070+00:00","msec":1796023106.070,"remote_addr":"127.10.6.90","request_id":"3e6e","host":"webapp.lab.test","request_method":"GET","request_uri":"/","status":200,"body_bytes_sent":3385}',
    ) as Record<string, unknown>
    expect(looksLikeNginxJson(nginx)).toBe(true)
    expect(gcpHttpLoadBalancer.looksLike(nginx)).toBe(false)
    const datadog = {id: 'AQAAAYx', type: 'log', attributes: {timestamp: '2026-11-30T07:18:26.070Z', message: 'GET / 200', attributes: {http: {method: 'GET', url: '/', status_code: 200}}}}
    expect(gcpHttpLoadBalancer.looksLike(datadog)).toBe(false)
    expect(gcpHttpLoadBalancer.looksLike({protoPayload: {'@type': 'type.googleapis.com/google.cloud.audit.AuditLog'}, timestamp: '2026-01-01T00:00:00Z'})).toBe(false)
    expect(gcpHttpLoadBalancer.looksLike({httpRequest: 'GET /'})).toBe(false)
    expect(gcpHttpLoadBalancer.looksLike({httpRequest: null})).toBe(false)
    expect(gcpHttpLoadBalancer.looksLike({httpRequest: [{requestUrl: '/'}]})).toBe(false)
    expect(gcpHttpLoadBalancer.looksLike({httpRequest: {latency: '0.1s'}})).toBe(false)
    expect(gcpHttpLoadBalancer.looksLike({httpRequest: {requestMethod: 'GET'}})).toBe(true)
  })
})

describe('gcpHttpLoadBalancer.parse', () => {
  const entry = (req: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    insertId: 'x1',
    httpRequest: {requestMethod: 'GET', requestUrl: 'https://shop.example.com/app/main.js?v=1', status: 200, responseSize: '3702', remoteIp: '203.0.113.9', ...req},
    resource: {type: 'cloud_run_revision', labels: {service_name: 'web'}},
    timestamp: '2026-11-30T07:18:26.070123456Z',
    trace: 'projects/p/traces/abc123',
    ...extra,
  })
  const parse = (obj: unknown): ParseOutcome => gcpHttpLoadBalancer.parse(obj as Record<string, unknown>)

  it('reads a Cloud Run request log the same way (same httpRequest schema)', () => {
    expect(parse(entry({serverIp: '10.0.0.5:8080', userAgent: 'curl/8.0', referer: 'https://shop.example.com/'}))).toEqual({
      ok: true,
      event: {
        time: Date.parse('2026-11-30T07:18:26.070Z'),
        resolutionMs: 1,
        method: 'GET',
        path: '/app/main.js',
        status: 200,
        bytes: 3702,
        clientIp: '203.0.113.9',
        userAgent: 'curl/8.0',
        referer: 'https://shop.example.com/',
        upstream: '10.0.0.5:8080',
        requestId: 'abc123',
        vhost: 'shop.example.com',
      },
    })
  })

  it('strips the client port, keeps IPv6 addresses, and reads numbers as numbers or strings', () => {
    expect(parse(entry({remoteIp: '[2001:db8::7]:443'}))).toMatchObject({ok: true, event: {clientIp: '2001:db8::7'}})
    expect(parse(entry({remoteIp: '2001:db8::7'}))).toMatchObject({ok: true, event: {clientIp: '2001:db8::7'}})
    expect(parse(entry({remoteIp: '203.0.113.9:51234'}))).toMatchObject({ok: true, event: {clientIp: '203.0.113.9'}})
    expect(parse(entry({status: '404', responseSize: 120}))).toMatchObject({ok: true, event: {status: 404, bytes: 120}})
    expect(parse(entry({requestUrl: 'https://[2001:db8::1]:8443/x'}))).toMatchObject({ok: true, event: {vhost: '2001:db8::1', path: '/x'}})
    expect(parse(entry({requestUrl: '/relative?q=1'}))).toMatchObject({ok: true, event: {path: '/relative'}})
  })

  it('reads an absent responseSize as 0 (proto3 JSON omits zeros) and no trace as no requestId', () => {
    const noSize = entry({})
    delete (noSize['httpRequest'] as Record<string, unknown>)['responseSize']
    expect(parse(noSize)).toMatchObject({ok: true, event: {bytes: 0}})
    const noTrace = entry({})
    delete noTrace['trace']
    const r = parse(noTrace)
    expect(r.ok && r.event.requestId).toBe(undefined)
  })

  it('rejects with the reason of what is missing or wrong', () => {
    expect(parse({insertId: 'a', textPayload: 'x', timestamp: '2026-01-01T00:00:00Z'})).toMatchObject({ok: false, reason: 'unknown-format'})
    expect(parse(entry({}, {timestamp: undefined}))).toMatchObject({ok: false, reason: 'missing-time'})
    expect(parse(entry({}, {timestamp: 1796023106}))).toMatchObject({ok: false, reason: 'bad-time'})
    expect(parse(entry({}, {timestamp: '2026-11-30 07:18'}))).toMatchObject({ok: false, reason: 'bad-time'})
    expect(parse(entry({requestUrl: undefined}))).toMatchObject({ok: false, reason: 'missing-path'})
    expect(parse(entry({requestUrl: 'not a url'}))).toMatchObject({ok: false, reason: 'missing-path'})
    expect(parse(entry({status: undefined}))).toMatchObject({ok: false, reason: 'missing-status'})
    expect(parse(entry({status: 0}))).toMatchObject({ok: false, reason: 'bad-status'})
    expect(parse(entry({status: 2000}))).toMatchObject({ok: false, reason: 'bad-status'})
    expect(parse(entry({responseSize: '-1'}))).toMatchObject({ok: false, reason: 'bad-bytes'})
    expect(parse(entry({responseSize: '9'.repeat(40)}))).toMatchObject({ok: false, reason: 'bad-bytes'})
    expect(parse(null)).toMatchObject({ok: false, reason: 'not-an-object'})
    expect(parse([entry({})])).toMatchObject({ok: false, reason: 'not-an-object'})
  })

  it('never throws on hostile input and keeps its reasons short', () => {
    const long = 'x'.repeat(1_000_000)
    const inputs: unknown[] = [
      {},
      {httpRequest: {}},
      {httpRequest: {requestUrl: long}, timestamp: '2026-01-01T00:00:00Z'},
      entry({requestUrl: `https://h/${long}`}),
      entry({}, {timestamp: long}),
      entry({status: long}),
      entry({responseSize: long}),
      entry({remoteIp: {nested: true}, userAgent: 42, referer: ['x'], serverIp: null, requestMethod: 7}),
      entry({requestUrl: '\u0000\u0007\u001b[2J'}),
      entry({}, {trace: 'projects/p/traces/'}),
      Object.create(null) as Record<string, unknown>,
    ]
    for (const obj of inputs) {
      let r: ParseOutcome | undefined
      expect(() => (r = parse(obj))).not.toThrow()
      checkOutcome(r as ParseOutcome, long)
    }
    // Wrongly typed optional fields are left out, not carried over.
    expect(parse(inputs[7])).toMatchObject({ok: true, event: {clientIp: '', userAgent: '', method: ''}})
  })
})

describe('writer: toGcp reads back', () => {
  const base: CaptureRecord = FIRST_REQUEST
  const records: CaptureRecord[] = [
    base,
    {...base, msec: 1796023106.092, request_id: '311bc24311a0e86a42f6e4704ee9957a', request_uri: '/_build/vendor.3352fb10.js?v=2', bytes_sent: 38456, http_referer: 'http://webapp.lab.test/', upstream_addr: '127.30.0.9:1, 127.30.0.10:46289', server_protocol: 'HTTP/2.0'},
    {...base, msec: 1796023107.999, request_id: 'ab0c0ffee0c0ffee0c0ffee0c0ffee00', request_uri: '/_build/main.91ab.js', status: 404, bytes_sent: 325, http_user_agent: ''},
    {...base, status: 499, bytes_sent: 0, upstream_status: ''},
  ]

  it.each(records.map((r, i) => [i, r] as const))('record %i', (_i, r) => {
    const obj = JSON.parse(toGcp(r)) as Record<string, unknown>
    expect(toGcp(r)).not.toContain('\n')
    expect(gcpHttpLoadBalancer.looksLike(obj)).toBe(true)
    const out = gcpHttpLoadBalancer.parse(obj)
    if (r.status === 499) {
      expect(out).toMatchObject({ok: false, reason: 'missing-status'})
      return
    }
    if (!out.ok) throw new Error(`rejected (${out.reason}): ${out.detail ?? ''}`)
    const expected: Record<string, unknown> = {
      time: Math.round(r.msec * 1000),
      resolutionMs: 1,
      method: r.request_method,
      path: r.request_uri.split('?')[0],
      status: r.status,
      bytes: r.bytes_sent,
      clientIp: r.remote_addr,
      userAgent: r.http_user_agent,
      upstream: '127.30.0.10:46289',
      requestId: gcpTraceId(r),
      vhost: r.host,
    }
    if (r.http_referer !== '') expected['referer'] = r.http_referer
    expect(out.event).toEqual(expected)
  })
})
