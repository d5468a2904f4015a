/**
 * A run stopped by SIGINT (Ctrl-C) or SIGTERM (`timeout`, `systemctl stop`) removes its temporaries
 * and exits 130 or 143. The built CLI reads standard input from a pipe this test keeps open, so the
 * run is still keeping its copy of it when the signal comes; TMPDIR is a fresh directory, watched
 * (a bounded poll) until the copy exists.
 */
import {spawn} from 'node:child_process'
import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {cliEnv, ROOT} from '../helpers/cli'

const SAMPLE = readFileSync(join(ROOT, 'fixtures', 'rolling-round-robin', 'ingress.log'))

/** Files under `dir`, with their sizes. */
function files(dir: string): {path: string; size: number}[] {
  return readdirSync(dir, {recursive: true, encoding: 'utf8'}).map((p) => ({path: p, size: statSync(join(dir, p)).size})).filter((f) => statSync(join(dir, f.path)).isFile())
}

it.each([
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const)('%s while standard input is kept: the copy is removed, exit %d', async (signal, code) => {
  const tmp = mkdtempSync(join(tmpdir(), 'skewscan-signal-'))
  try {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'run.js'), 'analyze', '-'], {env: cliEnv({TMPDIR: tmp}), stdio: ['pipe', 'pipe', 'pipe']})
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)))
    child.stdin.write(SAMPLE)
    // The copy of standard input exists and holds what was written (at most 20 s, polled every 50 ms).
    let kept = false
    for (let i = 0; i < 400 && !kept; i++) {
      kept = files(tmp).some((f) => f.size === SAMPLE.length)
      if (!kept) await sleep(50)
    }
    expect(kept).toBe(true)
    child.kill(signal)
    const status = await exited
    child.stdin.destroy()
    expect({status, left: readdirSync(tmp), stderr}).toEqual({status: code, left: [], stderr: expect.any(String) as string})
  } finally {
    rmSync(tmp, {recursive: true, force: true})
  }
  expect(existsSync(tmp)).toBe(false)
})
