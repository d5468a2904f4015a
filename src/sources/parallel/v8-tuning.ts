import {constants, PerformanceObserver} from 'node:perf_hooks'
import {getHeapSpaceStatistics, setFlagsFromString} from 'node:v8'

let tuned = false

/**
 * From the first worker on, every core runs JavaScript (the workers are cores - 1, plus this
 * thread), and a run may read gigabytes: three of V8's defaults then cost more than they give, so
 * they are changed once for the process:
 * - the young generation is collected on the collecting thread alone: a parallel scavenge's helper
 *   tasks wait for a core another JavaScript thread holds, and the collecting thread waits for them;
 * - TurboFan inlines less per optimised function (a cumulative budget of 150 bytecodes instead of
 *   920): each thread compiles the parsing code for itself on the same cores, and the smaller
 *   graphs compile much faster for about the same code.
 *   On the 200k-event benchmark file V8's helper threads then use ~0.37 s of CPU instead of ~0.63 s,
 *   and the run takes ~1.35 s instead of ~1.48 s; the 2M-event and ingress-line runs are as fast as
 *   before (medians, bench/out files).
 * - the old generation may grow by 20 MB over what survived the last full collection (see
 *   growingPercent), instead of up to 3 times it: a long run's live state is large and grows slowly
 *   (the users it reports), and V8's own choice let the heap of the 2M-event run reach 200 MB around
 *   50 MB of live data. Peak RSS of that run 322 -> 266 MB with a fixed 150%, -> ~225 MB with the
 *   bound (and the workers' smaller young generation, see start-worker); its wall time ~5% longer
 *   (more full collections); the 200k-event run unchanged (its state stays small).
 * All are safe to change while the process runs: the scavenger reads its flag at each collection,
 * the heap its growing factor after each full one (so it can follow the live data), and a compile
 * job copies the inlining budget when it starts. (Not so every flag: changing
 * --max-inlined-bytecode-size under a running compile job crashes V8.) It is done once the first
 * worker has booted and a pool uses it: any change of V8's flags makes the code cache of Node's
 * built-in modules unusable, and a thread loading them after it (a booting worker; this thread, while
 * oclif loads) compiles them afresh (~50 ms of CPU for a worker).
 */
export function tuneForWorkers(): void {
  if (tuned) return
  tuned = true
  setFlagsFromString(`--no-parallel-scavenge --max-inlined-bytecode-size-cumulative=150 --heap-growing-percent=${MAX_GROWING_PERCENT}`)
  boundSlack()
}

const MAX_GROWING_PERCENT = 150
const MIN_GROWING_PERCENT = 10
/** What the old generation may hold above its live data before the next full collection. */
const SLACK_BYTES = 20 * 1024 * 1024

/**
 * How much the old generation may grow (in percent of what survived a full collection) before the
 * next one: SLACK_BYTES over the live data, so that what a long run holds above its live state is
 * about a constant, not a multiple of it (memory flat in the input's size). A short run's state is
 * small: it may grow 150% (V8's own choice is up to 300%); around 40 MB of live data, 50%; never
 * under 10%.
 */
export function growingPercent(liveBytes: number): number {
  return Math.round(Math.min(MAX_GROWING_PERCENT, Math.max(MIN_GROWING_PERCENT, (SLACK_BYTES / Math.max(liveBytes, 1)) * 100)))
}

let percent = MAX_GROWING_PERCENT

/** The growth allowance set last (for tests). */
export function currentGrowingPercent(): number {
  return percent
}

/**
 * Sets the growth allowance after each full collection from what survived it (see growingPercent).
 * V8 reads it after each full collection; a GC observer (one entry per collection, delivered soon
 * after on this thread) sets it for the next one.
 */
function boundSlack(): void {
  new PerformanceObserver((list) => {
    if (!list.getEntries().some((e) => (e as {detail?: {kind?: number}}).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)) return
    const next = growingPercent(oldGenerationUsed())
    if (next === percent) return
    percent = next
    setFlagsFromString(`--heap-growing-percent=${next}`)
  }).observe({entryTypes: ['gc']})
}

/** Bytes in use in the old generation: every space but the young generation's and the read-only one. */
function oldGenerationUsed(): number {
  let used = 0
  for (const space of getHeapSpaceStatistics()) if (!YOUNG_OR_READ_ONLY.has(space.space_name)) used += space.space_used_size
  return used
}

const YOUNG_OR_READ_ONLY = new Set(['new_space', 'new_large_object_space', 'read_only_space'])
