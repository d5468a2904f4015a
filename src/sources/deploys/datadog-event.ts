/** The fields both API versions share, under one set of names. */
export interface DatadogEvent {
  id?: string
  title: string
  text: string
  tags: string[]
  sourceType?: string
  /** Datadog's aggregation key: events of one rollout share it. */
  key?: string
  /** Time candidates, best first. */
  times: unknown[]
}
