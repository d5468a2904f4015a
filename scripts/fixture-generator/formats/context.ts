/** Fixed facts about where the logs were collected, shared by the writers. */
export interface WriterContext {
  /** Datadog `host` of the ingress controller pod. */
  host: string
  /** Datadog `service` of the logs: the ingress controller's, not the apps' (one ingress fronts many apps). */
  service: string
  env: string
  /** Write sub-second timestamps where the format allows it (resolution `ms`). */
  withMs: boolean
}

export const DEFAULT_CONTEXT: WriterContext = {
  host: 'ingress-nginx-controller-7d9f8b6c5d-x2x7q',
  service: 'ingress-nginx',
  env: 'prod',
  withMs: false,
}
