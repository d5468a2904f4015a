/**
 * Benchmark inputs of the second kind (issue 28): a real capture's requests laid end to end, a
 * minute apart, as many times as it takes. Unlike the simulator's traffic (bench/generate.ts), such a
 * file has a deploy every repetition and the same builds coming back again and again, as a day of
 * real rollouts, rollbacks and re-deploys has them. Each copy gets its own request ids and event
 * ids (else de-duplication would rightly drop the copies); clients, paths, builds and lengths are
 * the capture's own. Written once into bench/out/ (git-ignored), deterministically.
 */
import {createWriteStream, existsSync, mkdirSync, renameSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {combinedTimes, loadCapture, TIME_LOCAL, timeLocal} from '../scripts/captures/capture'
import {OUT} from './generate'

const ROOT = join(__dirname, '..')
const GAP_MS = 60_000

export interface Repeated {
  /** Datadog NDJSON (one Logs API event a line) of rr-3's events, 207 times over (about 150k events). */
  ddCaptures: string
  /** `combined` lines of rr-3, 1,395 times over (about 1.01M lines). */
  combinedCaptures: string
}

export const REPEATED_INPUTS = {
  ddCaptures: {file: 'dd-captures-150k.ndjson', times: 207},
  combinedCaptures: {file: 'combined-captures-1m.log', times: 1395},
} as const

/** A request id of copy `k`: its first six hex digits replaced by the copy's number (unique per copy, same length). */
const idOf = (id: string, k: number): string => `${k.toString(16).padStart(6, '0')}${id.slice(6)}`

async function writeLines(path: string, times: number, lines: (k: number) => Iterable<string>): Promise<string> {
  if (existsSync(path) && statSync(path).size > 0) return path
  mkdirSync(OUT, {recursive: true})
  const tmp = `${path}.part`
  const out = createWriteStream(tmp)
  for (let k = 0; k < times; k++) {
    for (const line of lines(k)) if (!out.write(`${line}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()))
  }
  await new Promise<void>((resolve) => out.end(() => resolve()))
  renameSync(tmp, path)
  return path
}

export async function generateRepeated(): Promise<Repeated> {
  const c = loadCapture(ROOT, 'rr-3')
  const first = Date.parse(c.datadog[0]?.attributes.timestamp as string)
  const last = Date.parse(c.datadog.at(-1)?.attributes.timestamp as string)
  const period = Math.ceil((last - first) / 1000) * 1000 + GAP_MS
  const events = c.datadog.map((e) => JSON.stringify(e))
  const ddCaptures = await writeLines(join(OUT, REPEATED_INPUTS.ddCaptures.file), REPEATED_INPUTS.ddCaptures.times, function* (k) {
    for (const text of events) {
      const e = JSON.parse(text) as {id: string; attributes: {timestamp: string; message?: string; attributes: {http?: {request_id?: string}}}}
      const t = Date.parse(e.attributes.timestamp) + k * period
      const rid = e.attributes.attributes.http?.request_id
      e.id = `${e.id}-${k}`
      e.attributes.timestamp = new Date(t).toISOString()
      if (e.attributes.message !== undefined) {
        let m = e.attributes.message.replace(TIME_LOCAL, `[${timeLocal(t)}]`)
        if (rid !== undefined) m = m.replace(rid, idOf(rid, k))
        e.attributes.message = m
      }
      if (rid !== undefined && e.attributes.attributes.http) e.attributes.attributes.http.request_id = idOf(rid, k)
      yield JSON.stringify(e)
    }
  })
  // combined has no request id: its copies differ by time alone, a minute and more apart. Each
  // line's time is its request's in the JSON log (as the captures' own rendering takes it).
  const times = combinedTimes(c)
  const combinedCaptures = await writeLines(join(OUT, REPEATED_INPUTS.combinedCaptures.file), REPEATED_INPUTS.combinedCaptures.times, function* (k) {
    for (let i = 0; i < c.combined.length; i++) yield (c.combined[i] as string).replace(TIME_LOCAL, `[${timeLocal((times[i] as number) + k * period)}]`)
  })
  return {ddCaptures, combinedCaptures}
}

if (require.main === module) {
  void generateRepeated().then((r) => {
    for (const path of Object.values(r)) process.stderr.write(`bench input ${path}: ready (${(statSync(path).size / 1e6).toFixed(0)} MB)\n`)
  })
}
