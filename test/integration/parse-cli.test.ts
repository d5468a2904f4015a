/** `skewscan parse`: how a log was read, record by record, as a user runs it. */
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {ROOT, runCli} from '../helpers/cli'

const dir = mkdtempSync(join(tmpdir(), 'skewscan-parse-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

const lines = (out: string): Record<string, unknown>[] => out.trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>)
// fixtures/formats/traefik/filebeat-test.log: Filebeat's Traefik module test log (see SOURCES.md); line 2 is cut short.
const TRAEFIK = join(ROOT, 'fixtures', 'formats', 'traefik', 'filebeat-test.log')

describe('skewscan parse', () => {
  it('prints every record as read, one NDJSON line each, and every rejected line with its reason', () => {
    const r = runCli(['parse', TRAEFIK])
    expect(r.status).toBe(0)
    const [first, second] = lines(r.stdout)
    expect(first).toEqual({
      file: TRAEFIK, line: 1, time: '2017-10-02T20:22:07.000Z', app: 'Host-host-1', method: 'GET', path: '/ui/favicons/favicon-16x16.png',
      status: 304, bytes: 0, bytesCount: 'body', client: '192.168.33.1',
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/61.0.3163.100 Safari/537.36',
      referer: 'http://example.com/login', upstream: '172.19.0.3:5601', upstreamName: 'Host-host-1', requestId: null, vhost: null,
      session: null, requestTime: 0.002, upstreamTime: null, extra: null,
    })
    expect(second).toMatchObject({file: TRAEFIK, line: 2, rejected: 'unparsed-message', detail: expect.stringContaining('Traefik')})
    expect(r.stderr).toContain(`${TRAEFIK}: traefik-clf, 2 records, 1 read, 1 rejected`)
  })

  it('--rejected prints the rejected lines alone', () => {
    const r = runCli(['parse', TRAEFIK, '--rejected'])
    expect(lines(r.stdout).map((x) => [x.line, x.rejected])).toEqual([[2, 'unparsed-message']])
  })

  it('reads standard input, gzip and container wrappers, and says when a format counts headers in the bytes', () => {
    // AWS's own documentation example of an ALB line (fixtures/formats/aws, first line of alb-beats-example-alb-http.log).
    const alb = readFileSync(join(ROOT, 'fixtures', 'formats', 'aws', 'alb-beats-example-alb-http.log'), 'utf8').split('\n')[0] as string
    const cri = join(dir, 'alb.cri.log.gz')
    writeFileSync(cri, gzipSync(`2026-11-30T07:18:26.070123456Z stdout F ${alb}\n`))
    const fromFile = runCli(['parse', cri])
    expect(fromFile.status).toBe(0)
    expect(lines(fromFile.stdout)[0]).toMatchObject({line: 1, bytesCount: 'response', method: 'GET'})
    expect(fromFile.stderr).toContain('cri/aws-alb, 1 record, 1 read, 0 rejected')
    const fromStdin = runCli(['parse', '-'], {input: `${alb}\n`})
    expect(lines(fromStdin.stdout)[0]).toMatchObject({...lines(fromFile.stdout)[0], file: '-'})
    const table = runCli(['parse', '-', '--format', 'table'], {input: `${alb}\n`})
    expect(table.stdout).toMatch(/^\s*LINE\s+TIME\s+APP\s+METHOD\s+PATH\s+STATUS\s+BYTES/m)
    expect(table.stdout).toContain('* the format counts the response headers with the body')
  })

  it('--format table: a quick look with the rejected lines and their reasons, capped by --limit', () => {
    const r = runCli(['parse', TRAEFIK, '--format', 'table', '--limit', '1'])
    expect(r.status).toBe(0)
    expect(r.stdout).toContain('/ui/favicons/favicon-16x16.png')
    expect(r.stdout).not.toContain('unparsed-message')
    expect(r.stderr).toContain('1 more record not shown (--limit 1)')
    expect(runCli(['parse', TRAEFIK, '--format', 'table']).stdout).toContain('unparsed-message: not a Traefik tail')
  })

  it('log content never reaches the terminal raw: C1 controls and bidi overrides escaped in NDJSON, every control in the table', () => {
    const hostile = join(dir, 'hostile.log')
    writeFileSync(hostile, `203.0.113.7 - - [10/Oct/2023:13:55:36 +0000] "GET /a.js HTTP/1.1" 200 5 "-" "x\u009b2J\u202e\u001b]0;owned\u0007y"\n`)
    const ndjson = runCli(['parse', hostile])
    // eslint-disable-next-line no-control-regex
    expect(ndjson.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/)
    expect(lines(ndjson.stdout)[0]?.userAgent).toBe('x\u009b2J\u202e\u001b]0;owned\u0007y')
    const table = runCli(['parse', hostile, '--format', 'table', '--wide'])
    // eslint-disable-next-line no-control-regex
    expect(table.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/)
  })

  it('exits 2 for a file that cannot be read or is in no format, naming it', () => {
    const missing = runCli(['parse', join(dir, 'nope.log')])
    expect(missing.status).toBe(2)
    expect(missing.stderr).toContain('nope.log')
    const junk = join(dir, 'junk.json')
    writeFileSync(junk, '{"hello": "world"}\n{"a": 1}\n')
    const unknown = runCli(['parse', junk])
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toContain('junk.json: not in any format skewscan reads')
    expect(runCli(['parse']).status).toBe(2)
  })

  it('--log-format reads lines by the nginx log_format pasted from nginx.conf; a line it does not match is rejected with where', () => {
    // fixtures/formats/log-format/goaccess-827-request-time.*: the format and lines of allinurl/goaccess#827 (SOURCES.md).
    const base = join(ROOT, 'fixtures', 'formats', 'log-format', 'goaccess-827-request-time')
    const r = runCli(['parse', `${base}.log`, '--log-format', readFileSync(`${base}.conf`, 'utf8')])
    expect(r.status).toBe(0)
    const [first, second] = lines(r.stdout)
    expect(first).toMatchObject({line: 1, rejected: 'log-format-mismatch', detail: expect.stringContaining('--log-format: expected `]  "` after $time_local at column 45; found')})
    expect(second).toMatchObject({line: 2, time: '2017-06-29T05:00:13.000Z', method: 'GET', path: '/usa/video_files/f4cbb696-c030-4f81-b17d-9d6c00b42c31.mp4', status: 200, bytes: 99048,
      bytesCount: 'body', client: '84.201.133.54', requestTime: 0.57})
    expect(r.stderr).toContain('goaccess-827-request-time.log: nginx-log-format, 3 records, 2 read, 1 rejected')
    const bad = runCli(['parse', `${base}.log`, '--log-format', '$remote_addr $status'])
    expect(bad.status).toBe(2)
    expect(bad.stderr).toContain('--log-format: the format logs no a time')
  })

  it('--field maps the core fields of a JSON log no format reads; an unmapped one is described, with the flags that would read it', () => {
    const file = join(dir, 'app.ndjson')
    writeFileSync(file, `${JSON.stringify({level: 30, time: 1764487106070, req: {method: 'GET', url: '/_build/app.js', remoteAddress: '10.0.0.7'}, res: {statusCode: 200, 'content.length': 1832}})}\n`)
    const unread = runCli(['parse', file])
    expect(unread.status).toBe(2)
    expect(unread.stderr).toContain('It holds JSON objects; the first has the keys level, time, req, res.')
    expect(unread.stderr).toContain('--field path=req.url --field status=res.statusCode --field time=time --field bytes=res."content.length" --field method=req.method')
    const r = runCli(['parse', file, '--field', 'path=req.url', '--field', 'status=res.statusCode', '--field', 'time=time', '--field', 'bytes=res."content.length"',
      '--field', 'method=req.method', '--field', 'clientIp=req.remoteAddress'])
    expect(r.status).toBe(0)
    expect(lines(r.stdout)[0]).toMatchObject({time: '2025-11-30T07:18:26.070Z', method: 'GET', path: '/_build/app.js', status: 200, bytes: 1832, bytesCount: 'body', client: '10.0.0.7'})
    expect(r.stderr).toContain('app.ndjson: mapped-json, 1 record, 1 read, 0 rejected')
    expect(runCli(['parse', file, '--field', 'path=req.url']).stderr).toContain('needs path, status, time and bytes')
  })

  it('an unreadable text file: its first tokens and a log_format to start from; an error log is named as such', () => {
    const odd = join(dir, 'odd.log')
    writeFileSync(odd, 'web-1 10.0.0.1 "GET / HTTP/1.1" 200 1832 [30/Nov/2026:07:18:26 +0000]\n')
    const r = runCli(['parse', odd])
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('Its first line begins: web-1 10.0.0.1 "GET / HTTP/1.1" 200 1832 [30/Nov/2026:07:18:26 +0000]')
    expect(r.stderr).toContain(`a guess to start from (it reads this line): --log-format '$field1 $remote_addr "$request" $status $body_bytes_sent [$time_local]'`)
    const errors = join(dir, 'error.log')
    writeFileSync(errors, '2021/12/01 13:53:33 [error] 31#31: *46 open() "/usr/share/nginx/html/x" failed (2: No such file or directory)\n')
    const e = runCli(['parse', errors])
    expect(e.status).toBe(2)
    expect(e.stderr).toContain('That is an nginx error log line, no access log')
  })
})
