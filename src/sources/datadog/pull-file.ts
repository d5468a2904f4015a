/**
 * A pull written to a file as it comes (NDJSON, one wire item per line, gzip when the name ends in
 * .gz), with a state file beside it, so that an interrupted pull loses nothing and continues where
 * it stopped: `export` writes its output this way, and `analyze --spool` its pull.
 *
 * The pull is merged in time order, so what is written is always a prefix of the result: every
 * event before some time T, and some of the events at T. After each flush the state records the
 * bytes written, T, and the ids written at T, with the query, range and plan. Resuming cuts the
 * file back to the last recorded flush (a crash may have written more), then pulls from T again
 * with the same plan, skipping the ids already written at T: no gap, no duplicate. Gzip output is
 * one gzip member per flush, so a stopped pull is a valid .gz file up to its last flush.
 */
import {promises as fs} from 'node:fs'
import {gzipSync} from 'node:zlib'
import {ConfigError} from '../../errors/config-error'
import type {PullPlan, PullSpec, ResumePoint} from './pull'
import type {Pulled} from './puller'

export interface PullFileState {
  version: 1
  spec: PullSpec
  plan: PullPlan
  gzip: boolean
  written: {bytes: number; events: number; lastTime: number | null; idsAtLastTime: string[]}
}

/** Write at least this often, so an interruption loses little and progress is on disk. */
export const FLUSH_EVENTS = 2000
export const FLUSH_MS = 2000

export class PullFile {
  private lines: string[] = []
  private lastTime: number | null
  private idsAtLast: Set<string>
  private lastFlush: number
  private out: fs.FileHandle | undefined

  constructor(readonly path: string, readonly statePath: string, readonly state: PullFileState, private readonly now: () => number, private readonly every = {events: FLUSH_EVENTS, ms: FLUSH_MS}) {
    this.lastTime = state.written.lastTime
    this.idsAtLast = new Set(state.written.idsAtLastTime)
    this.lastFlush = now()
  }

  /** Where the pull continues: undefined when nothing was written yet. */
  get resumePoint(): ResumePoint | undefined {
    const w = this.state.written
    return w.lastTime === null ? undefined : {time: w.lastTime, ids: w.idsAtLastTime}
  }

  /** A new pull file (empty, its state written), or the one recorded, cut back to its last flush. */
  static async open(path: string, statePath: string, state: PullFileState, now: () => number, every?: {events: number; ms: number}): Promise<PullFile> {
    if (state.written.bytes === 0) {
      await fs.writeFile(path, '')
      await writeState(statePath, state)
    }
    await fs.truncate(path, state.written.bytes)
    const f = new PullFile(path, statePath, state, now, every)
    f.out = await fs.open(path, 'a')
    return f
  }

  /** Adds pulled events; written once enough have come or long enough has passed. */
  async add(batch: readonly Pulled[]): Promise<void> {
    for (const p of batch) {
      this.lines.push(`${JSON.stringify(p.item)}\n`)
      if (p.time !== this.lastTime) {
        this.lastTime = p.time
        this.idsAtLast = new Set()
      }
      if (p.id !== undefined) this.idsAtLast.add(p.id)
    }
    if (this.lines.length >= this.every.events || this.now() - this.lastFlush >= this.every.ms) await this.flush()
  }

  /** Everything added is on disk, and the state says so. */
  async flush(): Promise<void> {
    if (this.lines.length === 0 || !this.out) return
    const text = this.lines.join('')
    const bytes = this.state.gzip ? gzipSync(text) : Buffer.from(text)
    await this.out.write(bytes)
    await this.out.datasync()
    const w = this.state.written
    this.state.written = {bytes: w.bytes + bytes.length, events: w.events + this.lines.length, lastTime: this.lastTime, idsAtLastTime: [...this.idsAtLast]}
    await writeState(this.statePath, this.state)
    this.lines = []
    this.lastFlush = this.now()
  }

  /** Flushes and closes; `done` also removes the state (the pull is whole). */
  async close(done: boolean): Promise<void> {
    await this.flush()
    await this.out?.close()
    this.out = undefined
    if (done) await fs.rm(this.statePath, {force: true})
  }
}

/** The recorded state of an interrupted pull, or undefined when there is none. */
export async function readPullState(path: string, what: string): Promise<PullFileState | undefined> {
  let text: string
  try {
    text = await fs.readFile(path, 'utf8')
  } catch {
    return undefined
  }
  try {
    const state = JSON.parse(text) as PullFileState
    if (state.version !== 1 || !state.spec || !state.plan || !state.written) throw new Error('unknown layout')
    return state
  } catch (error: unknown) {
    throw new ConfigError(`${path}: not a skewscan ${what} state (${error instanceof Error ? error.message : String(error)}); remove it or pass --force`)
  }
}

/** Written whole to a temporary file, then renamed: a crash leaves the old state or the new one. */
async function writeState(path: string, state: PullFileState): Promise<void> {
  const tmp = `${path}.tmp`
  await fs.writeFile(tmp, `${JSON.stringify(state)}\n`)
  await fs.rename(tmp, path)
}

export async function fileSize(path: string): Promise<number | undefined> {
  try {
    return (await fs.stat(path)).size
  } catch {
    return undefined
  }
}
