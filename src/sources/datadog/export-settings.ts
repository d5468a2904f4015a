import type {DatadogConnection} from './connection'
import type {PullSpec, PullTuning} from './pull'

/**
 * What `skewscan export` is asked to pull and where to write it, as the settings make it of the
 * flags (config/datadog.ts) and the export use case reads it (app/export.ts adds the hooks).
 */
export interface ExportSettings {
  output: string
  /** Continue the interrupted export of `output`, with the query, range and plan it recorded. */
  resume: boolean
  /** Overwrite an existing output (and forget an interrupted export of it). */
  force: boolean
  connection: DatadogConnection
  /** What to pull; absent with `resume`. */
  spec?: PullSpec
  tuning: PullTuning
}
