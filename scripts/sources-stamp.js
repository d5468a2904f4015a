// What dist/ was built from: a hash of the sources (src/, the build's own config and scripts),
// written by `npm run build` itself, so a build by `npm ci` (prepare) or by hand is known fresh and
// the tests (test/global-setup.ts) rebuild dist/ only when the sources changed since. A hash, not
// mtimes: a checkout or a copy sets every mtime anew without changing a byte.
//
//   node scripts/sources-stamp.js begin   before compiling: the hash of the sources as they are now
//   node scripts/sources-stamp.js end     after a build that succeeded: that hash becomes the stamp
//   node scripts/sources-stamp.js fresh   exit 0 when dist/ is a whole build of the sources as they
//                                         are, 1 otherwise (`npm pack` rebuilds only then: prepack)
//
// The hash is taken before the compiler reads the sources: a source edited during the build leaves a
// stamp that no longer matches, and the next test run rebuilds. A build that fails leaves no stamp.
const {createHash} = require('node:crypto')
const {existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync} = require('node:fs')
const {join, relative} = require('node:path')

/** Files of the build besides src/: a change to any of them changes what dist/ holds (package-lock.json:
 * the versions of oclif's help code bundled into dist/help/). */
const BUILD_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'scripts/build-manifest.js', 'scripts/build-help.js', 'scripts/help-renderer.js', 'scripts/build-datadog-client.js', 'scripts/bundled-packages.js', 'scripts/sources-stamp.js']

function files(dir) {
  return readdirSync(dir).sort().flatMap((name) => {
    const p = join(dir, name)
    return statSync(p).isDirectory() ? files(p) : [p]
  })
}

/** The hash of what a build of `root` compiles: every file of src/ (by path and content) and BUILD_FILES. */
function sourcesHash(root) {
  const h = createHash('sha256')
  for (const f of [...files(join(root, 'src')), ...BUILD_FILES.map((p) => join(root, p))]) {
    h.update(relative(root, f)).update('\0').update(readFileSync(f)).update('\0')
  }
  return h.digest('hex')
}

const stampPath = (root) => join(root, 'dist', '.sources-hash')
const pendingPath = (root) => join(root, 'dist', '.sources-hash.pending')

/** Whether dist/ of `root` is a whole build of its sources as they are: its stamp matches and the manifest is there. */
function isFresh(root) {
  const stamp = stampPath(root)
  return existsSync(stamp) && readFileSync(stamp, 'utf8') === sourcesHash(root) && existsSync(join(root, 'dist', 'oclif.manifest.json'))
}

function begin(root) {
  mkdirSync(join(root, 'dist'), {recursive: true})
  writeFileSync(pendingPath(root), sourcesHash(root))
}

function end(root) {
  renameSync(pendingPath(root), stampPath(root))
}

module.exports = {BUILD_FILES, begin, end, isFresh, sourcesHash, stampPath}

if (require.main === module) {
  const root = join(__dirname, '..')
  const step = process.argv[2]
  if (step === 'begin') begin(root)
  else if (step === 'end') end(root)
  else if (step === 'fresh') process.exitCode = isFresh(root) ? 0 : 1
  else {
    process.stderr.write('usage: node scripts/sources-stamp.js begin|end|fresh\n')
    process.exitCode = 2
  }
}
