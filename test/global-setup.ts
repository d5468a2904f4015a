/**
 * Before any test: the CLI the tests run is the built one (bin/run.js on dist/, as the package
 * ships it, ten times faster to start than bin/dev.js compiling the sources). dist/ is rebuilt only
 * when it is not a build of the sources as they are: `npm run build` stamps dist/ with a hash of
 * what it compiled (scripts/sources-stamp.js), so the build `npm ci` just made is used as it is,
 * and a test never runs code older than the sources.
 */
import {spawnSync} from 'node:child_process'
import {join} from 'node:path'

const ROOT = join(__dirname, '..')
// eslint-disable-next-line @typescript-eslint/no-require-imports
const {isFresh} = require(join(ROOT, 'scripts', 'sources-stamp.js')) as {isFresh(root: string): boolean}

export default function globalSetup(): void {
  if (isFresh(ROOT)) return
  const r = spawnSync('npm', ['run', 'build'], {cwd: ROOT, encoding: 'utf8', timeout: 300_000})
  if (r.status !== 0) throw new Error(`npm run build failed before the tests (exit ${r.status}):\n${r.stdout}\n${r.stderr}`)
  if (!isFresh(ROOT)) throw new Error('npm run build left no stamp of the sources it built (dist/.sources-hash): see scripts/sources-stamp.js')
}
