import http, {type IncomingHttpHeaders, type IncomingMessage} from 'node:http'
import https from 'node:https'
import type {LookupFunction} from 'node:net'
import type {Readable} from 'node:stream'
import zlib from 'node:zlib'
import {type Clock, WALL_CLOCK} from './clock'
import type {CookieJar} from './cookie-jar'

export interface HttpClientOptions {
  userAgent: string
  /** Per request, redirects included. */
  timeoutMs: number
  /** Sent with every request (`--header`); they override the defaults. */
  headers?: Readonly<Record<string, string>>
  /** Keeps cookies like a browser: Set-Cookie from every response, sent back where they apply. */
  jar?: CookieJar
  /** A fixed Cookie header, when there is no jar. */
  cookie?: string
  /** Connections per origin. */
  maxSockets: number
  /** How host names are resolved (default: the system's, `dns.lookup`); tests point names at loopback. */
  lookup?: LookupFunction
}

export interface HttpResult {
  /** The URL that answered, after redirects. */
  url: string
  /** Absent when no response came back. */
  status?: number
  /** `timeout`, `ECONNREFUSED`, `too many redirects`, … */
  error?: string
  headers: IncomingHttpHeaders
  contentType?: string
  /** Body bytes after content decoding. */
  bytes: number
  /** The first bytes of the body. */
  head: Buffer
  /** The whole body (up to MAX_BODY), when asked for. */
  body?: Buffer
  ms: number
}

export interface GetOptions {
  referer?: string
  accept?: string
  /** Keep the whole body (the page, to parse it). */
  keepBody?: boolean
}

const HEAD_BYTES = 1024
/** Bodies kept for parsing stop growing here; bytes are still counted. */
const MAX_BODY = 8 * 1024 * 1024
const MAX_REDIRECTS = 5

/**
 * A small HTTP(S) client that owns its sockets: per-request deadline, redirects followed by hand
 * (so cookies set on a redirect are kept), content decoding, and `close()` that ends everything in
 * flight, which is what Ctrl-C needs.
 */
export class HttpClient {
  private readonly agents: {http: http.Agent; https: https.Agent}
  private readonly inFlight = new Set<http.ClientRequest>()
  private closed = false

  private readonly now: () => number

  constructor(private readonly options: HttpClientOptions, private readonly clock: Clock = WALL_CLOCK) {
    this.now = () => clock.now()
    const agentOptions = {keepAlive: true, maxSockets: options.maxSockets, ...(options.lookup ? {lookup: options.lookup} : {})}
    this.agents = {http: new http.Agent(agentOptions), https: new https.Agent(agentOptions)}
  }

  /** On a simulated clock, each request waits for the network's delay and is one step of the clock's. */
  async get(url: string, opts: GetOptions = {}): Promise<HttpResult> {
    if (this.clock.simulated) await this.clock.sleep(this.clock.networkDelayMs)
    return this.clock.busy(() => this.fetch(url, opts))
  }

  private async fetch(url: string, opts: GetOptions): Promise<HttpResult> {
    const started = this.now()
    const deadline = started + this.options.timeoutMs
    let current: URL
    try {
      current = new URL(url)
    } catch {
      return failure(url, 'invalid URL', 0)
    }
    for (let hop = 0; ; hop++) {
      const r = await this.once(current, opts, deadline)
      const location = r.headers.location
      if (r.status !== undefined && r.status >= 300 && r.status < 400 && r.status !== 304 && location) {
        if (hop === MAX_REDIRECTS) return failure(current.href, 'too many redirects', this.now() - started)
        try {
          current = new URL(location, current)
          continue
        } catch {
          return {...r, ms: this.now() - started}
        }
      }
      return {...r, ms: this.now() - started}
    }
  }

  /** Ends every request in flight and every kept-alive socket. */
  close(): void {
    this.closed = true
    for (const req of this.inFlight) req.destroy(new Error('closed'))
    this.inFlight.clear()
    this.agents.http.destroy()
    this.agents.https.destroy()
  }

  private headersFor(url: URL, opts: GetOptions): Record<string, string> {
    const h: Record<string, string> = {'user-agent': this.options.userAgent, accept: opts.accept ?? '*/*'}
    if (opts.referer) h.referer = opts.referer
    const cookie = this.options.jar ? this.options.jar.header(url) : this.options.cookie
    if (cookie) h.cookie = cookie
    for (const [k, v] of Object.entries(this.options.headers ?? {})) h[k.toLowerCase()] = v
    return h
  }

  /** `resent`: how often this request was sent again after a kept-alive socket was closed under it (as browsers do). */
  private once(url: URL, opts: GetOptions, deadline: number, resent = 0): Promise<HttpResult> {
    return new Promise((resolve) => {
      const begin = this.now()
      if (this.closed) return resolve(failure(url.href, 'closed', 0))
      const secure = url.protocol === 'https:'
      if (!secure && url.protocol !== 'http:') return resolve(failure(url.href, `unsupported protocol ${url.protocol}`, 0))
      let settled = false
      const done = (r: HttpResult): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        this.inFlight.delete(req)
        resolve(r)
      }
      const req = (secure ? https : http).request(url, {method: 'GET', headers: this.headersFor(url, opts), agent: secure ? this.agents.https : this.agents.http})
      this.inFlight.add(req)
      const timer = setTimeout(() => req.destroy(Object.assign(new Error('timeout'), {code: 'timeout'})), Math.max(1, deadline - begin))
      req.on('error', (err: Error & {code?: string}) => {
        // The server closed an idle kept-alive socket as this request went out on it: nothing was
        // answered, so the GET is sent again (each kept socket can be stale once; a new one is not reused).
        if (req.reusedSocket && resent <= this.options.maxSockets && !settled && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) {
          settled = true
          clearTimeout(timer)
          this.inFlight.delete(req)
          resolve(this.once(url, opts, deadline, resent + 1))
          return
        }
        done(failure(url.href, err.code ?? err.message, this.now() - begin))
      })
      req.on('response', (res) => {
        this.keepCookies(res, url)
        const base = {url: url.href, status: res.statusCode ?? 0, headers: res.headers, contentType: res.headers['content-type']}
        if ((res.statusCode ?? 0) >= 300 && (res.statusCode ?? 0) < 400 && res.headers.location) {
          res.resume()
          res.on('end', () => done({...base, bytes: 0, head: Buffer.alloc(0), ms: this.now() - begin}))
          return
        }
        readBody(decoded(res), opts.keepBody === true).then(
          (b) => done({...base, bytes: b.bytes, head: b.head, ...(b.body ? {body: b.body} : {}), ms: this.now() - begin}),
          (err: Error & {code?: string}) => done({...failure(url.href, err.code ?? err.message, this.now() - begin), headers: res.headers}),
        )
      })
      req.end()
    })
  }

  private keepCookies(res: IncomingMessage, url: URL): void {
    const jar = this.options.jar
    if (!jar) return
    for (const c of res.headers['set-cookie'] ?? []) jar.store(c, url)
  }
}

function failure(url: string, error: string, ms: number): HttpResult {
  return {url, error, headers: {}, bytes: 0, head: Buffer.alloc(0), ms}
}

function decoded(res: IncomingMessage): Readable {
  const enc = (res.headers['content-encoding'] ?? '').trim().toLowerCase()
  const decoder = enc === 'gzip' || enc === 'x-gzip' ? zlib.createGunzip() : enc === 'deflate' ? zlib.createInflate() : enc === 'br' ? zlib.createBrotliDecompress() : undefined
  if (!decoder) return res
  res.on('error', (err) => decoder.destroy(err))
  return res.pipe(decoder)
}

async function readBody(stream: Readable, keep: boolean): Promise<{bytes: number; head: Buffer; body?: Buffer}> {
  let bytes = 0
  const head: Buffer[] = []
  let headBytes = 0
  const body: Buffer[] = []
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (headBytes < HEAD_BYTES) {
      head.push(chunk.subarray(0, HEAD_BYTES - headBytes))
      headBytes += Math.min(chunk.length, HEAD_BYTES - headBytes)
    }
    if (keep && bytes < MAX_BODY) body.push(chunk.subarray(0, MAX_BODY - bytes))
    bytes += chunk.length
  }
  return {bytes, head: Buffer.concat(head), ...(keep ? {body: Buffer.concat(body)} : {})}
}
