// Writes dist/help/ (run by `npm run build`, after build-manifest.js): the help fast path of
// bin/run.js (issue 26: `--help` at most 2x a bare `node -e 0`).
// - render.js: scripts/help-renderer.js bundled by esbuild with oclif's own help classes, so help
//   loads one file instead of @oclif/core's ~100 modules (its Config, plugins, parser, ux), and
//   prints oclif's text because oclif's code writes it. Three of help/index.js's imports are left
//   out (calling them throws): two serve only `loadHelpClass` (a help class named in package.json,
//   which the fast path leaves to oclif), and ux (spinners, prompts) only Help.log, which the fast
//   path's Help replaces with a capture of the same text.
// - commands.json: the commands and topics oclif's Config holds for skewscan and its plugins, as
//   oclif loads them now (from dist/ and the plugins' manifests), and the versions they came from.
delete process.env.NODE_ENV
const {mkdirSync, writeFileSync} = require('node:fs')
const {dirname, join} = require('node:path')
const esbuild = require('esbuild')
const {bundledPackages, NODE_BUNDLE, packageNames} = require('./bundled-packages')
const {Config} = require('@oclif/core')

const root = join(__dirname, '..')
const out = join(root, 'dist', 'help')
// @oclif/core's files by path: its package exports do not list them.
const oclifLib = dirname(require.resolve('@oclif/core'))

/** The templates oclif's help may meet, and what the fast path's config gives them. */
const TEMPLATE = /<%[-=_]?\s*([\s\S]*?)\s*[-_]?%>/g
const TEMPLATES_KNOWN = new Set(['config.bin', 'command.id'])

;(async () => {
  mkdirSync(out, {recursive: true})
  const config = await Config.load(root)
  const plugins = Object.fromEntries([...config.plugins.values()].map((p) => [p.name, {version: p.version, state: p.pjson.oclif?.state}]))
  const data = {version: config.version, plugins, commands: config.commands, topics: config.topics}
  const text = JSON.stringify(data)
  for (const [, expression] of text.matchAll(TEMPLATE)) {
    if (!TEMPLATES_KNOWN.has(expression)) throw new Error(`help text uses <%= ${expression} %>: give it to helpConfig in scripts/help-renderer.js, then add it here`)
  }
  writeFileSync(join(out, 'commands.json'), `${text}\n`)
  const built = await esbuild.build({
    ...NODE_BUNDLE,
    entryPoints: [join(__dirname, 'help-renderer.js')],
    outfile: join(out, 'render.js'),
    minify: process.env.HELP_MINIFY !== "0",
    plugins: [{
      name: 'oclif-help',
      setup(build) {
        build.onResolve({filter: /^@oclif\/core\/lib\//}, (args) => ({path: join(oclifLib, args.path.slice('@oclif/core/lib/'.length))}))
        // help-renderer.js's ejs is the one oclif's help renders with.
        build.onResolve({filter: /^ejs$/}, (args) => (args.importer.endsWith(join('scripts', 'help-renderer.js'))
          ? build.resolve('ejs', {kind: 'require-call', resolveDir: join(oclifLib, 'help')})
          : undefined))
        build.onResolve({filter: /^\.\.\/(module-loader|config\/ts-path|ux)$/}, (args) => (args.importer === join(oclifLib, 'help', 'index.js')
          ? {path: args.path, namespace: 'left-out'}
          : undefined))
        build.onLoad({filter: /.*/, namespace: 'left-out'}, (args) => ({
          loader: 'js',
          contents: `const leftOut = () => { throw new Error(${JSON.stringify(`${args.path} is not in the help bundle: a configured help class goes to oclif`)}) }
module.exports = {load: leftOut, loadWithData: leftOut, loadWithDataFromManifest: leftOut, tsPath: leftOut, ux: {stdout: leftOut, stderr: leftOut}}`,
        }))
      },
    }],
  })
  // Which packages the bundle copies, each under its own licence (shipped with it: they are
  // dependencies of @oclif/core, installed beside skewscan).
  const banner = `// skewscan's help fast path (scripts/help-renderer.js), bundled with: ${packageNames(bundledPackages(built.metafile)).join(', ')}.\n`
  writeFileSync(join(out, 'render.js'), banner + built.outputFiles[0].text)
})().catch((error) => {
  process.stderr.write(`build-help: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
})
