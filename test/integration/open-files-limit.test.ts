/**
 * More input files than the process may hold open (`ulimit -n`) is no "cannot read" on a good file:
 * the run stops at once (exit 2) saying what limit was reached and what to do. The built CLI runs
 * under `sh -c 'ulimit -n 64; …'` with 100 small files.
 */
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {cliEnv, ROOT} from '../helpers/cli'

const tmp = mkdtempSync(join(tmpdir(), 'skewscan-ulimit-'))
afterAll(() => rmSync(tmp, {recursive: true, force: true}))

it('100 files under `ulimit -n 64`: exit 2, the limit named and what to do', () => {
  const lines = readFileSync(join(ROOT, 'fixtures', 'rolling-round-robin', 'ingress.log'), 'utf8').split('\n')
  const files = Array.from({length: 100}, (_, i) => {
    const path = join(tmp, `part-${String(i).padStart(3, '0')}.log`)
    writeFileSync(path, `${lines.slice(i * 3, i * 3 + 3).join('\n')}\n`)
    return path
  })
  const r = spawnSync('sh', ['-c', 'ulimit -n 64 && exec "$0" "$@"', process.execPath, join(ROOT, 'bin', 'run.js'), 'analyze', ...files],
    {encoding: 'utf8', timeout: 60_000, env: cliEnv()})
  expect(r.stderr).toMatch(/part-\d+\.log: cannot be opened: too many files open at once \(the limit of open files, `ulimit -n`, was reached\)/)
  expect(r.stderr).toContain('ulimit -n 4096')
  expect(r.status).toBe(2)
})
