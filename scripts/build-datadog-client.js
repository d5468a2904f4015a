// Writes dist/vendor/ (run by `npm run build`): the parts of @datadog/datadog-api-client that
// src/sources/datadog/client.ts uses, bundled by esbuild, so that the installed package needs the
// client at build time only (a devDependency: 133 MB and 28,000 files less to install).
// - datadog-client.js: its logger, the common configuration, the v2 Logs and Events APIs. The
//   client is some 6,000 modules (the v2 API's serialiser requires every v2 model); loading them
//   one by one took 1.3-1.7 CPU-seconds of every live pull's start, the bundle 0.5-0.9
//   (`node -e "require(...)"`, alternating, 2 cores).
// - datadog-events-v1.js: the v1 Events API and its logger, the rare fallback for deploy events (a
//   thousand models of its own), loaded only when it is used.
// - LICENSES.txt: the licence of every package the bundles copy, as their own files state it.
// The code is the client's own, unchanged: the same version, the same modules in the same order
// (the logger first, as client.ts needs).
const {existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync} = require('node:fs')
const {join} = require('node:path')
const esbuild = require('esbuild')

const root = join(__dirname, '..')
const out = join(root, 'dist', 'vendor')
const CLIENT = '@datadog/datadog-api-client/dist'
const BUNDLES = {
  'datadog-client.js': `exports.logger = require('${CLIENT}/logger.js').logger
exports.common = require('${CLIENT}/packages/datadog-api-client-common/index.js')
exports.LogsApi = require('${CLIENT}/packages/datadog-api-client-v2/apis/LogsApi.js').LogsApi
exports.EventsApi = require('${CLIENT}/packages/datadog-api-client-v2/apis/EventsApi.js').EventsApi
`,
  'datadog-events-v1.js': `exports.logger = require('${CLIENT}/logger.js').logger
exports.EventsApi = require('${CLIENT}/packages/datadog-api-client-v1/apis/EventsApi.js').EventsApi
`,
}

/** The packages a bundle copies: folder, name, version and licence of each. */
function packagesOf(metafile) {
  const found = new Map()
  for (const input of Object.keys(metafile.inputs)) {
    const at = input.lastIndexOf('node_modules/')
    if (at < 0) continue
    const parts = input.slice(at + 'node_modules/'.length).split('/')
    const name = parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]
    // Inputs are named relative to the working directory.
    const dir = join(process.cwd(), input.slice(0, at), 'node_modules', name)
    if (found.has(dir)) continue
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    found.set(dir, {dir, name: pkg.name, version: pkg.version, license: pkg.license})
  }
  return [...found.values()]
}

;(async () => {
  mkdirSync(out, {recursive: true})
  const packages = new Map()
  for (const [file, entry] of Object.entries(BUNDLES)) {
    const built = await esbuild.build({
      metafile: true,
      stdin: {contents: entry, resolveDir: root, sourcefile: file.replace(/\.js$/, '-entry.js'), loader: 'js'},
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      // Whitespace only: names and code stay the client's, for stack traces and reading.
      minifyWhitespace: true,
      legalComments: 'eof',
      write: false,
      logLevel: 'warning',
    })
    const copied = packagesOf(built.metafile)
    for (const p of copied) packages.set(p.dir, p)
    const names = copied.map((p) => `${p.name}@${p.version} (${p.license})`).sort()
    const banner = `// Parts of the Datadog API client skewscan uses (scripts/build-datadog-client.js), bundled: ${names.join(', ')}. Their licences: LICENSES.txt.\n`
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
  if (!existsSync(join(out, 'datadog-client.js'))) throw new Error('no bundle written')
})().catch((error) => {
  process.stderr.write(`build-datadog-client: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
})
