/**
 * Where reports go and how they look, run as a user runs the CLI: tables that fit, -o that never
 * overwrites silently, one JSON whatever else is asked for, no progress in a pipe.
 */
import {mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {ROOT, runCli} from '../helpers/cli'

const CAPTURE = join(ROOT, 'fixtures', 'captures', 'two-deploys', 'nginx.jsonl.gz')
const dir = mkdtempSync(join(tmpdir(), 'skewscan-output-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

describe('analyze output', () => {
  it('fits tables to --columns, shows every column with --wide, and prints no progress when piped', () => {
    const narrow = runCli(['analyze', CAPTURE, '--columns', '80'])
    expect(narrow.status).toBe(0)
    for (const line of narrow.stdout.split('\n')) expect([...line].length).toBeLessThanOrEqual(80)
    expect(narrow.stdout).toMatch(/left out to fit 80 columns: --wide shows them/)
    const wide = runCli(['analyze', CAPTURE, '--wide'])
    expect(wide.stdout).not.toMatch(/left out/)
    expect(wide.stdout).toMatch(/^Deploy +From +Start/m)
    expect(wide.stderr).toBe('')
    expect(runCli(['analyze', CAPTURE, '--wide', '--columns', '90']).status).toBe(2)
  })

  it('-o refuses to replace a file without --force', () => {
    const out = join(dir, 'report.md')
    writeFileSync(out, 'keep me\n')
    const refused = runCli(['analyze', CAPTURE, '--format', 'markdown', '-o', out])
    expect(refused.status).toBe(2)
    expect(refused.stderr).toMatch(/report\.md exists: give --force to replace it/)
    expect(readFileSync(out, 'utf8')).toBe('keep me\n')
    expect(runCli(['analyze', CAPTURE, '--format', 'markdown', '-o', out, '--force']).status).toBe(0)
    expect(readFileSync(out, 'utf8')).toMatch(/^## skewscan/)
  })

  it('writes the same JSON in --out-dir whether or not html is asked for too', () => {
    const a = join(dir, 'a')
    const b = join(dir, 'b')
    expect(runCli(['analyze', CAPTURE, '--format', 'json', '--out-dir', a]).status).toBe(0)
    expect(runCli(['analyze', CAPTURE, '--format', 'json,html', '--out-dir', b]).status).toBe(0)
    const json = (d: string): unknown => JSON.parse(readFileSync(join(d, readdirSync(d).find((f) => f.endsWith('.json')) as string), 'utf8'))
    expect(json(b)).toEqual(json(a))
    expect(json(a)).not.toHaveProperty('details')
  })

  it('says that --format is not used when --json prints the report', () => {
    const r = runCli(['analyze', CAPTURE, '--json', '--format', 'table'])
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({schemaVersion: 3})
    expect(r.stderr).toMatch(/--json prints the report as JSON to stdout; --format table is not used/)
  })
})
