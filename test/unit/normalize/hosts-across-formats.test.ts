/**
 * An app named by its virtual host is one app whichever proxy logged it: the same Host (with a port,
 * an IPv6 literal, an empty port) reads as the same vhost in every format that strips a port.
 */
import type {ParseOutcome} from '../../../src/model'
import {parseAccessLine} from '../../../src/normalize/access-line'
import {caddyJson} from '../../../src/normalize/formats/caddy'
import {gcpHttpLoadBalancer} from '../../../src/normalize/formats/gcp'
import {traefikJson} from '../../../src/normalize/formats/traefik'

const vhostOf = (r: ParseOutcome): string | undefined => (r.ok ? r.event.vhost : `rejected: ${r.reason}`)

const READERS: Record<string, (hostport: string) => ParseOutcome> = {
  'nginx access line (absolute-form target)': (h) => parseAccessLine(`203.0.113.7 - - [10/Oct/2023:13:55:36 +0000] "GET http://${h}/assets/app.js HTTP/1.1" 200 5120 "-" "curl/8.0"`),
  'Traefik JSON (RequestAddr)': (h) => traefikJson.parse({
    ClientAddr: '203.0.113.7:51234', DownstreamContentSize: 5120, DownstreamStatus: 200, RequestAddr: h, RequestMethod: 'GET', RequestPath: '/assets/app.js', StartUTC: '2023-10-10T11:55:36Z',
  }),
  'Caddy JSON (request.host)': (h) => caddyJson.parse({
    level: 'info', ts: 1646861401.5, logger: 'http.log.access', msg: 'handled request', size: 5120, status: 200,
    request: {remote_ip: '203.0.113.7', remote_port: '41342', proto: 'HTTP/1.1', method: 'GET', host: h, uri: '/assets/app.js', headers: {}},
  }),
  'Google Cloud load balancer (requestUrl)': (h) => gcpHttpLoadBalancer.parse({
    httpRequest: {requestMethod: 'GET', requestUrl: `https://${h}/assets/app.js`, status: 200, responseSize: '5120', remoteIp: '203.0.113.7'}, timestamp: '2023-10-10T11:55:36Z',
  }),
}

describe.each([
  ['app.example.com:8443', 'app.example.com'],
  ['[2001:db8::1]:8443', '2001:db8::1'],
  ['[2001:db8::1]', '2001:db8::1'],
])('Host %s', (hostport, vhost) => {
  it.each(Object.keys(READERS))('%s reads the vhost as the others do', (format) => {
    expect(vhostOf((READERS[format] as (h: string) => ParseOutcome)(hostport))).toBe(vhost)
  })
})
