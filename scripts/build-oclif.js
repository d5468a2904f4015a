// Replaces dist/cli/oclif.js (run by `npm run build`, after tsc and before build-manifest.js) with a
// bundle of it made by esbuild: tsc's output of src/cli/oclif.ts, the parts of @oclif/core skewscan
// runs on (its args, command, config, errors, execute and flags), with every module they require.
// Requiring the parts one by one (@oclif/core's ~60 modules and the ~30 of its dependencies) cost
// about 100 ms of CPU, much of it node resolving each `require`; the bundle about 45 ms (`node -e
// "require(...)"` less a bare `node -e 0`, 20 runs each, 2 cores). The code is oclif's own, as
// installed: the same version, unminified.
// Left out (required only where a run never goes, and then from the installed packages):
// typescript, ts-node and tsx, which oclif loads to run a plugin's TypeScript sources in
// development. The packages bundled stay dependencies of @oclif/core, installed beside skewscan
// with their licences: the core plugins run on them.
const {readFileSync, writeFileSync} = require('node:fs')
const {join} = require('node:path')
const esbuild = require('esbuild')
const {bundledPackages, NODE_BUNDLE, packageNames} = require('./bundled-packages')

const root = join(__dirname, '..')
const file = join(root, 'dist', 'cli', 'oclif.js')
const BANNER_START = '// The parts of oclif skewscan runs on'

;(async () => {
  const compiled = readFileSync(file, 'utf8')
  if (compiled.startsWith(BANNER_START)) throw new Error(`${file} is a bundle already: build from the sources (npm run build)`)
  const built = await esbuild.build({
    ...NODE_BUNDLE,
    stdin: {contents: compiled, resolveDir: join(root, 'dist', 'cli'), sourcefile: 'dist/cli/oclif.js', loader: 'js'},
    external: ['typescript', 'ts-node', 'tsx'],
  })
  const banner = `${BANNER_START} (scripts/build-oclif.js): src/cli/oclif.ts bundled with ${packageNames(bundledPackages(built.metafile)).join(', ')}.\n`
  writeFileSync(file, banner + built.outputFiles[0].text)
})().catch((error) => {
  process.stderr.write(`build-oclif: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
})
