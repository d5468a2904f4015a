// What the build's esbuild bundles share (scripts/build-oclif.js, build-help.js,
// build-datadog-client.js): their options, and the packages a bundle copies (from its metafile),
// for the banner and licences the build writes beside it.
const {readFileSync} = require('node:fs')
const {join} = require('node:path')

/**
 * The esbuild options every bundle of the build shares: one CommonJS file for Node 20, returned as
 * text (the caller writes it after its banner), with the metafile that banner is made from and the
 * bundled packages' licence comments at its end.
 */
const NODE_BUNDLE = {bundle: true, platform: 'node', target: 'node20', format: 'cjs', legalComments: 'eof', write: false, metafile: true, logLevel: 'warning'}

/** Each package the bundle's inputs come from, once: its folder, name, version and licence. */
function bundledPackages(metafile) {
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

/** `name@version (licence)` of each, sorted: what a banner lists. */
const packageNames = (packages) => [...new Set(packages.map((p) => `${p.name}@${p.version} (${p.license})`))].sort()

module.exports = {bundledPackages, NODE_BUNDLE, packageNames}
