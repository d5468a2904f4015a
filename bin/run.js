#!/usr/bin/env node
// The installed CLI. The command list comes from dist/oclif.manifest.json, written by the build next
// to the code it describes, so start-up loads only the command that runs (without it oclif requires
// every command module first). No manifest, or one of another version: oclif finds the commands itself.
const pjson = require('../package.json')
// `--version` (or `-v`) as the first argument: the line oclif prints (its user agent), without loading
// oclif, which costs more than node's own start. Where oclif would say `wsl`, it answers itself.
const versionFlags = ['--version', ...(pjson.oclif.additionalVersionFlags ?? [])]
const version = versionFlags.includes(process.argv[2]) ? userAgent() : undefined
if (version !== undefined) {
  // A reader gone already (`| true`) is no error, as for every other answer.
  process.stdout.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error
  })
  process.stdout.write(`${version}\n`)
}
// Help (`--help`, `-h`, no arguments, `help [COMMAND]`): oclif's own help classes, bundled at build
// time with what oclif's Config would give them (dist/help/, scripts/build-help.js), print the
// text without loading oclif, which costs more than node's own start. Where that cannot promise
// oclif's exact bytes (a theme, WSL, an unknown command, ...), it answers undefined and oclif
// answers as before. SKEWSCAN_HELP=oclif always leaves help to oclif (a test and debug switch:
// the tests compare both).
const helpAnswer = version === undefined && process.env.SKEWSCAN_HELP !== 'oclif' ? fastHelp(process.argv.slice(2)) : undefined
// `analyze` reads large files with worker threads: one boots on another core while oclif loads.
// Not for help: help reads no file.
if (version === undefined && process.argv[2] === 'analyze' && !helpAsked(process.argv.slice(3))) {
  try {
    require('../dist/sources/parallel/options').prestartFor(process.argv.slice(3))
  } catch {
    // no build: the run starts its workers itself
  }
}
if (version === undefined) (async () => {
  if (helpAnswer !== undefined && await helpAnswer) return
  const {join} = require('node:path')
  const {readFile} = require('node:fs/promises')
  const root = join(__dirname, '..')
  // oclif as the commands run on it: one bundled file (src/cli/oclif.ts, scripts/build-oclif.js).
  const bundle = join(root, 'dist', 'cli', 'oclif.js')
  if (!require('node:fs').existsSync(bundle)) {
    // A checkout installed without its scripts (npm ci --ignore-scripts): the commands are not built either.
    process.stderr.write('skewscan is not built (dist/ is missing): run `npm run build` in its folder\n')
    process.exitCode = 2
    return
  }
  const {Plugin, execute} = require(bundle)
  class Root extends Plugin {
    async _manifest() {
      try {
        const manifest = JSON.parse(await readFile(join(root, 'dist', 'oclif.manifest.json'), 'utf8'))
        if (manifest.version === this.version) {
          this.commandIDs = Object.keys(manifest.commands)
          this.hasManifest = true
          return manifest
        }
      } catch {
        // fall through: oclif builds the list from the command modules
      }
      return super._manifest()
    }
  }
  let loadOptions
  try {
    const plugin = new Root({isRoot: true, root})
    await plugin.load()
    const plugins = new Map([[plugin.name, plugin]])
    // Plugins given here replace oclif's own loading: the core plugins of package.json are loaded
    // the same way, each from its own manifest (oclif finds each one's folder from skewscan's).
    for (const name of plugin.pjson.oclif.plugins ?? []) {
      const core = new Plugin({root, name, type: 'core'})
      await core.load()
      plugins.set(core.name, core)
    }
    loadOptions = {root, plugins}
  } catch {
    loadOptions = undefined
  }
  // skewscan has no user-installed plugins: oclif never reads their list under HOME (an unreadable
  // HOME would add a warning to stderr), whichever way the commands are found.
  await execute({loadOptions: loadOptions ?? {root, userPlugins: false, devPlugins: false}})
})()

/**
 * What oclif prints for --version (its config.userAgent), or undefined where only oclif can say: on
 * Linux under Windows (WSL), which oclif names `wsl` (is-wsl's tests: the kernel's name, then the
 * files WSL provides; it answers linux again inside a container, which oclif finds out).
 */
function userAgent() {
  const {arch, platform, release} = require('node:os')
  const {existsSync, readFileSync} = require('node:fs')
  if (platform() === 'linux') {
    if (release().toLowerCase().includes('microsoft')) return undefined
    try {
      if (readFileSync('/proc/version', 'utf8').toLowerCase().includes('microsoft')) return undefined
    } catch {
      // no /proc: not WSL by its kernel's name
    }
    if (existsSync('/proc/sys/fs/binfmt_misc/WSLInterop') || existsSync('/run/WSL')) return undefined
  }
  return `${pjson.name}/${pjson.version} ${platform()}-${arch() === 'ia32' ? 'x86' : arch()} node-${process.version}`
}

/**
 * Writes oclif's help for `args` and resolves true, or resolves false where only oclif can say (no
 * build, or a case the fast path leaves to oclif); undefined when `args` asks for no help at all.
 */
function fastHelp(args) {
  if (args.length > 0 && !helpAsked(args) && args[0] !== 'help') return undefined
  return (async () => {
    const ua = userAgent()
    if (ua === undefined) return false
    let text
    try {
      const {join} = require('node:path')
      text = await require('../dist/help/render.js').renderHelp(args, {root: join(__dirname, '..'), pjson, userAgent: ua})
    } catch {
      return false
    }
    if (text === undefined) return false
    process.stdout.on('error', (error) => {
      if (error.code !== 'EPIPE') throw error
    })
    process.stdout.write(text)
    return true
  })()
}

/** Whether oclif will show help for these arguments: a help flag before `--` (oclif's own test). */
function helpAsked(args) {
  const flags = ['--help', ...(pjson.oclif.additionalHelpFlags ?? [])]
  for (const arg of args) {
    if (arg === '--') return false
    if (flags.includes(arg)) return true
  }
  return false
}
