// Writes dist/vendor/datadog-client.js (run by `npm run build`): the parts of
// @datadog/datadog-api-client that src/sources/datadog/client.ts uses (its logger, the common
// configuration, the v2 Logs and Events APIs) bundled by esbuild into one file. The client is some
// 6,000 modules (the v2 API's serialiser requires every v2 model); loading them one by one took
// 1.3-1.7 CPU-seconds of every live pull's start, the bundle 0.5-0.9 (`node -e "require(...)"`,
// alternating, 2 cores). The code is the client's own, unchanged: the same version, the same
// modules in the same order (the logger first, as client.ts needs). The v1 Events API, a rare
// fallback, is not in it: client.ts loads it from the package.
const {mkdirSync, readFileSync, writeFileSync} = require('node:fs')
const {join} = require('node:path')
const esbuild = require('esbuild')

const root = join(__dirname, '..')
const out = join(root, 'dist', 'vendor')
const CLIENT = '@datadog/datadog-api-client/dist'
const entry = `exports.logger = require('${CLIENT}/logger.js').logger
exports.common = require('${CLIENT}/packages/datadog-api-client-common/index.js')
exports.LogsApi = require('${CLIENT}/packages/datadog-api-client-v2/apis/LogsApi.js').LogsApi
exports.EventsApi = require('${CLIENT}/packages/datadog-api-client-v2/apis/EventsApi.js').EventsApi
`

;(async () => {
  mkdirSync(out, {recursive: true})
  const built = await esbuild.build({
    metafile: true,
    stdin: {contents: entry, resolveDir: root, sourcefile: 'datadog-client-entry.js', loader: 'js'},
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
  // Which packages the bundle copies, each under its own licence (they are dependencies of
  // skewscan, installed beside it with their licences).
  const packages = new Set()
  for (const input of Object.keys(built.metafile.inputs)) {
    const at = input.lastIndexOf('node_modules/')
    if (at < 0) continue
    const parts = input.slice(at + 'node_modules/'.length).split('/')
    const name = parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]
    // Inputs are named relative to the working directory.
    const pkg = JSON.parse(readFileSync(join(process.cwd(), input.slice(0, at), 'node_modules', name, 'package.json'), 'utf8'))
    packages.add(`${pkg.name}@${pkg.version} (${pkg.license})`)
  }
  const banner = `// The parts of the Datadog API client skewscan uses (scripts/build-datadog-client.js), bundled: ${[...packages].sort().join(', ')}.\n`
  writeFileSync(join(out, 'datadog-client.js'), banner + built.outputFiles[0].text)
})().catch((error) => {
  process.stderr.write(`build-datadog-client: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
})
