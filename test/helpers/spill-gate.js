/**
 * Preloaded into the CLI (NODE_OPTIONS=--require) by signals.test: when the sort of an input out of
 * time order opens its second spilled run, the run holds there (up to 20 s) after saying so in
 * `$SKEWSCAN_TEST_GATE/paused`, until the test, having sent its signal, creates
 * `$SKEWSCAN_TEST_GATE/go`. The signal is then taken at the run's next turn, with runs on disk: a
 * real signal at a known point, with no race against how fast the machine sorts.
 */
'use strict'
const fs = require('node:fs')
const path = require('node:path')

const gate = process.env.SKEWSCAN_TEST_GATE
const openSync = fs.openSync
let held = false
fs.openSync = function (file, ...rest) {
  if (gate && !held && typeof file === 'string' && /skewscan-sort-[^/]*[/\\]run-1$/.test(file)) {
    held = true
    fs.writeFileSync(path.join(gate, 'paused'), file)
    const cell = new Int32Array(new SharedArrayBuffer(4))
    for (let i = 0; i < 400 && !fs.existsSync(path.join(gate, 'go')); i++) Atomics.wait(cell, 0, 0, 50)
  }
  return openSync.call(this, file, ...rest)
}
