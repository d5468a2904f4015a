/** Fixed facts about where the logs were collected, shared by the writers. */
export interface WriterContext {
  /** ingress-nginx `$proxy_upstream_name`: `<namespace>-<service>-<port>`. */
  upstreamName: string
  /** Datadog `host` of the ingress controller pod. */
  host: string
  service: string
  env: string
  /** Write sub-second timestamps where the format allows it (resolution `ms`). */
  withMs: boolean
}

export const DEFAULT_CONTEXT: WriterContext = {
  upstreamName: 'default-web-80',
  host: 'ingress-nginx-controller-7d9f8b6c5d-x2x7q',
  service: 'web',
  env: 'prod',
  withMs: false,
}
