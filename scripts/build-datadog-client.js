// Writes dist/vendor/ (run by `npm run build`): the parts of @datadog/datadog-api-client that
// src/sources/datadog/client.ts uses, bundled by esbuild, so that the installed package needs the
// client at build time only (a devDependency: 133 MB and 28,000 files less to install).
// - datadog-client.js: its logger, the common configuration, the v2 Logs, Events and RUM APIs
//   (RUM for `analyze --rum-query`). The client is some 6,000 modules (the v2 API's serialiser
//   requires every v2 model); loading them one by one took 1.3-1.7 CPU-seconds of every live
//   pull's start, the first bundle 0.5-0.9 (`node -e "require(...)"`, alternating, 2 cores).
// - datadog-events-v1.js: the v1 Events API and its logger, the rare fallback for deploy events (a
//   thousand models of its own), loaded only when it is used.
// - LICENSES.txt: the licence of every package the bundles copy, as their own files state it.
// The code is the client's own: the same version, the same modules in the same order (the logger
// first, as client.ts needs), with one change made as it is bundled (lazyModels): each serialiser
// knows only the models its bundle's APIs can reach (131 of v2's 6,201 types), and requires each
// when it first looks it up, not all of them at load. Evaluating every model took about half of
// the bundle's load (0.50-0.63 CPU-s against 0.28-0.33 with lazy models alone, `node -e
// "require('./dist/vendor/datadog-client.js')"`, alternating, 2 cores), parsing them most of the rest.
const {mkdirSync, readFileSync, readdirSync, writeFileSync} = require('node:fs')
const {join} = require('node:path')
const esbuild = require('esbuild')
const {bundledPackages, NODE_BUNDLE, packageNames} = require('./bundled-packages')

const root = join(__dirname, '..')
const out = join(root, 'dist', 'vendor')
const CLIENT = '@datadog/datadog-api-client/dist'
const BUNDLES = {
  'datadog-client.js': `exports.logger = require('${CLIENT}/logger.js').logger
exports.common = require('${CLIENT}/packages/datadog-api-client-common/index.js')
exports.LogsApi = require('${CLIENT}/packages/datadog-api-client-v2/apis/LogsApi.js').LogsApi
exports.EventsApi = require('${CLIENT}/packages/datadog-api-client-v2/apis/EventsApi.js').EventsApi
exports.RUMApi = require('${CLIENT}/packages/datadog-api-client-v2/apis/RUMApi.js').RUMApi
`,
  'datadog-events-v1.js': `exports.logger = require('${CLIENT}/logger.js').logger
exports.EventsApi = require('${CLIENT}/packages/datadog-api-client-v1/apis/EventsApi.js').EventsApi
`,
}

/**
 * The v1 and v2 serialisers (models/ObjectSerializer.js) open with a `const X_1 = require("./X");`
 * for every model and name each in a `typeMap` (`X: X_1.X,`), looked up by type name only
 * (`typeMap[type]`). lazyModels(apis) keeps the entries the bundle's APIs can reach and makes each a
 * getter that requires its model on first use; a bundled module's code runs when it is first
 * required, and a model no entry requires is not bundled at all. A serialiser of another shape
 * fails the build rather than bundling something half changed.
 *
 * What an API can reach: every type its file names (each method's request and response types),
 * then every type those name in turn (each model's attribute types, each oneOf's members), found
 * with the client's own models at build time. Deserialising walks exactly these, so no other
 * entry can be looked up: one missing would throw the serialiser's "unknown type", and
 * test/integration/datadog*.test.ts read every answer the pull asks for through the bundle.
 */
function lazyModels(apis) {
  return {
    name: 'lazy-models',
    setup(build) {
      build.onLoad({filter: /datadog-api-client-v[12][\\/]models[\\/]ObjectSerializer\.js$/}, (args) => {
        const modules = new Map()
        let src = readFileSync(args.path, 'utf8').replace(/^const (\w+)_1 = require\("(\.\/\w+)"\);\n/gm, (_, name, path) => {
          modules.set(name, path)
          return ''
        })
        const models = join(args.path, '..')
        const reach = reachable(models, src, apis.get(join(models, '..')) ?? [])
        let entries = 0
        let kept = 0
        src = src.replace(/^ {4}(\w+): (\w+)_1\.(\w+),?$/gm, (line, key, name, exported) => {
          if (!modules.has(name)) return line
          entries++
          if (!reach.has(key)) return ''
          kept++
          return `    get ${key}() { return require("${modules.get(name)}").${exported} },`
        })
        const left = [...src.matchAll(/\b(\w+)_1\./g)].filter((m) => modules.has(m[1]))
        if (modules.size < 100 || entries < modules.size || left.length > 0 || kept === 0) {
          throw new Error(`${args.path}: not the serialiser shape lazyModels knows (${modules.size} models, ${entries} entries, ${kept} kept, ${left.length} other uses)`)
        }
        return {contents: src, loader: 'js'}
      })
    },
  }
}

/** The type names the APIs (file names in `models`' package) reach: see lazyModels. */
function reachable(models, serializer, apis) {
  const types = new Set([...serializer.matchAll(/^ {4}(\w+): \w+_1\.\w+,?$/gm)].map((m) => m[1]))
  const oneOfAt = serializer.indexOf('const oneOfMap = {')
  const oneOf = new Map(oneOfAt === -1 ? [] : [...serializer.slice(oneOfAt, serializer.indexOf('\n};', oneOfAt)).matchAll(/^ {4}(\w+): \[([^\]]*)\]/gm)]
    .map((m) => [m[1], [...m[2].matchAll(/"([^"]+)"/g)].map((x) => x[1])]))
  const named = (text) => (text.match(/\w+/g) ?? []).filter((w) => types.has(w) || oneOf.has(w))
  const todo = apis.flatMap((api) => [...readFileSync(join(models, '..', 'apis', `${api}.js`), 'utf8').matchAll(/"([\w<>, ]+)"/g)].flatMap((m) => named(m[1])))
  if (todo.length === 0) throw new Error(`no type named by ${apis.join(', ')} in ${models}`)
  const seen = new Set()
  while (todo.length > 0) {
    const t = todo.pop()
    if (seen.has(t)) continue
    seen.add(t)
    for (const member of oneOf.get(t) ?? []) todo.push(...named(member))
    if (types.has(t)) for (const a of Object.values(require(join(models, t))[t].getAttributeTypeMap())) todo.push(...named(String(a.type)))
  }
  return seen
}

/** The APIs an entry requires, by package folder: `…/datadog-api-client-v2` → [LogsApi, …]. */
function apisOf(entry) {
  const apis = new Map()
  for (const [, pkg, api] of entry.matchAll(/\/packages\/(datadog-api-client-v[12])\/apis\/(\w+)\.js/g)) {
    const dir = join(root, 'node_modules', CLIENT, 'packages', pkg)
    apis.set(dir, [...(apis.get(dir) ?? []), api])
  }
  return apis
}

;(async () => {
  mkdirSync(out, {recursive: true})
  const packages = new Map()
  for (const [file, entry] of Object.entries(BUNDLES)) {
    const built = await esbuild.build({
      ...NODE_BUNDLE,
      stdin: {contents: entry, resolveDir: root, sourcefile: file.replace(/\.js$/, '-entry.js'), loader: 'js'},
      // Whitespace only: names and code stay the client's, for stack traces and reading.
      minifyWhitespace: true,
      plugins: [lazyModels(apisOf(entry))],
    })
    const copied = bundledPackages(built.metafile)
    for (const p of copied) packages.set(p.dir, p)
    const banner = `// Parts of the Datadog API client skewscan uses (scripts/build-datadog-client.js), bundled: ${packageNames(copied).join(', ')}. Their licences: LICENSES.txt.\n`
    writeFileSync(join(out, file), banner + built.outputFiles[0].text)
  }
  const sections = [...packages.values()].sort((a, b) => a.name.localeCompare(b.name)).map((p) => {
    const files = readdirSync(p.dir).filter((f) => /^(licen[cs]e|notice|copying)/i.test(f)).sort()
    const texts = files.map((f) => readFileSync(join(p.dir, f), 'utf8').trim())
    // A package without a licence file (tr46) is named with the licence its package.json gives.
    const body = texts.length > 0 ? texts.join('\n\n') : `Licensed under ${p.license} (its package.json; the package ships no licence file).`
    return `${'='.repeat(78)}\n${p.name}@${p.version} (${p.license})\n${'='.repeat(78)}\n\n${body}\n`
  })
  writeFileSync(join(out, 'LICENSES.txt'), `The files of dist/vendor/ copy the code of these packages, under these licences.\n\n${sections.join('\n')}`)
})().catch((error) => {
  process.stderr.write(`build-datadog-client: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
})
