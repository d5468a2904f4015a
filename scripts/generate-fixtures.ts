/**
 * Regenerates the simulated fixtures: `npm run fixtures [-- --out DIR] [-- --scenario NAME]`.
 * Output is byte-for-byte reproducible.
 */
import {join, resolve} from 'node:path'
import {scenarioNames, writeScenario} from './fixture-generator'

function parseArgs(argv: string[]): {out: string; names: string[]} {
  let out = join(__dirname, '..', 'fixtures')
  const names: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    const value = (): string => {
      const v = argv[++i]
      if (v === undefined) throw new Error(`${arg} needs a value`)
      return v
    }
    if (arg === '--out') out = resolve(value())
    else if (arg.startsWith('--out=')) out = resolve(arg.slice('--out='.length))
    else if (arg === '--scenario') names.push(...value().split(','))
    else if (arg.startsWith('--scenario=')) names.push(...arg.slice('--scenario='.length).split(','))
    else if (arg === '--help' || arg === '-h') {
      console.log(`usage: generate-fixtures [--out DIR] [--scenario NAME[,NAME]]\nscenarios: ${scenarioNames.join(', ')}`)
      process.exit(0)
    } else throw new Error(`unknown argument ${arg}`)
  }
  for (const n of names) {
    if (!scenarioNames.includes(n)) throw new Error(`unknown scenario "${n}"; known: ${scenarioNames.join(', ')}`)
  }
  return {out, names: names.length > 0 ? names : scenarioNames}
}

function main(): void {
  const {out, names} = parseArgs(process.argv.slice(2))
  for (const name of names) {
    const truth = writeScenario(name, join(out, name))
    const kinds = truth.incidents.map((i) => `${i.id}:${i.cause}${i.deployId ? `(${i.deployId})` : ''}`).join(' ') || 'none'
    const t = truth.totals
    console.log(
      `${name}: ${truth.requestsTotal} requests, ${t.pageLoads} page loads, ${t.brokenPageLoads} crashed, ` +
        `${t.failedRequests} failed requests, ${t.affectedUsers} users, orphans ${truth.orphans.requests}/${truth.orphans.clients}, incidents ${kinds}`,
    )
  }
}

try {
  main()
} catch (err: unknown) {
  console.error(`generate-fixtures: ${err instanceof Error ? err.message : String(err)}`)
  process.exit(2)
}
