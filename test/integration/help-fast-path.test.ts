/**
 * Help without oclif (issue 26): bin/run.js answers `--help`, `-h`, no arguments, `help [COMMAND]` and
 * `COMMAND --help` from dist/help/ (oclif's help classes bundled at build time, fed the commands
 * oclif loaded then), and must print oclif's bytes. In process: every command and the root, each way
 * of asking, at 40, 80, 100 and 120 columns, against oclif's own Help on oclif's own Config (loaded
 * as bin/run.js loads it). Through the CLI, a few runs each way (SKEWSCAN_HELP=oclif forces oclif's
 * path): the launcher's wiring, the width of a pipe, OCLIF_COLUMNS and colours, and what it leaves
 * to oclif.
 */
import {spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {format} from 'node:util'
import {Config, Help, Plugin} from '@oclif/core'
import {cliEnv, ROOT} from '../helpers/cli'

type RenderHelp = (argv: string[], context: {root: string; pjson: unknown; userAgent: string | undefined; maxWidth?: number}) => Promise<string | undefined>
// eslint-disable-next-line @typescript-eslint/no-require-imports
const {renderHelp} = require(join(ROOT, 'dist', 'help', 'render.js')) as {renderHelp: RenderHelp}
const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {version: string}

let config: Config
beforeAll(async () => {
  // As bin/run.js loads oclif: skewscan's commands from dist/oclif.manifest.json, the core plugins
  // from theirs; outside the test environment (NODE_ENV=test would point oclif at src/).
  const nodeEnv = process.env.NODE_ENV
  delete process.env.NODE_ENV
  try {
    const root = new Plugin({isRoot: true, root: ROOT})
    // bin/run.js's Root plugin (its _manifest, private in oclif's types, reads dist/'s manifest).
    const manifest = JSON.parse(readFileSync(join(ROOT, 'dist', 'oclif.manifest.json'), 'utf8')) as {version: string; commands: object}
    expect(manifest.version).toBe(pjson.version)
    Object.assign(root, {
      async _manifest() {
        Object.assign(root, {commandIDs: Object.keys(manifest.commands), hasManifest: true})
        return manifest
      },
    })
    await root.load()
    const plugins = new Map<string, Plugin>([[root.name, root]])
    for (const name of root.pjson.oclif.plugins ?? []) {
      const core = new Plugin({root: ROOT, name, type: 'core'})
      await core.load()
      plugins.set(core.name, core)
    }
    config = await Config.load({root: ROOT, plugins})
  } finally {
    process.env.NODE_ENV = nodeEnv
  }
})

/** What oclif prints for `argv`: its main's help (a help flag, or nothing) or plugin-help's `help` command. */
async function oclifHelp(argv: string[], maxWidth: number): Promise<string> {
  const lines: string[] = []
  const log = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(`${format(...args)}\n`))
  try {
    const helpCommand = argv[0] === 'help' && !argv.some((a) => a === '--help' || a === '-h')
    // Help mutates the commands it formats (ids with spaces): each run gets oclif's config as loaded.
    await new Help(config, helpCommand ? {all: undefined, maxWidth} : {maxWidth}).showHelp(helpCommand ? argv.slice(1) : argv)
  } finally {
    log.mockRestore()
  }
  return lines.join('')
}

const fastHelp = (argv: string[], maxWidth?: number) => renderHelp(argv, {root: ROOT, pjson, userAgent: config.userAgent, maxWidth})

describe('the help fast path prints what oclif prints', () => {
  it('for the root and every command, every way of asking, at 40, 80, 100 and 120 columns', async () => {
    const ids = config.commands.map((c) => c.id)
    expect(ids).toEqual(expect.arrayContaining(['analyze', 'compare', 'export', 'lab', 'parse', 'probe', 'autocomplete', 'help', 'version']))
    const asks: string[][] = [[], ['--help'], ['-h'], ['help'], ['analyze', 'access.log', '-h'], ['--json', '--help']]
    for (const id of ids) {
      const words = id.split(':')
      asks.push([...words, '--help'], [...words, '-h'], ['help', ...words])
    }
    const widths = [40, 80, 100, 120]
    const byWidth = new Map<number, string>()
    for (const width of widths) {
      for (const argv of asks) {
        // The config's commands are shared: oclif's help of one ask must not be changed by another's.
        const fast = await fastHelp(argv, width)
        const oclif = await oclifHelp(argv, width)
        expect({argv, width, fast}).toEqual({argv, width, fast: oclif})
        if (argv.join(' ') === 'analyze --help') byWidth.set(width, oclif)
      }
    }
    // The width is honoured: the narrower, the more lines.
    const lines = widths.map((w) => (byWidth.get(w) ?? '').split('\n').length)
    expect(lines).toEqual([...lines].sort((a, b) => b - a))
    expect(new Set(lines).size).toBe(widths.length)
  })

  it('leaves to oclif what it cannot promise: an unknown command, a topic-like word, a flag of help, a theme, debug output', async () => {
    for (const argv of [['nosuch', '--help'], ['help', 'nosuch'], ['help', '-n'], ['help', 'analyze', '--', 'x'], ['version', 'extra', '--help'], ['analyze'], ['--version']]) {
      expect({argv, fast: await fastHelp(argv, 80)}).toEqual({argv, fast: undefined})
    }
    expect(await fastHelp(['--help'], 80)).toContain('USAGE')
    // WSL: bin/run.js has no user agent to give (oclif says `wsl`).
    expect(await renderHelp(['--help'], {root: ROOT, pjson, userAgent: undefined})).toBeUndefined()
    const home = mkdtempSync(join(tmpdir(), 'skewscan-theme-'))
    const saved = {XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, DEBUG: process.env.DEBUG}
    try {
      mkdirSync(join(home, 'skewscan'))
      writeFileSync(join(home, 'skewscan', 'theme.json'), '{"sectionHeader": "red"}\n')
      process.env.XDG_CONFIG_HOME = home
      expect(await fastHelp(['--help'], 80)).toBeUndefined()
      process.env.XDG_CONFIG_HOME = saved.XDG_CONFIG_HOME ?? join(home, 'none')
      process.env.DEBUG = '*'
      expect(await fastHelp(['--help'], 80)).toBeUndefined()
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k]
        else process.env[k] = v
      }
      rmSync(home, {recursive: true, force: true})
    }
  })

  describe('through the CLI, against SKEWSCAN_HELP=oclif', () => {
    function both(args: string[], env: Record<string, string> = {}) {
      const run = (extra: Record<string, string>) => {
        const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'run.js'), ...args], {cwd: ROOT, encoding: 'utf8', timeout: 30_000, env: cliEnv({OCLIF_COLUMNS: undefined, ...env, ...extra})})
        return {status: r.status, stdout: r.stdout, stderr: r.stderr}
      }
      return {fast: run({}), oclif: run({SKEWSCAN_HELP: 'oclif'})}
    }

    it('the help command into a pipe (80 columns): the same bytes, exit 0, nothing on stderr', async () => {
      const {fast, oclif} = both(['help', 'compare'])
      expect(fast).toEqual(oclif)
      expect(fast.status).toBe(0)
      expect(fast.stderr).toBe('')
      expect(fast.stdout).toBe(await oclifHelp(['help', 'compare'], 80))
    })

    it('a help flag after arguments, OCLIF_COLUMNS and colours: the same bytes', () => {
      const {fast, oclif} = both(['analyze', 'access.log', '-h'], {OCLIF_COLUMNS: '57', FORCE_COLOR: '1'})
      expect(fast).toEqual(oclif)
      expect(fast.status).toBe(0)
      expect(fast.stdout).toContain('\u001b[1mUSAGE')
    })

    it('an unknown command goes to oclif: the same error and exit code', () => {
      const {fast, oclif} = both(['help', 'nosuch'])
      expect(fast).toEqual(oclif)
      expect(fast.status).not.toBe(0)
      expect(fast.stderr).toContain('nosuch')
    })
  })
})
