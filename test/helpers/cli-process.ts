import {type ChildProcess, spawn} from 'node:child_process'
import {join} from 'node:path'
import {cliEnv, ROOT} from './cli'

export interface RunningCli {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  /** Resolves when the process exits; kills it if it is still running after `timeoutMs`. */
  exited: Promise<{code: number | null; signal: NodeJS.Signals | null}>
}

/**
 * Starts the CLI (bin/run.js on dist/, kept built by test/global-setup.ts) without blocking this process, for tests
 * that serve it on loopback from here, or signal it while it runs. Always bounded in time.
 */
export function startCli(args: string[], timeoutMs = 30_000, env: Record<string, string> = {}): RunningCli {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'run.js'), ...args], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
    env: cliEnv(env),
  })
  let out = ''
  let err = ''
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()))
  const exited = new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({code, signal})
    })
  })
  return {child, stdout: () => out, stderr: () => err, exited}
}

/** Polls until `ok()` holds; fails after `timeoutMs`. */
export async function waitFor(ok: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
