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
  /** Where it came from: a deploy list (`file`), a deploy marker event, or a Deployment's Kubernetes events. */
  source: 'file' | 'marker' | 'kubernetes'
  /**
   * A marker of one moment of a rollout: `start` ("Deploy web v2 started"), `end` ("… finished").
   * Absent for records that give a window (or one moment with no phase).
   */
  phase?: 'start' | 'end'
  /** The Kubernetes namespace and Deployment, when the record names them (tags or the event's object). */
  namespace?: string
  deployment?: string
  /** The app, when the record names it (a deploy file's `app` column). */
  app?: string
  /** Records with one key describe one rollout (Datadog's aggregation key). */
  key?: string
  /** Free text for humans: the event title, the replica set name. */
  description?: string
}
