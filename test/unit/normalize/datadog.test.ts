import {normalizeDatadog, unwrapDatadog} from '../../../src/normalize/datadog'
import {DEFAULT_NORMALIZE} from '../../../src/normalize/fields'

const event = (item: Record<string, unknown>) => {
  const log = unwrapDatadog(item)
  if (!log) throw new Error('not a Datadog log')
  const r = normalizeDatadog(log, DEFAULT_NORMALIZE)
  if (!r.ok) throw new Error(r.reason)
  return r.event
}

describe('normalizeDatadog: which app and pod answered', () => {
  it('reads the ingress upstream from proxy.name and the pod from network.destination (Datadog\'s ingress-nginx pipeline)', () => {
    // The parsed attributes of DataDog/integrations-core nginx_ingress_controller/assets/logs/nginx-ingress-controller_tests.yaml.
    const e = event({id: 'x', attributes: {timestamp: '2018-12-07T18:31:33.000Z', service: 'ingress-nginx', message: '…', attributes: {
      http: {method: 'GET', status_code: 200, url: '/datadoghq/company?test=var1%20Pl', url_details: {path: '/datadoghq/company'}, request_id: 'abcdefg12345abcdef'},
      network: {bytes_read: 298.0, bytes_written: 261, client: {ip: '172.17.0.1'}, destination: {ip: '172.17.0.1', port: 9000.0}},
      proxy: {name: 'proxyname-8080'},
    }}})
    expect(e).toMatchObject({upstreamName: 'proxyname-8080', upstream: '172.17.0.1:9000', service: 'ingress-nginx', path: '/datadoghq/company'})
  })

  it('reads ingress-nginx\'s own attribute names (upstream_addr, proxy_upstream_name) and the virtual host from url_details', () => {
    // As in fixtures/captures/*/datadog-events.json (a conversion following the public docs).
    const e = event({id: 'y', type: 'log', attributes: {timestamp: '2026-11-30T07:18:26.070Z', host: 'ingress-nginx-controller-6c8d5f7b9d-qx4tz', service: 'ingress-nginx', message: '…', attributes: {
      http: {url: '/', method: 'GET', status_code: 200, url_details: {host: 'webapp.lab.test', path: '/'}},
      network: {client: {ip: '127.10.6.90'}, bytes_written: 3385},
      upstream_addr: '127.30.0.9:1, 127.30.0.10:46289', proxy_upstream_name: 'default-webapp-80',
    }}})
    expect(e).toMatchObject({upstreamName: 'default-webapp-80', upstream: '127.30.0.10:46289', vhost: 'webapp.lab.test', host: 'ingress-nginx-controller-6c8d5f7b9d-qx4tz'})
  })
})

describe('normalizeDatadog: a byte count not logged', () => {
  const http = {method: 'GET', status_code: 200, url: '/_build/app.js'}
  it('marks an event without network.bytes_written (bytes 0 for want of a value), and only that one', () => {
    expect(event({timestamp: '2026-11-30T07:18:26Z', message: 'x', attributes: {http}})).toMatchObject({bytes: 0, bytesNotLogged: true})
    expect(event({timestamp: '2026-11-30T07:18:26Z', message: 'x', attributes: {http, network: {bytes_written: 0}}})).not.toHaveProperty('bytesNotLogged')
    expect(event({timestamp: '2026-11-30T07:18:26Z', message: 'x', attributes: {http, network: {bytes_written: 261}}})).not.toHaveProperty('bytesNotLogged')
    // A raw access line in the message has its own count.
    const line = event({timestamp: '2026-11-30T07:18:26Z', message: '10.0.0.1 - - [30/Nov/2026:07:18:26 +0000] "HEAD /js/app.js HTTP/1.1" 200 0 "-" "curl/8"', attributes: {}})
    expect(line).toMatchObject({method: 'HEAD', bytes: 0})
    expect(line).not.toHaveProperty('bytesNotLogged')
  })
})

describe('normalizeDatadog: a malformed log is rejected, never thrown', () => {
  it('rejects a time, status or byte count nested thousands of levels deep, naming its kind (a property test found the stack overflow)', () => {
    const deep = JSON.parse(`${'['.repeat(6000)}${']'.repeat(6000)}`) as unknown
    const http = {url: '/a.js', status_code: 200}
    const cases: [Record<string, unknown>, string][] = [
      [{timestamp: deep, message: 'x', attributes: {http}}, 'bad-time'],
      [{timestamp: '2026-11-30T07:18:26Z', message: 'x', attributes: {http: {...http, status_code: deep}}}, 'bad-status'],
      [{timestamp: '2026-11-30T07:18:26Z', message: 'x', attributes: {http, network: {bytes_written: deep}}}, 'bad-bytes'],
    ]
    for (const [item, reason] of cases) {
      const log = unwrapDatadog(item)
      if (!log) throw new Error('not a Datadog log')
      expect(normalizeDatadog(log, DEFAULT_NORMALIZE)).toEqual({ok: false, reason, detail: 'an array'})
    }
  })
})
