/**
 * Elastic documents (ECS fields, nested, dotted or mixed; Elasticsearch hits) and Filebeat's
 * envelope around a raw line: which fields are read, which source wins, what the byte count
 * means, and that the reader claims no other format's objects. The real samples are in
 * fixtures/formats/elastic (read by test/integration/format-samples.test.ts).
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import type {ParseOutcome} from '../../../../src/model'
import {unwrapDatadog} from '../../../../src/normalize/datadog'
import {DEFAULT_NORMALIZE} from '../../../../src/normalize/fields'
import {unwrapDocker} from '../../../../src/normalize/formats/container'
import {ecsValue, looksLikeElastic} from '../../../../src/normalize/formats/elastic'
import {elasticJson, JSON_FORMATS, parseJsonRecord} from '../../../../src/normalize/formats'
import {normalizeLine} from '../../../../src/sources/file/records'

type Obj = Record<string, unknown>

const FORMATS = join(__dirname, '..', '..', '..', '..', 'fixtures', 'formats')

function event(obj: Obj): Obj {
  const r = parseJsonRecord(obj)
  if (r === undefined) throw new Error('no format claims the record')
  if (!r.ok) throw new Error(`rejected (${r.reason}): ${r.detail ?? ''}`)
  return {...r.event, time: new Date(r.event.time).toISOString()}
}

function rejected(obj: Obj): string {
  const r = parseJsonRecord(obj) as ParseOutcome
  if (r.ok) throw new Error(`read: ${JSON.stringify(r.event)}`)
  expect((r.detail ?? '').length).toBeLessThanOrEqual(120)
  return r.reason
}

/** A nested ECS access document (the shape of Elastic's nginx pipelines' output). */
const NESTED: Obj = {
  '@timestamp': '2024-05-02T10:00:01.000Z',
  http: {request: {method: 'GET', referrer: 'https://app.example.com/'}, response: {status_code: 200, body: {bytes: 1024}}},
  url: {original: '/assets/app-1a2b.js?v=3', domain: 'app.example.com'},
  source: {ip: '203.0.113.7'},
  user_agent: {original: 'Mozilla/5.0'},
  host: {name: 'filebeat-node-1'},
}

describe('ECS documents', () => {
  it('reads the request from nested fields', () => {
    expect(event(NESTED)).toStrictEqual({
      time: '2024-05-02T10:00:01.000Z', resolutionMs: 1000, method: 'GET', path: '/assets/app-1a2b.js', status: 200, bytes: 1024,
      clientIp: '203.0.113.7', userAgent: 'Mozilla/5.0', referer: 'https://app.example.com/', vhost: 'app.example.com', host: 'filebeat-node-1',
    })
  })

  it('reads the same from dotted keys, and from keys dotted at one level and nested below', () => {
    const dotted: Obj = {
      '@timestamp': '2024-05-02T10:00:01.000Z', 'http.request.method': 'GET', 'http.request.referrer': 'https://app.example.com/',
      'http.response.status_code': 200, 'http.response.body.bytes': 1024, 'url.original': '/assets/app-1a2b.js?v=3', 'url.domain': 'app.example.com',
      'source.ip': '203.0.113.7', 'user_agent.original': 'Mozilla/5.0', 'host.name': 'filebeat-node-1',
    }
    expect(event(dotted)).toStrictEqual(event(NESTED))
    const mixed: Obj = {...NESTED, http: undefined, 'http.response': {status_code: 200, body: {bytes: 1024}}, 'http.request': {method: 'GET', referrer: 'https://app.example.com/'}}
    expect(event(mixed)).toStrictEqual(event(NESTED))
  })

  it('url.path wins over url.original; the method is upper-cased only when a pipeline lower-cased it', () => {
    expect(event({...NESTED, url: {original: '/a?x', path: '/b'}}).path).toBe('/b')
    expect(event({...NESTED, http: {request: {method: 'get'}, response: {status_code: 200, body: {bytes: 1}}}}).method).toBe('GET')
    expect(event({...NESTED, http: {request: {method: 'PATCHp'}, response: {status_code: 400, body: {bytes: 1}}}}).method).toBe('PATCHp')
  })

  it('the vhost is url.domain or destination.domain, never host.name (the shipper)', () => {
    const noDomain = {...NESTED, url: {original: '/x'}}
    expect(event(noDomain).vhost).toBeUndefined()
    expect(event(noDomain).host).toBe('filebeat-node-1')
    expect(event({...noDomain, destination: {domain: 'example.com', ip: '1.2.3.4'}})).toMatchObject({vhost: 'example.com'})
    // destination.ip is nginx's own address in Elastic's nginx pipelines, not the pod that answered.
    expect(event({...noDomain, destination: {ip: '1.2.3.4', port: 80}}).upstream).toBeUndefined()
  })

  it('takes the client from source.ip, then client.ip, then source.address as logged', () => {
    expect(event({...NESTED, source: undefined, client: {ip: '198.51.100.1'}}).clientIp).toBe('198.51.100.1')
    expect(event({...NESTED, source: {address: 'localhost'}}).clientIp).toBe('localhost')
    expect(event({...NESTED, source: undefined}).clientIp).toBe('')
  })

  it('reads the pod and the app from Elastic\'s ingress-nginx fields, the answering pod after a retry', () => {
    const ingress = {...NESTED, nginx_ingress_controller: {access: {
      upstream: {ip: '10.0.0.1', port: 8080, name: 'default-web-8080', response: {status_code_list: ['502', '200']}},
      upstream_address_list: ['10.0.0.1:8080', '10.0.0.2:8080'],
    }}}
    expect(event(ingress)).toMatchObject({upstream: '10.0.0.2:8080', upstreamName: 'default-web-8080'})
    const single = {...NESTED, nginx_ingress_controller: {access: {upstream: {ip: '10.0.0.1', port: 8080, name: 'default-web-8080'}}}}
    expect(event(single)).toMatchObject({upstream: '10.0.0.1:8080', upstreamName: 'default-web-8080'})
  })
})

describe('ECS byte counts: a body length, or a response length marked as one', () => {
  it('http.response.body.bytes is the body: no mark', () => {
    expect(event(NESTED).responseBytes).toBeUndefined()
  })

  it('http.response.bytes alone (headers included) is marked responseBytes', () => {
    const doc = {...NESTED, http: {request: {method: 'GET'}, response: {status_code: 200, bytes: 1320}}}
    expect(event(doc)).toMatchObject({bytes: 1320, responseBytes: true})
  })

  it('when both are logged the body wins, unmarked', () => {
    const doc = {...NESTED, http: {request: {method: 'GET'}, response: {status_code: 200, bytes: 1320, body: {bytes: 1024}}}}
    const e = event(doc)
    expect(e.bytes).toBe(1024)
    expect(e.responseBytes).toBeUndefined()
  })

  it('no length at all is missing-bytes; a non-number is bad-bytes', () => {
    expect(rejected({...NESTED, http: {request: {method: 'GET'}, response: {status_code: 200}}})).toBe('missing-bytes')
    expect(rejected({...NESTED, http: {request: {method: 'GET'}, response: {status_code: 200, body: {bytes: 'lots'}}}})).toBe('bad-bytes')
  })
})

describe('which source wins: ECS fields over the raw line', () => {
  const LINE = '10.0.0.9 - - [02/May/2024:10:00:09 +0000] "GET /from-the-line HTTP/1.1" 404 12 "-" "curl/8"'

  it('a document whose ECS fields read is taken from them, whatever its message or event.original says', () => {
    expect(event({...NESTED, message: LINE}).path).toBe('/assets/app-1a2b.js')
    expect(event({...NESTED, event: {original: LINE}}).path).toBe('/assets/app-1a2b.js')
  })

  it('when its ECS fields do not make a request, its raw line is read instead', () => {
    const noUrl = {...NESTED, url: undefined, message: LINE}
    expect(event(noUrl)).toMatchObject({path: '/from-the-line', status: 404, bytes: 12, time: '2024-05-02T10:00:09.000Z', host: 'filebeat-node-1'})
    expect(event({...NESTED, url: undefined, event: {original: LINE}}).path).toBe('/from-the-line')
  })

  it('when neither reads, the ECS reason is given', () => {
    expect(rejected({...NESTED, url: undefined, message: 'not an access line'})).toBe('missing-path')
  })
})

describe('Filebeat envelopes', () => {
  const ENVELOPE: Obj = {
    '@timestamp': '2026-11-30T07:18:30.000Z',
    message: '127.0.0.1 - - [30/Nov/2026:07:18:26 +0000] "GET /_build/A_1.js HTTP/1.1" 200 4321 "http://app.test/" "Mozilla/5.0"\n',
    log: {offset: 0, file: {path: '/var/log/containers/web-7d9f_default_nginx-0123.log'}},
    input: {type: 'container'},
    kubernetes: {pod: {name: 'web-7d9f'}, container: {name: 'nginx'}, namespace: 'default'},
  }

  it('reads the message as a text line, with its own time (@timestamp is when Filebeat read it)', () => {
    expect(event(ENVELOPE)).toStrictEqual({
      time: '2026-11-30T07:18:26.000Z', resolutionMs: 1000, method: 'GET', path: '/_build/A_1.js', status: 200, bytes: 4321,
      clientIp: '127.0.0.1', userAgent: 'Mozilla/5.0', referer: 'http://app.test/', host: 'web-7d9f', service: 'nginx',
    })
  })

  it('takes the pod as the host and the container as the service, not as the upstream or the app', () => {
    const e = event(ENVELOPE)
    expect(e.upstream).toBeUndefined()
    expect(e.upstreamName).toBeUndefined()
    expect(event({...ENVELOPE, kubernetes: undefined, container: {name: 'web'}, host: {name: 'node-3'}})).toMatchObject({host: 'node-3', service: 'web'})
  })

  it('keeps what the line itself names (an ingress line\'s upstream), and marks a header-counting format\'s bytes', () => {
    const ingress = '192.168.64.1 - - [07/Feb/2020:11:48:51 +0000] "POST /products HTTP/1.1" 200 59 "-" "curl/7.54.0" 89 0.001 [default-web-8080] [] 172.17.0.5:8080 59 0.000 200 529a007902362a5f51385a5fa7049884'
    expect(event({...ENVELOPE, message: ingress})).toMatchObject({upstream: '172.17.0.5:8080', upstreamName: 'default-web-8080', host: 'web-7d9f'})
    const alb = 'http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.46.0" - - arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337262-36d228ad5d99923122bbe354" "-" "-" 0 2018-07-02T22:22:48.364000Z "forward" "-" "-" "10.0.0.1:80" "200" "-" "-"'
    expect(event({...ENVELOPE, message: alb})).toMatchObject({bytes: 366, responseBytes: true})
  })

  it('reads a JSON message with the JSON formats (an nginx escape=json line)', () => {
    const json = '{"time_iso8601":"2026-11-30T07:18:26+00:00","request":"GET /a.js HTTP/1.1","status":200,"body_bytes_sent":10,"remote_addr":"10.1.1.1"}'
    expect(event({...ENVELOPE, message: json})).toMatchObject({path: '/a.js', clientIp: '10.1.1.1', host: 'web-7d9f'})
  })

  it('a message that is no access line is unparsed-message, an envelope inside an envelope too', () => {
    expect(rejected({...ENVELOPE, message: 'I1025 09:02:49.767070       6 server.go:61] handling admission controller request'})).toBe('unparsed-message')
    expect(rejected({...ENVELOPE, message: JSON.stringify(ENVELOPE)})).toBe('unparsed-message')
    expect(rejected({...ENVELOPE, message: '   '})).toBe('unparsed-message')
  })
})

describe('Elasticsearch hits and search responses', () => {
  it('reads a hit\'s _source, its _id as the event id', () => {
    const hit = {_index: 'logs-nginx.access-default', _id: 'AbC123', _score: 1, _source: NESTED}
    expect(event(hit)).toStrictEqual({...event(NESTED), id: 'AbC123'})
  })

  it('reads a hit\'s fields (one-element arrays) when it has no _source', () => {
    const fields: Obj = {}
    for (const [k, v] of Object.entries({'@timestamp': '2024-05-02T10:00:01.000Z', 'url.original': '/x.js', 'http.response.status_code': 200, 'http.response.body.bytes': 5})) fields[k] = [v]
    expect(event({_index: 'i', _id: 'q', fields})).toMatchObject({path: '/x.js', status: 200, bytes: 5, id: 'q'})
  })

  it('reads the hits of a saved search response, one record each', () => {
    const response = {took: 3, timed_out: false, hits: {total: {value: 2}, hits: [{_index: 'i', _id: '1', _source: NESTED}, {_index: 'i', _id: '2', _source: {...NESTED, url: {original: '/two'}}}]}}
    const out = normalizeLine(JSON.stringify(response), DEFAULT_NORMALIZE, {})
    expect(out.map((o) => (o.ok ? [o.event.path, o.event.id] : o.reason))).toEqual([['/assets/app-1a2b.js', '1'], ['/two', '2']])
  })

  it('ecsValue: the longest dotted key first, nested below it', () => {
    expect(ecsValue({'a.b': {c: 1}, a: {b: {c: 2}}}, 'a.b.c')).toBe(1)
    expect(ecsValue({a: {'b.c': 3}}, 'a.b.c')).toBe(3)
    expect(ecsValue({a: [1, 2]}, 'a')).toEqual([1, 2])
    expect(ecsValue({a: 'x'}, 'a.b')).toBeUndefined()
  })
})

describe('detection claims no other format\'s records', () => {
  const samples = readdirSync(FORMATS, {withFileTypes: true}).filter((d) => d.isDirectory() && d.name !== 'elastic')
    .flatMap((d) => readdirSync(join(FORMATS, d.name)).filter((f) => /\.(ndjson|jsonl|json|log)$/.test(f) && !f.endsWith('.expected.json')).map((f) => join(FORMATS, d.name, f)))
  const objects = samples.flatMap((f) => readFileSync(f, 'utf8').split('\n')).filter((l) => l.startsWith('{'))
    .flatMap((l) => { try { return [JSON.parse(l) as Obj] } catch { return [] } })

  it('has JSON records of the other formats to try', () => {
    expect(objects.length).toBeGreaterThan(50)
  })

  it('no record of another format\'s samples looks like an Elastic one, except the Filebeat envelopes among them', () => {
    const others = JSON_FORMATS.filter((f) => f !== elasticJson)
    const claimed = objects.filter((o) => looksLikeElastic(o))
    for (const o of claimed) {
      expect(others.filter((f) => f.looksLike(o)).map((f) => f.id)).toEqual([])
      expect(unwrapDatadog(o) ?? unwrapDocker(o)).toBeUndefined()
    }
    // integrations-envoyproxy.log's two `{"message":…,"kubernetes":…}` envelopes, and nothing else.
    expect(claimed.map((o) => Object.keys(o).sort().join(','))).toEqual(['kubernetes,message,stream,time', 'kubernetes,message,stream,time'])
    expect(objects.filter((o) => others.some((f) => f.looksLike(o))).length).toBeGreaterThan(20)
  })

  it('a Datadog log (timestamp + message) and a Docker json-file record are read by their own readers first', () => {
    const dd = {timestamp: '2026-11-30T07:18:26Z', message: '127.0.0.1 - - [30/Nov/2026:07:18:26 +0000] "GET / HTTP/1.1" 200 1 "-" "x"', host: 'h', service: 's'}
    expect(unwrapDatadog(dd)).toBeDefined()
    const docker = {log: '127.0.0.1 - - [30/Nov/2026:07:18:26 +0000] "GET / HTTP/1.1" 200 1 "-" "x"\n', stream: 'stdout', time: '2026-11-30T07:18:26.070Z'}
    expect(unwrapDocker(docker)).toBeDefined()
    const [out] = normalizeLine(JSON.stringify(docker), DEFAULT_NORMALIZE, {})
    expect(out?.ok && out.event.host).toBeFalsy()
  })

  it('an object with a message but none of Filebeat\'s keys is not an envelope', () => {
    expect(looksLikeElastic({message: 'hello', level: 'info'})).toBe(false)
    expect(looksLikeElastic({msg: 'x', '@timestamp': '2026-11-30T07:18:26Z'})).toBe(false)
    expect(looksLikeElastic({'@timestamp': '2026-11-30T07:18:26Z', message: 'x'})).toBe(true)
  })
})
