/**
 * Jest's node environment, with a temporary directory of its own for each test file: TMPDIR (so
 * os.tmpdir() here and in every CLI the file starts) points into it while the file runs. When the
 * file is done (after its own afterAll hooks), whatever is left there fails the file, naming what
 * was left, and is removed: a run leaves nothing in the temporary directory, and a test that
 * forgets to clean up is found at once, by name.
 */
const {appendFileSync, chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync} = require('node:fs')
const {tmpdir} = require('node:os')
const {join} = require('node:path')
const {TestEnvironment} = require('jest-environment-node')

class TmpEnvironment extends TestEnvironment {
  constructor(config, context) {
    // Before super(): the test's `process.env` is a copy taken there.
    const previous = process.env.TMPDIR
    // ts-node's compile cache stays where it was (a cache kept between runs on purpose, not a leftover).
    const cacheKey = process.getuid ? `v8-compile-cache-${process.getuid()}` : 'v8-compile-cache'
    process.env.V8_COMPILE_CACHE_CACHE_DIR ??= join(tmpdir(), cacheKey, process.versions.v8)
    const own = mkdtempSync(join(tmpdir(), 'skewscan-jest-'))
    // Open to all, sticky, as /tmp is: a test may run the CLI as another user (unreadable-home).
    chmodSync(own, 0o1777)
    process.env.TMPDIR = own
    super(config, context)
    this.own = own
    this.previous = previous
    this.testPath = context.testPath
    this.cpu0 = process.env.SKEWSCAN_CPU_LOG && existsSync('/proc/self/stat') ? cpuNow() : undefined
  }

  async teardown() {
    // SKEWSCAN_CPU_LOG=FILE: a line per test file, the CPU-seconds it took (the worker's own and those
    // of every child it waited for: the CLIs it ran), to find where the suite's CPU goes.
    if (process.env.SKEWSCAN_CPU_LOG && this.cpu0 !== undefined) {
      const [own, children] = cpuNow().map((t, i) => ((t - this.cpu0[i]) / 100).toFixed(1))
      appendFileSync(process.env.SKEWSCAN_CPU_LOG, `${(Number(own) + Number(children)).toFixed(1)} ${this.testPath} (own ${own}, children ${children})\n`)
    }
    let left = []
    try {
      left = readdirSync(this.own)
    } finally {
      rmSync(this.own, {recursive: true, force: true})
      if (this.previous === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = this.previous
      await super.teardown()
    }
    if (left.length > 0) {
      throw new Error(`${this.testPath} left ${left.length} entr${left.length === 1 ? 'y' : 'ies'} in the temporary directory: ${left.sort().join(', ')} (remove them in afterAll)`)
    }
  }
}

/** This process's CPU time, and its waited-for children's, in clock ticks (1/100 s on Linux): /proc/self/stat's utime + stime, cutime + cstime. */
function cpuNow() {
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')
  return [Number(f[11]) + Number(f[12]), Number(f[13]) + Number(f[14])]
}

module.exports = TmpEnvironment
