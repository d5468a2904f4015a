/**
 * The installed CLI: bin/run.js over the build in dist/ (what `npm ci` prepares, and what a user's
 * `skewscan` runs), where the other CLI tests run the TypeScript sources through bin/dev.js. Its
 * own start-up path (the oclif manifest, a parsing worker started before oclif loads) must give the
 * same answers and must not keep the process alive.
 */
import {spawnSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {cliEnv, ROOT} from '../helpers/cli'

function run(bin: 'run.js' | 'dev.js', args: string[]): {status: number | null; stdout: string; stderr: string} {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', bin), ...args], {cwd: ROOT, encoding: 'utf8', timeout: 30_000, env: cliEnv()})
  return {status: r.status, stdout: r.stdout, stderr: r.stderr}
}
const runInstalled = (args: string[]) => run('run.js', args)

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'commands', 'analyze.js'))) throw new Error('no build in dist/: run `npm run build` (npm ci does)')
})

describe('the installed CLI (bin/run.js, dist/)', () => {
  it('analyze on a small file answers as the sources do and exits', () => {
    const args = ['analyze', 'fixtures/rolling-round-robin/ingress.log', '--deploys', 'fixtures/rolling-round-robin/deploys.json', '--json']
    const installed = runInstalled(args)
    expect(installed.stderr).toBe('')
    // A process kept alive by a worker would run into the 30 s timeout and be killed (status null).
    expect(installed.status).toBe(0)
    // The TypeScript sources, through bin/dev.js.
    const dev = run('dev.js', args)
    expect(dev.status).toBe(0)
    expect(JSON.parse(installed.stdout)).toEqual(JSON.parse(dev.stdout))
  })

  it('a worker started early (bin/run.js does for a large file) and never taken over does not keep the process alive', () => {
    const script = `require(${JSON.stringify(join(ROOT, 'dist', 'sources', 'parallel', 'early-worker.js'))}).prestartWorker(); console.log('started')`
    const r = spawnSync(process.execPath, ['-e', script], {encoding: 'utf8', timeout: 20_000})
    expect(r.stdout).toBe('started\n')
    // A worker holding the process would run into the timeout (status null).
    expect(r.status).toBe(0)
  })

  it('--help lists the commands', () => {
    const r = runInstalled(['--help'])
    expect(r.status).toBe(0)
    for (const c of ['analyze', 'compare', 'export', 'lab', 'probe']) expect(r.stdout).toContain(c)
  })
})
