/**
 * The RUM parts of `analyze` (reading `--rum` files, the join, RUM alone), in a module of their
 * own so that a run without RUM never loads them (start-up time): app/analyze.ts requires it only
 * for a run with RUM.
 */
import type {RumInput} from '../analysis/rum'
import {readRumFiles} from '../sources/rum/rum-file'

export {joinRum} from '../analysis/rum'
export {rumOnlyReport} from '../analysis/rum-alone'

/** `--rum`: every file's RUM events, in time order, and what was read of them; a note when records were skipped. */
export async function readRum(files: string[], notice?: (message: string) => void): Promise<RumInput> {
  const read = await readRumFiles(files, notice)
  const counts = {view: 0, resource: 0, error: 0}
  for (const e of read.events) counts[e.kind]++
  return {events: read.events, input: {files: read.files, views: counts.view, resources: counts.resource, errors: counts.error, skipped: read.skipped}}
}
