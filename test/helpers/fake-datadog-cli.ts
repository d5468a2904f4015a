/**
 * Runs the CLI as a child process without blocking this process, so the fake Datadog in the test
 * process can answer it; and a probe that records whether the Datadog client was loaded.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {runCommand} from '@oclif/test'
import {type CliResult, cliEnv, ROOT} from './cli'

export interface AsyncCliOptions {
  env?: Record<string, string | undefined>
  timeoutMs?: number
  /** Called once the child runs (to signal it). */
  onSpawn?: (child: ChildProcess) => void
  /** Run under a pseudo-terminal (util-linux `script`), so stderr is a TTY. Output is merged. */
  tty?: boolean
  /** The launcher to run (default: this checkout's bin/run.js), as an installed `skewscan`. */
  bin?: string
}

/** The environment of a user with no Datadog settings, plus what the test adds. */
function envFor(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return cliEnv(extra, /^(DD_|DATADOG_|SKEWSCAN_|DEBUG$|JEST_|NODE_ENV$|NODE_OPTIONS$)/)
}

export function runCliAsync(args: string[], opts: AsyncCliOptions = {}): Promise<CliResult & {ms: number}> {
  const started = Date.now()
  const node = process.execPath
  const cli = opts.bin ?? join(ROOT, 'bin', 'run.js')
  const [cmd, argv] = opts.tty
    ? ['script', ['-qefc', [node, cli, ...args].map(shellQuote).join(' '), '/dev/null']]
    : [node, [cli, ...args]]
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv as string[], {cwd: ROOT, env: envFor(opts.env), stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout?.setEncoding('utf8').on('data', (c: string) => (stdout += c))
    child.stderr?.setEncoding('utf8').on('data', (c: string) => (stderr += c))
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000)
    child.on('error', reject)
    child.on('close', (status) => {
      clearTimeout(timer)
      resolve({status, stdout, stderr, ms: Date.now() - started})
    })
    opts.onSpawn?.(child)
  })
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`
}

/**
 * A `--require` script that records, at exit, every loaded module path of the Datadog client
 * (`require.cache`, which also holds CommonJS modules loaded through `import()`), and every
 * `require` of it: the package's modules and the build's bundle of them (dist/vendor/). Its files
 * go in a new folder under `under` (the test's own temporary folder).
 */
export function clientProbe(under: string): {nodeOptions: string; loaded: () => string[]} {
  const dir = mkdtempSync(join(under, 'probe-'))
  const out = join(dir, 'loaded.json')
  const script = join(dir, 'probe.js')
  writeFileSync(out, '[]')
  writeFileSync(script, `
const Module = require('module')
const fs = require('fs')
const seen = new Set()
const isClient = (path) => path.includes('@datadog/datadog-api-client') || path.includes('vendor/datadog-client')
const load = Module._load
Module._load = function (request, ...rest) {
  if (isClient(String(request))) seen.add(String(request))
  return load.call(this, request, ...rest)
}
process.on('exit', () => {
  for (const k of Object.keys(require.cache)) if (isClient(k)) seen.add(k)
  fs.writeFileSync(${JSON.stringify(out)}, JSON.stringify([...seen]))
})
`)
  return {nodeOptions: `--require ${script}`, loaded: () => JSON.parse(readFileSync(out, 'utf8')) as string[]}
}

/** A command run in this process (through oclif's test runner), with the exit code it would give. */
export async function runInProcess(args: string[]): Promise<{stdout: string; stderr: string; exit: number; message: string}> {
  const r = await runCommand(args, {root: ROOT})
  const error = r.error as (Error & {oclif?: {exit?: number}}) | undefined
  return {stdout: r.stdout, stderr: r.stderr, exit: error ? (error.oclif?.exit ?? 1) : 0, message: error?.message ?? ''}
}

/**
 * Keys given as a user's shell gives them, for each test of the suite that calls this: every
 * DD_/DATADOG_/SKEWSCAN_ variable of the test process left out, `keys` set, all put back after.
 */
export function useDatadogEnv(keys: Record<string, string>): void {
  const saved = {...process.env}
  beforeEach(() => {
    for (const k of Object.keys(process.env)) if (/^(DD_|DATADOG_|SKEWSCAN_)/.test(k)) delete process.env[k]
    Object.assign(process.env, keys)
  })
  afterEach(() => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k]
    Object.assign(process.env, saved)
  })
}
