import type {AccessEvent} from '../model/access-event'
import type {Rejection} from '../model/rejection'

export interface SourceBatch {
  events: AccessEvent[]
  rejections: Rejection[]
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
  batches(): AsyncGenerator<SourceBatch>
}
