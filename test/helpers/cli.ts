import {spawnSync} from 'node:child_process'
import {join} from 'node:path'

export const ROOT = join(__dirname, '..', '..')

export interface CliResult {
  status: number | null
  stdout: string
  stderr: string
}

/**
 * The environment of a user's shell for the CLI: the test runner's own variables left out (jest's
 * NODE_ENV=test would make oclif compile the TypeScript sources instead of running dist/), plain
 * output, UTC, and what the test adds (undefined removes a variable).
 */
export function cliEnv(extra: Record<string, string | undefined> = {}, drop = /^(JEST_|NODE_ENV$|NODE_OPTIONS$)/): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) if (!drop.test(k)) env[k] = v
  Object.assign(env, {TZ: 'UTC', COLUMNS: '200', OCLIF_SKIP_NEW_VERSION_CHECK: 'true', FORCE_COLOR: '0'}, extra)
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k]
  return env
}

/** Runs the CLI as a user would (bin/run.js on dist/, which test/global-setup.ts keeps built from the sources), bounded in time. */
export function runCli(args: string[], opts: {input?: string | Buffer; cwd?: string} = {}): CliResult {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'run.js'), ...args], {
    cwd: opts.cwd ?? ROOT, input: opts.input ?? '', encoding: 'utf8', timeout: 60_000,
    env: cliEnv(),
  })
  return {status: r.status, stdout: r.stdout, stderr: r.stderr}
}
