/**
 * A deploy as declared by a deploy file or Datadog/Kubernetes events, before it is matched to the
 * builds seen in the logs. Times are epoch milliseconds, UTC.
 */
export interface DeclaredDeploy {
  /** When the rollout started. */
  start: number
  /** When it finished; absent when the record only marks a moment (then the analysis bounds it). */
  end?: number
  service?: string
  /** The version being rolled out, when the record names one (image tag, version tag, replica set). */
  version?: string
  /** The version being replaced, when the record names one. */
  fromVersion?: string
  /** Where it came from: `file` for a deploy list, `events` for Datadog/Kubernetes events. */
  source: 'file' | 'events'
  /** Free text for humans: the event title, the replica set name. */
  description?: string
}
