/**
 * The one door to Datadog. The official client (`@datadog/datadog-api-client`) builds every request:
 * URL, auth headers, and the body serialised from its typed models (camelCase in TypeScript,
 * snake_case on the wire). It sends them through our own `fetch`, which:
 *
 * - applies a timeout to each request (the client has none; a shared `httpConfig.signal` would
 *   cancel every later request once it fires);
 * - reads the `X-RateLimit-*` headers of every answer, 429s included (the client's errors carry no
 *   headers);
 * - keeps the raw body. skewscan analyses the wire JSON, exactly as an export holds it: the client's
 *   deserialiser turns timestamps into Dates, camelCases event attributes and moves unknown keys
 *   into `additionalProperties`, so converting back would be lossy guesswork. Recovering the bytes
 *   is exact and costs nothing;
 * - classifies failures (HTTP status, timeout, cut-off body, connection error, bad JSON) for the
 *   retry policy. The client's own retry is off: it cannot see timeouts or cut-off bodies, and its
 *   waits are seconds long;
 * - follows no redirect. fetch's default would resend every header, DD-API-KEY and
 *   DD-APPLICATION-KEY included, to whatever origin a Location names (issue 14). See `redirected`.
 *
 * The client is imported only here, lazily (its bundle takes about 0.2 s to load, the package's
 * 6,244 modules 1.3-1.7): `--help` and offline runs never load it. Its logger is silenced first,
 * since with DEBUG set it writes request dumps to stdout.
 */
import {setTimeout as sleep} from 'node:timers/promises'
import type {ClientCommon, ClientLogger, Configuration, EventsApi, EventsApiV1, LogsApi, RUMApi} from './client-types'
import {type DatadogConnection, maskSecrets} from './connection'
import {DatadogRequestError, type Operation, PullAborted} from './errors'
import {RateGate} from './rate-limit'

export {DatadogRequestError, PullAborted, type Operation} from './errors'
import {describeFailure, type RequestFailure, retryDecision, type RetryPolicy} from './retry'

export const OPERATION_PATHS: Record<Operation, string> = {
  'logs-search': 'POST /api/v2/logs/events/search',
  'logs-aggregate': 'POST /api/v2/logs/analytics/aggregate',
  'events-search': 'POST /api/v2/events/search',
  'events-v1': 'GET /api/v1/events',
  'rum-search': 'POST /api/v2/rum/events/search',
  'rum-aggregate': 'POST /api/v2/rum/analytics/aggregate',
}

export interface ClientOptions {
  /** Per request, headers and body together. */
  timeoutMs: number
  retry: RetryPolicy
  /** Aborts everything in flight (Ctrl-C in export). */
  signal?: AbortSignal
  /** Told about every retry, for a notice on stderr. */
  onRetry?: (info: {operation: Operation; attempt: number; delayMs: number; why: string}) => void
  now?: () => number
  random?: () => number
  /** The most one answer may take once inflated (default `MAX_ANSWER_BYTES`). */
  maxAnswerBytes?: number
}

/**
 * The most one answer may take, once inflated. A full page (1000 logs) is a few MB; an aggregate
 * answer less. The client asks for gzip, and fetch inflates whatever `Content-Encoding` says, so
 * a small gzip bomb from a proxy or a misdirected `--api-url` would otherwise inflate to gigabytes.
 */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024

/** An answer that grew past the cap while it was read. */
class AnswerTooLarge extends Error {}

export interface RequestStats {
  requests: number
  byOperation: Record<Operation, number>
  retries: number
}

interface Capture {
  failure?: RequestFailure
  /** The parsed body of a 2xx answer. */
  json?: unknown
  body?: string
}

/** An API class of the client, made with a configuration. */
type Api<T> = new (configuration: Configuration) => T

/** The client's modules that skewscan uses. */
interface ClientBundle {
  logger: ClientLogger
  common: ClientCommon
  LogsApi: Api<LogsApi>
  EventsApi: Api<EventsApi>
  RUMApi: Api<RUMApi>
}

/** What a request's APIs are made of. */
interface ClientModules extends Pick<ClientBundle, 'LogsApi' | 'EventsApi' | 'RUMApi'> {
  configuration: (fetch: (url: string, init: RequestInit) => Promise<Response>) => Configuration
  EventsApiV1: () => Promise<Api<EventsApiV1>>
}

export interface Apis {
  logs: LogsApi
  events: EventsApi
  /** RUM events (`analyze --rum-query`). */
  rum: RUMApi
  /** Loaded on first use: v1 is only the fallback for deploy events. */
  eventsV1(): Promise<EventsApiV1>
}

export class DatadogClient {
  readonly stats: RequestStats = {requests: 0, byOperation: {'logs-search': 0, 'logs-aggregate': 0, 'events-search': 0, 'events-v1': 0, 'rum-search': 0, 'rum-aggregate': 0}, retries: 0}
  readonly rate: RateGate
  private readonly now: () => number
  private readonly random: () => number
  private modules: ClientModules | undefined

  constructor(private readonly connection: DatadogConnection, private readonly options: ClientOptions) {
    this.now = options.now ?? Date.now
    this.random = options.random ?? Math.random
    this.rate = new RateGate(this.now)
  }

  /** Masks the keys in any text that may be shown (server bodies can echo what they were sent). */
  mask(text: string): string {
    return maskSecrets(text, [this.connection.apiKey, this.connection.appKey])
  }

  /**
   * Runs one API call with retries and returns the wire JSON of its answer. `invoke` must build a
   * fresh request body on every call (the client's helpers mutate what they are given). `check`
   * turns a 2xx answer that is not what the operation returns into a failure, retried as any.
   */
  async call(operation: Operation, invoke: (apis: Apis) => Promise<unknown>, check?: (json: unknown) => RequestFailure | undefined): Promise<unknown> {
    const modules = await this.load()
    const started = this.now()
    for (let attempt = 1; ; attempt++) {
      this.checkAborted()
      await this.rate.acquire(operation, this.options.retry.maxElapsedMs, this.options.signal)
      const capture: Capture = {}
      this.stats.requests++
      this.stats.byOperation[operation]++
      try {
        // APIs of this request's own, whose fetch fills its capture: several calls run at once.
        await invoke(this.apisFor(modules, capture))
      } catch (error: unknown) {
        this.checkAborted()
        // Our fetch saw a good answer: whatever the client's deserialiser thought of it, the wire JSON is ours.
        if (capture.failure === undefined && capture.json === undefined) capture.failure = classifyError(error)
      } finally {
        this.rate.release(operation)
      }
      if (capture.failure === undefined && capture.json !== undefined) {
        if (isPartial(capture.json)) capture.failure = {kind: 'partial'}
        else capture.failure = check?.(capture.json)
        if (capture.failure === undefined) return capture.json
      }
      const failure = capture.failure ?? {kind: 'network'}
      if (failure.kind === 'http' && failure.status === 429) this.rate.pause(operation, failure.resetSeconds)
      const decision = retryDecision(failure, attempt, this.now() - started, this.options.retry, this.random())
      if (!decision.retry) throw this.failed(operation, failure, decision.why, capture.body)
      this.stats.retries++
      this.options.onRetry?.({operation, attempt, delayMs: decision.delayMs, why: decision.why})
      await this.sleep(decision.delayMs)
    }
  }

  private failed(operation: Operation, failure: RequestFailure, why: string, body: string | undefined): DatadogRequestError {
    const detail = body === undefined ? '' : `: ${this.mask(summariseBody(body))}`
    // A redirect is refused, not "not transient": the reason alone reads better, the advice says the rest.
    let message = `Datadog ${OPERATION_PATHS[operation]} failed (${failure.kind === 'redirect' ? describeFailure(failure) : why})${detail}`
    if (failure.kind === 'http' && (failure.status === 401 || failure.status === 403)) message += `\n${authAdvice(failure.status, operation, this.connection)}`
    if (failure.kind === 'redirect') message += `\n${redirectAdvice(failure, this.connection)}`
    return new DatadogRequestError(message, operation, failure, body === undefined ? undefined : this.mask(body))
  }

  private checkAborted(): void {
    if (this.options.signal?.aborted) throw new PullAborted()
  }

  private async sleep(ms: number): Promise<void> {
    try {
      await sleep(ms, undefined, {signal: this.options.signal})
    } catch {
      throw new PullAborted()
    }
  }

  /**
   * The fetch the client sends one request through: per-request timeout, rate-limit headers, raw
   * body, and what came back recorded in the request's capture.
   */
  private async fetch(capture: Capture, url: string, init: RequestInit): Promise<Response> {
    const signals = [AbortSignal.timeout(this.options.timeoutMs), ...(this.options.signal ? [this.options.signal] : [])]
    let response: Response
    let body: string
    try {
      // `redirect` comes after the spread: nothing the client passes can turn following back on.
      response = await fetch(url, {...init, redirect: 'manual', signal: AbortSignal.any(signals)})
    } catch (error: unknown) {
      capture.failure = classifyError(error)
      throw error
    }
    if (response.status >= 300 && response.status < 400) {
      // The body of a redirect is a proxy's page, of no use in the message: not read.
      await response.body?.cancel().catch(() => undefined)
      const failure = this.redirected(url, response)
      capture.failure = failure
      throw new Error(describeFailure(failure))
    }
    this.rate.observe(operationOf(url), response.headers)
    const limitBytes = this.options.maxAnswerBytes ?? MAX_ANSWER_BYTES
    try {
      body = await readCapped(response, limitBytes)
    } catch (error: unknown) {
      capture.failure = error instanceof AnswerTooLarge ? {kind: 'too-large', limitBytes} : isTimeout(error) ? {kind: 'timeout'} : {kind: 'truncated'}
      throw error
    }
    capture.body = body
    if (!response.ok) {
      const reset = Number.parseInt(response.headers.get('x-ratelimit-reset') ?? '', 10)
      capture.failure = {kind: 'http', status: response.status, ...(Number.isFinite(reset) ? {resetSeconds: reset} : {})}
      throw new Error(`HTTP ${response.status}`)
    }
    try {
      const json: unknown = JSON.parse(body)
      capture.json = json
    } catch (error: unknown) {
      capture.failure = {kind: 'invalid-json'}
      throw error
    }
    // The wire JSON is ours (call): the client is handed an empty object to deserialise, not the
    // page. It parsed a page of 1000 logs again and built a typed model of every one of them, which
    // nothing reads (about 1.3 s of CPU in the Datadog tests' profile).
    return new Response('{}', {status: response.status, headers: response.headers})
  }

  /**
   * A 3xx answer, as a failure that ends the run (not transient, and fatal where other failures
   * fall back: see `isRedirectRefused`). No redirect is followed, not even to the same origin
   * (scheme, host and port), where the keys would be safe: the Datadog API answers its endpoints
   * without redirecting, so a redirect means `--api-url` points at something else (a proxy's login
   * page, an http-to-https upgrade, a moved path), and 301/302/303 would also turn the POST into a
   * bodiless GET. An SRE would rather see that, once, than have skewscan guess; the message names
   * where the redirect pointed, so the fix (the right --api-url) is one copy away.
   *
   * The target is kept as origin and path only (a query string could carry anything, the keys
   * included) and masked all the same.
   */
  private redirected(url: string, response: Response): RequestFailure {
    const status = response.status
    const location = response.headers.get('location')
    let target: URL | undefined
    try {
      target = location === null || location.trim() === '' ? undefined : new URL(location, url)
    } catch {
      target = undefined
    }
    if (target === undefined) return {kind: 'redirect', status, sameOrigin: false}
    const where = target.protocol === 'http:' || target.protocol === 'https:' ? `${target.origin}${target.pathname}` : `a ${target.protocol} URL`
    const shown = this.mask(where.length > 200 ? `${where.slice(0, 197)}...` : where)
    return {kind: 'redirect', status, target: shown, sameOrigin: target.origin === new URL(url).origin}
  }

  /** The client's modules, loaded on first use. */
  private async load(): Promise<ClientModules> {
    if (this.modules) return this.modules
    const {logger, common, LogsApi, EventsApi, RUMApi} = await loadClient()
    logger.setLevel('silent', false)
    let eventsV1: Promise<Api<EventsApiV1>> | undefined
    this.modules = {
      configuration: (fetch) => common.createConfiguration({
        // baseServer beats the DD_SITE the client would read from the environment by itself.
        baseServer: new common.BaseServerConfiguration(this.connection.baseUrl, {}),
        authMethods: {apiKeyAuth: this.connection.apiKey, appKeyAuth: this.connection.appKey},
        fetch,
        enableRetry: false,
        debug: false,
      }),
      LogsApi,
      EventsApi,
      RUMApi,
      EventsApiV1: () => (eventsV1 ??= loadEventsV1()),
    }
    return this.modules
  }

  /**
   * The APIs for one request, their fetch bound to its capture. A configuration and its APIs take
   * some 20 µs to make: one per request costs nothing beside the request. (An AsyncLocalStorage
   * found the capture from a shared fetch before: Node 20 switches an async hook on for it and
   * keeps every store that has run, walking them all on each new promise of the process for good;
   * a jest worker that had made a few hundred clients spent 8% of the suite's time there.)
   */
  private apisFor(modules: ClientModules, capture: Capture): Apis {
    const configuration = modules.configuration((url, init) => this.fetch(capture, url, init))
    return {
      logs: new modules.LogsApi(configuration),
      events: new modules.EventsApi(configuration),
      rum: new modules.RUMApi(configuration),
      eventsV1: async () => new (await modules.EventsApiV1())(configuration),
    }
  }
}

/**
 * The client's modules: from dist/vendor/, where the build bundles them into one file
 * (scripts/build-datadog-client.js: a live pull starts about 0.8 CPU-seconds sooner, and the
 * installed package needs no client of its own), or from the package where there is no build (the
 * sources run by ts-node, with the devDependencies installed). The package's modules are taken
 * from its dist/ folder, not its entry point: that one loads the v1 API and its ~1,000 models as
 * well, which only a v1 events search needs. See client-types.ts for why the paths hold. The
 * logger comes first: it decides its level when it loads, from DEBUG.
 */
async function loadClient(): Promise<ClientBundle> {
  return loadBundle<ClientBundle>('../../vendor/datadog-client.js', async () => {
    const {logger} = await import('@datadog/datadog-api-client/dist/logger.js')
    const common = await import('@datadog/datadog-api-client/dist/packages/datadog-api-client-common/index.js')
    const {LogsApi} = await import('@datadog/datadog-api-client/dist/packages/datadog-api-client-v2/apis/LogsApi.js')
    const {EventsApi} = await import('@datadog/datadog-api-client/dist/packages/datadog-api-client-v2/apis/EventsApi.js')
    const {RUMApi} = await import('@datadog/datadog-api-client/dist/packages/datadog-api-client-v2/apis/RUMApi.js')
    return {logger, common, LogsApi, EventsApi, RUMApi}
  })
}

/**
 * The v1 Events API, bundled apart (it is rarely used): its logger, which it writes through, is
 * its own and is silenced first. Its configuration comes from the other bundle, the same client.
 */
async function loadEventsV1(): Promise<Api<EventsApiV1>> {
  const {logger, EventsApi} = await loadBundle<{logger: ClientLogger; EventsApi: Api<EventsApiV1>}>('../../vendor/datadog-events-v1.js', async () => ({
    logger: (await import('@datadog/datadog-api-client/dist/logger.js')).logger,
    EventsApi: (await import('@datadog/datadog-api-client/dist/packages/datadog-api-client-v1/apis/EventsApi.js')).EventsApi,
  }))
  logger.setLevel('silent', false)
  return EventsApi
}

/**
 * A bundle of dist/vendor/ by its path from dist/sources/datadog/ (jest maps it to dist/ for the
 * sources under test), or what `fallback` loads where there is none.
 */
async function loadBundle<T>(path: string, fallback: () => Promise<T>): Promise<T> {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(path) as T
  } catch (error: unknown) {
    if (!(error instanceof Error && (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && error.message.includes(path))) throw error
  }
  return fallback()
}

/**
 * The body as text, read chunk by chunk as fetch inflates it, given up (and the connection
 * cancelled) as soon as it passes `limit` bytes: at most one chunk more than the cap is held.
 */
async function readCapped(response: Response, limit: number): Promise<string> {
  if (!response.body) return ''
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const {done, value} = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => undefined)
      throw new AnswerTooLarge(`answer larger than ${limit} bytes`)
    }
    chunks.push(value)
  }
  // As `response.text()` decodes: UTF-8, a byte-order mark dropped, bad bytes replaced.
  return new TextDecoder().decode(Buffer.concat(chunks, size))
}

function operationOf(url: string): Operation {
  if (url.includes('/api/v2/logs/events')) return 'logs-search'
  if (url.includes('/api/v2/logs/analytics')) return 'logs-aggregate'
  if (url.includes('/api/v1/events')) return 'events-v1'
  if (url.includes('/api/v2/rum/events')) return 'rum-search'
  if (url.includes('/api/v2/rum/analytics')) return 'rum-aggregate'
  return 'events-search'
}

function classifyError(error: unknown): RequestFailure {
  if (isTimeout(error)) return {kind: 'timeout'}
  return {kind: 'network'}
}

function isTimeout(error: unknown): boolean {
  const e = error as {name?: string; cause?: {name?: string}}
  return e?.name === 'TimeoutError' || e?.cause?.name === 'TimeoutError'
}

/** `meta.status: "timeout"`: Datadog gave up on the query, the page may miss events. */
function isPartial(json: unknown): boolean {
  const meta = (json as {meta?: {status?: unknown}} | null)?.meta
  return meta?.status === 'timeout'
}

/** The useful part of an error body: Datadog's `errors` list, else the start of the text. */
function summariseBody(body: string): string {
  try {
    const errors = (JSON.parse(body) as {errors?: unknown}).errors
    if (Array.isArray(errors)) return errors.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))).join('; ').slice(0, 300)
  } catch {
    // not JSON: an HTML error page from a proxy or load balancer
  }
  // eslint-disable-next-line no-control-regex
  const text = body.replace(/<[^>]*>/g, ' ').replace(/[\u0000-\u001f\s]+/g, ' ').trim()
  return text.length > 200 ? `${text.slice(0, 197)}...` : text || '(empty body)'
}

function authAdvice(status: number, operation: Operation, c: DatadogConnection): string {
  // RUM's search and aggregate need rum_apps_read (docs.datadoghq.com/api/latest/rum/search-rum-events, aggregate-rum-events).
  const permission = operation.startsWith('events') ? 'events_read' : operation.startsWith('rum') ? 'rum_apps_read' : 'logs_read_data'
  const likely = status === 401
    ? 'the API key (DD_API_KEY or DATADOG_API_KEY) is probably wrong or revoked'
    : `the application key (DD_APP_KEY or DATADOG_APP_KEY) is probably wrong, or lacks the ${permission} permission (or the API key belongs to another organisation)`
  return `Datadog refused the keys: ${likely}. Keys are per site: this request went to ${c.baseUrl} (site ${c.site}); check --site / DD_SITE.`
}

function redirectAdvice(f: Extract<RequestFailure, {kind: 'redirect'}>, c: DatadogConnection): string {
  const origin = new URL(c.baseUrl).origin
  if (f.target === undefined) return `${c.baseUrl} answered a redirect without a usable Location; skewscan follows no redirect. Check what answers there (--api-url / SKEWSCAN_API_URL, --site).`
  if (f.sameOrigin) {
    return `Not followed: skewscan follows no redirect, even on the same origin (${origin}). The Datadog API does not redirect, so --api-url (or SKEWSCAN_API_URL) points at something else: give the URL that answers the API itself.`
  }
  return `Not followed: that is another origin than ${origin}, and the keys are sent to no other origin. If the Datadog API really is there, give it as --api-url (or SKEWSCAN_API_URL); otherwise check what answers at ${c.baseUrl}.`
}
