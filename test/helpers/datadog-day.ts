/**
 * A day of a busy site's traffic as Datadog Logs API v2 items (what the fake Datadog serves), made
 * of the real captures (fixtures/captures): two apps behind one ingress, N rolling deploys spread
 * over the day, and between them healthy traffic.
 *
 * - Each rollout is one capture replayed whole (its steady start, the rollout race, its steady end),
 *   time stretched around its first request as the captures tests do, at its place in the day.
 * - Healthy traffic replays the captures' steady-state visitors: every client whose requests all
 *   fall between two of its capture's rollouts (before the first, after the last) and none of which
 *   the truth counts as a failure or a decoy. Each replay is a new client (address, session cookie,
 *   request ids) at a new time, served by the pods of the build its app runs then.
 * - The second app is the first's renaming, as scripts/captures/compose.ts does it: its own host
 *   and upstream (SECOND_APP), and in the events its own service name.
 * - Builds follow one another per app: a replay maps its capture's builds (A -> B, or A -> B -> C)
 *   onto the app's next ones, and gives each build its own shell length, asset hashes and sizes,
 *   pods and version, so a build looks the same in every request of the day, whichever capture the
 *   request came from. (An asset the capture shares between two builds is named after the first of
 *   them in that replay.)
 *
 * Deterministic: one seeded generator, no Math.random, no clock. The truth of every rollout (the
 * capture's failures, renamed and moved in time) comes with it, per app in the captures' Truth
 * shape, so scripts/captures/score.ts can hold an analysis of the day to it.
 */
import {mulberry32} from '../../scripts/fixture-generator/rng'
import {createHash} from 'node:crypto'
import {closeSync, openSync, writeSync} from 'node:fs'
import {CAPTURES, type Capture, loadCapture, type Stretch, timeLocal, type Truth, type TruthDeploy, type TruthFailure} from '../../scripts/captures/capture'
import {SECOND_APP} from '../../scripts/captures/compose'
import {type CaptureScore, scoreCapture} from '../../scripts/captures/score'
import type {AnalysisReport, FailureRecord} from '../../src/model/report'
import {type Agent, browserAgent, CRAWLERS, isMobileAgent, SCANNER_BROWSERS, SCANNER_TOOLS} from './browser-agents'

export interface DayOptions {
  /** The repository root (fixtures/captures is read from it). */
  root: string
  /** Rolling deploys in the day, both apps together: replays are given to the apps in turn. */
  deploys: number
  /** About how many log items the day holds (default 50,000): the healthy rate is set to reach it. */
  events?: number
  /** Default 1. */
  seed?: number
  /** The captures each app's rollouts replay (default rr-3 and mode-404). */
  apps?: readonly [string, string]
  /** Time stretch of every replay, rollouts and healthy visitors alike (default 60: an 8 s rollout takes 8 min). */
  stretch?: number
  /** Default 2026-12-01T00:00:00Z. */
  start?: string
  /** Default 24. */
  hours?: number
  /** The captures whose steady-state visitors make the healthy traffic (default: all). */
  healthyFrom?: readonly string[]
  /** Keep steady-state visitors who made a decoy request (a crawler or scanner answered by the SPA fallback) in the healthy traffic. */
  decoys?: boolean
  /**
   * Keep the captures' other clients in the healthy traffic: crawlers, scanners, uptime checks and
   * API clients (the captures give them 127.20/16 addresses, browsers 127.10/16). Default true.
   */
  noise?: boolean
  /**
   * The day of issue 27 (default off: the day as before): the captures' own crawlers, scanners,
   * uptime checks and API clients are left out of the healthy traffic (`noise` is then ignored),
   * and the day's other clients are generated, each a share of `events`, in the time between each
   * app's rollouts, answered by the pods of the build its app runs then.
   */
  realistic?: RealisticTraffic
}

export interface RealisticTraffic {
  /** Share of the day's requests from crawlers (default 0.02): real crawlers' user agents and networks, pages, robots.txt, sitemap.xml, and asset URLs of the app's earlier builds re-fetched. */
  crawlers?: number
  /** Share from scanners (default 0.01): bursts from new addresses, some `HEAD`, half to the apps' hosts (the SPA answers asset-like junk with its shell), half to the ingress's default backend (404). */
  scanners?: number
  /** Some scanners carry a browser's user agent (default true); false: every one says what it is. */
  scannerBrowserAgents?: boolean
  /** People's user agents as varied as real traffic's, thousands a day (browser-agents.ts; default true); false: the captures' own few. */
  variedAgents?: boolean
  /** Share from the uptime probe (default 0.005): Pingdom's GET /api/health to each app at a fixed interval. */
  probe?: number
  /** Share from the mobile app's API client (default 0.03): sessions of JSON requests, no shell, no assets. */
  mobileApi?: number
}

/** One log item as the Logs API v2 search returns it. */
export interface DayItem {
  id: string
  type: 'log'
  attributes: Record<string, unknown>
}

export interface DayApp {
  index: number
  /** The ingress upstream that names the app in the report. */
  upstream: string
  host: string
  /** The Deployment and service name in the deploy events. */
  service: string
  capture: string
  /** Its builds in the order they were deployed: id `B1`, `B2`, ... (as the report numbers them), the shell's length, the version. */
  builds: {id: string; shellBytes: number; version: string}[]
}

export interface DayDeploy {
  /** 1.. over the day, in time order. */
  id: number
  app: string
  /** 1.. per app: the id in that app's truth. */
  appDeployId: number
  fromBuild: string
  toBuild: string
  /** The capture's rollout window, in day time (epoch ms). */
  start: number
  end: number
}

/** A failure the capture's truth records, renamed and moved into the day. */
export interface DayFailure {
  requestId: string
  /** When it was logged (epoch ms). */
  time: number
  clientIp: string
  path: string
  context: TruthFailure['context']
  pageBroken: boolean
  kind: string
  /** DayDeploy.id, or null (a stale client's). */
  deploy: number | null
  pageBuild: string
  servedBuild: string
}

export interface DayRollout {
  app: string
  capture: string
  /** The capture's deploys in this replay (one, or two for two-deploys). */
  deploys: DayDeploy[]
  /** Its first and last request. */
  span: {from: number; to: number}
  /** Capture time to day time. */
  stretch: Stretch
  items: number
  failures: DayFailure[]
}

export interface Day {
  /** Oldest first (ties by id). */
  items: DayItem[]
  /** The replays' Datadog deploy events (markers and Kubernetes events), Events API v2 items, for FakeDatadog's `events`. */
  events: Record<string, unknown>[]
  /** [start, start + hours). */
  range: {from: number; to: number}
  apps: DayApp[]
  rollouts: DayRollout[]
  deploys: DayDeploy[]
  /** Per app (by upstream), the truth of all its rollouts in day time, for scoreCapture with `stretch`. */
  truths: Record<string, Truth>
  /** Day time to day time, with the replays' factor (scoreCapture's tolerance follows it). */
  stretch: Stretch
  counts: {
    rollout: number; healthy: number; healthyVisitors: number; byApp: Record<string, number>
    /** Requests of the generated clients (RealisticTraffic; all 0 without it), and its crawlers' visits and scanners' bursts. */
    generated: {probe: number; mobileApi: number; crawlers: number; scanners: number; crawlerVisits: number; scannerBursts: number}
  }
}

const HOUR = 3_600_000
const FIRST_APP = {host: 'webapp.lab.test', upstream: 'default-webapp-80', service: 'webapp'}
const APP_NAMES = [FIRST_APP, SECOND_APP] as const
/** ` - user [time] "METHOD uri HTTP/x" status bytes "referer" "agent" len time [upstream] [alt] addr ulen utime ustatus id` (ingress-nginx upstreaminfo). */
const LINE = /^(\S+)( - [^[]*\[)([^\]]+)(\] "[A-Z]+ )(\S+)( HTTP\/[\d.]+" \d{3} )(\d+)( ")([^"]*)(" ".*" \d+ \S+ \[[^\]]*\] \[[^\]]*\] )(\S+)( )(\S+)( \S+ \S+ )(\S+)$/
const HASHED = /^(.*)\.([0-9a-f]{8})(\.[A-Za-z0-9]+)$/

/** A capture's log item, read once: what a replay rewrites, and the message cut where it does. */
interface Line {
  t: number
  attrs: Record<string, unknown>
  inner: Record<string, unknown>
  http: Record<string, unknown>
  network: Record<string, unknown>
  clientIp: string
  cookie: string | undefined
  requestId: string
  path: string
  referer: string | undefined
  bytes: number
  addr: string
  /** The message in 15 parts; the even ones are rewritten (client, time, uri, bytes, referer, addr, upstream length, request id). */
  parts: string[]
}

interface Prepared {
  capture: Capture
  /** Builds in deploy order: the first deploy's from_build, then each to_build. */
  letters: string[]
  shells: Map<number, string>
  assets: Map<string, {stem: string; base: string; ext: string; letters: string[]; bytes: number}>
  pods: Map<string, {letter: string; ordinal: number}>
  lines: Line[]
}

interface Visitor {
  prep: Prepared
  letter: string
  lines: Line[]
  /** Capture ms from its first request to its last. */
  duration: number
}

const prepared = new Map<string, Prepared>()

/** A capture read for one app, once per process: days built after the first cost only their own items. */
function preparedCapture(root: string, name: string, app: number): Prepared {
  const key = `${root}\u0000${name}\u0000${app}`
  let p = prepared.get(key)
  if (!p) {
    const other = prepared.get(`${root}\u0000${name}\u0000${1 - app}`)
    prepared.set(key, (p = prepare(other?.capture ?? loadCapture(root, name), app)))
  }
  return p
}


/** A 32-bit mix of three integers (for ids: unique per counter, looks random); no rest array, it runs for every id of a day. */
function mix(a: number, b: number, c: number): number {
  return step(step(step(0x811c9dc5, a), b), c) >>> 0
}

function step(h: number, x: number): number {
  h = Math.imul(h ^ (x >>> 0), 0x01000193)
  h ^= h >>> 13
  h = Math.imul(h, 0x5bd1e995)
  return h ^ (h >>> 15)
}

const HEX = Array.from({length: 256}, (_x, k) => k.toString(16).padStart(2, '0'))
const hex8 = (n: number): string => `${HEX[(n >>> 24) & 255]}${HEX[(n >>> 16) & 255]}${HEX[(n >>> 8) & 255]}${HEX[n & 255]}`
const digest = (text: string, length: number): string => createHash('sha1').update(text).digest('hex').slice(0, length)

function prepare(c: Capture, app: number): Prepared {
  const t = c.truth
  const letters = [t.deploys[0]?.from_build ?? Object.keys(t.builds)[0] as string, ...t.deploys.map((d) => d.to_build)]
  const shells = new Map(Object.entries(t.builds).map(([k, b]) => [b.index_html_bytes, k]))
  const assets: Prepared['assets'] = new Map()
  for (const letter of letters) {
    const b = t.builds[letter] as unknown as {assets: {path: string; bytes: number}[]; lazy: {path: string; bytes: number}[]}
    for (const a of [...b.assets, ...b.lazy]) {
      const known = assets.get(a.path)
      if (known) known.letters.push(letter)
      else {
        const m = HASHED.exec(a.path)
        if (!m) throw new Error(`${c.name}: asset ${a.path} has no content hash`)
        assets.set(a.path, {stem: `${m[1]}${m[3]}`, base: m[1] as string, ext: m[3] as string, letters: [letter], bytes: a.bytes})
      }
    }
  }
  const pods = new Map<string, {letter: string; ordinal: number}>()
  const perBuild = new Map<string, number>()
  for (const p of (t as unknown as {pods: {build: string; addr: string}[]}).pods) {
    const ordinal = perBuild.get(p.build) ?? 0
    perBuild.set(p.build, ordinal + 1)
    pods.set(p.addr, {letter: p.build, ordinal})
  }
  const names = APP_NAMES[app] as {host: string; upstream: string}
  // The second app renamed as compose.ts does it: host and upstream, wherever they are written.
  const rename = (text: string): string => text.replace(/webapp\.lab\.test/g, names.host).replace(/default-webapp-80/g, names.upstream)
  const lines = c.datadog.map((item): Line => {
    // The capture's objects are shared, never changed: a replay writes new ones.
    const attrs = app === 0 ? item.attributes : JSON.parse(rename(JSON.stringify(item.attributes))) as Record<string, unknown>
    const inner = attrs.attributes as Record<string, unknown>
    const http = inner.http as Record<string, unknown>
    const network = inner.network as Record<string, unknown>
    const details = http.url_details as {path: string}
    const message = String(attrs.message)
    const m = LINE.exec(message)
    if (!m) throw new Error(`${c.name}: a message not in the upstreaminfo format: ${message.slice(0, 120)}`)
    return {
      t: Date.parse(String(attrs.timestamp)), attrs, inner, http, network,
      clientIp: String((network.client as {ip: string}).ip), cookie: typeof inner.cookie_session === 'string' ? inner.cookie_session : undefined,
      requestId: String(http.request_id), path: details.path, referer: typeof http.referer === 'string' ? http.referer : undefined,
      bytes: Number(network.bytes_written), addr: String(inner.upstream_addr ?? ''), parts: m.slice(1),
    }
  }).sort((a, b) => a.t - b.t)
  return {capture: c, letters, shells, assets, pods, lines}
}

/** Steady-state visitors of a capture: clients whose requests all lie in one stretch between rollouts, none a failure. */
function visitors(p: Prepared, keepDecoys: boolean, keepNoise: boolean): Visitor[] {
  const t = p.capture.truth
  const bad = new Set(t.failure_requests.map((f) => f.client_ip))
  if (!keepDecoys) for (const d of t.noise.decoys) bad.add(d.client_ip)
  const cuts = t.deploys.flatMap((d) => [Date.parse(d.start), Date.parse(d.end)])
  const period = (time: number): number => {
    for (let k = 0; k < cuts.length; k++) if (time <= (cuts[k] as number)) return k % 2 === 0 ? k / 2 : -1
    return cuts.length / 2
  }
  const byClient = new Map<string, Line[]>()
  for (const l of p.lines) {
    let list = byClient.get(l.clientIp)
    if (!list) byClient.set(l.clientIp, (list = []))
    list.push(l)
  }
  const out: Visitor[] = []
  for (const [ip, lines] of byClient) {
    if (bad.has(ip) || (!keepNoise && ip.startsWith('127.20.'))) continue
    const k = period((lines[0] as Line).t)
    if (k < 0 || !lines.every((l) => period(l.t) === k)) continue
    const letter = p.letters[k] as string
    // Every pod and asset it touched belongs to the build of its stretch (a stale tab would not).
    if (!lines.every((l) => (l.addr === '' || p.pods.get(l.addr)?.letter === letter) && (!p.assets.has(l.path) || p.assets.get(l.path)?.letters.includes(letter)))) continue
    out.push({prep: p, letter, lines, duration: (lines[lines.length - 1] as Line).t - (lines[0] as Line).t})
  }
  return out
}

/** The builds of one app: shell lengths that collide with no other response (within the analysis' header slack), hashes, pods. */
class Builds {
  private readonly lengths: number[] = []
  private readonly paths = new Map<string, string>()

  constructor(readonly app: number, private readonly taken: Set<number>, private readonly forbidden: readonly number[]) {}

  /** As the report numbers builds: B1 first. */
  id(j: number): string {
    return `B${j + 1}`
  }

  version(j: number): string {
    return `v${this.app + 3}.${j}.0`
  }

  commit(j: number): string {
    return digest(`commit ${this.app} ${j}`, 40)
  }

  replicaSet(j: number): string {
    return `${(APP_NAMES[this.app] as {service: string}).service}-${digest(`rs ${this.app} ${j}`, 10)}`
  }

  shellBytes(j: number): number {
    while (this.lengths.length <= j) {
      let n = 3300 + 211 * this.app + 97 * this.lengths.length
      const clear = (x: number): boolean => !this.forbidden.some((f) => Math.abs(f - x) <= 8) && ![...this.taken].some((f) => Math.abs(f - x) <= 8)
      while (!clear(n)) n++
      this.taken.add(n)
      this.lengths.push(n)
    }
    return this.lengths[j] as number
  }

  assetPath(j: number, base: string, stem: string, ext: string): string {
    const key = `${j} ${stem}`
    let p = this.paths.get(key)
    if (p === undefined) this.paths.set(key, (p = `${base}.${digest(`asset ${this.app} ${j} ${stem}`, 8)}${ext}`))
    return p
  }

  /** Each build's copy of an asset differs a little in size, as rebuilt bundles do. */
  assetBytes(j: number, reference: number): number {
    return reference + 3 * j + this.app
  }

  pod(j: number, ordinal: number): string {
    return `172.${16 + this.app}.${j % 256}.${10 + ordinal}:8080`
  }
}

/** Ids, clients and cookies of the day: unique, deterministic. */
class Names {
  private requests = 0
  private clients = 0
  private cookies = 0

  constructor(private readonly seed: number) {}

  requestId(): string {
    const n = ++this.requests
    return hex8(mix(this.seed, n, 1)) + hex8(mix(this.seed, n, 2)) + hex8(mix(this.seed, n, 3)) + hex8(n)
  }

  client(): string {
    const n = ++this.clients
    return `10.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`
  }

  cookie(): string {
    const n = ++this.cookies
    return hex8(mix(this.seed, n, 7)) + hex8(mix(this.seed, n, 8)) + hex8(mix(this.seed, n, 9))
  }
}

/** One replay of capture lines: which build each capture build is, where in time, and the names it got. */
interface Replay {
  prep: Prepared
  builds: Builds
  /** Capture build letter -> the app's build number. */
  map: ReadonlyMap<string, number>
  time: (t: number) => number
  /** The size of each asset (by stem) in the first build that has it: each build's size is derived from it. */
  refs: ReadonlyMap<string, number>
  clients: Map<string, string>
  cookies: Map<string, string>
  requestIds: Map<string, string>
  /** A person's user agent for a capture browser's (by capture client): RealisticTraffic.variedAgents. */
  agent?: (clientIp: string, original: string) => Agent
}

function rewritePath(r: Replay, path: string): string {
  const a = r.prep.assets.get(path)
  if (!a) return path
  const letter = a.letters.find((l) => r.map.has(l))
  if (letter === undefined) throw new Error(`${r.prep.capture.name}: ${path} belongs to no build of this replay`)
  return r.builds.assetPath(r.map.get(letter) as number, a.base, a.stem, a.ext)
}

function rewriteBytes(r: Replay, path: string, bytes: number): number {
  const shell = r.prep.shells.get(bytes)
  if (shell !== undefined && r.map.has(shell)) return r.builds.shellBytes(r.map.get(shell) as number)
  const a = r.prep.assets.get(path)
  const j = a?.letters.map((l) => r.map.get(l)).find((x) => x !== undefined)
  if (a && a.bytes === bytes && j !== undefined) return r.builds.assetBytes(j, r.refs.get(a.stem) ?? bytes)
  return bytes
}

/** A referer naming an asset (a lazy chunk loaded by the bundle) names the replay's copy of it; any other is kept. */
function rewriteReferer(r: Replay, referer: string): string {
  const m = /^(https?:\/\/[^/]+)(\/[^?#]*)(.*)$/.exec(referer)
  if (!m || !r.prep.assets.get(m[2] as string)?.letters.some((l) => r.map.has(l))) return referer
  return `${m[1]}${rewritePath(r, m[2] as string)}${m[3]}`
}

function emit(r: Replay, l: Line, names: Names): {time: number; item: DayItem} {
  const time = r.time(l.t)
  let client = r.clients.get(l.clientIp)
  if (client === undefined) r.clients.set(l.clientIp, (client = names.client()))
  let cookie = l.cookie === undefined ? undefined : r.cookies.get(l.cookie)
  if (l.cookie !== undefined && cookie === undefined) r.cookies.set(l.cookie, (cookie = names.cookie()))
  const requestId = names.requestId()
  r.requestIds.set(l.requestId, requestId)
  const path = rewritePath(r, l.path)
  const bytes = rewriteBytes(r, l.path, l.bytes)
  const pod = r.prep.pods.get(l.addr)
  const podBuild = pod === undefined ? undefined : r.map.get(pod.letter)
  if (pod !== undefined && podBuild === undefined) throw new Error(`${r.prep.capture.name}: pod ${l.addr} runs no build of this replay`)
  const addr = podBuild === undefined || pod === undefined ? l.addr : r.builds.pod(podBuild, pod.ordinal)
  const referer = l.referer === undefined ? undefined : rewriteReferer(r, l.referer)
  const ulen = l.inner.upstream_response_length === String(l.bytes) ? String(bytes) : l.inner.upstream_response_length
  const original = String(l.http.useragent ?? '')
  // The captures give browsers 127.10/16 addresses: only a person's agent is varied.
  const agent = r.agent !== undefined && l.clientIp.startsWith('127.10.') ? r.agent(l.clientIp, original) : undefined
  const p = l.parts
  const uri = path === l.path ? p[4] : path
  const message = [
    client, p[1], timeLocal(time), p[3], uri, p[5], String(bytes), p[7], referer === undefined ? p[8] : referer, agent === undefined ? p[9] : (p[9] as string).replace(`"${original}"`, `"${agent.agent}"`),
    pod === undefined ? p[10] : addr, p[11], p[12] === String(l.bytes) ? String(bytes) : p[12], p[13], requestId,
  ].join('')
  const http: Record<string, unknown> = {...l.http, request_id: requestId}
  if (path !== l.path) {
    http.url = path
    http.url_details = {...(l.http.url_details as Record<string, unknown>), path}
  }
  if (referer !== undefined) http.referer = referer
  if (agent !== undefined) {
    http.useragent = agent.agent
    http.useragent_details = agent.details
  }
  const inner: Record<string, unknown> = {
    ...l.inner, http, network: {...l.network, client: {ip: client}, bytes_written: bytes},
    ...(typeof l.inner.bytes_sent === 'number' ? {bytes_sent: l.inner.bytes_sent + bytes - l.bytes} : {}),
    ...(pod === undefined ? {} : {upstream_addr: addr}), ...(ulen === undefined ? {} : {upstream_response_length: ulen}),
    ...(cookie === undefined ? {} : {cookie_session: cookie}),
  }
  return {time, item: {id: `AQ${requestId}`, type: 'log', attributes: {...l.attrs, timestamp: new Date(time).toISOString(), message, attributes: inner}}}
}

const ISO_IN_TEXT = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g

/** The capture's deploy events, moved to the replay's time and renamed to its app and builds. */
function replayEvents(r: Replay, app: number, deployIds: number[], serial: number): Record<string, unknown>[] {
  const t = r.prep.capture.truth
  const swaps: [string, string][] = []
  for (const [letter, j] of r.map) {
    const b = t.builds[letter] as unknown as {version: string; commit: string}
    swaps.push([b.commit, r.builds.commit(j)], [b.commit.slice(0, 7), r.builds.commit(j).slice(0, 7)], [b.version, r.builds.version(j)])
  }
  for (const p of (t as unknown as {pods: {name: string; build: string}[]}).pods) {
    const rs = p.name.slice(0, p.name.lastIndexOf('-'))
    const j = r.map.get(p.build)
    if (j !== undefined) swaps.push([rs, r.builds.replicaSet(j)])
  }
  return r.prep.capture.deploys.datadog_events.data.map((event, k) => {
    let text = JSON.stringify(event)
    for (const [from, to] of swaps) text = text.split(from).join(to)
    text = text.replace(/webapp-deploy-(\d+)/g, (_m, n) => `webapp-deploy-${deployIds[Number(n) - 1] ?? n}`)
    if (app !== 0) text = text.replace(/webapp/g, (APP_NAMES[app] as {service: string}).service)
    text = text.replace(ISO_IN_TEXT, (m) => new Date(r.time(Date.parse(m))).toISOString())
    const e = JSON.parse(text) as {id: string; attributes: {attributes: {timestamp?: number; evt?: {id?: string}}}}
    const inner = e.attributes.attributes
    if (typeof inner.timestamp === 'number') inner.timestamp = r.time(inner.timestamp)
    if (inner.evt?.id !== undefined) inner.evt.id = `${serial}${String(k).padStart(3, '0')}${String(inner.timestamp ?? 0)}`
    return {...e, id: `day-${serial}-${k}-${e.id}`}
  })
}

/** A stretch of an app's day between its rollouts, and the build its pods run then. */
interface Gap {
  from: number
  to: number
  build: number
}

interface Generation {
  real: RealisticTraffic
  random: () => number
  names: Names
  from: number
  to: number
  target: number
  gaps: Gap[][]
  builds: [Builds, Builds]
  /** Each app's rollout capture: its assets, pods, missing-asset answer and API client. */
  preps: [Prepared, Prepared]
  refs: ReadonlyMap<string, number>
}

/** One generated request, answered. */
interface Synth {
  time: number
  client: string
  method: 'GET' | 'HEAD'
  url: string
  status: number
  bytes: number
  agent: Agent
  host: string
  upstream: string
  /** The pod that answered, or '' (the ingress's default backend). */
  addr: string
}

/** Scanners' asset-like junk (no build ever serves it) and the usual probes for other software. */
const JUNK = [
  '/js/app.js', '/static/js/main.js', '/assets/index.js', '/js/main.js', '/static/js/bundle.js', '/assets/app.js', '/app.js', '/main.js', '/js/jquery.min.js',
  '/static/css/main.css', '/assets/css/style.css', '/static/js/main.chunk.js', '/js/config.js',
  '/wp-login.php', '/xmlrpc.php', '/.env', '/.git/config', '/wp-admin/', '/admin/', '/config.json', '/vendor/phpunit/phpunit/src/Util/PHP/eval-stdin.php', '/phpmyadmin/',
  '/server-status', '/actuator/health', '/api/.env', '/backup.zip', '/.DS_Store', '/console/login',
]
/** The apps' routes a crawler follows (each answered with the shell). */
const ROUTES = ['/', '/orders', '/team', '/billing', '/settings', '/sitemap.xml', '/orders/1042']
/** First octets of the hosting networks scanners come from (never a person's 10/8 nor the API client's 100/8). */
const SCANNER_NETS = [23, 45, 62, 80, 89, 91, 103, 109, 141, 159, 167, 176, 193, 194, 212, 217]
const DEFAULT_BACKEND = {host: '203.0.113.10', upstream: 'upstream-default-backend', notFoundBytes: 22}
const PINGDOM: Agent = {agent: 'Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)', details: {os: {family: 'Other'}, browser: {family: 'Pingdom'}, device: {category: 'Bot'}}}
const PINGDOM_ADDRESSES = ['5.172.196.188', '185.180.12.65', '23.83.129.219', '178.255.152.2', '185.93.3.65']
const TOOL = (agent: string): Agent => ({agent, details: {os: {family: 'Other'}, browser: {family: 'Other'}, device: {category: 'Other'}}})

function synthItem(x: Synth, requestId: string, base: Record<string, unknown>): {time: number; item: DayItem} {
  const q = x.url.indexOf('?')
  const path = q === -1 ? x.url : x.url.slice(0, q)
  const length = 90 + x.url.length + x.agent.agent.length
  const seconds = x.addr === '' ? '0.000' : (0.002 + (x.bytes % 29) / 1000).toFixed(3)
  const up = x.addr === '' ? ['-', '-', '-', '-'] : [x.addr, String(x.bytes), seconds, String(x.status)]
  const message = `${x.client} - - [${timeLocal(x.time)}] "${x.method} ${x.url} HTTP/1.1" ${x.status} ${x.bytes} "-" "${x.agent.agent}" ${length} ${seconds} [${x.upstream}] [] ${up.join(' ')} ${requestId}`
  const details: Record<string, unknown> = {host: x.host, path, scheme: 'http'}
  if (q !== -1) details.queryString = Object.fromEntries(new URLSearchParams(x.url.slice(q + 1)))
  const inner: Record<string, unknown> = {
    http: {url: x.url, method: x.method, status_code: x.status, version: '1.1', request_id: requestId, url_details: details, useragent: x.agent.agent, useragent_details: x.agent.details},
    network: {client: {ip: x.client}, bytes_written: x.bytes, bytes_read: length}, duration: Math.round(Number(seconds) * 1e9), bytes_sent: x.bytes + 180,
    upstream_addr: x.addr, upstream_status: x.addr === '' ? '' : String(x.status), upstream_response_length: x.addr === '' ? '' : String(x.bytes),
    upstream_response_time: x.addr === '' ? '' : seconds, proxy_upstream_name: x.upstream, cookie_session: '',
  }
  return {time: x.time, item: {id: `AQ${requestId}`, type: 'log', attributes: {...base, timestamp: new Date(x.time).toISOString(), status: x.status >= 400 ? 'warn' : 'info', message, attributes: inner}}}
}

/**
 * The day's other clients (RealisticTraffic): an uptime probe, a mobile API client, crawlers and
 * scanners, placed in each app's time between rollouts (the build its pods run is known there).
 */
function generateClients(g: Generation): {out: {time: number; item: DayItem}[]; counts: Day['counts']['generated']} {
  const {real, random, names, builds, preps} = g
  const out: {time: number; item: DayItem}[] = []
  const counts = {probe: 0, mobileApi: 0, crawlers: 0, scanners: 0, crawlerVisits: 0, scannerBursts: 0}
  const base = (() => {
    const {timestamp: _t, message: _m, attributes: _a, status: _s, ...rest} = (preps[0].lines[0] as Line).attrs
    return rest
  })()
  let serial = 0
  /** A new address in a network (`a.b`), never one a person or another generated client has. */
  const address = (net: string): string => {
    const n = ++serial
    return `${net}.${(n >>> 8) & 255}.${n & 255}`
  }
  const gapAt = (app: number, t: number): Gap | undefined => g.gaps[app]?.find((x) => t >= x.from && t < x.to)
  /** A time in one of the app's gaps, uniform over them. */
  const place = (app: number): {t: number; gap: Gap} | undefined => {
    for (let k = 0; k < 64; k++) {
      const t = g.from + random() * (g.to - g.from)
      const gap = gapAt(app, t)
      if (gap) return {t: Math.floor(t), gap}
    }
    return undefined
  }
  const podsPer = preps.map((p) => Math.max(1, [...p.pods.values()].filter((x) => x.letter === p.letters[0]).length))
  const pod = (app: number, j: number): string => (builds[app] as Builds).pod(j, Math.floor(random() * (podsPer[app] as number)))
  const emitX = (x: Synth): void => {
    out.push(synthItem(x, names.requestId(), base))
  }
  const onApp = (app: number, j: number, x: Omit<Synth, 'host' | 'upstream' | 'addr'>): Synth => ({...x, host: (APP_NAMES[app] as {host: string}).host, upstream: (APP_NAMES[app] as {upstream: string}).upstream, addr: pod(app, j)})
  // How each app answers a hashed asset its pods do not have: 404 (mode-404's /_build/), or its shell (SPA fallback).
  const missing = preps.map((p) => {
    const l = p.lines.find((x) => Number(x.http.status_code) === 404 && x.addr !== '' && p.assets.has(x.path))
    return l === undefined ? undefined : {prefix: l.path.slice(0, l.path.indexOf('/', 1) + 1), bytes: l.bytes}
  })
  const assets = preps.map((p) => [...new Map([...p.assets.values()].map((a) => [a.stem, a])).values()])
  const lineOf = (p: Prepared, test: (l: Line) => boolean): Line | undefined => p.lines.find(test)
  const healthBytes = lineOf(preps[0], (l) => l.path === '/api/health')?.bytes ?? 28
  const robotsBytes = lineOf(preps[1], (l) => l.path === '/robots.txt')?.bytes ?? lineOf(preps[0], (l) => l.path === '/robots.txt')?.bytes ?? 75
  const shell = (app: number, j: number): number => (builds[app] as Builds).shellBytes(j)
  const share = (x: number | undefined, d: number): number => Math.round((x ?? d) * g.target)

  // The uptime probe: each app every interval from its probe servers in turn.
  const probes = share(real.probe, 0.005)
  const interval = probes > 0 ? (2 * (g.to - g.from)) / probes : Infinity
  for (const app of [0, 1]) {
    for (let k = 0, t = g.from + interval / 2 + app * 1000; t < g.to && k < probes; k++, t += interval) {
      const gap = gapAt(app, t)
      if (!gap) continue
      emitX(onApp(app, gap.build, {time: Math.floor(t), client: PINGDOM_ADDRESSES[k % PINGDOM_ADDRESSES.length] as string, method: 'GET', url: '/api/health', status: 200, bytes: healthBytes, agent: PINGDOM}))
      counts.probe++
    }
  }

  // The mobile app's API client: sessions of JSON requests, as the captures' client makes them.
  const api = preps.map((p) => p.lines.filter((l) => String(l.http.useragent).startsWith('AcmeConsole/')))
  const mobileWanted = share(real.mobileApi, 0.03)
  for (let guard = 0; counts.mobileApi < mobileWanted && guard < mobileWanted; guard++) {
    const app = random() < 0.5 ? 0 : 1
    const calls = api[app] as Line[]
    const at = place(app)
    if (!at || calls.length === 0) continue
    const client = address('100.' + String(64 + Math.floor(random() * 64)))
    const agent: Agent = {agent: String((calls[0] as Line).http.useragent), details: (calls[0] as Line).http.useragent_details as Agent['details']}
    let t = at.t
    for (let k = 2 + Math.floor(random() * 14); k > 0 && counts.mobileApi < mobileWanted && gapAt(app, t) === at.gap; k--) {
      const l = calls[Math.floor(random() * calls.length)] as Line
      emitX(onApp(app, at.gap.build, {time: t, client, method: 'GET', url: String(l.http.url), status: Number(l.http.status_code), bytes: l.bytes, agent}))
      counts.mobileApi++
      t += 1500 + Math.floor(random() * 20_000)
    }
  }

  // Crawlers: pages, robots.txt, and asset URLs, many of an earlier build's (re-fetched from their index).
  const crawlWanted = share(real.crawlers, 0.02)
  for (let guard = 0; counts.crawlers < crawlWanted && guard < crawlWanted; guard++) {
    const app = random() < 0.5 ? 0 : 1
    const at = place(app)
    if (!at) continue
    const c = CRAWLERS[random() < 0.45 ? Math.floor(random() * 2) : Math.floor(random() * CRAWLERS.length)] as (typeof CRAWLERS)[number]
    const agent: Agent = {agent: c.agent, details: {os: {family: 'Other'}, browser: {family: c.browser}, device: {category: 'Bot'}}}
    const client = address(c.net)
    const j = at.gap.build
    let t = at.t
    counts.crawlerVisits++
    for (let k = 1 + Math.floor(random() * 8); k > 0 && counts.crawlers < crawlWanted && gapAt(app, t) === at.gap; k--) {
      const r = random()
      let x: Omit<Synth, 'host' | 'upstream' | 'addr'>
      if (r < 0.1) x = {time: t, client, method: 'GET', url: '/robots.txt', status: 200, bytes: robotsBytes, agent}
      else if (r < 0.45) {
        const route = ROUTES[Math.floor(random() * ROUTES.length)] as string
        x = {time: t, client, method: 'GET', url: route === '/orders/1042' ? `/orders/${1000 + Math.floor(random() * 900)}` : route, status: 200, bytes: shell(app, j), agent}
      } else {
        const list = assets[app] ?? []
        const a = list[Math.floor(random() * list.length)]
        if (!a) continue
        // An earlier build's URL (if there is one) most of the time: what a crawler's index holds.
        const k2 = j > 0 && random() < 0.7 ? Math.floor(random() * j) : j
        const url = (builds[app] as Builds).assetPath(k2, a.base, a.stem, a.ext)
        const m = missing[app]
        x = k2 === j ? {time: t, client, method: 'GET', url, status: 200, bytes: (builds[app] as Builds).assetBytes(j, g.refs.get(a.stem) ?? a.bytes), agent}
          : m !== undefined && url.startsWith(m.prefix) ? {time: t, client, method: 'GET', url, status: 404, bytes: m.bytes, agent}
            : {time: t, client, method: 'GET', url, status: 200, bytes: shell(app, j), agent}
      }
      emitX(onApp(app, j, x))
      counts.crawlers++
      t += 500 + Math.floor(random() * 30_000)
    }
  }

  // Scanners: bursts from new addresses, half to an app's host (answered with its shell), half to the default backend (404).
  const scanWanted = share(real.scanners, 0.01)
  const browserScanners = real.scannerBrowserAgents ?? true
  for (let guard = 0; counts.scanners < scanWanted && guard < scanWanted; guard++) {
    const app = random() < 0.5 ? 0 : 1
    const at = place(app)
    if (!at) continue
    const toApp = random() < 0.5
    const agent = browserScanners && random() < 0.5
      ? (random() < 0.5 ? {agent: SCANNER_BROWSERS[Math.floor(random() * SCANNER_BROWSERS.length)] as string, details: {os: {family: 'Windows'}, browser: {family: 'Chrome'}, device: {category: 'Desktop'}}} : browserAgent(random, false))
      : TOOL(SCANNER_TOOLS[Math.floor(random() * SCANNER_TOOLS.length)] as string)
    const client = address(`${SCANNER_NETS[Math.floor(random() * SCANNER_NETS.length)] as number}.${Math.floor(random() * 256)}`)
    const heads = random() < 0.3
    let t = at.t
    counts.scannerBursts++
    for (let k = 3 + Math.floor(random() * 14); k > 0 && counts.scanners < scanWanted && gapAt(app, t) === at.gap; k--) {
      const url = JUNK[Math.floor(random() * JUNK.length)] as string
      const method = heads && random() < 0.5 ? 'HEAD' : 'GET'
      const m = missing[app]
      if (toApp) {
        const notFound = m !== undefined && url.startsWith(m.prefix)
        const bytes = method === 'HEAD' ? 0 : notFound ? m.bytes : shell(app, at.gap.build)
        emitX(onApp(app, at.gap.build, {time: t, client, method, url, status: notFound ? 404 : 200, bytes, agent}))
      } else {
        emitX({time: t, client, method, url, status: 404, bytes: method === 'HEAD' ? 0 : DEFAULT_BACKEND.notFoundBytes, agent, host: DEFAULT_BACKEND.host, upstream: DEFAULT_BACKEND.upstream, addr: ''})
      }
      counts.scanners++
      t += 30 + Math.floor(random() * 700)
    }
  }
  return {out, counts}
}

export function buildDay(o: DayOptions): Day {
  const seed = o.seed ?? 1
  const factor = o.stretch ?? 60
  const from = Date.parse(o.start ?? '2026-12-01T00:00:00.000Z')
  const to = from + (o.hours ?? 24) * HOUR
  const target = o.events ?? 50_000
  const random = mulberry32(seed)
  const names = new Names(seed)
  const real = o.realistic
  // The generated clients draw from their own generator: a day without them is the day as before.
  const realRandom = mulberry32((seed ^ 0x27d4eb2f) >>> 0)
  const agents = real !== undefined && (real.variedAgents ?? true)
    ? (): ((ip: string, original: string) => Agent) => {
        const mine = new Map<string, Agent>()
        return (ip, original) => {
          let a = mine.get(ip)
          if (!a) mine.set(ip, (a = browserAgent(realRandom, isMobileAgent(original))))
          return a
        }
      }
    : (): undefined => undefined
  const appCaptures = o.apps ?? ['rr-3', 'mode-404']
  // The day rewrites each build's shell by its length: the captures whose builds' shells differ in length.
  const healthyFrom = o.healthyFrom ?? CAPTURES.filter((c) => !c.endsWith('-same'))

  const preps = [0, 1].map((app) => new Map([...new Set([appCaptures[app] as string, ...healthyFrom])].map((n) => [n, preparedCapture(o.root, n, app)])))
  const referenceBytes = new Map<string, number>()
  const forbidden = new Set<number>()
  for (const p of preps[0]?.values() ?? []) {
    for (const a of p.assets.values()) if (!referenceBytes.has(a.stem)) referenceBytes.set(a.stem, a.bytes)
    for (const l of p.lines) if (!p.shells.has(l.bytes)) forbidden.add(l.bytes)
  }
  // Assets of every build: their sizes drift by a few bytes a build.
  for (const ref of referenceBytes.values()) for (let d = 0; d <= 3 * 64 + 1; d++) forbidden.add(ref + d)
  const taken = new Set<number>()
  const builds = [0, 1].map((app) => new Builds(app, taken, [...forbidden]))
  const rollCapture = (app: number): Prepared => preps[app]?.get(appCaptures[app] as string) as Prepared

  // Which app each replay deploys: in turn, as long as its capture's deploys fit in what is left.
  const order: number[] = []
  let left = o.deploys
  for (let k = 0; left > 0; k++) {
    const fits = [k % 2, (k + 1) % 2].find((app) => rollCapture(app).capture.truth.deploys.length <= left)
    if (fits === undefined) throw new Error(`${o.deploys} deploys cannot be made of replays of ${appCaptures.join(' and ')}`)
    order.push(fits)
    left -= rollCapture(fits).capture.truth.deploys.length
  }

  const out: {time: number; item: DayItem}[] = []
  const events: Record<string, unknown>[] = []
  const rollouts: DayRollout[] = []
  const deploys: DayDeploy[] = []
  const next = [0, 0]
  const spans: {from: number; to: number; build: number}[][] = [[], []]
  const truthParts: {failures: TruthFailure[]; decoys: Truth['noise']['decoys']; deploys: TruthDeploy[]}[] = [0, 1].map(() => ({failures: [], decoys: [], deploys: []}))
  for (const [r, app] of order.entries()) {
    const p = rollCapture(app)
    const b = builds[app] as Builds
    const base = next[app] as number
    const map = new Map(p.letters.map((l, i) => [l, base + i]))
    next[app] = base + p.letters.length - 1
    const t0 = (p.lines[0] as Line).t
    const length = ((p.lines[p.lines.length - 1] as Line).t - t0) * factor
    const start = Math.round(from + ((r + 0.5) * (to - from)) / order.length - length / 2)
    const ms = (t: number): number => Math.round(start + (t - t0) * factor)
    const stretch: Stretch = {factor, t0, ms, iso: (text) => new Date(ms(Date.parse(text))).toISOString()}
    const replay: Replay = {prep: p, builds: b, map, time: ms, refs: referenceBytes, clients: new Map(), cookies: new Map(), requestIds: new Map(), agent: agents()}
    for (const l of p.lines) out.push(emit(replay, l, names))
    const span = {from: ms(t0), to: ms(t0) + length}
    if (span.from < from || span.to >= to) throw new Error(`${order.length} replays do not fit in the day`)
    const last = spans[app]?.[spans[app].length - 1]
    if (last && last.to >= span.from) throw new Error(`${order.length} replays are too many for the day: two of ${appCaptures[app]} overlap`)
    spans[app]?.push({...span, build: next[app] as number})
    const upstream = (APP_NAMES[app] as {upstream: string}).upstream
    const mine = deploys.filter((d) => d.app === upstream).length
    const ds = p.capture.truth.deploys.map((d, k): DayDeploy => ({
      id: deploys.length + k + 1, app: upstream, appDeployId: mine + k + 1, fromBuild: b.id(map.get(d.from_build) as number), toBuild: b.id(map.get(d.to_build) as number),
      start: ms(Date.parse(d.start)), end: ms(Date.parse(d.end)),
    }))
    deploys.push(...ds)
    const globalOf = (id: number | null): number | null => (id === null ? null : (ds[id - 1]?.id ?? null))
    const renamed = (f: TruthFailure): TruthFailure => ({
      ...f, request_id: replay.requestIds.get(f.request_id) ?? f.request_id, client_ip: replay.clients.get(f.client_ip) ?? f.client_ip,
      path: rewritePath(replay, f.path), log_time: stretch.iso(f.log_time),
      page_build: b.id(map.get(f.page_build) as number), served_build: b.id(map.get(f.served_build) as number),
    })
    const failures = p.capture.truth.failure_requests.map(renamed)
    rollouts.push({
      app: upstream, capture: p.capture.name, deploys: ds, span, stretch, items: p.lines.length,
      failures: failures.map((f, k) => ({
        requestId: f.request_id, time: Date.parse(f.log_time), clientIp: f.client_ip, path: f.path, context: f.context, pageBroken: f.page_broken,
        kind: f.kind, deploy: globalOf(p.capture.truth.failure_requests[k]?.deploy ?? null), pageBuild: f.page_build, servedBuild: f.served_build,
      })),
    })
    const part = truthParts[app] as (typeof truthParts)[number]
    part.failures.push(...failures.map((f) => ({...f, deploy: f.deploy === null ? null : mine + f.deploy})))
    part.decoys.push(...p.capture.truth.noise.decoys.map((d) => ({...d, request_id: replay.requestIds.get(d.request_id) ?? d.request_id, client_ip: replay.clients.get(d.client_ip) ?? d.client_ip, path: rewritePath(replay, d.path)})))
    part.deploys.push(...p.capture.truth.deploys.map((d, k) => ({
      ...d, id: mine + k + 1, from_build: b.id(map.get(d.from_build) as number), to_build: b.id(map.get(d.to_build) as number), start: stretch.iso(d.start), end: stretch.iso(d.end),
    })))
    events.push(...replayEvents(replay, app, ds.map((d) => d.id), r + 1))
  }
  const rolloutItems = out.length

  // Healthy traffic: Poisson arrivals of steady-state visitors in each app's time between its rollouts.
  const pool = [0, 1].map((app) => [...(preps[app] as Map<string, Prepared>).entries()].filter(([n]) => healthyFrom.includes(n)).flatMap(([, p]) => visitors(p, o.decoys ?? false, real === undefined && (o.noise ?? true))))
  const gaps = [0, 1].map((app) => {
    const list: {from: number; to: number; build: number}[] = []
    let cursor = from
    let build = 0
    for (const s of spans[app] ?? []) {
      list.push({from: cursor, to: s.from, build})
      cursor = s.to + 1
      build = s.build
    }
    list.push({from: cursor, to, build})
    return list.filter((g) => g.to > g.from)
  })
  const quiet = gaps.map((list) => list.reduce((n, g) => n + g.to - g.from, 0))
  const generated = real === undefined ? undefined : generateClients({real, random: realRandom, names, from, to, target, gaps, builds: builds as [Builds, Builds], preps: [rollCapture(0), rollCapture(1)], refs: referenceBytes})
  if (generated) out.push(...generated.out)
  const budget = Math.max(0, target - rolloutItems - (generated?.out.length ?? 0))
  let visitorsPlaced = 0
  for (const app of [0, 1]) {
    const list = pool[app] as Visitor[]
    if (list.length === 0) throw new Error('no steady-state visitors in the captures to make healthy traffic of')
    const mean = list.reduce((n, v) => n + v.lines.length, 0) / list.length
    const share = (budget * (quiet[app] as number)) / ((quiet[0] as number) + (quiet[1] as number))
    const rate = share / mean / (quiet[app] as number)
    if (!(rate > 0)) continue
    for (const g of gaps[app] ?? []) {
      for (let t = g.from - Math.log(1 - random()) / rate; t < g.to; t -= Math.log(1 - random()) / rate) {
        const v = list[Math.floor(random() * list.length)] as Visitor
        if (t + v.duration * factor >= g.to) continue
        const first = (v.lines[0] as Line).t
        const at = t
        const replay: Replay = {
          prep: v.prep, builds: builds[app] as Builds, map: new Map([[v.letter, g.build]]), time: (x) => Math.round(at + (x - first) * factor), refs: referenceBytes,
          clients: new Map(), cookies: new Map(), requestIds: new Map(), agent: agents(),
        }
        for (const l of v.lines) out.push(emit(replay, l, names))
        visitorsPlaced++
      }
    }
  }

  out.sort((a, b) => a.time - b.time || (a.item.id < b.item.id ? -1 : a.item.id > b.item.id ? 1 : 0))
  const items = out.map((x) => x.item)
  const apps: DayApp[] = [0, 1].map((app) => {
    const b = builds[app] as Builds
    const names = APP_NAMES[app] as {host: string; upstream: string; service: string}
    return {index: app, ...names, capture: appCaptures[app] as string, builds: Array.from({length: (next[app] as number) + 1}, (_x, j) => ({id: b.id(j), shellBytes: b.shellBytes(j), version: b.version(j)}))}
  })
  const truths = Object.fromEntries(apps.map((a) => {
    const part = truthParts[a.index] as (typeof truthParts)[number]
    const truth: Truth = {
      scenario: `day of ${a.upstream}`, builds: Object.fromEntries(a.builds.map((b) => [b.id, {index_html_bytes: b.shellBytes}])),
      deploys: part.deploys, failure_requests: part.failures, noise: {decoys: part.decoys},
    }
    return [a.upstream, truth]
  }))
  const byApp: Record<string, number> = {}
  for (const it of items) {
    const inner = it.attributes.attributes as {proxy_upstream_name?: string}
    const k = String(inner.proxy_upstream_name)
    byApp[k] = (byApp[k] ?? 0) + 1
  }
  return {
    items, events, range: {from, to}, apps, rollouts, deploys, truths,
    stretch: {factor, t0: from, ms: (t) => t, iso: (text) => text},
    counts: {
      rollout: rolloutItems, healthy: items.length - rolloutItems - (generated?.out.length ?? 0), healthyVisitors: visitorsPlaced, byApp,
      generated: generated?.counts ?? {probe: 0, mobileApi: 0, crawlers: 0, scanners: 0, crawlerVisits: 0, scannerBursts: 0},
    },
  }
}

/** Each app's report and failures scored against its truth (a day is no capture: each app has a truth of its own). */
export function scoreDay(day: Day, report: AnalysisReport, failures: readonly FailureRecord[]): {app: string; score: CaptureScore}[] {
  return day.apps.map((a) => ({app: a.upstream, score: scoreCapture(undefined as never, day.stretch, report, failures, {app: a.upstream, truth: day.truths[a.upstream] as Truth})}))
}

/** The day as an NDJSON export (one item a line, oldest first), what `analyze` reads offline. */
export function dayNdjson(day: Day): string {
  return `${day.items.map((x) => JSON.stringify(x)).join('\n')}\n`
}

/**
 * The day as an NDJSON export written to `file`, a few thousand lines at a time: what dayNdjson
 * gives, without building the whole text of a large day (hundreds of MB) in memory at once.
 */
export function writeDayNdjson(day: Day, file: string): void {
  const fd = openSync(file, 'w')
  try {
    if (day.items.length === 0) writeSync(fd, '\n')
    for (let i = 0; i < day.items.length; i += 4096) writeSync(fd, `${day.items.slice(i, i + 4096).map((x) => JSON.stringify(x)).join('\n')}\n`)
  } finally {
    closeSync(fd)
  }
}

/** The day's deploy events as an Events API v2 answer, what `analyze --deploys` reads. */
export function dayEventsJson(day: Day): string {
  return `${JSON.stringify({data: day.events}, null, 2)}\n`
}
