import {extname, join} from 'node:path'
import {Worker} from 'node:worker_threads'

/**
 * The worker runs the compiled parse-worker.js; from the TypeScript sources (bin/dev.js, the tests)
 * it is loaded through ts-node, which the main thread's hooks do not reach.
 */
export function startWorker(script: string | undefined): Worker {
  const file = script ?? join(__dirname, `parse-worker${extname(__filename)}`)
  if (!file.endsWith('.ts')) return new Worker(file, {resourceLimits: LIMITS})
  const tsNode = require.resolve('ts-node')
  const boot = `require(${JSON.stringify(tsNode)}).register({transpileOnly: true}); require(${JSON.stringify(file)})`
  return new Worker(boot, {eval: true, resourceLimits: LIMITS})
}

/**
 * A worker keeps next to nothing between jobs (its code, a few spare buffers), and what it allocates
 * while parsing a range dies with the range: a young generation of 24 MB (semi-spaces of 8 MB) holds
 * that. Left to itself V8 doubles it to 48 MB during a long run, which the process's peak memory
 * then carries (2M-event file: +16 MB) for fewer, equally cheap, collections of dead objects.
 */
const LIMITS = {maxYoungGenerationSizeMb: 24}
