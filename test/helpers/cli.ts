import {spawnSync} from 'node:child_process'
import {join} from 'node:path'

export const ROOT = join(__dirname, '..', '..')

export interface CliResult {
  status: number | null
  stdout: string
  stderr: string
}

/** Runs the CLI as a user would (TypeScript sources through bin/dev.js), bounded in time. */
export function runCli(args: string[], opts: {input?: string | Buffer; cwd?: string} = {}): CliResult {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'dev.js'), ...args], {
    cwd: opts.cwd ?? ROOT, input: opts.input ?? '', encoding: 'utf8', timeout: 60_000,
    env: {...process.env, TZ: 'UTC', COLUMNS: '200', NODE_OPTIONS: '', OCLIF_SKIP_NEW_VERSION_CHECK: 'true', FORCE_COLOR: '0'},
  })
  return {status: r.status, stdout: r.stdout, stderr: r.stderr}
}
