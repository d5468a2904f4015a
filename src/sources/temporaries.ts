import {rmSync} from 'node:fs'

/**
 * Temporary directories alive now (the kept copy of standard input, the sort's spilled runs): a run
 * stopped by a signal removes them before it exits (see cli/signals), as a finished run does.
 */
const live = new Set<string>()

/** Records a temporary directory; the function returned forgets it (once it is removed). */
export function trackTemporary(dir: string): () => void {
  live.add(dir)
  return () => void live.delete(dir)
}

/** Removes every temporary directory alive now, synchronously: a signal handler exits right after. */
export function removeTemporariesSync(): void {
  for (const dir of live) {
    try {
      rmSync(dir, {recursive: true, force: true})
    } catch {
      // what cannot be removed is left; the exit goes on
    }
  }
  live.clear()
}
