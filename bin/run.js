#!/usr/bin/env node
// The installed CLI. The command list comes from dist/oclif.manifest.json, written by the build next
// to the code it describes, so start-up loads only the command that runs (without it oclif requires
// every command module first). No manifest, or one of another version: oclif finds the commands itself.
// `analyze` reads large files with worker threads: one boots on another core while oclif loads.
if (process.argv[2] === 'analyze') {
  try {
    require('../dist/sources/parallel/options').prestartFor(process.argv.slice(3))
  } catch {
    // no build: the run starts its workers itself
  }
}
;(async () => {
  const {join} = require('node:path')
  const {readFile} = require('node:fs/promises')
  const {Plugin} = await import('@oclif/core/config')
  const {execute} = await import('@oclif/core/execute')
  const root = join(__dirname, '..')
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
    // Plugins given here replace oclif's own loading: the core plugins of package.json (help,
    // not-found, autocomplete, version) are loaded the same way, each from its own manifest. Their
    // package.json is not in their "exports": the folder is found from the module they export.
    for (const name of plugin.pjson.oclif.plugins ?? []) {
      const core = new Plugin({root: packageRoot(name), name, type: 'core'})
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

/** The folder of an installed package: the nearest one above its main module whose package.json names it. */
function packageRoot(name) {
  const {dirname, join} = require('node:path')
  const {readFileSync} = require('node:fs')
  let dir = dirname(require.resolve(name))
  for (let up = 0; up < 10; up++, dir = dirname(dir)) {
    try {
      if (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name === name) return dir
    } catch {
      // no package.json here: one folder up
    }
  }
  throw new Error(`${name}: no package.json above ${require.resolve(name)}`)
}
