import type {Cursor} from './stderr'
import type {PullProgress} from '../sources/datadog/puller'
import {pluralCount} from '../util/plural'

export type PullStatus = PullProgress & {phase: 'planning' | 'pulling'}

/** One status line: slices, pages, events, the rate-limit budget left and the time left. */
export function renderProgress(p: PullStatus): string {
  if (p.phase === 'planning') return `datadog: counting the range (aggregate API)... ${p.requests} requests`
  const parts = [`datadog: slices ${p.slicesDone}/${p.slicesTotal}`, `${p.pages} pages`, `${p.events.toLocaleString('en-US')} events`, `${p.requests} requests`]
  if (p.retries > 0) parts.push(`${p.retries} retries`)
  const b = p.budget
  if (b?.remaining !== undefined) parts.push(`budget ${b.remaining}${b.limit === undefined ? '' : `/${b.limit}`}${b.resetInSeconds === undefined ? '' : ` (refills in ${duration(b.resetInSeconds)})`}`)
  if (p.etaSeconds !== undefined) parts.push(`ETA ${duration(p.etaSeconds)}`)
  return parts.join(' · ')
}

function duration(s: number): string {
  if (s < 60) return `${Math.round(s)}s`
  if (s < 3600) return `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s`
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
}

/**
 * Progress on stderr, only on a terminal: one line rewritten in place (cursor up, clear line), at
 * most once a `intervalMs`, and at once when a pull goes from planning to pulling (the planning
 * line would otherwise stand for a pull that has begun). Other notices go below it, and the next
 * update starts a fresh line.
 * Piped, it prints nothing, so logs of cron jobs hold only what matters.
 */
export class ProgressLine {
  private shown = false
  private last = 0
  /** The phase of the last pull status shown: a new phase is shown at once, whatever the interval. */
  private phase: PullStatus['phase'] | undefined
  private readonly started: number

  /** `delayMs`: nothing is shown before the work has lasted this long (short runs stay quiet). */
  constructor(private readonly write: (line: string, cursor?: Cursor) => void, private readonly enabled: boolean, private readonly now: () => number = Date.now, private readonly intervalMs = 500, private readonly delayMs = 0) {
    this.started = now()
  }

  update(p: PullStatus, force = false): void {
    const next = p.phase !== this.phase
    this.show(() => {
      this.phase = p.phase
      return renderProgress(p)
    }, force || next)
  }

  /** Shows the line `text()` makes (made only when it is shown). */
  show(text: () => string, force = false): void {
    if (!this.enabled) return
    const t = this.now()
    if (t - this.started < this.delayMs) return
    if (!force && this.shown && t - this.last < this.intervalMs) return
    this.last = t
    this.write(text(), this.shown ? 'replace' : undefined)
    this.shown = true
  }

  /** The work is done: the line goes, so what follows starts clean. */
  clear(): void {
    if (this.shown) this.write('', 'clear')
    this.shown = false
  }

  /** A notice (retry, fallback): printed on its own line; progress resumes under it. */
  note(message: string): void {
    this.shown = false
    this.write(message)
  }
}

/** Notices and progress of a pull, for a command that writes through `notice`. */
export function pullHooks(notice: (line: string, cursor?: Cursor) => void, tty: boolean): {onNotice: (m: string) => void; onProgress: (p: PullStatus) => void} {
  const line = new ProgressLine(notice, tty)
  return {onNotice: (m) => line.note(m), onProgress: (p) => line.update(p)}
}

/** How far the reading of files has come, for the progress line of a long run. */
export interface ReadProgress {
  records: number
  /** The log time reached (epoch ms), when any event was read. */
  time: number | undefined
  /** Bytes of the inputs read so far (before gunzip), when the sources tell. */
  bytes?: number
  /** The inputs' size, when every one is a file of known size. */
  totalBytes?: number
}

/**
 * The progress line of a file read: bytes read of the total with a share and an ETA (at the
 * rate so far) when the size is known, else the bytes read; then the records and the log time.
 */
export function renderReadProgress(p: ReadProgress, elapsedMs: number): string {
  const parts: string[] = []
  const {bytes, totalBytes: total} = p
  if (bytes !== undefined && total !== undefined && total > 0) {
    const done = Math.min(bytes, total)
    parts.push(`${size(done)} of ${size(total)} (${Math.floor((done / total) * 100)}%)`)
  } else if (bytes !== undefined && bytes > 0) {
    parts.push(`${size(bytes)} read`)
  }
  parts.push(pluralCount(p.records, 'record'))
  if (p.time !== undefined) parts.push(`log time ${new Date(p.time).toISOString().replace('T', ' ').slice(0, 19)}Z`)
  if (bytes !== undefined && total !== undefined && total > 0) {
    if (bytes >= total) parts.push('all read, analysing')
    else if (bytes > 0 && elapsedMs > 0) parts.push(`ETA ${duration(((total - bytes) * elapsedMs) / bytes / 1000)}`)
  }
  return `reading: ${parts.join(', ')}`
}

/** Bytes in the units a person reads: B, KB, MB, GB (powers of 1000, as `ls -h --si` and disk makers say). */
function size(n: number): string {
  if (n < 1000) return `${n} B`
  const units = ['KB', 'MB', 'GB', 'TB']
  let v = n / 1000
  let u = 0
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000
    u++
  }
  return `${v.toFixed(1)} ${units[u] as string}`
}

/** Progress of a long file read: on a terminal only, from its first second, at most twice a second. */
export function readHooks(notice: (line: string, cursor?: Cursor) => void, tty: boolean, now: () => number = Date.now): {onProgress: (p: ReadProgress) => void; note: (m: string) => void; done: () => void} {
  const line = new ProgressLine(notice, tty, now, 500, READ_PROGRESS_DELAY_MS)
  const started = now()
  return {
    note: (m) => line.note(m),
    onProgress: (p) => line.show(() => renderReadProgress(p, now() - started)),
    done: () => line.clear(),
  }
}

/** A run shorter than this prints no progress line (the quick start's stays clean). */
export const READ_PROGRESS_DELAY_MS = 1000
