/**
 * What a user installs: `npm pack`, the tarball installed into a prefix of its own (no link to this
 * checkout), and the `skewscan` that install puts on the PATH: help, an analysis of a real capture,
 * a live pull from a Datadog API with the client bundled (none installed), and the exit codes. And
 * the command reference in docs/, which oclif generates from the commands.
 */
import {spawnSync} from 'node:child_process'
import {cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, relative} from 'node:path'
import {cliEnv, ROOT} from '../helpers/cli'
import {FakeDatadog, faults} from '../helpers/fake-datadog'
import {runCliAsync} from '../helpers/fake-datadog-cli'
import {API_KEY, APP_KEY, withoutInput} from '../helpers/fake-datadog-live'

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
// As a user's shell has it: not jest's NODE_ENV=test (oclif would look for the TypeScript sources).
const env = cliEnv({npm_config_audit: 'false', npm_config_fund: 'false'})
const work = mkdtempSync(join(tmpdir(), 'skewscan-pack-'))
afterAll(() => rmSync(work, {recursive: true, force: true}))

function run(cmd: string, args: string[], opts: {cwd?: string; timeout?: number; env?: Record<string, string>} = {}): {status: number | null; stdout: string; stderr: string} {
  const r = spawnSync(cmd, args, {cwd: opts.cwd ?? ROOT, env: {...env, ...opts.env}, encoding: 'utf8', timeout: opts.timeout ?? 120_000})
  return {status: r.status, stdout: r.stdout, stderr: r.stderr}
}

describe('the packed CLI, installed as a user installs it', () => {
  let skewscan: string
  /** The files of the tarball, as paths inside the package. */
  let tarballFiles: string[]
  /** Where npm installed the package. */
  let installedRoot: string
  beforeAll(() => {
    // npm pack runs prepack and prepare, which build dist/ unless it is a build of the sources as they are (its
    // stamp, scripts/sources-stamp.js): in a copy of the checkout, with the dist/ the tests run
    // (test/global-setup.ts made it fresh), so the copy packs it as it is; the stamp test below
    // holds that a stale dist/ would be rebuilt.
    const checkout = join(work, 'checkout')
    const skip = new Set(['node_modules', '.git', 'coverage', join('bench', 'out')])
    cpSync(ROOT, checkout, {recursive: true, filter: (from) => !skip.has(relative(ROOT, from))})
    symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'), 'dir')
    const packed = run(npm, ['pack', '--pack-destination', work, '--silent'], {cwd: checkout, timeout: 300_000})
    expect(packed.stderr.replace(/npm warn.*\n?/gi, '')).not.toMatch(/ERR!/)
    expect(packed.status).toBe(0)
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'))
    expect(tarball).toBeDefined()
    const prefix = join(work, 'prefix')
    // From npm's cache where it can (the checkout's `npm ci` filled it), the registry otherwise.
    const installed = run(npm, ['install', '--prefix', prefix, join(work, tarball as string), '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], {timeout: 300_000})
    expect([installed.status, installed.stderr.match(/ERR!.*/g)]).toEqual([0, null])
    skewscan = join(prefix, 'node_modules', '.bin', 'skewscan')
    installedRoot = join(prefix, 'node_modules', 'skewscan')
    const listed = run('tar', ['-tzf', join(work, tarball as string)])
    expect(listed.status).toBe(0)
    tarballFiles = listed.stdout.split('\n').filter((f) => f !== '').map((f) => f.replace(/^package\//, ''))
  }, 660_000)

  it('ships the MIT licence package.json names, and no source maps (they would point at src/, which is not shipped)', () => {
    expect(tarballFiles).toContain('dist/commands/analyze.js')
    expect(tarballFiles).toContain('LICENSE')
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).license).toBe('MIT')
    expect(readFileSync(join(installedRoot, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} skewscan contributors\n[^]*THE SOFTWARE IS PROVIDED "AS IS"/)
    expect(tarballFiles.filter((f) => f.endsWith('.map'))).toEqual([])
    expect(tarballFiles.filter((f) => /sourceMappingURL/.test(f.endsWith('.js') ? readFileSync(join(installedRoot, f), 'utf8') : ''))).toEqual([])
  })

  it('help examples name no path of the checkout the package leaves out (fixtures/, test/...): an installed user would get exit 2', () => {
    // Folders and files of the checkout that are not in the tarball.
    const shipped = new Set(tarballFiles.map((f) => f.split('/')[0]))
    const unshipped = readdirSync(ROOT).filter((name) => !shipped.has(name) && !name.startsWith('.'))
    expect(unshipped).toEqual(expect.arrayContaining(['fixtures', 'src', 'test']))
    const manifest = JSON.parse(readFileSync(join(installedRoot, 'dist', 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, {examples?: string[]}>}
    const examples = Object.entries(manifest.commands).flatMap(([id, c]) => (c.examples ?? []).map((e) => ({id, e})))
    expect(examples.length).toBeGreaterThan(10)
    const naming = examples.filter(({e}) => e.split(/[\s=,]+/).some((word) => unshipped.some((name) => word.replace(/^["']/, '') === name || word.replace(/^["']/, '').startsWith(`${name}/`))))
    expect(naming).toEqual([])
  })

  it('answers --help, -h, --version and help COMMAND', () => {
    const help = run(skewscan, ['--help'])
    expect(help.status).toBe(0)
    for (const c of ['analyze', 'compare', 'export', 'probe', 'lab', 'autocomplete', 'help', 'version']) expect(help.stdout).toContain(c)
    expect(run(skewscan, ['-h']).stdout).toBe(help.stdout)
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string
    expect(run(skewscan, ['--version']).stdout).toContain(`skewscan/${version}`)
    expect(run(skewscan, ['-v']).stdout).toContain(`skewscan/${version}`)
    expect(run(skewscan, ['help', 'analyze']).stdout).toMatch(/USAGE\s+\$ skewscan analyze/)
  })

  it('analyses a real capture (gzip) and exits 0; exits 1 on --fail-on, 2 on a missing file and on an unknown command', () => {
    const capture = join(ROOT, 'fixtures', 'captures', 'rr-3', 'nginx.jsonl.gz')
    const ok = run(skewscan, ['analyze', capture])
    expect([ok.status, ok.stderr]).toEqual([0, ''])
    expect(ok.stdout).toMatch(/^16 users hit failed assets: 11 page loads of 90 crashed/)
    const json = run(skewscan, ['analyze', capture, '--json'])
    expect(JSON.parse(json.stdout)).toMatchObject({schemaVersion: 3, totals: {affectedUsers: 16, brokenPageLoads: 11}})
    const gated = run(skewscan, ['analyze', capture, '--fail-on', 'affected-users>10'])
    expect(gated.status).toBe(1)
    expect(gated.stderr).toMatch(/--fail-on: affected-users>10 \(measured 16\)/)
    const missing = run(skewscan, ['analyze', join(work, 'nope.log')])
    expect(missing.status).toBe(2)
    expect(missing.stderr).toMatch(/nope\.log/)
    const typo = run(skewscan, ['analyse', capture])
    expect(typo.status).toBe(2)
    expect(typo.stderr).toBe(' ›   Error: Unknown command: analyse. Did you mean analyze? (see: skewscan --help)\n')
    const flag = run(skewscan, ['analyze', capture, '--deploy', 'x'])
    expect(flag.status).toBe(2)
    expect(flag.stderr).toMatch(/Nonexistent flag: --deploy\. Did you mean --deploys\?/)
    expect(flag.stderr).not.toMatch(/USAGE/)
  })

  it('pulls from a Datadog API with the client the build bundled (none is installed), the v1 events fallback included', async () => {
    // The client is a devDependency: its code ships in dist/vendor/, with the licences of what it copies.
    expect(readdirSync(join(installedRoot, '..'))).not.toContain('@datadog')
    expect(tarballFiles).toEqual(expect.arrayContaining(['dist/vendor/datadog-client.js', 'dist/vendor/datadog-events-v1.js', 'dist/vendor/LICENSES.txt']))
    expect(readFileSync(join(installedRoot, 'dist', 'vendor', 'LICENSES.txt'), 'utf8')).toMatch(/@datadog\/datadog-api-client@[\d.]+ \(Apache-2\.0\)\n=+\n\n\s*Apache License\n\s*Version 2\.0/)
    const fixture = join(ROOT, 'fixtures', 'two-deploys')
    const fake = await FakeDatadog.start({...FakeDatadog.fixture(ROOT, 'two-deploys'), apiKey: API_KEY, appKey: APP_KEY})
    try {
      // Deploy events from the v1 list: the v2 search answers 500.
      fake.inject({endpoint: 'events-search', fault: faults.status(500), times: Infinity})
      const live = await runCliAsync(['analyze', '--from', '2026-11-29T13:55:00Z', '--to', '2026-11-29T14:45:00Z', '--query', 'service:ingress-nginx',
        '--deploy-query', 'source:(kubernetes OR deployment)', '--api-url', fake.url, '--json', '--retry-base', '10ms', '--max-attempts', '1'],
      {bin: skewscan, env: {DD_API_KEY: API_KEY, DD_APP_KEY: APP_KEY}})
      expect([live.status, live.stderr]).toEqual([0, expect.stringMatching(/^Datadog: pulled/m)])
      const file = run(skewscan, ['analyze', join(fixture, 'dd-events.ndjson'), '--deploys', join(fixture, 'deploy-events-v2.json'), '--json'])
      expect(file.status).toBe(0)
      expect(withoutInput(JSON.parse(live.stdout))).toEqual(withoutInput(JSON.parse(file.stdout)))
      expect(JSON.parse(live.stdout).input.datadog.deployEvents).toMatchObject({api: 'v1'})
      expect(fake.requestsTo('events-v1').length).toBeGreaterThan(0)
    } finally {
      await fake.close()
    }
  })
})

describe('the command reference', () => {
  it('docs/commands.md is what oclif generates from the commands now (npm run docs)', () => {
    // From dist/, which test/global-setup.ts builds from the sources whenever they changed (so it is
    // what `npm run docs`, in development mode, reads from src/, without compiling the TypeScript
    // again); help is laid out for 120 columns.
    const r = run(join(ROOT, 'node_modules', '.bin', 'oclif'), ['readme', '--readme-path', 'docs/commands.md', '--no-aliases', '--no-source-links', '--dry-run'],
      {timeout: 120_000, env: {COLUMNS: '120'}})
    expect(r.status).toBe(0)
    const generated = r.stdout.replace(/^replacing .*\n/, '').trimEnd()
    expect(generated).toBe(readFileSync(join(ROOT, 'docs', 'commands.md'), 'utf8').trimEnd())
  }, 120_000)
})
