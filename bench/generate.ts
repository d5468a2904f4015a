/**
 * Deterministic benchmark inputs, written once into bench/out/ (git-ignored; nothing large is
 * committed): Datadog NDJSON of 200k and 2M events and 1M ingress-nginx lines (run.ts adds a
 * newest-first copy of the 200k file). The traffic is the fixture simulator's: a busy site with a rolling deploy
 * every 30 minutes, so the analysis has real work (page loads, fallback hits, incidents).
 */
import {createWriteStream, existsSync, mkdirSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {ddEventLine, DEFAULT_CONTEXT, ingressLine, simulateIter} from '../scripts/fixture-generator'
import type {SimRequest} from '../scripts/fixture-generator'

export const OUT = join(__dirname, 'out')

export const INPUTS = {
  dd200k: {file: 'dd-200k.ndjson', count: 200_000, line: (r: SimRequest) => ddEventLine(r)},
  dd2m: {file: 'dd-2m.ndjson', count: 2_000_000, line: (r: SimRequest) => ddEventLine(r)},
  ingress1m: {file: 'ingress-1m.log', count: 1_000_000, line: (r: SimRequest) => ingressLine(r, DEFAULT_CONTEXT)},
} as const

const PARAMS = {
  seed: 2026, durationSeconds: 40 * 3600, browsersPerMinute: 900, deploys: 80, firstDeployAtSeconds: 20 * 60, every: 30 * 60,
  shellBytes: Array.from({length: 81}, (_, i) => 1832 + i * 7), scanners: 3,
}

async function write(name: keyof typeof INPUTS): Promise<string> {
  const {file, count, line} = INPUTS[name]
  const path = join(OUT, file)
  if (existsSync(path) && statSync(path).size > 0) return path
  const tmp = `${path}.part`
  const out = createWriteStream(tmp)
  let n = 0
  for (const r of simulateIter(PARAMS)) {
    if (!out.write(`${line(r)}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()))
    if (++n >= count) break
  }
  await new Promise<void>((resolve) => out.end(() => resolve()))
  if (n < count) throw new Error(`the simulation gave only ${n} requests for ${file}`)
  const {renameSync} = await import('node:fs')
  renameSync(tmp, path)
  return path
}

export async function generate(names: (keyof typeof INPUTS)[] = ['dd200k', 'dd2m', 'ingress1m']): Promise<Record<string, string>> {
  mkdirSync(OUT, {recursive: true})
  const paths: Record<string, string> = {}
  for (const n of names) {
    const t0 = Date.now()
    paths[n] = await write(n)
    process.stderr.write(`bench input ${INPUTS[n].file}: ready (${((Date.now() - t0) / 1000).toFixed(1)} s, ${(statSync(paths[n]).size / 1e6).toFixed(0)} MB)\n`)
  }
  return paths
}

if (require.main === module) void generate(process.argv.slice(2) as (keyof typeof INPUTS)[])
