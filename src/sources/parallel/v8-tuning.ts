import {setFlagsFromString} from 'node:v8'

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
 * - the old generation may grow to 2.5 times what survived the last full collection before the next
 *   one, instead of up to 4 times: a long run's live state grows slowly (the users it reports), and
 *   V8's own choice let the heap of the 2M-event run reach 200 MB around 50 MB of live data. Peak
 *   RSS of that run 322 -> 266 MB; no difference measured on the 200k-event run (9 runs each).
 * All are safe to change while the process runs: the scavenger reads its flag at each collection,
 * the heap its growing factor after each full one, and a compile job copies the inlining budget
 * when it starts. (Not so every flag: changing
 * --max-inlined-bytecode-size under a running compile job crashes V8.) It is done once the first
 * worker has booted and a pool uses it: any change of V8's flags makes the code cache of Node's
 * built-in modules unusable, and a thread loading them after it (a booting worker; this thread, while
 * oclif loads) compiles them afresh (~50 ms of CPU for a worker).
 */
export function tuneForWorkers(): void {
  if (tuned) return
  tuned = true
  setFlagsFromString('--no-parallel-scavenge --max-inlined-bytecode-size-cumulative=150 --heap-growing-percent=150')
}
