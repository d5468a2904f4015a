import type {AssetOutcome} from '../probe/classify'
import {Random} from './random'

/*
 * The RUM events a Datadog Browser SDK in the lab's simulated browsers would have sent: a view per
 * page load, a resource per asset request, an error where a real browser throws one, as items of a
 * RUM events search API response (what `skewscan analyze --rum` reads; the shape of
 * fixtures/captures/*\/rum-events.json.gz). Sessions are sampled and browsers signed in as RUM
 * does it, from the lab's seed. Pure: the browsers say what they asked and got, the events come out.
 */

/**
 * How a page asked for an asset, which decides what a browser throws when it fails: a stylesheet
 * (nothing), a classic script, a module script (the entry, a modulepreload, the route's chunk the
 * page loads with it), a preload (nothing runs), or an `import()` later (a lazy chunk).
 */
export type RumLoad = 'stylesheet' | 'script' | 'module' | 'preload' | 'import'

/** Who a simulated browser is to RUM (the lab's record keeps it beside each failure). */
export interface RumIdentity {
  /** The RUM session (one visit). */
  session: string
  /** RUM keeps this session (the SDK's session sample rate). */
  sampled: boolean
  /** The signed-in account (`usr.id`); absent for a visitor not signed in. */
  user?: string
}

/** One visitor as its RUM SDK knows it. */
export interface RumVisitor extends RumIdentity {
  ip: string
  userAgent: string
  /** The visitor's own seeded numbers: its view ids. */
  random: Random
}

/** One asset request of a page load: what the browser asked and what it got. */
export interface RumRequest {
  /** When it was asked, and when the answer was in (epoch ms). */
  time: number
  end: number
  url: string
  load: RumLoad
  /** Absent when no answer came. */
  status?: number
  /** Body bytes received. */
  bytes: number
  outcome: AssetOutcome
}

/** One page load of a sampled session. */
export interface RumPage {
  visitor: {ip: string; userAgent: string; session: string; user?: string}
  /** The view's id (32 hex digits). */
  view: string
  /** When the browser asked for the shell (epoch ms). */
  time: number
  /** The shell's URL and the build it came from, once it came (2xx). */
  shell?: {url: string; version?: string}
  requests: RumRequest[]
}

export interface RumContext {
  service: string
  env: string
  /** The RUM application's id. */
  application: string
}

/** One item of a RUM events search API response. */
export interface RumItem {
  id: string
  type: 'rum'
  attributes: {timestamp: string; service: string; tags: string[]; attributes: Record<string, unknown>}
}

/** Share of visitors signed in (RUM's `usr`), as on the real captures (about 70%). */
export const SIGNED_IN_SHARE = 0.7

/** Chromium's words (src/analysis/rum-errors.ts has each with its source). */
export const CHROMIUM = {
  classicHtml: "Uncaught SyntaxError: Unexpected token '<'",
  moduleHtml: 'Failed to load module script: Expected a JavaScript module script but the server responded with a MIME type of "text/html". Strict MIME type checking is enforced for module scripts per HTML spec.',
  importFailed: 'TypeError: Failed to fetch dynamically imported module: ',
} as const

export interface BrowserError {
  message: string
  type: 'SyntaxError' | 'Error' | 'TypeError'
  /** The script the error is about (`error.resource.url`), when the browser names it there. */
  resource?: string
}

/**
 * What Chromium throws for an asset request, or undefined when it throws nothing: a classic script
 * answered with HTML fails to parse at its `<`; a module script answered with HTML is refused for its
 * MIME type; a failed `import()` rejects (whatever the answer was); a script answered 404 only fires
 * its element's `error` event, and a stylesheet or a preload never throws.
 */
export function browserError(load: RumLoad, outcome: AssetOutcome, url: string): BrowserError | undefined {
  if (outcome === 'ok') return undefined
  if (load === 'import') return {message: `${CHROMIUM.importFailed}${url}`, type: 'TypeError'}
  if (outcome !== 'html-for-asset') return undefined
  if (load === 'script') return {message: CHROMIUM.classicHtml, type: 'SyntaxError', resource: url}
  if (load === 'module') return {message: CHROMIUM.moduleHtml, type: 'Error', resource: url}
  return undefined
}

/** RUM's `resource.type` of a request. */
function resourceType(load: RumLoad, url: string): 'js' | 'css' {
  if (load === 'stylesheet') return 'css'
  if (load === 'preload') return /\.css(?:[?#]|$)/i.test(url) ? 'css' : 'js'
  return 'js'
}

const iso = (t: number): string => new Date(t).toISOString()

/** `n` hex digits of `r`. */
export function hex(r: Random, n: number): string {
  let out = ''
  while (out.length < n) out += Math.floor(r.next() * 0x100000000).toString(16).padStart(8, '0')
  return out.slice(0, n)
}

/** A version-4 UUID of `r`, as the SDK makes session ids. */
export function uuid(r: Random): string {
  const h = hex(r, 32)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'.charAt(parseInt(h.slice(16, 17), 16) & 3)}${h.slice(17, 20)}-${h.slice(20, 32)}`
}

/**
 * Who the `n`th visitor of browser slot `slot` is to RUM: its session, whether the session is
 * sampled (`sampleRate` percent of them) and, for SIGNED_IN_SHARE of them, its account. From the
 * lab's seed alone, never from the browsers' own numbers: the same seed gives the same sessions
 * on any clock, and a lab with RUM sends its browsers exactly where one without it does.
 */
export function rumVisitor(seed: number, slot: number, n: number, ip: string, userAgent: string, sampleRate: number): RumVisitor {
  const random = new Random(seed, `rum/${slot}/${n}`)
  const session = uuid(random)
  const sampled = random.next() * 100 < sampleRate
  const user = random.next() < SIGNED_IN_SHARE ? `acct-${hex(random, 12)}` : undefined
  return {ip, userAgent, session, sampled, ...(user === undefined ? {} : {user}), random}
}

/** The RUM application's id for a seed. */
export function rumApplication(seed: number): string {
  return uuid(new Random(seed, 'rum-application'))
}

/**
 * A page load's events, oldest first: its view (when the shell was asked for), a resource per asset
 * request (when it was asked, with the status and size received) and an error where the browser
 * threw one (when the answer came). None for a page load whose shell never came.
 */
export function rumPageEvents(page: RumPage, ctx: RumContext): RumItem[] {
  return timedEvents(page, ctx).map((e) => e.item)
}

function timedEvents(page: RumPage, ctx: RumContext): {time: number; item: RumItem}[] {
  const shell = page.shell
  if (shell === undefined) return []
  const {visitor} = page
  const url = new URL(shell.url)
  const view = {id: page.view, url: shell.url, url_path: url.pathname}
  const tags = [`service:${ctx.service}`, ...(shell.version === undefined ? [] : [`version:${shell.version}`]), `env:${ctx.env}`, 'source:browser']
  const errors = page.requests.flatMap((r) => {
    const e = browserError(r.load, r.outcome, r.url)
    return e === undefined ? [] : [{time: r.end, error: e}]
  })
  let n = 0
  const item = (time: number, type: 'view' | 'resource' | 'error', own: Record<string, unknown>): RumItem => ({
    // Unique within the view: its id and the event's number in it.
    id: `AQAAAZ${page.view.slice(0, 18)}${(n++).toString(16).padStart(8, '0')}`,
    type: 'rum',
    attributes: {
      timestamp: iso(time), service: ctx.service, tags,
      attributes: {
        type, application: {id: ctx.application}, service: ctx.service, ...(shell.version === undefined ? {} : {version: shell.version}),
        env: ctx.env, source: 'browser', session: {id: visitor.session, type: 'user'},
        ...own,
        ...(visitor.user === undefined ? {} : {usr: {id: visitor.user}}),
        network: {client: {ip: visitor.ip}}, http: {useragent: visitor.userAgent},
      },
    },
  })
  const events: {time: number; item: RumItem}[] = [
    {time: page.time, item: item(page.time, 'view', {view: {...view, loading_type: 'initial_load', error: {count: errors.length}, resource: {count: page.requests.length}}})},
    ...page.requests.map((r) => ({
      time: r.time,
      item: item(r.time, 'resource', {
        view,
        resource: {url: r.url, type: resourceType(r.load, r.url), method: 'GET', status_code: r.status ?? 0, ...(r.status === undefined ? {} : {size: r.bytes})},
      }),
    })),
    ...errors.map((e) => ({
      time: e.time,
      item: item(e.time, 'error', {
        view,
        error: {message: e.error.message, source: 'source', type: e.error.type, handling: 'unhandled', ...(e.error.resource === undefined ? {} : {resource: {url: e.error.resource}})},
      }),
    })),
  ]
  // Stable: at one time, the view before its resources and its resources before its errors.
  return events.sort((a, b) => a.time - b.time)
}

/** What was written of RUM: sessions seen and sampled, and the events by type. */
export interface RumSummary {
  sampleRate: number
  sessions: number
  sampledSessions: number
  /** Sampled sessions signed in. */
  signedIn: number
  views: number
  resources: number
  errors: number
}

export interface RumJournalOptions {
  seed: number
  /** Percent of sessions sampled. */
  sampleRate: number
  context: RumContext
  /** Receives the events, oldest first, in batches. */
  write: (items: readonly RumItem[]) => void
}

/**
 * The simulated browsers' page loads as RUM records them, handed on oldest first while the lab
 * runs: a page load's events wait until it is over, then go out once no page load still open
 * began before them (one that is open can only add events after its start). Only sampled sessions
 * cost anything; events of one time keep the order the page loads were closed in.
 */
export class RumJournal {
  private readonly open = new Set<RumPage>()
  private held: {time: number; item: RumItem}[] = []
  private readonly counts: RumSummary

  constructor(private readonly o: RumJournalOptions) {
    this.counts = {sampleRate: o.sampleRate, sessions: 0, sampledSessions: 0, signedIn: 0, views: 0, resources: 0, errors: 0}
  }

  /** A new visitor in browser slot `slot` (its `n`th). */
  visitor(slot: number, n: number, ip: string, userAgent: string): RumVisitor {
    const v = rumVisitor(this.o.seed, slot, n, ip, userAgent, this.o.sampleRate)
    this.counts.sessions++
    if (v.sampled) {
      this.counts.sampledSessions++
      if (v.user !== undefined) this.counts.signedIn++
    }
    return v
  }

  /** A page load starts (the shell is asked for at `time`); undefined when RUM does not sample the visitor's session. */
  start(v: RumVisitor, time: number): RumPage | undefined {
    if (!v.sampled) return undefined
    const page: RumPage = {visitor: {ip: v.ip, userAgent: v.userAgent, session: v.session, ...(v.user === undefined ? {} : {user: v.user})}, view: hex(v.random, 32), time, requests: []}
    this.open.add(page)
    return page
  }

  /** The page load is over (or its shell never came): its events are held until nothing open can come before them. */
  end(page: RumPage): void {
    if (!this.open.delete(page)) return
    for (const e of timedEvents(page, this.o.context)) {
      const type = e.item.attributes.attributes.type
      if (type === 'view') this.counts.views++
      else if (type === 'resource') this.counts.resources++
      else this.counts.errors++
      this.held.push(e)
    }
    let until = Number.POSITIVE_INFINITY
    for (const p of this.open) until = Math.min(until, p.time)
    this.release(until)
  }

  /** Hands on every event held, and those of page loads still open (the lab is over). */
  flush(): void {
    for (const page of [...this.open]) this.end(page)
    this.release(Number.POSITIVE_INFINITY)
  }

  summary(): RumSummary {
    return {...this.counts}
  }

  /** Hands on the events held from before `until`, oldest first. */
  private release(until: number): void {
    if (this.held.length === 0) return
    this.held.sort((a, b) => a.time - b.time)
    let n = 0
    while (n < this.held.length && (this.held[n] as {time: number}).time < until) n++
    if (n === 0) return
    const out = this.held.slice(0, n).map((h) => h.item)
    this.held = this.held.slice(n)
    this.o.write(out)
  }
}
