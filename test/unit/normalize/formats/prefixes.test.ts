/**
 * Log tools' prefixes (kubectl logs --prefix, docker compose / foreman / forego / honcho, fluentd
 * stdout) and Caddy's console encoder. Real lines come from fixtures/formats/prefixes and
 * fixtures/formats/caddy (origins in fixtures/formats/SOURCES.md); lines built here wrap a real
 * access line in a prefix as the tool's source writes it (kubectl logs.go, compose logconsumer.go,
 * fluentd formatter_stdout.rb), and say so.
 */
import fc from 'fast-check'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {AccessEvent} from '../../../../src/model/access-event'
import type {ParseOutcome} from '../../../../src/model/parse-outcome'
import {DEFAULT_NORMALIZE} from '../../../../src/normalize/fields'
import {textFormatOf} from '../../../../src/normalize/formats'
import {caddyConsole} from '../../../../src/normalize/formats/caddy'
import {barAt, serviceOfName, unwrapCompose, unwrapFluentd, unwrapKubectl, workloadOfPod} from '../../../../src/normalize/formats/prefixes'
import {lineFormat, normalizeLine} from '../../../../src/sources/file/records'
import {ROOT} from '../../../helpers/cli'
import {readWritten} from '../../../helpers/read-file'

const sample = (name: string): string[] => readFileSync(join(ROOT, 'fixtures', 'formats', name), 'utf8').replace(/\n$/, '').split('\n')
const KUBECTL = sample('prefixes/kubectl-ansible-for-kubernetes-75.log')
const FOREGO = sample('prefixes/forego-nginx-proxy-pr-1659.log')
const COMPOSE = sample('prefixes/compose-forego-acme-companion-553.log')
const CADDY = sample('caddy/caddy-pr-3454-console.log')[0] as string
/** The bare access line of the kubectl sample's first line (Filebeat-style combined with `"$http_x_forwarded_for"`). */
const NGINX = (KUBECTL[0] as string).replace(/^\[[^\]]*\] /, '')
/** The bare nginx-proxy `vhost` line with its `"$upstream_addr"` (nginx-proxy PR 1659). */
const VHOST = (FOREGO[2] as string).replace(/^nginx\.1 +\| /, '')
const ENVOY = '[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 204 - 154 0 226 100 "10.0.35.28" "nsq2http" "cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2" "locations" "tcp://10.0.2.1:80"'

const one = (line: string): ParseOutcome => {
  const outs = normalizeLine(line, DEFAULT_NORMALIZE, {})
  expect(outs).toHaveLength(1)
  return outs[0] as ParseOutcome
}
const event = (line: string): Partial<AccessEvent> => {
  const out = one(line)
  if (!out.ok) throw new Error(`${out.reason}: ${out.detail}`)
  return out.event
}

const dir = mkdtempSync(join(tmpdir(), 'skewscan-prefixes-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))
const read = (name: string, content: string) => readWritten(dir, name, content)

describe('names of the app', () => {
  it.each([
    ['echo-req-7cfd7bf68f-nk5kr', 'echo-req'], // a Deployment's pod: ReplicaSet hash and suffix
    ['y-844fbc9777-vhl79', 'y'],
    ['fluentd-x7k2p', 'fluentd'], // a DaemonSet's
    ['db-0', 'db'], // a StatefulSet's
    ['web-abcde', 'web-abcde'], // vowels: no generated suffix
    ['web-7d9f', 'web-7d9f'],
  ])('pod %s belongs to %s', (pod, workload) => expect(workloadOfPod(pod)).toBe(workload))

  it.each([['web-1', 'web'], ['nginx-proxy_1', 'nginx-proxy'], ['nginx.1', 'nginx'], ['nginx-proxy', 'nginx-proxy'], ['app_web_12', 'app_web']])('compose or Procfile name %s -> %s', (name, service) => {
    expect(serviceOfName(name)).toBe(service)
  })
})

describe('kubectl logs --prefix', () => {
  it('reads the access line after `[pod/NAME/CONTAINER] `, its app the pod\'s workload', () => {
    expect(event(KUBECTL[0] as string)).toMatchObject({clientIp: '172.17.0.1', path: '/test', status: 200, bytes: 7269, service: 'echo-req', time: Date.parse('2020-11-22T17:19:05Z')})
    expect(lineFormat(KUBECTL[0] as string)).toBe('kubectl/nginx')
  })

  it('with --timestamps, the runtime\'s time after the prefix: the access line\'s own time is kept', () => {
    const e = event(`[pod/echo-req-7cfd7bf68f-nk5kr/hello] 2026-11-30T07:18:26.070123456Z ${NGINX}`)
    expect(e.time).toBe(Date.parse('2020-11-22T17:19:05Z'))
    expect(e.service).toBe('echo-req')
  })

  it('a container\'s start-up notices are rejected as such, not taken for JSON', () => {
    expect(one('[pod/y-844fbc9777-vhl79/nginx] /docker-entrypoint.sh: Configuration complete; ready for start up')).toMatchObject({ok: false, reason: 'not-access-line'})
  })

  it('a file of it is a line file: 2 lines are 2 events (they were 8 invalid-json records)', async () => {
    const {events, rejections, format} = await read('kubectl.log', `${KUBECTL.join('\n')}\n`)
    expect(format).toBe('kubectl/nginx')
    expect(events.map((e) => e.path)).toEqual(['/test', '/anothertest'])
    expect(rejections).toEqual([])
  })

  it('a file whose first lines are notices is still read as lines', async () => {
    const {events, rejections} = await read('kubectl-notices.log', `${sample('prefixes/kubectl-kubernetes-124732.log').join('\n')}\n${KUBECTL.join('\n')}\n`)
    expect(events).toHaveLength(2)
    expect(rejections.map((r) => r.reason)).toEqual(['not-access-line', 'not-access-line', 'not-access-line'])
  })

  it('is only `[pod/…/…] `: other brackets are no kubectl prefix', () => {
    expect(unwrapKubectl('[deployment/web/nginx] x')).toBeUndefined()
    expect(unwrapKubectl('[pod/Web/nginx] x')).toBeUndefined() // pod names are lower case
    expect(unwrapKubectl(ENVOY)).toBeUndefined()
  })
})

describe('docker compose, foreman, forego, honcho', () => {
  it('forego inside nginx-proxy: the vhost is the app, the quoted $upstream_addr the pod', () => {
    expect(event(FOREGO[2] as string)).toMatchObject({vhost: 'test.local', clientIp: '172.17.0.1', upstream: '172.17.0.4:80', service: 'nginx'})
    expect(lineFormat(FOREGO[2] as string)).toBe('compose/nginx')
  })

  it('compose around forego: both prefixes stripped, the container names the app hint', () => {
    expect(event(COMPOSE[4] as string)).toMatchObject({vhost: 'test1.mywebsite.com', clientIp: '37.8.156.115', status: 301, service: 'nginx-proxy'})
    expect(one(COMPOSE[1] as string)).toMatchObject({ok: false, reason: 'unparsed-message'})
  })

  it('compose\'s colours (a terminal), --timestamps, and foreman/honcho\'s wall time are stripped', () => {
    // compose v2 logconsumer.go: colors(fmt.Sprintf("%-Ns | ", name)), an SGR code around the prefix.
    for (const line of [`\u001b[36mweb-1  | \u001b[0m${NGINX}`, `web-1  | 2026-11-30T07:18:26.070123456Z ${NGINX}`, `07:18:26 web.1  | ${NGINX}`, `\u001b[1;32mweb-1  | \u001b[0m${NGINX}`]) {
      expect(event(line)).toMatchObject({clientIp: '172.17.0.1', path: '/test', service: 'web', time: Date.parse('2020-11-22T17:19:05Z')})
    }
  })

  it('before this, the client was `|` and the app the container: now each user is their own', () => {
    const e = event(`web-1  | ${NGINX}`)
    expect(e.clientIp).toBe('172.17.0.1')
    expect(e.vhost).toBeUndefined()
  })

  it('a line that merely contains ` | ` is read as it is', () => {
    const line = NGINX.replace('Firefox/83.0"', 'Firefox/83.0 | x"')
    expect(unwrapCompose(line)).toBeUndefined()
    expect(event(line)).toMatchObject({clientIp: '172.17.0.1', userAgent: expect.stringContaining(' | x') as string})
    // An address before ` | ` is a custom format's separator, not a container name.
    expect(unwrapCompose(`10.0.0.1 | ${NGINX}`)).toBeUndefined()
  })

  it('an unknown prefix before an access line is rejected naming it, never read as a host or a client', () => {
    expect(one(`my web app | ${NGINX}`)).toEqual({ok: false, reason: 'unknown-format', detail: 'an unknown prefix "my web app |" before the line'})
    expect(one(`[web-1] ${NGINX}`)).toEqual({ok: false, reason: 'unknown-format', detail: 'an unknown prefix "[web-1]" before the line'})
    // Before what is no access line, a bracket stays what it was (an error log's date).
    expect(one('[Mon Dec 01 10:00:00 2026] [error] oops')).toMatchObject({ok: false, reason: 'not-access-line'})
  })

  it('nginx-proxy\'s quoted tail is an upstream only as addresses with ports after a $host prefix', () => {
    expect(event(VHOST).upstream).toBe('172.17.0.4:80')
    // The nginx image's `main` format: `"$http_x_forwarded_for"` in the same place.
    expect(event(VHOST.replace('"172.17.0.4:80"', '"203.0.113.9"')).upstream).toBeUndefined()
    expect(event(NGINX.replace(/"-"$/, '"10.0.0.5:80"')).upstream).toBeUndefined() // no $host prefix
    expect(event(VHOST.replace('"172.17.0.4:80"', '"172.17.0.4:80, 172.17.0.5:80"')).upstream).toBe('172.17.0.5:80')
  })
})

describe('fluentd stdout', () => {
  // formatter_stdout.rb: "#{time} #{tag}: #{record.to_json}", time `%Y-%m-%d %H:%M:%S.%N %z`; the
  // records are the Docker fluentd driver's (container_id, container_name, source, log) and in_tail's
  // of a json-file (log, stream, time), around the real access line above.
  const driver = `2019-01-02 03:55:42.000000000 +0000 docker.76d3304af17a: ${JSON.stringify({container_id: '76d3304af17a71ce363407f855d544bccab2c0e39142c4be1dc2ba4385304c34', container_name: '/web-1', source: 'stdout', log: NGINX})}`
  const tail = `2019-01-02 03:55:42 +0900 kubernetes.var.log.containers.web: ${JSON.stringify({log: `${NGINX}\n`, stream: 'stdout', time: '2019-01-02T03:55:42.1Z', kubernetes: {pod_name: 'web-7d9f8c6b5-nk5kr'}})}`

  it('reads the record\'s log line at its own time, the container or pod naming the app hint', () => {
    expect(event(driver)).toMatchObject({path: '/test', clientIp: '172.17.0.1', service: 'web', time: Date.parse('2020-11-22T17:19:05Z')})
    expect(event(tail)).toMatchObject({path: '/test', service: 'web'})
    expect(event(`2019-01-02 03:55:42.000000000 +0000 nginx.access: ${JSON.stringify({message: NGINX})}`).path).toBe('/test')
    expect(lineFormat(driver)).toBe('fluentd/nginx')
  })

  it('a record that is itself a JSON access record is read as one; other records are refused naming their keys', () => {
    const caddy = CADDY.slice(CADDY.indexOf('{'))
    expect(event(`2020-05-26 20:44:49.126000000 +0000 caddy: ${caddy.replace('{"request"', '{"ts": 1590525889.126, "logger": "http.log.access", "request"')}`).path).toBe('/')
    // fluentd's documented sample record (docs.fluentd.org, out_stdout).
    expect(one('2017-11-28 11:43:13.814351757 +0900 tag: {"field1":"value1","field2":"value2"}')).toMatchObject({ok: false, reason: 'unknown-format'})
    expect(unwrapFluentd('2017-11-28 11:43:13.814351757 +0900 tag: {"log"=>"x"}')).toEqual({rejected: expect.stringContaining('output_type json') as string})
  })

  it('is not taken for a W3C or CloudFront line, which also start with a date', () => {
    expect(unwrapFluentd('2018-01-01 08:09:10 127.0.0.1 GET / q=100 80 - 81.2.69.143 Mozilla/5.0 - 200 0 0 123')).toBeUndefined()
  })
})

describe('detection never mistakes', () => {
  it('a JSON array file for a prefixed line file', async () => {
    const record = JSON.stringify({log: `${NGINX}\n`, stream: 'stdout', time: '2026-11-30T07:18:26Z'})
    for (const [name, text] of [['pretty.json', `[\n${record}\n]\n`], ['one-line.json', `[${record},${record}]\n`]] as const) {
      const {events, format} = await read(name, text)
      expect([name, format]).toEqual([name, 'docker/nginx'])
      expect(events.map((e) => e.path)).toEqual(name === 'pretty.json' ? ['/test'] : ['/test', '/test'])
    }
  })

  it('an Envoy line (it starts with `[`) for a kubectl one', async () => {
    expect(textFormatOf(ENVOY).id).toBe('envoy')
    expect(event(ENVOY).upstream).toBe('10.0.2.1:80')
    const {format} = await read('envoy.log', `${ENVOY}\n`)
    expect(format).toBe('envoy')
  })

  it('a real nginx line (a $host prefix, no bar) for a compose one', () => {
    expect(unwrapCompose(VHOST)).toBeUndefined()
    expect(lineFormat(VHOST)).toBe('nginx')
  })
})

describe('Caddy console encoder', () => {
  it('reads the real `caddy file-server --access-log` line as its JSON record', () => {
    expect(textFormatOf(CADDY)).toBe(caddyConsole)
    expect(event(CADDY)).toMatchObject({time: Date.parse('2020-05-26T20:44:49.126Z'), resolutionMs: 1, status: 200, bytes: 15129, clientIp: '::1', vhost: 'localhost'})
  })

  it('the other time formats Caddy writes (encoders.go), a plain level, no colour', () => {
    const fields = CADDY.slice(CADDY.indexOf('\t'))
    const at = Date.parse('2020-05-26T20:44:49.126Z')
    for (const t of ['2020-05-26T20:44:49.126Z', '2020-05-26T21:44:49.126+0100', '2020-05-26T20:44:49.126Z', '1590525889.126']) expect(event(`${t}${fields}`).time).toBe(at)
    expect(event(`2020/05/26 20:44:49${fields}`)).toMatchObject({time: at - 126, resolutionMs: 1000})
    expect(event(CADDY.replace('\tINFO\t', '\tinfo\t')).status).toBe(200)
    expect(event(CADDY.replace('\tINFO\t', '\t\u001b[34mINFO\u001b[0m\t')).status).toBe(200)
  })

  it('non-access console lines are rejected naming the logger', () => {
    expect(one('2021/04/07 21:52:36.737\tINFO\ttls\tcleaned up storage units')).toEqual({ok: false, reason: 'unparsed-message', detail: 'not an access record (no JSON fields; logger "tls")'})
    expect(one('2021/04/07 21:52:36.731\tINFO\thttp\tenabling automatic HTTP->HTTPS redirects\t{"server_name": "srv0"}')).toMatchObject({ok: false, reason: 'unparsed-message'})
  })
})

describe('barAt: where the first " |" (or " | ") within the head of a line starts', () => {
  it('is what a slice of the head and a search of it say, for any text of bars, spaces and other characters, and any head length', () => {
    const line = fc.string({unit: fc.constantFrom(' ', '|', 'a', '1', '-', '\t', 'é'), maxLength: 60})
    fc.assert(fc.property(line, fc.integer({min: 0, max: 70}), fc.boolean(), (s, limit, spaced) => {
      expect(barAt(s, limit, spaced)).toBe(s.slice(0, limit).indexOf(spaced ? ' | ' : ' |'))
    }), {numRuns: 2000})
  })

  it('reads a compose prefix on a real access line, and no prefix where the first bar is too far in', () => {
    expect(barAt('web-1  | 10.0.0.1 - - [06/Dec/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 612', 293, false)).toBe(6)
    expect(barAt(`${'x'.repeat(300)} | y`, 293, false)).toBe(-1)
    expect(barAt(' | a', 200, true)).toBe(0)
  })
})
