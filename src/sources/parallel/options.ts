import {DEFAULT_NORMALIZE, type NormalizeOptions} from '../../normalize/fields'
import {byteRanges, type LineRange} from '../file/line-range'
import {type FileKind, fileKind} from '../file/open'
import {type ParallelReading} from './parallel-lines'
import {prestartWorker} from './early-worker'
import {defaultWorkers, ParsePool} from './parse-pool'

/** How `analyze` uses worker threads to read files (the defaults suit nearly every run). */
export interface ParallelOptions {
  /** Worker threads (default: cores - 1, at least 1). */
  workers?: number
  /** Bytes of a file per job (default 1 MiB). */
  chunkBytes?: number
  /** Plain line files smaller than this are read on the main thread alone (default 32 MiB). */
  minFileBytes?: number
  /** Parse ranges on the main thread too while it waits for the workers (default true). */
  helpOnMain?: boolean
  /** Gzip line files smaller than this, compressed, are parsed on the main thread alone (default 4 MiB). */
  minGzipBytes?: number
  /** A pool to use, left open for the caller to close (runs then share workers); else one is started per run. */
  pool?: ParsePool
}

export const DEFAULT_CHUNK_BYTES = 1024 * 1024
export const DEFAULT_MIN_FILE_BYTES = 32 * 1024 * 1024
/** About the same amount of text as DEFAULT_MIN_FILE_BYTES: logs compress some eight to ten times. */
export const DEFAULT_MIN_GZIP_BYTES = 4 * 1024 * 1024

/** The parallel reading a run uses (none for `false`), and how to stop its workers afterwards. */
export function openParallel(opts: ParallelOptions | false | undefined): {reading: ParallelReading | undefined; close: () => Promise<void>} {
  if (opts === false) return {reading: undefined, close: async () => {}}
  const own = opts?.pool ? undefined : new ParsePool(opts?.workers ?? defaultWorkers())
  const pool = (opts?.pool ?? own) as ParsePool
  const reading: ParallelReading = {
    pool,
    chunkBytes: Math.max(1, Math.floor(opts?.chunkBytes ?? DEFAULT_CHUNK_BYTES)),
    minFileBytes: opts?.minFileBytes ?? DEFAULT_MIN_FILE_BYTES,
    inFlight: pool.capacity + 8,
    helpOnMain: opts?.helpOnMain ?? true,
    minGzipBytes: opts?.minGzipBytes ?? DEFAULT_MIN_GZIP_BYTES,
  }
  return {reading, close: async () => own?.close()}
}

/** Whether a file is large enough to be read by workers. */
const forWorkers = (kind: FileKind | undefined, t: {minFileBytes: number; minGzipBytes: number}): boolean =>
  kind !== undefined && kind.size >= (kind.gzip ? t.minGzipBytes : t.minFileBytes)

/** Starts the workers early when an input is large enough to be read by them (they take a while to boot). */
export function warmFor(paths: readonly string[], reading: ParallelReading | undefined): void {
  if (!reading) return
  for (const path of paths) if (forWorkers(fileKind(path), reading)) return reading.pool.warm()
}

/**
 * For bin/run.js, before oclif loads: when the arguments of `analyze` name a file the default
 * settings read with workers, one worker is started now (see prestartWorker). Any argument is
 * tried as a path (a flag's value too: a small file is no reason); `--workers` turns this off.
 */
export function prestartFor(args: readonly string[], defaults: PrestartSizes = PRESTART_SIZES): void {
  const flag = (name: string): boolean => args.some((a) => a === name || a.startsWith(`${name}=`))
  if (flag('--workers')) return
  for (const path of args) {
    const kind = path.startsWith('-') ? undefined : fileKind(path)
    if (!kind || !forWorkers(kind, defaults)) continue
    // A plain file is read in ranges from its start (the very ranges the run cuts): the worker
    // begins on the first ones, with the default field mapping unless the flags choose another.
    const jobs: {range: LineRange; opts: NormalizeOptions}[] = []
    if (!kind.gzip && !flag('--field') && !flag('--session-key')) {
      for (const range of byteRanges(path, kind.size, defaults.chunkBytes, kind)) {
        if (jobs.push({range, opts: DEFAULT_NORMALIZE}) === PRESTART_RANGES) break
      }
    }
    return prestartWorker(jobs)
  }
}

/** The sizes a run uses by default: which files it reads with workers, and the ranges it cuts them into. */
export interface PrestartSizes {
  minFileBytes: number
  minGzipBytes: number
  chunkBytes: number
}

const PRESTART_SIZES: PrestartSizes = {minFileBytes: DEFAULT_MIN_FILE_BYTES, minGzipBytes: DEFAULT_MIN_GZIP_BYTES, chunkBytes: DEFAULT_CHUNK_BYTES}

/** Ranges a prestarted worker parses before the run asks: about what it has time for while oclif loads. */
const PRESTART_RANGES = 6
