import {Flags} from './oclif'

const GROUP = 'DATADOG'

/** How much to pull; analyze defaults to the cheapest, export to what any later analysis may read. */
export function pullFlag(defaultMode: 'windows' | 'narrowed') {
  return Flags.string({
    options: ['windows', 'narrowed', 'all'], default: defaultMode, helpGroup: GROUP,
    description: 'windows: count first (aggregate API), pull page requests in full and asset requests only around candidate failures; narrowed: every GET page and asset request of the range; all: the query as given (logs without parsed http attributes)',
  })
}

/**
 * Flags for reading logs straight from Datadog (analyze and export). Keys are never flags: they come
 * from DD_API_KEY/DATADOG_API_KEY and DD_APP_KEY/DATADOG_APP_KEY only, so they stay out of shell
 * history and process lists.
 */
export const datadogFlags = {
  from: Flags.string({description: 'read logs from Datadog from this time: ISO-8601 (UTC when no zone), epoch ms, or date math in UTC (now-2h; now-1d/d is yesterday 00:00)', helpGroup: GROUP}),
  to: Flags.string({description: 'until this time (default now); same forms as --from', helpGroup: GROUP}),
  since: Flags.string({description: 'shorthand for --from now-<since> --to now (e.g. 2h, 90m)', exclusive: ['from', 'to'], helpGroup: GROUP}),
  query: Flags.string({description: 'Datadog log query selecting the access logs, e.g. "service:ingress-nginx env:prod"; only GET requests for shells and assets (and pods at the edges of their life) are pulled from it', helpGroup: GROUP}),
  index: Flags.string({multiple: true, description: 'log index to search (repeat or comma-separate); default all', helpGroup: GROUP}),
  'storage-tier': Flags.string({options: ['indexes', 'online-archives', 'flex'], description: 'storage tier to search', helpGroup: GROUP}),
  'deploy-query': Flags.string({description: 'Datadog events query for deploys, e.g. "source:(kubernetes OR deployment) kube_deployment:web" (Events API v2, v1 as fallback)', helpGroup: GROUP}),
  site: Flags.string({description: 'Datadog site (datadoghq.com, datadoghq.eu, us3.datadoghq.com, ...); default DD_SITE or DATADOG_SITE, else datadoghq.com', helpGroup: GROUP}),
  'api-url': Flags.string({description: 'base URL of the Datadog API, for proxies (default https://api.<site>; env SKEWSCAN_API_URL)', helpGroup: GROUP}),
  pull: pullFlag('windows'),
  'window-pad': Flags.string({description: 'with --pull windows, how far before a failure the requests of the person it hit are pulled (everyone\'s asset requests when people cannot be listed by address; default: --horizon)', helpGroup: GROUP}),
  concurrency: Flags.integer({default: 3, description: 'time slices pulled at once (1-8)', helpGroup: GROUP}),
  'max-wait': Flags.string({default: '5m', description: 'longest one request may take, retries and rate-limit waits included; then the run fails (exit 3)', helpGroup: GROUP}),
  timeout: Flags.string({default: '30s', hidden: true, description: 'timeout of one HTTP request'}),
  'retry-base': Flags.string({default: '1s', hidden: true, description: 'first retry backoff, doubled each attempt'}),
  'max-attempts': Flags.integer({default: 6, hidden: true, description: 'attempts per request'}),
  'slice-events': Flags.integer({default: 20_000, hidden: true, description: 'events per time slice to aim for'}),
}
