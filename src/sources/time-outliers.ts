import type {AccessEvent} from '../model/access-event'

export interface TimeOutlierOptions {
  /** A silence longer than this splits the input into stretches. */
  gapMs: number
  /** A stretch of at most this many records at either end of the input, beyond such a gap from the rest, is an outlier. */
  maxRecords: number
}

/** A day of silence, and a handful of records: a clock or a parser gone wrong, not traffic. */
export const DEFAULT_TIME_OUTLIERS: TimeOutlierOptions = {gapMs: 24 * 3600_000, maxRecords: 10}

/**
 * The time-ordered stream without records dated far outside the rest of the input (a line dated
 * 2099, or 1999): each would stretch the time a build was served, turning stale clients into a
 * rollout race. The stream is cut into stretches at silences longer than `gapMs`; the input's bulk
 * is its stretches of more than `maxRecords` records. A few records before the first stretch of the
 * bulk, or after its last, are outliers: handed to `onOutlier` instead of passed on. An input with
 * no bulk (a few records, all far apart) keeps every record.
 *
 * Memory: at most 2 `maxRecords` + 1 records are held back at a time. Records held back that turn
 * out not to be outliers (a quiet stretch between two busy ones, or many sparse records) are passed
 * on in their order.
 */
export async function* withoutTimeOutliers(source: AsyncIterable<AccessEvent[]>, onOutlier: (e: AccessEvent) => void, opts: TimeOutlierOptions = DEFAULT_TIME_OUTLIERS): AsyncGenerator<AccessEvent[]> {
  /** Records of small stretches since the bulk was last seen (or since the start). */
  let held: AccessEvent[] = []
  /** Where the current stretch begins in `held`, while it is small. */
  let stretchStart = 0
  /** The current stretch has more than maxRecords records: its records pass straight on. */
  let inBulk = false
  let bulkSeen = false
  /** Records were passed on: the input has begun, what comes next is not leading. */
  let begun = false
  /** Records since the last stretch of the bulk ended. */
  let sinceBulk = 0
  let last = Number.NEGATIVE_INFINITY
  for await (const batch of source) {
    // In the bulk, a batch without a silence longer than gapMs passes on as it is (nearly every
    // batch): no copy of it, event by event.
    if (inBulk && noGap(batch, last, opts.gapMs)) {
      if (batch.length > 0) {
        last = (batch[batch.length - 1] as AccessEvent).time
        yield batch
      }
      continue
    }
    const out: AccessEvent[] = []
    for (const e of batch) {
      if (e.time - last > opts.gapMs) {
        inBulk = false
        stretchStart = held.length
      }
      last = e.time
      if (inBulk) {
        out.push(e)
        continue
      }
      held.push(e)
      sinceBulk++
      if (held.length - stretchStart > opts.maxRecords) {
        // The current stretch is bulk: the small stretches before it are leading outliers when
        // nothing came before them, else a quiet time inside the input.
        const before = held.slice(0, stretchStart)
        if (begun) out.push(...before)
        else for (const o of before) onOutlier(o)
        out.push(...held.slice(stretchStart))
        held = []
        stretchStart = 0
        sinceBulk = 0
        inBulk = bulkSeen = begun = true
      } else if (stretchStart > opts.maxRecords) {
        // Many records in small stretches: sparse traffic, not a few stray ones. They are input.
        out.push(...held.slice(0, stretchStart))
        held = held.slice(stretchStart)
        stretchStart = 0
        begun = true
      }
    }
    if (out.length > 0) yield out
  }
  if (held.length === 0) return
  if (bulkSeen && sinceBulk <= opts.maxRecords) {
    for (const o of held) onOutlier(o)
  } else {
    yield held
  }
}

/** Whether no event of a batch comes more than `gapMs` after the one before it (the first: after `last`). */
function noGap(batch: readonly AccessEvent[], last: number, gapMs: number): boolean {
  let previous = last
  for (const e of batch) {
    if (e.time - previous > gapMs) return false
    previous = e.time
  }
  return true
}
