import {extname, join} from 'node:path'
import {Worker} from 'node:worker_threads'

/**
 * The worker runs the compiled parse-worker.js; from the TypeScript sources (bin/dev.js, the tests)
 * it is loaded through ts-node, which the main thread's hooks do not reach.
 */
export function startWorker(script: string | undefined): Worker {
  if (script) return new Worker(script)
  const file = join(__dirname, `parse-worker${extname(__filename)}`)
  if (!file.endsWith('.ts')) return new Worker(file)
  const tsNode = require.resolve('ts-node')
  const boot = `require(${JSON.stringify(tsNode)}).register({transpileOnly: true}); require(${JSON.stringify(file)})`
  return new Worker(boot, {eval: true})
}
