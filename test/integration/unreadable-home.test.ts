/**
 * A HOME the user running skewscan cannot read (a service account's, a locked-down CI runner's)
 * adds nothing to stderr: oclif is told there are no user plugins to look for under it. Run as a
 * user would: as an unprivileged user (nobody, through setpriv) when the tests run as root, for
 * whom no directory is unreadable.
 */
import {spawn} from 'node:child_process'
import {chmodSync, mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {cliEnv, ROOT} from '../helpers/cli'
import {tempDir} from '../helpers/temp'

// Made readable again before tempDir's own afterAll removes it (afterAll hooks run in the order they are declared).
afterAll(() => chmodSync(home, 0o755))
const home = join(tempDir('skewscan-home-'), 'home')

function runWithHome(args: string[]): Promise<{status: number | null; stdout: string; stderr: string}> {
  const cli = [join(ROOT, 'bin', 'run.js'), ...args]
  const asRoot = process.getuid?.() === 0
  const [cmd, argv] = asRoot ? ['setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...cli]] : [process.execPath, cli]
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, {cwd: ROOT, env: cliEnv({HOME: home}), stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c))
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c))
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('error', reject)
    child.on('close', (status) => {
      clearTimeout(timer)
      resolve({status, stdout, stderr})
    })
  })
}

beforeAll(() => {
  mkdirSync(home, {recursive: true})
  chmodSync(join(home, '..'), 0o755)
  chmodSync(home, 0o000)
})

describe('an unreadable HOME', () => {
  it('analyze: the report on stdout, nothing on stderr', async () => {
    const r = await runWithHome(['analyze', join(ROOT, 'fixtures', 'rolling-round-robin', 'ingress.log')])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(r.stdout).toContain('17 users hit failed assets')
  })

  it('a usage error: only skewscan\'s own message', async () => {
    const r = await runWithHome(['analyze', '--no-such-flag'])
    expect(r.status).toBe(2)
    expect(r.stderr).not.toMatch(/EACCES|Warning|\(node:/)
    expect(r.stderr).toMatch(/^ › {3}Error: Nonexistent flag: --no-such-flag/)
  })
})
