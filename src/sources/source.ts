import type {AccessEvent} from '../model/access-event'
import type {Rejection, UnlistedRejections} from '../model/rejection'

export interface SourceBatch {
  events: AccessEvent[]
  /** Rejections one by one: all of them, or (a parallel reader's) the first few of each reason, the rest in `unlisted`. */
  rejections: Rejection[]
  /** Rejections after the first few of their reason, counted (each costs a counter, not an object). */
  unlisted?: UnlistedRejections
}

export interface SourceStats {
  file: string
  format: string
  records: number
  skipped: number
}

/**
 * Where access events come from: a file, standard input, the Datadog API. Batches come roughly in
 * time order (the reorder buffer absorbs small disorder); `batches()` may be called again to re-read
 * a source that turned out to be out of order.
 */
export interface RecordSource {
  readonly displayName: string
  readonly stats: SourceStats
  /** Bytes read so far of the source, and its size when known (a regular file), for the progress line. */
  position?(): {bytes: number; total?: number}
  batches(): AsyncGenerator<SourceBatch>
}
