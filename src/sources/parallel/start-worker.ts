import {existsSync} from 'node:fs'
import {extname, join} from 'node:path'
import {Worker} from 'node:worker_threads'

/**
 * The worker runs the compiled parse-worker.js. From the TypeScript sources (bin/dev.js, the tests,
 * scripts run by ts-node) the main thread's hooks do not reach it: it runs the build of the same
 * sources in dist/ when there is one (its stamp names the sources as they are: the tests make sure
 * of it before they start), else it loads the sources through ts-node, which brings the TypeScript
 * compiler into every worker (about 1.5 CPU-s a worker; the tests start hundreds). Not SWC: a native
 * addon loaded into worker threads can crash the process when they end (a segmentation fault seen
 * here, nodejs/node#58484).
 */
export function startWorker(script: string | undefined): Worker {
  const file = script ?? join(__dirname, `parse-worker${extname(__filename)}`)
  if (!file.endsWith('.ts')) return new Worker(file, {resourceLimits: LIMITS})
  const built = script === undefined ? builtWorker() : undefined
  if (built !== undefined) return new Worker(built, {resourceLimits: LIMITS})
  const tsNode = require.resolve('ts-node')
  // swc: false over tsconfig.json's `"ts-node": {"swc": true}` (for the main thread: bin/dev.js, scripts).
  const boot = `require(${JSON.stringify(tsNode)}).register({transpileOnly: true, swc: false}); require(${JSON.stringify(file)})`
  return new Worker(boot, {eval: true, resourceLimits: LIMITS})
}

/** dist/'s parse-worker.js when dist/ is a build of the sources as they are (scripts/sources-stamp.js), asked once a process. */
function builtWorker(): string | undefined {
  if (fresh === undefined) {
    const root = join(__dirname, '..', '..', '..')
    const worker = join(root, 'dist', 'sources', 'parallel', 'parse-worker.js')
    const stamp = join(root, 'scripts', 'sources-stamp.js')
    try {
      // A path built at run time: the checkout's own script, never part of the package.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      fresh = existsSync(worker) && (require(stamp) as {isFresh(root: string): boolean}).isFresh(root) ? worker : null
    } catch {
      fresh = null
    }
  }
  return fresh ?? undefined
}
let fresh: string | null | undefined

/**
 * A worker keeps next to nothing between jobs (its code, a few spare buffers), and what it allocates
 * while parsing a range dies with the range: a young generation of 24 MB (semi-spaces of 8 MB) holds
 * that. Left to itself V8 doubles it to 48 MB during a long run, which the process's peak memory
 * then carries (2M-event file: +16 MB) for fewer, equally cheap, collections of dead objects.
 */
const LIMITS = {maxYoungGenerationSizeMb: 24}
