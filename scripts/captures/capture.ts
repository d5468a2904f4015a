/**
 * Recordings of a real nginx (Debian's nginx 1.22) in front of SPA pods during rolling deploys,
 * with the browsers' own ground truth: fixtures/captures/<name>/ (see its README). This module
 * loads one and writes it in each input format, in either order, with time stretched around its
 * first request (the recordings compress a deploy into seconds; real ones take minutes).
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {gunzipSync} from 'node:zlib'
import {toAlb, toCloudfront} from './formats/aws'
import {toElbClassic, toS3} from './formats/aws-legacy'
import {toCaddyJson} from './formats/caddy'
import type {CaptureRecord} from './formats/capture-record'
import {toEnvoy, toEnvoyJson, toIstio} from './formats/envoy'
import {toGcp} from './formats/gcp'
import {GCS_HEADER, toGcsRow} from './formats/gcs'
import {toSquid} from './formats/squid'
import {toW3c, w3cHeader} from './formats/w3c'
import {toTraefikClf, toTraefikJson} from './formats/traefik'

export const CAPTURES = ['rr-3', 'sticky', 'keep-old-assets', 'two-deploys', 'mode-404', 'lazy-stale', 'rr-3-same', 'two-deploys-same', 'lazy-stale-same'] as const

/** One access-log line as nginx wrote it in `escape=json` (the fields the tests use). */
export interface NginxJson {
  time_iso8601: string
  msec: number
  remote_addr: string
  request_id: string
  host: string
  request_method: string
  request_uri: string
  status: number
  body_bytes_sent: number
  http_user_agent: string
  upstream_addr: string
  proxy_upstream_name: string
  [k: string]: unknown
}

export interface TruthFailure {
  request_id: string
  context: 'page_load' | 'lazy_during_deploy' | 'stale_client_lazy'
  page_broken: boolean
  /** The page load and the browser it hit (`pl-00047`, `b014`). */
  page_load: string
  browser: string
  kind: string
  path: string
  client_ip: string
  log_time: string
  deploy: number | null
  page_build: string
  served_build: string
}

export interface TruthDeploy {
  id: number
  from_build: string
  to_build: string
  start: string
  end: string
  broken_page_loads: {count: number; affected_browsers: number}
}

export interface Truth {
  scenario: string
  builds: Record<string, {index_html_bytes: number}>
  deploys: TruthDeploy[]
  failure_requests: TruthFailure[]
  noise: {decoys: {request_id: string; client_ip: string; path: string}[]}
  [k: string]: unknown
}

export interface Capture {
  name: string
  /** nginx's own lines, in the order nginx wrote them. */
  nginx: NginxJson[]
  /** The same requests in `combined` and ingress-nginx `upstreaminfo` format, as nginx wrote them. */
  combined: string[]
  upstreaminfo: string[]
  /** Datadog Logs API v2 search items after the ingress-nginx pipeline (a conversion following the public docs). */
  datadog: {id: string; type: string; attributes: Record<string, unknown>}[]
  /** The deploys and, as `datadog_events`, their Datadog Events v2 search response. */
  deploys: {datadog_events: {data: Record<string, unknown>[]; meta?: unknown}; [k: string]: unknown}
  /** The RUM events those browsers would have sent (a RUM events search response: views, resources, errors). */
  rum: {id: string; type: string; attributes: Record<string, unknown>}[]
  truth: Truth
}

const gz = (dir: string, file: string): string => gunzipSync(readFileSync(join(dir, `${file}.gz`))).toString('utf8')
const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '')

/**
 * A capture, each of its files read when first asked for and kept (a test of one format reads one
 * log of the seven; reading all of every capture took about 0.6 CPU-s).
 */
export function loadCapture(root: string, name: string): Capture {
  const dir = join(root, 'fixtures', 'captures', name)
  const read: {[K in Exclude<keyof Capture, 'name'>]: () => Capture[K]} = {
    nginx: () => lines(gz(dir, 'nginx.jsonl')).map((l) => JSON.parse(l) as NginxJson),
    combined: () => lines(gz(dir, 'combined.log')),
    upstreaminfo: () => lines(gz(dir, 'upstreaminfo.log')),
    datadog: () => (JSON.parse(gz(dir, 'datadog-events.json')) as {data: Capture['datadog']}).data,
    deploys: () => JSON.parse(gz(dir, 'deploys.json')) as Capture['deploys'],
    rum: () => (JSON.parse(gz(dir, 'rum-events.json')) as {data: Capture['rum']}).data,
    truth: () => JSON.parse(gz(dir, 'truth.json')) as Truth,
  }
  const capture = {name} as Capture
  for (const [key, get] of Object.entries(read)) {
    Object.defineProperty(capture, key, {
      enumerable: true, configurable: true,
      get: () => {
        const value = get()
        Object.defineProperty(capture, key, {value, enumerable: true, writable: true})
        return value
      },
    })
  }
  return capture
}

/** Maps times of a capture: t0 + (t - t0) × factor, t0 its first request. */
export interface Stretch {
  factor: number
  t0: number
  ms(t: number): number
  iso(text: string): string
}

export function stretchOf(c: Capture, factor: number): Stretch {
  const t0 = Math.min(...c.nginx.map((e) => Math.round(e.msec * 1000)))
  const ms = (t: number): number => Math.round(t0 + (t - t0) * factor)
  return {factor, t0, ms, iso: (text) => new Date(ms(Date.parse(text))).toISOString()}
}

export type Format = 'nginx-json' | 'nginx-json-no-upstream' | 'combined' | 'upstreaminfo' | 'datadog-page' | 'datadog-ndjson' | ProxyFormat
/** The formats nginx and Datadog wrote (the capture's own files). */
export const FORMATS: readonly Format[] = ['nginx-json', 'combined', 'upstreaminfo', 'datadog-page', 'datadog-ndjson']

/**
 * The same requests as the other proxies in front of SPAs would have logged them (writers in
 * ./formats, each following its format's documentation), and in container wrappers: nginx JSON
 * in Docker json-file records, upstreaminfo lines in CRI records.
 */
export type ProxyFormat = 'traefik-clf' | 'traefik-json' | 'envoy' | 'istio' | 'envoy-json' | 'caddy' | 'alb' | 'elb-classic' | 'cloudfront' | 's3' | 'gcp' | 'gcs' | 'w3c' | 'squid' | 'docker' | 'cri'
export const PROXY_FORMATS: readonly ProxyFormat[] = ['traefik-clf', 'traefik-json', 'envoy', 'istio', 'envoy-json', 'caddy', 'alb', 'elb-classic', 'cloudfront', 's3', 'gcp', 'gcs', 'w3c', 'squid', 'docker', 'cri']

const WRITERS: Record<Exclude<ProxyFormat, 'docker' | 'cri' | 'gcs' | 'w3c'>, (r: CaptureRecord) => string> = {
  'traefik-clf': (r) => toTraefikClf(r), 'traefik-json': (r) => toTraefikJson(r), envoy: toEnvoy, istio: toIstio, 'envoy-json': toEnvoyJson,
  caddy: toCaddyJson, alb: toAlb, 'elb-classic': toElbClassic, cloudfront: toCloudfront, s3: toS3, gcp: toGcp, squid: toSquid,
}

/** Whether a format logs time to the second only (its report compares with `combined`'s, not nginx JSON's). */
export function secondsOnly(format: Format): boolean {
  return format === 'combined' || format === 'upstreaminfo' || format === 'traefik-clf' || format === 'cloudfront' || format === 's3' || format === 'w3c' || format === 'cri' || format.startsWith('datadog')
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const two = (n: number): string => String(n).padStart(2, '0')

/** `$time_local` of a UTC instant: `30/Nov/2026:07:18:26 +0000` (second resolution, as nginx writes it). */
export function timeLocal(ms: number): string {
  const d = new Date(ms)
  return `${two(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`
}

export const TIME_LOCAL = /\[\d\d\/\w{3}\/\d{4}:\d\d:\d\d:\d\d [+-]\d{4}\]/

/**
 * The precise time of each combined line: nginx's two workers write the three logs in slightly
 * different orders, so each line is matched to the nearest unused JSON line of the same request.
 */
export function combinedTimes(c: Capture): number[] {
  let times = matchedTimes.get(c)
  if (times === undefined) matchedTimes.set(c, (times = matchCombined(c)))
  return times
}
const matchedTimes = new WeakMap<Capture, number[]>()

function matchCombined(c: Capture): number[] {
  const used = new Set<number>()
  return c.combined.map((line, i) => {
    for (let d = 0; d < 50; d++) {
      for (const j of d === 0 ? [i] : [i - d, i + d]) {
        const e = c.nginx[j]
        if (!e || used.has(j)) continue
        if (line.startsWith(`${e.remote_addr} `) && line.includes(`"${e.request_method} ${e.request_uri} `) && line.includes(`" ${e.status} ${e.body_bytes_sent} `)) {
          used.add(j)
          return Math.round(e.msec * 1000)
        }
      }
    }
    throw new Error(`${c.name}: combined line ${i + 1} matches no JSON line`)
  })
}

/** The capture's nginx JSON records, time stretched, as the writers of ./formats take them. */
function stretched(c: Capture, s: Stretch): CaptureRecord[] {
  return c.nginx.map((e) => {
    const t = s.ms(Math.round(e.msec * 1000))
    return {...e, time_iso8601: new Date(t).toISOString().replace('Z', '+00:00'), msec: Number((t / 1000).toFixed(3))} as unknown as CaptureRecord
  })
}

/**
 * The capture's access log in one format, time stretched, oldest first (as written) or newest first.
 * The last text rendered is kept: the tests analyse each rendering twice in a row (deploys inferred,
 * and from the deploy events), and rendering is a fifth of the time of such a case.
 */
export function renderLog(c: Capture, format: Format, s: Stretch, order: 'oldest-first' | 'newest-first'): string {
  const key = `${format}\n${s.factor}\n${s.t0}\n${order}`
  if (lastRender?.capture === c && lastRender.key === key) return lastRender.text
  // A file of one record a line newest first is the same lines the other way round: the rendering
  // oldest first just made, turned over (the cases of a rendering come oldest first, then newest).
  const oldest = `${format}\n${s.factor}\n${s.t0}\noldest-first`
  const text = order === 'newest-first' && lastRender?.capture === c && lastRender.key === oldest && !WHOLE_FILE.has(format)
    ? `${lastRender.text.slice(0, -1).split('\n').reverse().join('\n')}\n`
    : render(c, format, s, order)
  lastRender = {capture: c, key, text}
  return text
}
let lastRender: {capture: Capture; key: string; text: string} | undefined
/** Formats whose file is more than its lines (a header, one JSON document): rendered newest first by render itself. */
const WHOLE_FILE: ReadonlySet<Format> = new Set(['datadog-page', 'w3c', 'gcs'])

function render(c: Capture, format: Format, s: Stretch, order: 'oldest-first' | 'newest-first'): string {
  let out: string[]
  switch (format) {
    case 'nginx-json-no-upstream':
      // What a log that names no pod (a bucket, an edge) holds of the same requests, at nginx's resolution.
      out = renderLog(c, 'nginx-json', s, 'oldest-first').split('\n').filter((l) => l !== '')
        .map((l) => JSON.stringify({...(JSON.parse(l) as NginxJson), upstream_addr: '', upstream_status: ''}))
      break
    case 'nginx-json':
      out = c.nginx.map((e) => {
        const t = s.ms(Math.round(e.msec * 1000))
        return JSON.stringify({...e, time_iso8601: new Date(t).toISOString().replace('Z', '+00:00'), msec: Number((t / 1000).toFixed(3))})
      })
      break
    case 'combined': {
      const times = combinedTimes(c)
      out = c.combined.map((l, i) => l.replace(TIME_LOCAL, `[${timeLocal(s.ms(times[i] as number))}]`))
      break
    }
    case 'upstreaminfo': {
      const byId = new Map(c.nginx.map((e) => [e.request_id, Math.round(e.msec * 1000)]))
      out = c.upstreaminfo.map((l) => {
        const t = byId.get(l.slice(l.lastIndexOf(' ') + 1))
        if (t === undefined) throw new Error(`${c.name}: upstreaminfo line without a known request id: ${l.slice(0, 80)}`)
        return l.replace(TIME_LOCAL, `[${timeLocal(s.ms(t))}]`)
      })
      break
    }
    case 'docker':
      out = renderLog(c, 'nginx-json', s, 'oldest-first').split('\n').filter((l) => l !== '').map((l) => {
        const t = (JSON.parse(l) as NginxJson).msec
        return JSON.stringify({log: `${l}\n`, stream: 'stdout', time: new Date(Math.round(t * 1000) + 1).toISOString()})
      })
      break
    case 'cri': {
      const byId = new Map(c.nginx.map((e) => [e.request_id, s.ms(Math.round(e.msec * 1000))]))
      out = renderLog(c, 'upstreaminfo', s, 'oldest-first').split('\n').filter((l) => l !== '').map((l) => {
        const t = byId.get(l.slice(l.lastIndexOf(' ') + 1)) as number
        return `${new Date(t + 1).toISOString().replace('Z', '123456Z')} stdout F ${l}`
      })
      break
    }
    case 'traefik-clf':
    case 'traefik-json':
    case 'envoy':
    case 'istio':
    case 'envoy-json':
    case 'caddy':
    case 'alb':
    case 'elb-classic':
    case 'cloudfront':
    case 's3':
    case 'squid':
    case 'gcp': {
      const write = WRITERS[format]
      out = stretched(c, s).map(write)
      break
    }
    case 'w3c':
    case 'gcs': {
      // A file of its own kind: IIS opens it with its header block, a usage log with its CSV header.
      const records = stretched(c, s)
      const rows = records.map(format === 'w3c' ? toW3c : toGcsRow)
      const head = format === 'w3c' ? w3cHeader(records[0] as CaptureRecord) : GCS_HEADER
      return `${head}\n${(order === 'newest-first' ? rows.reverse() : rows).join('\n')}\n`
    }
    case 'datadog-page':
    case 'datadog-ndjson': {
      const items = c.datadog.map((item) => {
        const a = item.attributes
        const t = s.iso(a.timestamp as string)
        const message = typeof a.message === 'string' ? a.message.replace(TIME_LOCAL, `[${timeLocal(Date.parse(t))}]`) : a.message
        return {...item, attributes: {...a, timestamp: t, message}}
      })
      const ordered = order === 'newest-first' ? [...items].reverse() : items
      if (format === 'datadog-page') return `${JSON.stringify({data: ordered, meta: {page: {}, status: 'done'}}, null, 2)}\n`
      return `${ordered.map((x) => JSON.stringify(x)).join('\n')}\n`
    }
  }
  return `${(order === 'newest-first' ? out.reverse() : out).join('\n')}\n`
}

/** RUM made another way: without client addresses, user agents and error resources; with the browsers' clocks off by `skewMs`. */
export interface RumAs {
  anonymous?: boolean
  skewMs?: number
}

/** The capture's RUM events as the RUM search API returns them, time stretched, oldest first or newest first (the API's default). */
export function renderRum(c: Capture, s: Stretch, order: 'oldest-first' | 'newest-first' = 'oldest-first', as: RumAs = {}): string {
  const data = c.rum.map((item) => {
    const inner = {...(item.attributes.attributes as Record<string, unknown>)}
    if (as.anonymous) {
      // RUM set up to keep no client address, a user agent kept elsewhere, errors that name no resource.
      delete inner.network
      delete inner.http
      if (inner.error !== undefined) inner.error = {...(inner.error as Record<string, unknown>), resource: undefined}
    }
    const t = Date.parse(s.iso(item.attributes.timestamp as string)) + (as.skewMs ?? 0)
    return {...item, attributes: {...item.attributes, timestamp: new Date(t).toISOString(), attributes: inner}}
  })
  return `${JSON.stringify({data: order === 'newest-first' ? data.reverse() : data, meta: {page: {}, status: 'done'}}, null, 2)}\n`
}

/** An ISO instant written in free text (`seen at 2026-11-30T07:18:30.024Z`). */
const ISO_IN_TEXT = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g

/** The captured Datadog deploy events (markers and Kubernetes events), time stretched everywhere: outer and inner timestamps, and the text. */
export function renderDeployEvents(c: Capture, s: Stretch): string {
  const data = c.deploys.datadog_events.data.map((item) => {
    const outer = item.attributes as Record<string, unknown>
    const inner = (outer.attributes ?? {}) as Record<string, unknown>
    return {
      ...item,
      attributes: {
        ...outer,
        timestamp: s.iso(outer.timestamp as string),
        message: typeof outer.message === 'string' ? outer.message.replace(ISO_IN_TEXT, (m) => s.iso(m)) : outer.message,
        attributes: {...inner, ...(typeof inner.timestamp === 'number' ? {timestamp: s.ms(inner.timestamp)} : {})},
      },
    }
  })
  return `${JSON.stringify({data, meta: c.deploys.datadog_events.meta}, null, 2)}\n`
}
