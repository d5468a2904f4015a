/**
 * Scores analyze on every real capture (fixtures/captures), in every format and order, at ×1, ×10
 * and ×60 time, with deploys inferred and with the captured Datadog deploy events. Prints a table
 * (Markdown) and exits 1 when any case fails.
 *
 *   npx ts-node --transpile-only scripts/score-captures.ts [--capture NAME] [--format F] [--stretch N] [--verbose]
 */
import {join} from 'node:path'
import {CAPTURES, FORMATS, type Format, loadCapture} from './captures/capture'
import {type CaseSpec, runCase} from './captures/run'

const ROOT = join(__dirname, '..')

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? undefined : process.argv[i + 1]
}

async function main(): Promise<void> {
  const captures = arg('capture') ? [arg('capture') as string] : [...CAPTURES]
  const formats = arg('format') ? [arg('format') as Format] : [...FORMATS]
  const stretches = arg('stretch') ? [Number(arg('stretch'))] : [1, 10, 60]
  const verbose = process.argv.includes('--verbose')
  let failed = 0
  console.log('| capture | format | order | time | deploys | users P/R | failed req P/R | race first/last error (s) | stale ours/truth (+boundary) | result |')
  console.log('|---|---|---|---|---|---|---|---|---|---|')
  for (const name of captures) {
    const c = loadCapture(ROOT, name)
    for (const format of formats) {
      for (const stretch of stretches) {
        for (const order of ['oldest-first', 'newest-first'] as const) {
          for (const deploys of ['inferred', 'events'] as const) {
            const spec: CaseSpec = {format, order, stretch, deploys}
            const {score} = await runCase(c, spec)
            if (!score.pass) failed++
            const windows = score.deploys.map((d) => (d.firstError === null ? '-' : `${(d.firstError / 1000).toFixed(1)}/${((d.lastError ?? 0) / 1000).toFixed(1)}`)).join(', ')
            console.log(`| ${name} | ${format} | ${order} | x${stretch} | ${deploys} | ${score.users.precision.toFixed(2)}/${score.users.recall.toFixed(2)} | ` +
              `${score.requests.precision.toFixed(2)}/${score.requests.recall.toFixed(2)} | ${windows} | ${score.stale.ours}/${score.stale.strict} (+${score.stale.boundary}) | ${score.pass ? 'pass' : 'FAIL'} |`)
            if (verbose && !score.pass) for (const p of score.problems) console.log(`|  | ${p} |`)
          }
        }
      }
    }
  }
  console.log(`\n${failed} failing case${failed === 1 ? '' : 's'}`)
  process.exitCode = failed > 0 ? 1 : 0
}

void main()
