// The help fast path of bin/run.js (issue 26), bundled by scripts/build-help.js into
// dist/help/render.js together with oclif's own help classes (@oclif/core's Help, CommandHelp,
// RootHelp and what they import: ejs, wrap-ansi, string-width, ansis, supports-color). The text is
// oclif's, written by oclif's code: this file only gives it what oclif's Config would (the commands
// and topics oclif loaded when the build wrote dist/help/commands.json), and answers only where that
// is all oclif would use. Everything else (`undefined`) goes to oclif as before.
const {existsSync, readFileSync} = require('node:fs')
const {homedir, platform, tmpdir} = require('node:os')
const {join} = require('node:path')
const {format} = require('node:util')
const {Help, getHelpFlagAdditions} = require('@oclif/core/lib/help/index.js')
// The ejs oclif's help renders every string with (scripts/build-help.js resolves it from there).
const ejs = require('ejs')

// oclif's help passes each string through ejs.render(text, helper) two or three times, and ejs
// compiles a new function each time: half the time of a command's help. A text with no delimiter
// of ejs's (`<%` opens a tag, `%>` closes one, and is dropped even alone) renders as itself (held
// for any text by test/unit/scripts/help-renderer.test.ts); any other is compiled once, as
// ejs.render would compile it (no options, none taken from the data), and called with the data.
const ejsRender = ejs.render
const OPTIONS_FROM_DATA = ['delimiter', 'scope', 'context', 'debug', 'compileDebug', '_with', 'rmWhitespace', 'strict', 'filename', 'async']
const compiled = new Map()
ejs.render = function render(template, data, ...rest) {
  if (rest.length > 0 || typeof template !== 'string' || data === null || typeof data !== 'object' || OPTIONS_FROM_DATA.some((k) => k in data)) {
    return ejsRender.call(this, template, data, ...rest)
  }
  if (!template.includes('<%') && !template.includes('%>')) return template
  let fn = compiled.get(template)
  if (fn === undefined) compiled.set(template, (fn = ejs.compile(template, Object.create(null))))
  return fn(data)
}

/**
 * The help oclif would print for `argv` (the arguments after the program), or undefined where this
 * path cannot promise oclif's exact bytes: then bin/run.js hands the run to oclif.
 * @param {string[]} argv
 * @param {{root: string, pjson: any, userAgent: string | undefined, maxWidth?: number}} context
 * @returns {Promise<string | undefined>}
 */
async function renderHelp(argv, {root, pjson, userAgent, maxWidth}) {
  if (userAgent === undefined || !plainOclif(root, pjson)) return undefined
  const data = commandsAsBuilt(root, pjson)
  if (data === undefined) return undefined
  const config = helpConfig(pjson, userAgent, data)
  const request = helpRequest(argv, config)
  if (request === undefined) return undefined
  const subject = helpSubject(request.argv, config)
  if (subject !== undefined) {
    const command = config.findCommand(subject)
    // A topic, an unknown command (oclif's error), help a command computes at run time, a state
    // or deprecation notice: oclif's own path.
    if (command === undefined || command.hasDynamicHelp || command.state || command.deprecateAliases) return undefined
    if (config.plugins.get(command.pluginName)?.pjson.oclif.state) return undefined
  }
  const lines = []
  class CapturedHelp extends Help {
    // Help.log hands its arguments to oclif's ux.stdout, which prints format(...args) through console.log.
    log(...args) {
      lines.push(`${format(...args)}\n`)
    }
  }
  const opts = {...request.opts, ...(maxWidth === undefined ? {} : {maxWidth})}
  await new CapturedHelp(config, opts).showHelp(request.argv)
  return lines.join('')
}

/** No setting that changes oclif's help or what it prints around it (theme, help class, debug output). */
function plainOclif(root, pjson) {
  const oclif = pjson.oclif ?? {}
  if (oclif.helpClass || oclif.helpOptions || pjson.helpOptions || oclif.theme || oclif.state || oclif.flexibleTaxonomy) return false
  if (typeof oclif.commands !== 'string') return false
  // Windows: examples' line continuation depends on the shell oclif detects.
  if (platform() === 'win32') return false
  const env = process.env
  const scoped = (key) => env[`${oclif.bin.replaceAll('@', '').replaceAll(/[/-]/g, '_')}_${key}`.toUpperCase()]
  if (env.DEBUG || scoped('DEBUG') || env.OCLIF_PERFORMANCE) return false
  // A user's theme file (oclif's config.configDir/theme.json) colours the help.
  const home = env.HOME || homedir() || tmpdir()
  const configDir = scoped('CONFIG_DIR') || join(env.XDG_CONFIG_HOME || join(home, '.config'), oclif.dirname || pjson.name)
  return !existsSync(join(configDir, 'theme.json'))
}

/** dist/help/commands.json when it describes this version of skewscan and of each plugin installed. */
function commandsAsBuilt(root, pjson) {
  let data
  try {
    data = JSON.parse(readFileSync(join(root, 'dist', 'help', 'commands.json'), 'utf8'))
  } catch {
    return undefined
  }
  if (data.version !== pjson.version) return undefined
  for (const [name, plugin] of Object.entries(data.plugins)) {
    if (name !== pjson.name && installedVersion(root, name) !== plugin.version) return undefined
  }
  return data
}

/** The version of the package `name` that node would load from `root`, or undefined. */
function installedVersion(root, name) {
  for (let dir = root; ; ) {
    try {
      return JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')).version
    } catch {
      const parent = join(dir, '..')
      if (parent === dir) return undefined
      dir = parent
    }
  }
}

/** What oclif's help reads of its Config, from the commands and topics oclif loaded at build time. */
function helpConfig(pjson, userAgent, data) {
  const commands = new Map(data.commands.map((c) => [c.id, c]))
  const topics = new Map(data.topics.map((t) => [t.name, t]))
  return {
    bin: pjson.oclif.bin,
    commandIDs: [...commands.keys()],
    commands: [...commands.values()],
    findCommand: (id) => commands.get(id),
    findTopic: (name) => topics.get(name),
    isSingleCommandCLI: false,
    name: pjson.name,
    pjson,
    platform: platform(),
    plugins: new Map(Object.entries(data.plugins).map(([name, p]) => [name, {pjson: {oclif: {state: p.state}}}])),
    topics: [...topics.values()],
    topicSeparator: pjson.oclif.topicSeparator ?? ':',
    userAgent,
    version: pjson.version,
  }
}

/**
 * Whether oclif answers `argv` with its help, and how: a help flag before `--` or no argument at
 * all (oclif's main), or the help command with only command names after it (plugin-help's, whose
 * one flag this path leaves to oclif). Anything else: undefined.
 */
function helpRequest(argv, config) {
  if (argv.length === 0) return {argv, opts: {}}
  const flags = getHelpFlagAdditions(config)
  for (const arg of argv) {
    if (arg === '--') break
    if (flags.includes(arg)) return {argv, opts: {}}
  }
  if (argv[0] === 'help' && argv.slice(1).every((arg) => !arg.startsWith('-'))) return {argv: argv.slice(1), opts: {all: undefined}}
  return undefined
}

/**
 * The command whose help oclif's Help.showHelp shows for `argv`, undefined for the root's: its steps
 * (help flags out, the words of a spaced command id joined, the first word that is no flag) for
 * skewscan's commands, whose ids are one or two words.
 */
function helpSubject(argv, config) {
  const flags = getHelpFlagAdditions(config)
  let args = argv.filter((arg) => !flags.includes(arg))
  if (args.length > 1) {
    const usable = new Set(config.commandIDs.flatMap((id) => id.split(':').map((_, i, a) => a.slice(0, i + 1).join(':'))))
    const words = []
    const hasArgs = () => {
      const command = config.findCommand(words.join(':'))
      return Boolean(command && (command.strict === false || Object.keys(command.args ?? {}).length > 0))
    }
    for (const arg of args) {
      if (usable.has([...words, arg].join(':'))) words.push(arg)
      else if (arg.includes('=') || arg.startsWith('-') || (words.length > 0 && hasArgs())) break
      else words.push(arg)
    }
    if (words.length > 0) args = [words.join(':'), ...args.slice(words.length)]
  }
  for (const arg of args) {
    if (arg === '--') return undefined
    if (flags.includes(arg) || arg === 'help') continue
    if (arg.startsWith('-')) return undefined
    return arg
  }
  return undefined
}

module.exports = {renderHelp, ejs}
