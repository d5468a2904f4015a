import {spawnSync} from 'node:child_process'
import {closeSync, mkdtempSync, openSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {gzipSync} from 'node:zlib'
import {join} from 'node:path'
import {type CliResult, cliEnv, ROOT, runCli} from '../helpers/cli'
import {tempDir} from '../helpers/temp'
import {schemaValidator} from '../helpers/schema'

const dir = tempDir('skewscan-cli-')
const B = '10.1.1.1:8080'
const line = (ts: string, ip: string, ua: string, path: string, bytes: number, status = 200, up = '10.1.0.1:8080') =>
  `${ip} - - [29/Nov/2026:${ts} +0000] "GET ${path} HTTP/1.1" ${status} ${bytes} "https://shop.example.com/" "${ua}" 82 0.013 [default-web-80] [] ${up} ${bytes} 0.013 ${status} 0123456789abcdef0123456789abcdef`

// Real browser user agents (a short "Mozilla/5.0 A" is a bot to isbot). Build A (shell 1832, pod
// 10.1.0.1) until 14:01, build B (1851, pod 10.1.1.1) from 14:01; two page loads of each build get
// their own bundle, one page of A gets B's shell back, a scanner-like client with no page asks for a
// known bundle (an orphan) and zgrab is a crawler, never a user.
const firefox = (v: number) => `Mozilla/5.0 (X11; Linux x86_64; rv:${v}.0) Gecko/20100101 Firefox/${v}.0`
const red = `${firefox(123)} \\x1B[31mred\\x07`
const log = [
  line('14:00:00', '10.0.0.1', firefox(120), '/', 1832),
  line('14:00:00', '10.0.0.1', firefox(120), '/_build/app.aaaa.js', 50000),
  line('14:00:10', '10.0.0.4', firefox(121), '/', 1832),
  line('14:00:10', '10.0.0.4', firefox(121), '/_build/app.aaaa.js', 50000),
  line('14:01:00', '10.0.0.2', firefox(122), '/', 1851, 200, B),
  line('14:01:00', '10.0.0.3', red, '/', 1832),
  line('14:01:00', '10.0.0.3', red, '/_build/app.aaaa.js', 1851, 200, B),
  line('14:01:30', '10.0.0.9', 'zgrab/0.x', '/js/app.js', 1851, 200, B),
  line('14:01:40', '10.0.0.8', firefox(125), '/_build/app.bbbb.js', 1832),
  line('14:02:00', '10.0.0.2', firefox(122), '/_build/app.bbbb.js', 51000, 200, B),
  line('14:02:10', '10.0.0.5', firefox(124), '/', 1851, 200, B),
  line('14:02:10', '10.0.0.5', firefox(124), '/_build/app.bbbb.js', 51000, 200, B),
].join('\n')
const logFile = join(dir, 'access.log')
writeFileSync(logFile, `${log}\n`)
const quietFile = join(dir, 'quiet.log')
writeFileSync(quietFile, `${log.split('\n').slice(0, 4).join('\n')}\n`)

/**
 * `analyze access.log` and `analyze access.log --json`, each run once for the file: several tests
 * check different things of the same run (the CLI's output depends only on its arguments and input).
 */
const runs = new Map<string, CliResult>()
function runOnce(args: string[]): CliResult {
  const key = JSON.stringify(args)
  let r = runs.get(key)
  if (r === undefined) runs.set(key, (r = runCli(args)))
  return r
}
/** The totals of `analyze access.log --json`: what the same records read any other way must give. */
const once = (): Record<string, unknown> => (JSON.parse(runOnce(['analyze', logFile, '--json']).stdout) as {totals: Record<string, unknown>}).totals

describe('skewscan analyze, run as a user would', () => {
  it('prints the answer and the tables, exit 0', () => {
    const r = runOnce(['analyze', logFile])
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/^1 user hit failed assets: 1 page load of 5 crashed; .* in deploy D1 \(B1 → B2\)/)
    expect(r.stdout).toContain('Incidents')
    expect(r.stdout).toMatch(/I1 +rollout +D1 /)
    expect(r.stdout).toMatch(/Not people, never counted as users: crawlers 1 request from 1 client/)
  })

  it('writes singular counts in the singular, in every human format', () => {
    const singular = /(?<![\d.,])1 (records|sources|deploys|users|requests|clients|page loads|incidents|builds|pods|events|failed requests)\b/
    for (const format of ['table', 'markdown', 'html']) {
      const r = runCli(['analyze', logFile, '--format', format])
      expect(r.status).toBe(0)
      expect([format, singular.exec(r.stdout.replace(/<[^>]*>/g, ''))?.[0]]).toEqual([format, undefined])
    }
  })

  it('never lets control characters from the logs reach the terminal', () => {
    const r = runOnce(['analyze', logFile])
    // eslint-disable-next-line no-control-regex
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/)
    expect(r.stdout).toContain('\\u001b[31mred\\u0007')
  })

  it('--json prints the report, valid against schemas/analyze.schema.json, and nothing else', () => {
    const r = runOnce(['analyze', logFile, '--json'])
    expect(r.status).toBe(0)
    const report = JSON.parse(r.stdout)
    const validate = schemaValidator('analyze')
    expect(validate.errors ?? validate(report)).toBe(true)
    expect(report).toMatchObject({schemaVersion: 3, totals: {affectedUsers: 1, brokenPageLoads: 1, pageLoads: 5, byCause: {rollout: 1}}, orphans: {requests: 1, clients: 1}, nonUser: {crawlers: {requests: 1, clients: 1}}})
  })

  it('--fail-on skipped counts skipped traffic, not lines that were no request (error log, controller notices), which the input summary counts apart', () => {
    const mixed = join(dir, 'mixed.log')
    writeFileSync(mixed, [...log.split('\n').slice(0, 4), '2021/12/01 13:53:33 [error] 31#31: *46 open() "/usr/share/nginx/html/x" failed',
      'I1130 07:18:26.070123       7 controller.go:190] "Configuration changes detected, backend reload required"', ''].join('\n'))
    const r = runCli(['analyze', mixed, '--fail-on', 'skipped>0', '--json'])
    expect(r.status).toBe(0)
    const report = JSON.parse(r.stdout) as {input: {skipped: {total: number; notAccess: number; byReason: Record<string, number>}}}
    expect(report.input.skipped).toMatchObject({total: 2, notAccess: 2, byReason: {'not-access-line': 2}})
    const table = runCli(['analyze', mixed])
    expect(table.stdout).toContain('2 skipped (2 of them no request: error log lines, notices)')
    expect(table.stdout).toMatch(/not traffic, not-access-line: 2 \(first at .*mixed\.log:5, .*mixed\.log:6\)/)
    writeFileSync(mixed, `${log.split('\n').slice(0, 4).join('\n')}\n10.0.0.9 - - [bad time] "GET / HTTP/1.1" 200 1 "-" "x"\n`)
    expect(runCli(['analyze', mixed, '--fail-on', 'skipped>0']).status).toBe(1)
  })

  it('--fail-on incident exits 1 when there are incidents and 0 when there are none', () => {
    expect(runCli(['analyze', logFile, '--fail-on', 'incident']).status).toBe(1)
    expect(runCli(['analyze', quietFile, '--fail-on', 'incident']).status).toBe(0)
  })

  it('reads standard input with -', () => {
    const r = runCli(['analyze', '-', '--json'], {input: `${log}\n`})
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout).input).toMatchObject({records: 12, used: 12, sources: [{file: '-'}]})
  })

  it('--failures writes every flagged request as NDJSON', () => {
    const out = join(dir, 'failures.ndjson')
    expect(runCli(['analyze', logFile, '--failures', out]).status).toBe(0)
    const rows = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    expect(rows).toEqual([expect.objectContaining({
      reason: 'fallback', cause: 'rollout', deployId: 'D1', direction: 'oldPageNewPod', asset: 'script', servingBuild: 'B2', path: '/_build/app.aaaa.js', requestId: '0123456789abcdef0123456789abcdef',
      incidentId: 'I1', pageLoad: expect.objectContaining({build: 'B1', path: '/'}), source: {file: logFile, line: 7},
    })])
  })

  it('exits 2 naming a file that does not exist', () => {
    const r = runCli(['analyze', join(dir, 'nope.log')])
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/nope\.log: cannot read \(no such file\)/)
  })

  it('--rum FILE before the logs takes that one file (the log after it is still a log): the crash the log saw, confirmed, with its account', () => {
    // The browser of 10.0.0.3, whose page of build A got B's shell for its bundle at 14:01:00.
    const item = (id: string, type: string, extra: Record<string, unknown>): Record<string, unknown> => ({id, type: 'rum', attributes: {timestamp: '2026-11-29T14:01:00.100Z', service: 'web', attributes: {
      type, session: {id: 's1'}, view: {id: 'v1', url: 'https://shop.example.com/', loading_type: 'initial_load'}, usr: {id: 'acct-1'}, version: 'v1', network: {client: {ip: '10.0.0.3'}}, ...extra,
    }}})
    const rumFile = join(dir, 'rum.json')
    writeFileSync(rumFile, JSON.stringify({data: [item('e1', 'view', {}), item('e2', 'error', {error: {message: 'Uncaught SyntaxError: Unexpected token \'<\'', type: 'SyntaxError', resource: {url: 'https://shop.example.com/_build/app.aaaa.js'}}})]}))
    const failuresFile = join(dir, 'rum-failures.ndjson')
    const r = runCli(['analyze', '--rum', rumFile, logFile, '--json', '--failures', failuresFile])
    expect(r.status).toBe(0)
    // The failures file is written once joined: the crashed page load's request says what RUM saw.
    const flagged = readFileSync(failuresFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as {clientIp: string; rum?: Record<string, unknown>})
    expect(flagged.find((f) => f.clientIp === '10.0.0.3')?.rum).toEqual({session: 's1', view: 'v1', join: 'address+asset', crashed: true, error: 'Uncaught SyntaxError: Unexpected token \'<\'', user: 'acct-1', version: 'v1'})
    const report = JSON.parse(r.stdout) as {input: {sources: {file: string}[]}; rum: {crashedPageLoads: number; confirmed: number; accountIds: string[]; unexplained: number; input: {files: {file: string; used: number}[]}}}
    expect(report.input.sources.map((s) => s.file)).toEqual([logFile])
    expect(report.rum).toMatchObject({crashedPageLoads: 1, confirmed: 1, accountIds: ['acct-1'], unexplained: 0, input: {files: [{file: rumFile, used: 2}]}})
    // RUM alone, no logs: the browsers' own crash, said first.
    const alone = runCli(['analyze', '--rum', rumFile])
    expect(alone.status).toBe(0)
    expect(alone.stdout).toMatch(/^RUM alone \(no access logs\): 1 page load crashed and 0 lazy loads failed, hurting 1 signed-in account in 1 session/)
    expect(alone.stderr).toBe('')
    const missing = runCli(['analyze', logFile, '--rum', join(dir, 'no-rum.json')])
    expect(missing.status).toBe(2)
    expect(missing.stderr).toMatch(/no-rum\.json: cannot read \(no such file\)/)
  })

  it('exits 2 naming a file in no known format and listing the formats', () => {
    const junk = join(dir, 'junk.txt')
    writeFileSync(junk, 'hello\nthis is not a log\n')
    const r = runCli(['analyze', junk])
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('junk.txt: not in any format skewscan reads')
    expect(r.stderr).toContain('nginx combined / common / ingress-nginx upstreaminfo access line')
    expect(r.stderr).toContain('AWS Application Load Balancer access log')
  })

  it.each([
    ['an empty kubectl get events list', JSON.stringify({apiVersion: 'v1', items: [], kind: 'List', metadata: {resourceVersion: ''}}), 'kubectl-events'],
    ['a Datadog events page without events', JSON.stringify({data: [], meta: {page: {}}}), 'datadog-events-v2'],
    ['an empty deploy list', '[]', 'list-json'],
  ])('says when --deploys holds no deploys (%s), whatever its format', (_name, content, format) => {
    const file = join(dir, `no-deploys-${format}.json`)
    writeFileSync(file, content)
    const r = runCli(['analyze', logFile, '--deploys', file])
    expect(r.status).toBe(0)
    expect(r.stderr).toContain(`${file} (${format}): no deploys in it; deploys are inferred from the logs`)
  })

  it('a report that cannot be written (a full disk) says so and exits 2, not 1 (the --fail-on code) with a stack trace', () => {
    for (const args of [['analyze', logFile], ['analyze', logFile, '--json'], ['parse', logFile]]) {
      const full = openSync('/dev/full', 'w')
      try {
        const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'run.js'), ...args], {stdio: ['ignore', full, 'pipe'], encoding: 'utf8', timeout: 60_000, env: cliEnv()})
        expect([args.join(' '), r.status]).toEqual([args.join(' '), 2])
        expect(r.stderr).toContain('cannot write to standard output (ENOSPC)')
        expect(r.stderr).not.toMatch(/\n\s+at /)
      } finally {
        closeSync(full)
      }
    }
    const r = runCli(['analyze', logFile, '--failures', '/dev/full'])
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('--failures /dev/full: cannot write the failures file: no space left on device (ENOSPC)')
    // A device is written in place, never replaced by a finished file of ours (a rename over /dev/full once did).
    expect(statSync('/dev/full').isCharacterDevice()).toBe(true)
    expect(readdirSync('/dev').filter((f) => f.startsWith('.full.'))).toEqual([])
  })

  it('a reader that leaves early (| head) ends the run quietly', () => {
    const r = spawnSync('/bin/sh', ['-c', `"${process.execPath}" "${join(ROOT, 'bin', 'run.js')}" parse "${logFile}" | head -c 10 >/dev/null; echo "status \${PIPESTATUS:-}"`], {encoding: 'utf8', timeout: 60_000, env: cliEnv()})
    expect(r.stderr).not.toMatch(/EPIPE|\n\s+at /)
  })

  it('exits 2 on a bad flag value, naming the flag', () => {
    const r = runCli(['analyze', logFile, '--incident-gap', 'soon'])
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('--incident-gap: "soon" is not a duration')
  })

  it('a misspelled command is a usage error (exit 2) naming the word typed, not the file after it, and the command meant', () => {
    const typo = runCli(['analyse', logFile])
    expect([typo.status, typo.stdout]).toEqual([2, ''])
    expect(typo.stderr).toBe(' ›   Error: Unknown command: analyse. Did you mean analyze? (see: skewscan --help)\n')
    // A word near no command: no guess; its control characters never reach the terminal raw.
    const unknown = runCli(['\u001b[31mzzzzzz\u0007', logFile])
    expect([unknown.status, unknown.stdout]).toEqual([2, ''])
    expect(unknown.stderr).toBe(' ›   Error: Unknown command: \\u001b[31mzzzzzz\\u0007 (see: skewscan --help)\n')
  })

  it('says so on stderr and exits 0 on empty input', () => {
    const empty = join(dir, 'empty.log')
    writeFileSync(empty, '')
    const r = runCli(['analyze', empty])
    expect(r.status).toBe(0)
    expect(r.stderr).toContain('no records')
    expect(r.stdout).toContain('No records in the input')
  })
})

describe('hostile names and text never reach the terminal raw', () => {
  it('names a file with control characters in its name safely in an error', () => {
    const d = mkdtempSync(join(dir, 'skewscan-hostile-'))
    const evil = join(d, 'x\u001b]0;owned\u0007.log')
    writeFileSync(evil, 'hello\nnot a log\n')
    const r = runCli(['analyze', evil])
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('not in any format skewscan reads')
    // eslint-disable-next-line no-control-regex
    expect(r.stderr).not.toMatch(/[\u0007\u001b]/)
  })

  it('--json and --format ndjson carry no C1 control or bidi override from the logs', () => {
    const d = mkdtempSync(join(dir, 'skewscan-hostile-'))
    const log = join(d, 'hostile.log')
    const ua = 'Mozilla/5.0 \u009b2J\u202e\u2028'
    writeFileSync(log, `${readFileSync(logFile, 'utf8').split('\n').filter((l) => l !== '').map((l) => l.replace(/"([^"]*)"$/, `"${ua}"`)).join('\n')}\n`)
    for (const args of [['--json'], ['--format', 'ndjson'], ['--format', 'csv']]) {
      const r = runCli(['analyze', log, ...args])
      expect(r.status).toBe(0)
      expect([args.join(' '), /[\u0080-\u009f\u202a-\u202e\u2028]/.test(r.stdout)]).toEqual([args.join(' '), false])
    }
  })
})

describe('the same records given twice are counted once (issue 14, item 8)', () => {

  it('the same file named twice, or by a link, or - twice: read once, and said', () => {
    const d = mkdtempSync(join(dir, 'skewscan-twice-'))
    const link = join(d, 'link.log')
    symlinkSync(logFile, link)
    for (const [args, input] of [[[logFile, logFile], ''], [[logFile, link], ''], [['-', '-'], readFileSync(logFile, 'utf8')]] as const) {
      const r = runCli(['analyze', ...args, '--json'], {input})
      expect(r.status).toBe(0)
      expect((JSON.parse(r.stdout) as {totals: unknown}).totals).toEqual(once())
      expect(r.stderr).toMatch(/(given twice|the same file as .*): read once/)
    }
  })

  it('a copy of a file (the same requests, by their request ids) adds no page load and no user', () => {
    const d = mkdtempSync(join(dir, 'skewscan-copy-'))
    const copy = join(d, 'copy.log')
    writeFileSync(copy, readFileSync(logFile))
    const r = runCli(['analyze', logFile, copy, '--json'])
    expect(r.status).toBe(0)
    const report = JSON.parse(r.stdout) as {totals: unknown; input: {skipped: {byReason: Record<string, number>}; records: number}}
    expect(report.totals).toEqual(once())
    expect(report.input.skipped.byReason.duplicate).toBe(report.input.records / 2)
  })
})

describe('one request id in two apps is no copy (found by the property tests)', () => {
  it('the same client, path, status, bytes and X-Request-Id answered by two apps: both read, nothing crashes', () => {
    // Found by test/property/analysis: the copy in app shop taught shop its shells and was then dropped, so
    // shop had builds never served, and the report's times were infinite (RangeError: Invalid time value).
    const ingress = (n: number, bytes: number, app: string) =>
      `1.1.1.${n} - - [05/Mar/2024:10:00:0${n} +0000] "GET / HTTP/1.1" 200 ${bytes} "-" "${firefox(120)}" 412 0.004 [${app}] [] 10.0.0.${n}:80 ${bytes} 0.004 200 R${n}`
    const f = join(dir, 'two-apps-one-id.log')
    writeFileSync(f, `${[ingress(1, 1843, 'web'), ingress(2, 1843, 'web'), ingress(3, 2011, 'web'), ingress(4, 2011, 'web'), ingress(1, 1843, 'shop'), ingress(2, 1843, 'shop')].join('\n')}\n`)
    const r = runCli(['analyze', f, '--json'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const report = JSON.parse(r.stdout) as {input: {used: number; skipped: {total: number}}; apps: {name: string}[]}
    expect(report.input).toMatchObject({used: 6, skipped: {total: 0}})
    expect(report.apps.map((a) => a.name).sort()).toEqual(['shop', 'web'])
  })
})

describe('inputs that can be read only once (issue 14, item 9)', () => {
  /** The CLI run by bash, for what only a shell makes: `<(…)`, a named pipe, /dev/stdin on a pipe. */
  const viaBash = (script: string) => {
    const r = spawnSync('bash', ['-c', script], {cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: {...cliEnv(), LOG: logFile, RUN: join(ROOT, 'bin', 'run.js')}})
    return {status: r.status, stdout: r.stdout, stderr: r.stderr}
  }

  it.each([
    ['a process substitution', '"$RUN" analyze <(cat "$LOG") --json'],
    ['/dev/stdin on a pipe', 'cat "$LOG" | "$RUN" analyze /dev/stdin --json'],
    ['a named pipe', 'd=$(mktemp -d) && mkfifo "$d/p" && { cat "$LOG" > "$d/p" & } && "$RUN" analyze "$d/p" --json; s=$?; rm -rf "$d"; exit $s'],
    ['a named pipe of gzip', 'd=$(mktemp -d) && mkfifo "$d/p" && { gzip -c "$LOG" > "$d/p" & } && "$RUN" analyze "$d/p" --json; s=$?; rm -rf "$d"; exit $s'],
    ['a process substitution, parse', '"$RUN" parse <(cat "$LOG") | wc -l'],
  ])('%s is read as the file is', (name, script) => {
    const r = viaBash(script)
    expect(r.stderr).toMatch(name.endsWith('parse') ? /^\/dev\/fd\/\d+: nginx, 12 records, 12 read, 0 rejected\n$/ : /^$/)
    expect(r.status).toBe(0)
    if (name.endsWith('parse')) expect(Number(r.stdout.trim())).toBe(log.split('\n').length)
    else expect((JSON.parse(r.stdout) as {totals: unknown}).totals).toEqual(once())
  })

  it('a device of zeros stops at once: binary data, exit 2', () => {
    const r = runCli(['analyze', '/dev/zero'])
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/\/dev\/zero: binary data, not a log/)
  })

  it('a zip archive, its member stored uncompressed, is no log: exit 2, saying how to read it', () => {
    // A zip holding access.log stored (method 0), as `zip -0` writes it: local header, data, central directory.
    const data = readFileSync(logFile)
    const name = Buffer.from('access.log')
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(10, 4)
    local.writeUInt32LE(data.length, 18)
    local.writeUInt32LE(data.length, 22)
    local.writeUInt16LE(name.length, 26)
    const zip = join(dir, 'logs.zip')
    writeFileSync(zip, Buffer.concat([local, name, data]))
    for (const r of [runCli(['analyze', zip]), runCli(['analyze', '-'], {input: readFileSync(zip)}), runCli(['parse', zip])]) {
      expect(r.status).toBe(2)
      expect(r.stderr).toMatch(/a zip archive, not a log file: skewscan reads plain and gzip files \(unzip -p FILE/)
    }
  })
})

describe('a run that lost input says so, and a scheduled run fails on it (issue 14, item 5)', () => {
  const gz = gzipSync(`${log}\n`.repeat(40))
  const cut = join(dir, 'cut.log.gz')
  writeFileSync(cut, gz.subarray(0, Math.floor(gz.length * 0.6)))
  const lostNote = /Input lost: reading stopped early at .*cut\.log\.gz line \d+ \(input ends early: unexpected end of file\)\. What follows was not read/

  it('a gzip cut short: the report of what was read, the place on stderr, exit 3, over --fail-on', () => {
    const out = mkdtempSync(join(dir, 'skewscan-lost-'))
    const r = runCli(['analyze', cut, '--format', 'markdown,json', '--out-dir', out, '--fail-on', 'incident'])
    expect(r.status).toBe(3)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(lostNote)
    expect(r.stderr).toMatch(/Exit 3 \(--allow-lost-input: exit 0\)/)
    expect(r.stderr).toMatch(/--fail-on: incident/)
    const written = readdirSync(out)
    expect(written.filter((f) => f.endsWith('.json'))).toHaveLength(1)
    const report = JSON.parse(readFileSync(join(out, written.find((f) => f.endsWith('.json')) as string), 'utf8')) as {input: {skipped: {byReason: Record<string, number>}}}
    expect(report.input.skipped.byReason['truncated-input']).toBe(1)
  })

  it('--json: the report on stdout, exit 3; --allow-lost-input: the note without the exit', () => {
    const j = runCli(['analyze', cut, '--json'])
    expect(j.status).toBe(3)
    expect((JSON.parse(j.stdout) as {input: {records: number}}).input.records).toBeGreaterThan(0)
    const allowed = runCli(['analyze', cut, '--allow-lost-input'])
    expect(allowed.status).toBe(0)
    expect(allowed.stderr).toMatch(lostNote)
    expect(allowed.stderr).not.toMatch(/Exit 3/)
    expect(runCli(['analyze', cut, '--allow-lost-input', '--fail-on', 'incident']).status).toBe(1)
  })

  it('parse and compare say it too, exit 3', () => {
    const p = runCli(['parse', cut])
    expect(p.status).toBe(3)
    expect(p.stderr).toMatch(lostNote)
    const c = runCli(['compare', '--set', `a=${cut}`, '--set', `b=${logFile}`])
    expect(c.status).toBe(3)
    expect(c.stderr).toMatch(lostNote)
  })

  it('skipped records are said on stderr, and --fail-on skipped / skipped-share fail the run', () => {
    const mixed = join(dir, 'mixed.log')
    writeFileSync(mixed, `${log}\nnot a log line\n${log.split('\n')[0]?.replace('[29/Nov/2026:14:00:00 +0000]', '[99/Nov/2026:14:00:00 +0000]')}\n`)
    const r = runCli(['analyze', mixed, '--json'])
    expect(r.status).toBe(0)
    expect(r.stderr).toMatch(/^2 records of 14 skipped \((bad-time|unparsed-message) 1, (bad-time|unparsed-message) 1; first at .*mixed\.log:13\); skewscan parse FILE --rejected shows each\.$/m)
    for (const [rule, code] of [['skipped>0', 1], ['skipped>2', 0], ['skipped-share>=0.1', 1], ['skipped-share>0.5', 0]] as const) {
      const f = runCli(['analyze', mixed, '--fail-on', rule])
      expect([rule, f.status]).toEqual([rule, code])
      if (code === 1) expect(f.stderr).toMatch(new RegExp(`--fail-on: ${rule.replace(/[.>=]/g, '\\$&')} \\(measured `))
    }
  })

  it('a clean run says nothing of its input', () => {
    const r = runOnce(['analyze', logFile, '--json'])
    expect(r.status).toBe(0)
    expect(r.stderr).toBe('')
  })
})
