// Writes dist/oclif.manifest.json from the commands just compiled into dist/ (run by `npm run build`).
// Only bin/run.js reads it: with it, `skewscan --help` and a run load one command module instead of
// all of them. It lives in dist/ and is never committed; the tests rebuild dist/ (and it) whenever
// the sources change (test/global-setup.ts), so it cannot hide a flag added to the sources later (a
// root-level manifest would: the oclif docs' stale-manifest pitfall).
// The manifest describes dist/, whatever environment builds it: under NODE_ENV test or development
// (a build started by the test runner) oclif would map each command to its TypeScript source.
delete process.env.NODE_ENV
const {writeFileSync} = require('node:fs')
const {join} = require('node:path')
const {Plugin} = require('@oclif/core/config')

;(async () => {
  const root = join(__dirname, '..')
  // Built from the command classes themselves, never from a manifest lying around.
  const plugin = new Plugin({isRoot: true, root, ignoreManifest: true})
  await plugin.load()
  const manifest = plugin.manifest
  if (Object.keys(manifest.commands).length === 0) throw new Error('no commands found in dist/commands: build first')
  writeFileSync(join(root, 'dist', 'oclif.manifest.json'), `${JSON.stringify(manifest)}\n`)
})().catch((error) => {
  process.stderr.write(`build-manifest: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
})
