// Preloaded (node --require) into a CLI run by the start-up test: at exit, writes the files of every
// CommonJS module the run loaded, one a line, to the file named by SKEWSCAN_LOADED_MODULES_OUT. A
// count, not a time: what start-up loads does not depend on how busy the machine is.
process.on('exit', () => {
  const files = Object.keys(require.cache).filter((f) => f !== module.filename)
  require('node:fs').writeFileSync(process.env.SKEWSCAN_LOADED_MODULES_OUT, `${files.join('\n')}\n`)
})
