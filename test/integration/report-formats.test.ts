/**
 * Markdown and CSV reports against checked-in expected files (fixtures/expected/), the JSON with
 * detail against the schema, and the scheduled-run contract: dated files, a summary line on
 * stderr, the exit code from --fail-on.
 */
import {mkdtempSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {csvCell} from '../../src/report/csv'
import {mdCell} from '../../src/report/markdown'
import {ROOT, runCli} from '../helpers/cli'
import {tempDir} from '../helpers/temp'
import {schemaValidator} from '../helpers/schema'

const tmp = tempDir('skewscan-report-formats-')

const EXPECTED = join(ROOT, 'fixtures', 'expected')
const ARGS = ['analyze', 'fixtures/two-deploys/ingress.log', '--deploys', 'fixtures/two-deploys/deploys.json']

/** Compares with the expected file; UPDATE_EXPECTED=1 rewrites it (review the diff before committing). */
function matchesExpected(name: string, actual: string): void {
  const path = join(EXPECTED, name)
  if (process.env.UPDATE_EXPECTED === '1') writeFileSync(path, actual)
  expect(actual).toBe(readFileSync(path, 'utf8'))
}

describe('report formats', () => {
  it('markdown: the answer and the per-deploy table, as in fixtures/expected/two-deploys.md', () => {
    const r = runCli([...ARGS, '--format', 'markdown'])
    expect(r.status).toBe(0)
    matchesExpected('two-deploys.md', r.stdout)
    // The fixture's truth: D1 hit 9 users, 6 of its 17 page loads crashed, one stale tab failed later.
    expect(r.stdout).toContain('| D1 (file) | 2026-11-29 14:06:00Z → 2026-11-29 14:07:30Z (90 s) | B1 → B2 | 68 s | 9 | 6 of 17 | 1 | I1, I3 |')
  })

  it('csv: one row per failed request, as in fixtures/expected/two-deploys.csv', () => {
    const r = runCli([...ARGS, '--format', 'csv'])
    expect(r.status).toBe(0)
    matchesExpected('two-deploys.csv', r.stdout)
    const rows = r.stdout.trim().split('\r\n')
    expect(rows).toHaveLength(1 + 42) // header + the truth's 42 failed requests
    expect(rows[0]).toMatch(/^time,app,cause,deploy,incident,reason,direction,asset,phase,method,path,status,bytes,client_ip,user_agent,/)
  })

  it('csv and markdown cells neutralise log text: formulas, pipes, HTML', () => {
    expect(['=HYPERLINK("x")', '+1', '-2+3', '@SUM(A1)', '\t=1', 'plain'].map(csvCell)).toEqual([
      '"\'=HYPERLINK(""x"")"', "'+1", "'-2+3", "'@SUM(A1)", "'\\u0009=1", 'plain'])
    expect(csvCell(42)).toBe('42')
    expect(mdCell('a|b <script> `x` [l](http://e)')).toBe('a\\|b \\<script\\> \\`x\\` \\[l\\](http://e)')
  })

  it('json beside html is the json of --format json alone (no HTML detail), valid against the schema', () => {
    const dir = mkdtempSync(join(tmp, 'skewscan-fmt-'))
    const r = runCli([...ARGS, '--format', 'json,html', '--out-dir', dir])
    expect(r.status).toBe(0)
    const json = readdirSync(dir).find((f) => f.endsWith('.json')) ?? ''
    const report = JSON.parse(readFileSync(join(dir, json), 'utf8'))
    expect(report.details).toBeUndefined()
    const alone = JSON.parse(runCli([...ARGS, '--format', 'json']).stdout)
    expect({...report, input: undefined}).toEqual({...alone, input: undefined})
    const validate = schemaValidator('analyze')
    expect(validate.errors ?? validate(report)).toBe(true)
  })
})

describe('scheduled runs', () => {
  it('writes each format to a dated file, prints one summary line on stderr, nothing on stdout', () => {
    const dir = mkdtempSync(join(tmp, 'skewscan-cron-'))
    const r = runCli([...ARGS, '--format', 'markdown,json,csv', '--out-dir', join(dir, 'reports')])
    expect(r.status).toBe(0)
    expect(r.stdout).toBe('')
    const files = readdirSync(join(dir, 'reports')).sort()
    expect(files).toHaveLength(3)
    expect(files.every((f) => /^skewscan-\d{8}T\d{6}Z\.(md|json|csv)$/.test(f))).toBe(true)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/^21 users hit failed assets: 17 page loads of 83 crashed, .* Wrote .*skewscan-\d{8}T\d{6}Z\.md/)
  })

  it.each([['incident', 1], ['affected-users>21', 0], ['affected-users>20', 1]])('--fail-on %s exits %i', (rule, code) => {
    const r = runCli([...ARGS, '--format', 'markdown', '--fail-on', rule])
    expect(r.status).toBe(code)
    expect(r.stderr.includes('--fail-on:')).toBe(code === 1)
  })

  it('rejects a bad --fail-on and a bad --format with exit 2', () => {
    const a = runCli([...ARGS, '--fail-on', 'users>3'])
    expect([a.status, a.stderr]).toEqual([2, expect.stringContaining('--fail-on: "users>3" must be')])
    const b = runCli([...ARGS, '--format', 'markdown,json'])
    expect([b.status, b.stderr]).toEqual([2, expect.stringContaining('several formats need --out-dir')])
  })
})
