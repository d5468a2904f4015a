/**
 * Where and as whom skewscan talks to Datadog: the site, the base URL and the keys. Values come in
 * as arguments (flags, and the environment the command read), never from `process.env` here.
 */
import type {AnalysisOptions} from '../analysis/options'
import type {DatadogConnection} from '../sources/datadog/connection'
import type {ExportSettings} from '../sources/datadog/export-settings'
import {AUTO_SESSION_ATTRIBUTES, type NormalizeOptions} from '../normalize/fields'
import type {LiveRequest} from '../sources/datadog/live-source'
import type {RumPullRequest} from '../sources/datadog/rum-pull'
import type {ScannerSpec} from '../sources/datadog/scanners'
import type {PullMode, PullSpec, PullTuning} from '../sources/datadog/pull'
import type {StorageTier} from '../sources/datadog/puller'
import {type AnalyzeFlags, analyzeSettings} from './analyze-options'
import {ConfigError} from '../errors/config-error'
import {parseDuration} from '../util/parse-duration'
import {resolveTimeRange, type TimeRange} from './time-range'

/**
 * Datadog's sites (docs: getting_started/site; US2-FED and UK1 included). The API lives at
 * `https://api.<site>`; a site outside this list is a typo far more often than a new region, and
 * `--api-url` covers proxies and anything else.
 */
export const DATADOG_SITES = [
  'datadoghq.com', 'us3.datadoghq.com', 'us5.datadoghq.com', 'datadoghq.eu', 'ap1.datadoghq.com',
  'ap2.datadoghq.com', 'uk1.datadoghq.com', 'ddog-gov.com', 'us2.ddog-gov.com',
] as const

export const DEFAULT_SITE = 'datadoghq.com'

/** The variables a key may come from, in order of preference. */
export const API_KEY_VARS = ['DD_API_KEY', 'DATADOG_API_KEY'] as const
export const APP_KEY_VARS = ['DD_APP_KEY', 'DATADOG_APP_KEY'] as const
const SITE_VARS = ['DD_SITE', 'DATADOG_SITE'] as const
const API_URL_VAR = 'SKEWSCAN_API_URL'

export type Env = Readonly<Record<string, string | undefined>>
export type {DatadogConnection} from '../sources/datadog/connection'
export {maskSecrets} from '../sources/datadog/connection'


/** `--site`, else DD_SITE / DATADOG_SITE, else datadoghq.com; checked against Datadog's list. */
export function resolveSite(flag: string | undefined, env: Env): string {
  const fromEnv = SITE_VARS.map((name) => ({name, value: nonEmpty(env[name])})).find((v) => v.value !== undefined)
  const source = flag !== undefined ? '--site' : fromEnv?.name
  const raw = flag ?? fromEnv?.value ?? DEFAULT_SITE
  // People paste the app URL: app.datadoghq.eu, https://us5.datadoghq.com/...
  const site = raw.trim().toLowerCase().replace(/^https?:\/\//, '').replace(/\/.*$/, '').replace(/^(app|api)\./, '')
  if (!(DATADOG_SITES as readonly string[]).includes(site)) {
    throw new ConfigError(`${source}: "${raw}" is not a Datadog site. Use one of ${DATADOG_SITES.join(', ')} (or --api-url for a proxy).`)
  }
  return site
}

/** `--api-url`, else SKEWSCAN_API_URL, else `https://api.<site>`. */
export function resolveBaseUrl(flag: string | undefined, env: Env, site: string): string {
  const raw = flag ?? nonEmpty(env[API_URL_VAR])
  if (raw === undefined) return `https://api.${site}`
  const source = flag === undefined ? API_URL_VAR : '--api-url'
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ConfigError(`${source}: "${raw}" is not a URL (e.g. https://dd-proxy.internal:8443)`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${source}: "${raw}" must be an http or https URL`)
  if (url.username !== '' || url.password !== '') throw new ConfigError(`${source}: put no credentials in the URL; keys come from ${API_KEY_VARS.join('/')} and ${APP_KEY_VARS.join('/')}`)
  if (url.search !== '' || url.hash !== '') throw new ConfigError(`${source}: "${raw}" must not have a query string or fragment`)
  // The client appends /api/v2/...; a trailing slash would double it.
  return url.toString().replace(/\/+$/, '')
}

/** Both keys, or a ConfigError naming every variable that was looked at. */
export function resolveKeys(env: Env): {apiKey: string; appKey: string} {
  const apiKey = API_KEY_VARS.map((n) => nonEmpty(env[n])).find((v) => v !== undefined)
  const appKey = APP_KEY_VARS.map((n) => nonEmpty(env[n])).find((v) => v !== undefined)
  const missing = [
    ...(apiKey === undefined ? [`an API key (${API_KEY_VARS.join(' or ')})`] : []),
    ...(appKey === undefined ? [`an application key with the logs_read_data permission (${APP_KEY_VARS.join(' or ')})`] : []),
  ]
  if (apiKey === undefined || appKey === undefined) {
    throw new ConfigError(`Reading from Datadog needs ${missing.join(' and ')} in the environment. Keys are read only from the environment, never from flags.`)
  }
  return {apiKey, appKey}
}

export function resolveConnection(flags: {site?: string; 'api-url'?: string}, env: Env): DatadogConnection {
  const site = resolveSite(flags.site, env)
  const baseUrl = resolveBaseUrl(flags['api-url'], env, site)
  return {site, baseUrl, ...resolveKeys(env)}
}

function nonEmpty(v: string | undefined): string | undefined {
  const t = v?.trim()
  return t === undefined || t === '' ? undefined : t
}

/** The Datadog flags as oclif parsed them (shared by analyze and export). */
export interface DatadogFlags {
  from?: string
  to?: string
  since?: string
  query?: string
  index?: string[]
  'storage-tier'?: string
  'deploy-query'?: string
  site?: string
  'api-url'?: string
  pull: string
  'window-pad'?: string
  concurrency: number
  timeout: string
  'retry-base': string
  'max-attempts': number
  'max-wait': string
  'slice-events': number
}

/** What the narrowing needs from the analysis settings. */
export interface NarrowingInputs {
  assetPatterns: readonly string[]
  shellPaths: readonly string[]
  lengthTolerance: number
  horizonMs: number
  lookaheadMs: number
  /** `--field contentType=PATH`, when given. */
  contentTypeField?: string
}

export interface LiveSettings {
  connection: DatadogConnection
  spec: PullSpec
  tuning: PullTuning
  deployQuery?: string
  deployRange: TimeRange
}

const STORAGE_TIERS = ['indexes', 'online-archives', 'flex'] as const
const PULL_MODES = ['windows', 'narrowed', 'all'] as const

/**
 * True when the flags ask to read from Datadog (a range is given). Datadog flags without a range
 * would be silently ignored next to files, so they are an error.
 */
export function wantsDatadog(f: {from?: string; since?: string; to?: string; query?: string; 'deploy-query'?: string; 'rum-query'?: string}): boolean {
  if (f.from !== undefined || f.since !== undefined) return true
  const orphan = (['to', 'query', 'deploy-query', 'rum-query'] as const).filter((k) => f[k] !== undefined)
  // --rum-query reads the RUM events of the log pull's range: RUM saved to a file is --rum's.
  const rum = f['rum-query'] === undefined ? '' : ' (--rum-query reads the RUM events of that range; --rum FILE reads RUM events saved to a file)'
  if (orphan.length > 0) throw new ConfigError(`${orphan.map((k) => `--${k}`).join(', ')} read from Datadog: give --from or --since too${rum}`)
  return false
}

/**
 * `--rum-query`: the RUM pull of the log pull's range, with its connection and tuning (a range is
 * given: wantsDatadog holds a --rum-query without one). Not with `--rum FILE`: the pull counts the
 * range's page loads on Datadog's side and reads only the sessions that matter, so a file's views
 * would be counted twice or not at all, and events in both could be told apart only by guessing.
 */
export function rumPullRequest(f: {'rum-query'?: string; rum?: string[]}, live: LiveRequest | undefined): RumPullRequest | undefined {
  const query = f['rum-query']
  if (query === undefined) return undefined
  if (f.rum !== undefined && f.rum.length > 0) throw new ConfigError('--rum-query and --rum both give RUM events: read them from Datadog (--rum-query, over the range of --from/--since) or from files (--rum), not both')
  if (live === undefined) throw new ConfigError('--rum-query reads RUM events from Datadog: give --from or --since too')
  return {connection: live.connection, query: query.trim(), range: live.spec.range, tuning: live.tuning}
}

/**
 * Flags and environment into a live pull. `now` is read once by the caller: date math, slices and
 * the report all use it.
 */
export function liveSettings(f: DatadogFlags, env: Env, now: number, n: NarrowingInputs): LiveSettings {
  const spec = pullSpec(f, now, n)
  return {
    connection: resolveConnection(f, env), spec, tuning: pullTuning(f),
    ...(f['deploy-query'] === undefined ? {} : {deployQuery: f['deploy-query']}),
    // Deploys that started up to a horizon before the range still explain failures inside it.
    deployRange: {from: spec.range.from - n.horizonMs, to: spec.range.to},
  }
}

export function pullSpec(f: DatadogFlags, now: number, n: NarrowingInputs): PullSpec {
  const range = resolveTimeRange(f, now)
  if (!(PULL_MODES as readonly string[]).includes(f.pull)) throw new ConfigError(`--pull: "${f.pull}" must be one of ${PULL_MODES.join(', ')}`)
  const tier = f['storage-tier']
  if (tier !== undefined && !(STORAGE_TIERS as readonly string[]).includes(tier)) throw new ConfigError(`--storage-tier: "${tier}" must be one of ${STORAGE_TIERS.join(', ')}`)
  const indexes = (f.index ?? []).flatMap((i) => i.split(',')).map((i) => i.trim()).filter((i) => i !== '')
  return {
    query: f.query?.trim() || '*', range, mode: f.pull as PullMode,
    scope: {...(indexes.length > 0 ? {indexes} : {}), ...(tier === undefined ? {} : {storageTier: tier as StorageTier})},
    narrowing: {
      assetPatterns: [...n.assetPatterns], shellPaths: [...n.shellPaths], lengthTolerance: n.lengthTolerance,
      ...(n.contentTypeField === undefined ? {} : {contentTypeAttributes: [n.contentTypeField]}),
    },
    windowPadMs: f['window-pad'] === undefined ? n.horizonMs : parseDuration('window-pad', f['window-pad']),
    windowTailMs: n.lookaheadMs,
  }
}

/** A range of at most this many events is pulled narrowed: ten pages of search cost less than planning windows (about 15 requests). */
const NARROW_BELOW = 10_000

export function pullTuning(f: DatadogFlags): PullTuning {
  if (f.concurrency < 1 || f.concurrency > 8) throw new ConfigError(`--concurrency: ${f.concurrency} must be between 1 and 8 (Datadog allows about 300 searches an hour)`)
  if (f['max-attempts'] < 1) throw new ConfigError('--max-attempts must be at least 1')
  if (f['slice-events'] < 1) throw new ConfigError('--slice-events must be at least 1')
  const timeoutMs = parseDuration('timeout', f.timeout)
  if (timeoutMs < 1) throw new ConfigError('--timeout must be longer than zero')
  const baseDelayMs = parseDuration('retry-base', f['retry-base'])
  return {
    concurrency: f.concurrency, sliceEvents: f['slice-events'], maxSliceMs: 3_600_000, timeoutMs, narrowBelow: NARROW_BELOW,
    retry: {maxAttempts: f['max-attempts'], baseDelayMs, maxDelayMs: Math.max(baseDelayMs, 30_000), maxElapsedMs: parseDuration('max-wait', f['max-wait'])},
  }
}

/** The live source for `analyze`: the pull settings plus how events are normalised. */
export function liveRequest(f: DatadogFlags, env: Env, now: number, s: {analysis: AnalysisOptions; normalize: NormalizeOptions}): LiveRequest {
  const live = liveSettings(f, env, now, {...s.analysis, contentTypeField: s.normalize.fields.contentType})
  const countPages = pageCounting(s.analysis, s.normalize)
  const scanners = countPages ? scannerCheck(s.analysis, s.normalize) : undefined
  return {...live, spec: {...live.spec, ...(countPages ? {countPages} : {}), ...(scanners ? {scanners} : {})}, normalize: s.normalize}
}

/**
 * Whether the pull may leave scanners' failure-looking requests without asset windows (see
 * sources/datadog/scanners.ts): only where the analysis keys a page load by the logged client
 * address and agent, or by a session attribute a request names (which the check looks for), so
 * what Datadog groups by is what the analysis keys by.
 */
export function scannerCheck(a: AnalysisOptions, n: NormalizeOptions): ScannerSpec | undefined {
  const mapped = (['clientIp', 'userAgent', 'session', 'userId'] as const).some((k) => n.fields[k] !== undefined)
  if (mapped || (n.trustedProxies?.length ?? 0) > 0) return undefined
  const k = n.sessionKey.kind
  if (k !== 'auto' && k !== 'ip-ua') return undefined
  return {sessionAttributes: k === 'auto' ? AUTO_SESSION_ATTRIBUTES : [], horizonMs: a.horizonMs, lookaheadMs: a.lookaheadMs}
}

/**
 * `analyze`'s source flags into its Datadog pull, or none when it reads files only: files, RUM
 * files or a range must be given, and --plan and --spool are about a pull. `--spool` keeps what a live run
 * pulls (a --plan run pulls nothing).
 */
export function analyzePull(files: readonly string[], f: DatadogFlags & {plan: boolean; spool?: string; rum?: string[]}, env: Env, now: number, s: {analysis: AnalysisOptions; normalize: NormalizeOptions}): LiveRequest | undefined {
  // RUM files alone (no logs) are a run of their own: the browsers' failures per deploy.
  if (files.length === 0 && !wantsDatadog(f) && (f.rum ?? []).length === 0) throw new ConfigError('Give log files to read, --from/--since to read from Datadog, or --rum to read RUM events alone (see --help)')
  if (!wantsDatadog(f)) {
    if (f.plan) throw new ConfigError('--plan says what a Datadog pull will cost: give --from or --since')
    if (f.spool !== undefined) throw new ConfigError('--spool keeps a Datadog pull: give --from or --since')
    return undefined
  }
  return {...liveRequest(f, env, now, s), ...(f.spool === undefined || f.plan ? {} : {spool: f.spool})}
}

/**
 * Whether page requests can be counted on Datadog's side (see sources/datadog/census.ts), and the
 * facets that name apps: not when the report keeps every page load's requests (`detail`: the HTML
 * report's timeline), nor when --field maps what counting groups by (the app, agent, pod, length).
 */
export function pageCounting(a: AnalysisOptions, n: NormalizeOptions): {appFacets: readonly string[]; routes: {horizonMs: number; lookaheadMs: number}} | undefined {
  if (a.detail) return undefined
  const mapped = (['app', 'upstreamName', 'vhost', 'service', 'userAgent', 'upstream', 'version'] as const).some((k) => n.fields[k] !== undefined)
  const source = a.appSource ?? 'auto'
  if (mapped || source === 'key') return undefined
  // The census (and the aggregate code it counts with) loads for a live pull only: an offline run never counts.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const {APP_FACETS} = require('../sources/datadog/census') as typeof import('../sources/datadog/census')
  return {appFacets: APP_FACETS[source], routes: {horizonMs: a.horizonMs, lookaheadMs: a.lookaheadMs}}
}

/** The export flags: the Datadog flags, the narrowing subset of the analysis flags, the output. */
export type ExportFlags = DatadogFlags & Pick<AnalyzeFlags, 'asset-pattern' | 'default-asset-patterns' | 'shell-path' | 'length-tolerance' | 'horizon' | 'lookahead' | 'field'> & {
  output: string
  resume: boolean
  force: boolean
}

/** Analysis settings export does not use (it only narrows by asset patterns, shell paths and lengths). */
const UNUSED_BY_EXPORT = {'session-key': 'auto', 'incident-gap': '5m', 'deploy-margin': '60s', 'reorder-window': '60s', 'lazy-gap': '3s', 'app-key': 'auto'}

export function exportSettings(f: ExportFlags, env: Env, now: number): ExportSettings {
  const connection = resolveConnection(f, env)
  const base = {output: f.output, resume: f.resume, force: f.force, connection, tuning: pullTuning(f)}
  if (f.resume) {
    const given = (['from', 'to', 'since', 'query', 'index', 'storage-tier', 'window-pad'] as const).filter((k) => f[k] !== undefined)
    if (given.length > 0) throw new ConfigError(`--resume continues with the query, range and plan of the interrupted export; leave out ${given.map((k) => `--${k}`).join(', ')}`)
    return base
  }
  const {analysis, normalize} = analyzeSettings({...UNUSED_BY_EXPORT, ...f})
  return {...base, spec: pullSpec(f, now, {...analysis, contentTypeField: normalize.fields.contentType})}
}
