/**
 * `skewscan export`: Datadog logs of a range as NDJSON (one wire item per line, gzip when the name
 * ends in .gz), readable by `analyze FILE`.
 *
 * Interruptions lose nothing. The pull is merged in time order, so what is written is always a
 * prefix of the result: every event before some time T, and some of the events at T. After each
 * flush, a state file next to the output records the bytes written, T, and the ids written at T,
 * with the query, range and plan. `--resume` cuts the file back to the last recorded flush (a crash
 * may have written more), then pulls from T again with the same plan, skipping the ids already
 * written at T: no gap, no duplicate. Gzip output is written as one gzip member per flush, so a
 * stopped export is a valid .gz file up to its last flush.
 */
import {promises as fs} from 'node:fs'
import {gzipSync} from 'node:zlib'
import type {DatadogConnection} from '../sources/datadog/connection'
import {ConfigError} from '../config/parse'
import type {DatadogInputSummary} from '../model/report'
import {SourceError} from '../sources/errors'
import {PullAborted} from '../sources/datadog/errors'
import {DatadogPull, type PullHooks, type PullPlan, type PullSpec, type PullTuning, type ResumePoint} from '../sources/datadog/pull'
import {pluralCount} from '../util/plural'

export interface ExportRequest {
  output: string
  /** Continue the interrupted export of `output`, with the query, range and plan it recorded. */
  resume: boolean
  /** Overwrite an existing output (and forget an interrupted export of it). */
  force: boolean
  connection: DatadogConnection
  /** What to pull; absent with `resume`. */
  spec?: PullSpec
  tuning: PullTuning
  hooks?: PullHooks
  now?: () => number
  /** Write after this many events or this long, whichever comes first (defaults 2000, 2 s). */
  flushEvents?: number
  flushMs?: number
}

export interface ExportResult {
  file: string
  /** Events in the file when done. */
  events: number
  /** Events written by this run. */
  written: number
  resumed: boolean
  gzip: boolean
  seconds: number
  datadog: DatadogInputSummary
}

/** Ctrl-C: what was pulled is flushed and recorded; `--resume` continues. */
export class ExportInterrupted extends Error {
  constructor(readonly file: string, readonly events: number) {
    super(`Interrupted: ${pluralCount(events, 'event')} ${events === 1 ? 'is' : 'are'} in ${file}. Run the same export with --resume to continue where it stopped.`)
    this.name = 'ExportInterrupted'
  }
}

interface ExportState {
  version: 1
  spec: PullSpec
  plan: PullPlan
  gzip: boolean
  written: {bytes: number; events: number; lastTime: number | null; idsAtLastTime: string[]}
}

/** Write at least this often, so an interruption loses little and progress is on disk. */
const FLUSH_EVENTS = 2000
const FLUSH_MS = 2000

export function stateFileOf(output: string): string {
  return `${output}.export-state.json`
}

export async function exportLogs(req: ExportRequest): Promise<ExportResult> {
  const now = req.now ?? Date.now
  const started = now()
  const statePath = stateFileOf(req.output)
  const gzip = /\.gz$/i.test(req.output)
  let state = await readState(statePath)
  if (req.resume) {
    if (!state) throw new ConfigError(`--resume: there is no interrupted export of ${req.output} (no ${statePath})`)
    if (state.gzip !== gzip) throw new ConfigError(`--resume: ${statePath} was written for a ${state.gzip ? 'gzip' : 'plain'} output`)
    const size = await fileSize(req.output)
    if (size === undefined || size < state.written.bytes) throw new ConfigError(`--resume: ${req.output} is missing or shorter than the ${state.written.bytes} bytes recorded in ${statePath}; start over with --force`)
  } else {
    if (!req.spec) throw new ConfigError('export needs --from or --since (or --resume)')
    const exists = (await fileSize(req.output)) !== undefined
    if (!req.force && (exists || state)) {
      throw new ConfigError(`${req.output} already exists${state ? ' and holds an interrupted export: continue it with --resume' : ''}; pass --force to overwrite it`)
    }
    state = undefined
  }
  const spec = state?.spec ?? (req.spec as PullSpec)
  const pull = new DatadogPull(req.connection, spec, req.tuning, req.hooks)
  if (state) pull.use(state.plan)
  else {
    state = {version: 1, spec, plan: await pull.plan(), gzip, written: {bytes: 0, events: 0, lastTime: null, idsAtLastTime: []}}
    await fs.writeFile(req.output, '')
    await writeState(statePath, state)
  }
  const resumed = req.resume
  const s: ExportState = state
  const resumeAt: ResumePoint | undefined = s.written.lastTime === null ? undefined : {time: s.written.lastTime, ids: s.written.idsAtLastTime}
  await fs.truncate(req.output, s.written.bytes)
  const out = await fs.open(req.output, 'a')
  const before = s.written.events

  // Lines pulled but not yet written; the state moves only when they are on disk.
  let lines: string[] = []
  let lastTime = s.written.lastTime
  let idsAtLast = new Set(s.written.idsAtLastTime)
  let lastFlush = now()
  const flush = async (): Promise<void> => {
    if (lines.length === 0) return
    const text = lines.join('')
    const bytes = gzip ? gzipSync(text) : Buffer.from(text)
    await out.write(bytes)
    await out.datasync()
    s.written = {bytes: s.written.bytes + bytes.length, events: s.written.events + lines.length, lastTime, idsAtLastTime: [...idsAtLast]}
    await writeState(statePath, s)
    lines = []
    lastFlush = now()
  }
  try {
    for await (const batch of pull.pulled(resumeAt)) {
      for (const p of batch) {
        lines.push(`${JSON.stringify(p.item)}\n`)
        if (p.time !== lastTime) {
          lastTime = p.time
          idsAtLast = new Set()
        }
        if (p.id !== undefined) idsAtLast.add(p.id)
      }
      if (lines.length >= (req.flushEvents ?? FLUSH_EVENTS) || now() - lastFlush >= (req.flushMs ?? FLUSH_MS)) await flush()
    }
    await flush()
  } catch (error: unknown) {
    // Everything pulled so far is a time-ordered prefix: keep it.
    await flush()
    await out.close()
    if (error instanceof PullAborted) throw new ExportInterrupted(req.output, s.written.events)
    if (error instanceof SourceError) {
      throw new SourceError(`${error.message}\n${pluralCount(s.written.events, 'event')} ${s.written.events === 1 ? 'is' : 'are'} in ${req.output}; run the same export with --resume to continue where it stopped.`, error.file)
    }
    throw error
  }
  await out.close()
  await fs.rm(statePath, {force: true})
  return {
    file: req.output, events: s.written.events, written: s.written.events - before, resumed, gzip,
    seconds: Math.round((now() - started) / 100) / 10, datadog: pull.summary(),
  }
}

async function readState(path: string): Promise<ExportState | undefined> {
  let text: string
  try {
    text = await fs.readFile(path, 'utf8')
  } catch {
    return undefined
  }
  try {
    const state = JSON.parse(text) as ExportState
    if (state.version !== 1 || !state.spec || !state.plan || !state.written) throw new Error('unknown layout')
    return state
  } catch (error: unknown) {
    throw new ConfigError(`${path}: not a skewscan export state (${error instanceof Error ? error.message : String(error)}); remove it or pass --force`)
  }
}

/** Written whole to a temporary file, then renamed: a crash leaves the old state or the new one. */
async function writeState(path: string, state: ExportState): Promise<void> {
  const tmp = `${path}.tmp`
  await fs.writeFile(tmp, `${JSON.stringify(state)}\n`)
  await fs.rename(tmp, path)
}

async function fileSize(path: string): Promise<number | undefined> {
  try {
    return (await fs.stat(path)).size
  } catch {
    return undefined
  }
}
