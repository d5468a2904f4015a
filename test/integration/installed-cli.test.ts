/**
 * The installed CLI: bin/run.js over the build in dist/ (what `npm ci` prepares, and what a user's
 * `skewscan` runs), where the other CLI tests run the TypeScript sources through bin/dev.js. Its
 * own start-up path (the oclif manifest, a parsing worker started before oclif loads) must give the
 * same answers and must not keep the process alive.
 */
import {spawnSync} from 'node:child_process'
import {copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, relative} from 'node:path'
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

  it('a checkout installed without its build (npm ci --ignore-scripts) says so and exits 2, for a command and for help', () => {
    const bare = mkdtempSync(join(tmpdir(), 'skewscan-unbuilt-'))
    try {
      mkdirSync(join(bare, 'bin'))
      copyFileSync(join(ROOT, 'bin', 'run.js'), join(bare, 'bin', 'run.js'))
      copyFileSync(join(ROOT, 'package.json'), join(bare, 'package.json'))
      for (const args of [['analyze', 'access.log'], ['--help']]) {
        const r = spawnSync(process.execPath, [join(bare, 'bin', 'run.js'), ...args], {cwd: bare, encoding: 'utf8', timeout: 30_000, env: cliEnv()})
        expect({args, status: r.status, stdout: r.stdout, stderr: r.stderr}).toEqual({args, status: 2, stdout: '', stderr: 'skewscan is not built (dist/ is missing): run `npm run build` in its folder\n'})
      }
    } finally {
      rmSync(bare, {recursive: true, force: true})
    }
  })

  it('--help lists the commands', () => {
    const r = runInstalled(['--help'])
    expect(r.status).toBe(0)
    for (const c of ['analyze', 'compare', 'export', 'lab', 'probe']) expect(r.stdout).toContain(c)
  })
})

describe('start-up loads only what the answer needs (a count of modules, not a time)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skewscan-startup-'))
  afterAll(() => rmSync(dir, {recursive: true, force: true}))

  /** What a run of the installed CLI printed, and the CommonJS modules it loaded (paths from the checkout). */
  function loaded(args: string[], env: Record<string, string> = {}): {status: number | null; stdout: string; modules: string[]} {
    const out = join(dir, 'modules.txt')
    rmSync(out, {force: true})
    const r = spawnSync(process.execPath, ['--require', join(ROOT, 'test', 'helpers', 'loaded-modules.js'), join(ROOT, 'bin', 'run.js'), ...args],
      {cwd: ROOT, encoding: 'utf8', timeout: 30_000, env: cliEnv({SKEWSCAN_LOADED_MODULES_OUT: out, ...env})})
    return {status: r.status, stdout: r.stdout, modules: readFileSync(out, 'utf8').split('\n').filter((f) => f !== '').map((f) => relative(ROOT, f))}
  }

  it('--version and -v load no oclif, only the launcher and package.json, and print what oclif prints', () => {
    const version = loaded(['--version'])
    expect(version.status).toBe(0)
    expect(version.modules).toEqual(['bin/run.js', 'package.json'])
    expect(loaded(['-v'])).toEqual(version)
    // oclif's own answer (the version command, through oclif): the same line.
    expect(runInstalled(['version']).stdout).toBe(version.stdout)
    expect(version.stdout).toMatch(/^skewscan\/\d+\.\d+\.\d+ \w+-\w+ node-v\d+\.\d+\.\d+\n$/)
  })

  it('help (a help flag, no arguments, the help command) loads the launcher, package.json and the help bundle only: no oclif, no module of skewscan, no worker', () => {
    // The bundle (dist/help/render.js, scripts/build-help.js) holds oclif's help classes; that it
    // prints oclif's bytes is test/integration/help-fast-path.test.ts's.
    for (const args of [['--help'], [], ['help', 'probe'], ['analyze', '--help'], ['analyze', 'access.log', '-h']]) {
      const help = loaded(args)
      expect(help.status).toBe(0)
      expect(help.stdout).toMatch(/^USAGE|\nUSAGE/)
      expect({args, modules: help.modules}).toEqual({args, modules: ['bin/run.js', 'package.json', 'dist/help/render.js']})
    }
  })

  it('an offline analyze loads oclif as one bundle, no Datadog client nor pull code, no date-fns (date math loads it, the first time it is used) and nothing of RUM (--rum does)', () => {
    const offline = loaded(['analyze', join(ROOT, 'fixtures', 'quiet', 'ingress.log'), '--json'])
    expect(offline.status).toBe(0)
    // oclif from dist/cli/oclif.js (scripts/build-oclif.js): no module of @oclif/core or its dependencies from node_modules.
    expect(offline.modules).toContain('dist/cli/oclif.js')
    const oclifPackages = /node_modules\/(@oclif|ansis|ejs|minimatch|picomatch|tinyglobby|fdir|lilconfig|debug|wrap-ansi|cli-spinners)\//
    expect(offline.modules.filter((f) => oclifPackages.test(f))).toEqual([])
    expect(offline.modules.filter((f) => /node_modules\/(@datadog|date-fns|@date-fns)\/|dist\/vendor\/|\/rum[-./]/.test(f))).toEqual([])
    // Nor the Datadog pull's own code: only its connection type's module (which masks secrets).
    expect(offline.modules.filter((f) => f.startsWith('dist/sources/datadog/'))).toEqual(['dist/sources/datadog/connection.js'])
    // The pattern names what a run with RUM does load: the reader, the join and RUM alone.
    const rum = loaded(['analyze', '--rum', join(ROOT, 'fixtures', 'rum', 'rr-3-excerpt.json'), '--json'])
    expect(rum.status).toBe(0)
    expect(rum.modules.filter((f) => /\/rum[-./]/.test(f))).toEqual(expect.arrayContaining(['dist/app/rum-run.js', 'dist/analysis/rum-alone.js', 'dist/sources/rum/rum-file.js']))
    // Calendar date math loads date-fns, and @date-fns/utc's getters and setters only (its full
    // UTCDate builds Intl formatters as it loads); the range is then refused (exit 2, no request).
    const math = loaded(['analyze', '--from', 'now-1M/d', '--to', 'now-2M', '--query', 'service:web'])
    expect(math.status).toBe(2)
    expect(math.modules.some((f) => f.includes('node_modules/date-fns/addMonths'))).toBe(true)
    expect(math.modules.filter((f) => f.includes('node_modules/@date-fns/'))).toEqual(['node_modules/@date-fns/utc/date/mini.cjs'])
  })

  it('help left to oclif (SKEWSCAN_HELP=oclif, as for an unknown command or a theme) loads oclif as one bundle, no module of skewscan, no worker', () => {
    // oclif and its help are one file (dist/cli/oclif.js, scripts/build-oclif.js), not the ~90
    // modules of @oclif/core and its dependencies; no command's modules (the six commands load some
    // 350) nor analyze's file reader (45).
    for (const args of [['--help'], ['analyze', 'access.log', '-h']]) {
      const help = loaded(args, {SKEWSCAN_HELP: 'oclif'})
      expect(help.status).toBe(0)
      expect(help.stdout).toMatch(/^USAGE|\nUSAGE/)
      expect(help.modules).toEqual(['bin/run.js', 'package.json', 'dist/cli/oclif.js'])
    }
  })
})
