import {extname, join} from 'node:path'
import {Worker} from 'node:worker_threads'

/**
 * The worker runs the compiled parse-worker.js. From the TypeScript sources (bin/dev.js, the tests,
 * scripts run by ts-node) the main thread's hooks do not reach it: it strips the types of each
 * module it loads with SWC (a dev dependency, as the tests' transform), which starts in a tenth of
 * the time ts-node takes (ts-node loads the TypeScript compiler into every worker: about 1.5 s of
 * CPU a worker, and the tests start hundreds).
 */
export function startWorker(script: string | undefined): Worker {
  const file = script ?? join(__dirname, `parse-worker${extname(__filename)}`)
  if (!file.endsWith('.ts')) return new Worker(file, {resourceLimits: LIMITS})
  return new Worker(typeScriptBoot(file), {eval: true, resourceLimits: LIMITS})
}

/** Code that loads `file` and the TypeScript modules it requires, types stripped (as tsconfig.json compiles them: ES2022, CommonJS). */
function typeScriptBoot(file: string): string {
  const swc = JSON.stringify(require.resolve('@swc/core'))
  return `
    const {readFileSync} = require('node:fs')
    const {transformSync} = require(${swc})
    const options = {jsc: {parser: {syntax: 'typescript'}, target: 'es2022'}, module: {type: 'commonjs', ignoreDynamic: true}}
    require.extensions['.ts'] = (module, filename) => module._compile(transformSync(readFileSync(filename, 'utf8'), {...options, filename}).code, filename)
    require(${JSON.stringify(file)})`
}

/**
 * A worker keeps next to nothing between jobs (its code, a few spare buffers), and what it allocates
 * while parsing a range dies with the range: a young generation of 24 MB (semi-spaces of 8 MB) holds
 * that. Left to itself V8 doubles it to 48 MB during a long run, which the process's peak memory
 * then carries (2M-event file: +16 MB) for fewer, equally cheap, collections of dead objects.
 */
const LIMITS = {maxYoungGenerationSizeMb: 24}
