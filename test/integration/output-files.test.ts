/**
 * Files a run writes (`--output`, `--out-dir`, `--failures`) appear whole or not at all, and a
 * report file is created exclusively without --force; the failures file's JSON is as inert as the
 * report's. Real failures: a file size limit (`ulimit -f`, SIGXFSZ ignored) makes a write fail
 * part-way, as a full disk does.
 */
import {spawn} from 'node:child_process'
import {mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {cliEnv, ROOT} from '../helpers/cli'
import {runCliAsync} from '../helpers/fake-datadog-cli'
import {tempDir} from '../helpers/temp'

const FIXTURE = join(ROOT, 'fixtures', 'rolling-round-robin')
const LOG = join(FIXTURE, 'ingress.log')
const dir = tempDir('skewscan-outfiles-')

/** The CLI with writes beyond `blocks` × 512 bytes failing (EFBIG), bounded in time. */
function runLimited(args: string[], blocks: number): Promise<{status: number | null; stderr: string}> {
  const cli = [process.execPath, join(ROOT, 'bin', 'run.js'), ...args].map((s) => `'${s.replace(/'/g, `'\\''`)}'`).join(' ')
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `trap '' XFSZ; ulimit -f ${blocks}; exec ${cli}`], {cwd: ROOT, env: cliEnv(), stdio: ['ignore', 'ignore', 'pipe']})
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c))
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('error', reject)
    child.on('close', (status) => {
      clearTimeout(timer)
      resolve({status, stderr})
    })
  })
}

function fresh(name: string): string {
  const d = join(dir, name)
  mkdirSync(d)
  return d
}

describe('a failed write leaves no file', () => {
  it('--output: the HTML report cut by a full file system is not left truncated, nor its temporary', async () => {
    const d = fresh('output')
    const r = await runLimited(['analyze', LOG, '--format', 'html', '-o', join(d, 'report.html')], 8)
    expect(r.status).toBe(2)
    expect(r.stderr).toContain(`--output ${join(d, 'report.html')}: cannot write the report: file too large (EFBIG)`)
    expect(readdirSync(d)).toEqual([])
  })

  it('--out-dir: no dated HTML a collector would pick up', async () => {
    const d = fresh('outdir')
    const r = await runLimited(['analyze', LOG, '--format', 'json,html', '--out-dir', d], 8)
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('--out-dir')
    expect(readdirSync(d)).toEqual([])
  })

  it('--failures: no truncated NDJSON', async () => {
    const d = fresh('failures')
    const r = await runLimited(['analyze', LOG, '--failures', join(d, 'failed.ndjson')], 8)
    expect(r.status).toBe(2)
    expect(r.stderr).toContain(`--failures ${join(d, 'failed.ndjson')}: cannot write the failures file: file too large (EFBIG)`)
    expect(readdirSync(d)).toEqual([])
  })

  it('a write that succeeds leaves only the file', async () => {
    const d = fresh('whole')
    const r = await runCliAsync(['analyze', LOG, '--format', 'html', '-o', join(d, 'report.html'), '--failures', join(d, 'failed.ndjson')])
    expect(r.status).toBe(0)
    expect(readdirSync(d).sort()).toEqual(['failed.ndjson', 'report.html'])
    expect(readFileSync(join(d, 'report.html'), 'utf8')).toMatch(/<\/html>\s*$/)
  })
})

describe('--failures escapes what the report\'s JSON escapes', () => {
  it('C1 controls, bidi overrides and line separators of a user agent and a path come out as \\u escapes', async () => {
    const d = fresh('escapes')
    const ua = 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36'
    const hostile = 'Evil\u202etxt.exe\u2028next\u2029para\u0085nel\u009b2J'
    const text = readFileSync(LOG, 'utf8').split(ua).join(hostile)
    const log = join(d, 'hostile.log')
    writeFileSync(log, text)
    const out = join(d, 'failed.ndjson')
    const r = await runCliAsync(['analyze', log, '--failures', out])
    expect(r.status).toBe(0)
    const written = readFileSync(out, 'utf8')
    expect(written).toContain('Evil\\u202etxt.exe\\u2028next\\u2029para\\u0085nel\\u009b2J')
    expect(written).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u2028\u2029]/)
    // The same records: the escapes are JSON's own.
    expect(written.trimEnd().split('\n').map((l) => JSON.parse(l) as {userAgent: string}).filter((f) => f.userAgent === hostile).length).toBeGreaterThan(0)
  })
})

describe('a temporary, spool or export file that cannot be written is a configuration error (exit 2), not findings (exit 1)', () => {
  const KEYS = {DD_API_KEY: 'k'.repeat(32), DD_APP_KEY: 'a'.repeat(40)}
  // Nothing listens here: each run must fail before it asks Datadog anything.
  const NOWHERE = ['--api-url', 'http://127.0.0.1:9', '--retry-base', '10ms', '--timeout', '1s']

  it('TMPDIR missing, or a file: the copy of standard input names TMPDIR and the error in words', async () => {
    const missing = await runCliAsync(['analyze', '-'], {env: {TMPDIR: join(dir, 'no-such-dir')}})
    expect(missing.status).toBe(2)
    expect(missing.stderr).toContain(`TMPDIR ${join(dir, 'no-such-dir')}: cannot write a copy of standard input: no such file or directory (ENOENT)`)
    const file = join(dir, 'tmp-is-a-file')
    writeFileSync(file, '')
    const notDir = await runCliAsync(['analyze', '-'], {env: {TMPDIR: file}})
    expect(notDir.status).toBe(2)
    expect(notDir.stderr).toContain(`TMPDIR ${file}: cannot write a copy of standard input: not a directory (ENOTDIR)`)
  })

  it('--spool at a file', async () => {
    const file = join(dir, 'spool-is-a-file')
    writeFileSync(file, 'x')
    const r = await runCliAsync(['analyze', '--since', '1h', '--query', 'service:web', '--spool', file, ...NOWHERE], {env: KEYS})
    expect(r.status).toBe(2)
    expect(r.stderr).toContain(`--spool ${file}: cannot make the directory: it or a folder above it is a file, not a directory (EEXIST)`)
    expect(r.stderr).not.toContain('retrying')
  })

  it('-o in a missing directory: analyze and export', async () => {
    const target = join(dir, 'no-such-dir', 'out')
    const report = await runCliAsync(['analyze', LOG, '-o', `${target}.txt`])
    expect(report.status).toBe(2)
    expect(report.stderr).toContain(`--output ${target}.txt: cannot write the report: no such file or directory (ENOENT)`)
    const exported = await runCliAsync(['export', '--since', '1h', '--query', 'service:web', '-o', `${target}.ndjson`, ...NOWHERE], {env: KEYS})
    expect(exported.status).toBe(2)
    expect(exported.stderr).toContain(`--output ${target}.ndjson: cannot write the export: no such file or directory (ENOENT)`)
    expect(exported.stderr).not.toContain('retrying')
  })
})
