/**
 * `skewscan export`: Datadog logs of a range as NDJSON (one wire item per line, gzip when the name
 * ends in .gz), readable by `analyze FILE`. Interruptions lose nothing: the output is a PullFile
 * (sources/datadog/pull-file.ts), and `--resume` continues it where it stopped, with the query,
 * range and plan it recorded.
 */
import {promises as fs} from 'node:fs'
import {ConfigError} from '../errors/config-error'
import type {DatadogInputSummary} from '../model/report'
import {SourceError} from '../sources/errors'
import {PullAborted} from '../sources/datadog/errors'
import type {ExportSettings} from '../sources/datadog/export-settings'
import {DatadogPull, type PullHooks, type PullSpec} from '../sources/datadog/pull'
import {FLUSH_EVENTS, FLUSH_MS, fileSize, PullFile, readPullState} from '../sources/datadog/pull-file'
import {errnoWords, isSystemError} from '../util/errno'
import {pluralCount} from '../util/plural'

export interface ExportRequest extends ExportSettings {
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

/** `--output` cannot be written: a configuration error (exit 2), naming the flag and the error in words. */
function outputError(output: string, error: unknown): ConfigError {
  return new ConfigError(`--output ${output}: cannot write the export: ${errnoWords(error)}`)
}

async function createOutput(output: string, force: boolean): Promise<void> {
  let handle: fs.FileHandle
  try {
    handle = await fs.open(output, force ? 'w' : 'wx')
  } catch (error: unknown) {
    if ((error as {code?: string}).code === 'EEXIST') throw new ConfigError(`${output} already exists; pass --force to overwrite it`)
    throw outputError(output, error)
  }
  await handle.close()
}

export function stateFileOf(output: string): string {
  return `${output}.export-state.json`
}

export async function exportLogs(req: ExportRequest): Promise<ExportResult> {
  const now = req.now ?? Date.now
  const started = now()
  const statePath = stateFileOf(req.output)
  const gzip = /\.gz$/i.test(req.output)
  let state = await readPullState(statePath, 'export')
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
    // Made before anything is pulled, exclusively without --force: a path that cannot be written
    // fails at once, and of two exports to one name only one starts.
    await createOutput(req.output, req.force)
  }
  const spec = state?.spec ?? (req.spec as PullSpec)
  const pull = new DatadogPull(req.connection, spec, req.tuning, req.hooks)
  if (state) pull.use(state.plan)
  const initial = state ?? {version: 1 as const, spec, plan: await pull.plan(), gzip, written: {bytes: 0, events: 0, lastTime: null, idsAtLastTime: []}}
  const file = await PullFile.open(req.output, statePath, initial, now, {events: req.flushEvents ?? FLUSH_EVENTS, ms: req.flushMs ?? FLUSH_MS})
    .catch((error: unknown) => {
      throw isSystemError(error) ? outputError(req.output, error) : error
    })
  const before = file.state.written.events
  try {
    for await (const batch of pull.pulled(file.resumePoint)) await file.add(batch)
  } catch (error: unknown) {
    // Everything pulled so far is a time-ordered prefix: keep it.
    await file.close(false).catch(() => undefined)
    const events = file.state.written.events
    if (error instanceof PullAborted) throw new ExportInterrupted(req.output, events)
    const kept = `${pluralCount(events, 'event')} ${events === 1 ? 'is' : 'are'} in ${req.output}`
    const resume = 'run the same export with --resume to continue where it stopped.'
    if (isSystemError(error)) throw new ConfigError(`${outputError(req.output, error).message}\n${kept}; once it can be written, ${resume}`)
    if (error instanceof SourceError) throw new SourceError(`${error.message}\n${kept}; ${resume}`, error.file)
    throw error
  }
  await file.close(true).catch((error: unknown) => {
    throw isSystemError(error) ? outputError(req.output, error) : error
  })
  const events = file.state.written.events
  return {
    file: req.output, events, written: events - before, resumed: req.resume, gzip,
    seconds: Math.round((now() - started) / 100) / 10, datadog: pull.summary(),
  }
}
