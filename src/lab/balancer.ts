import {randomBytes} from 'node:crypto'
import http, {type IncomingMessage, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {DEFAULT_ASSET_PATTERNS} from '../analysis/options'
import {assetMatcher} from '../analysis/asset-patterns'
import type {Clock} from '../probe/clock'
import {type Affinity, AFFINITY_COOKIE, affinitySetCookie, cookieValue, type Endpoint, route} from './routing'

/** One upstream attempt of a request, as ingress-nginx logs it ($upstream_addr, $upstream_status, …). */
export interface UpstreamAttempt {
  address: string
  status: number
  bytes: number
  ms: number
}

/** One request through the balancer: everything its access log line needs. */
export interface AccessRecord {
  /** Epoch ms when the response was done (nginx logs at the end of a request). */
  time: number
  clientIp: string
  method: string
  /** Path and query, as requested. */
  uri: string
  status: number
  /** Body bytes sent to the client. */
  bytes: number
  referer: string | undefined
  userAgent: string | undefined
  requestLength: number
  ms: number
  /** Every pod tried, the one that answered last. */
  upstreams: UpstreamAttempt[]
  requestId: string
}

export interface BalancerOptions {
  affinity: Affinity
  random: () => number
  onAccess: (r: AccessRecord) => void
  clock: Clock
}

/** Hop-by-hop headers a proxy must not forward (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade'])
const isAssetPath = assetMatcher(DEFAULT_ASSET_PATTERNS)
/** Attempts per request, as ingress-nginx's proxy-next-upstream-tries (3) on connection errors. */
const MAX_TRIES = 3

/**
 * The lab's load balancer: a real reverse proxy on loopback, in front of the pods. Routing is the
 * pure `route()` decision; this class moves bytes, retries a pod that refuses the connection, keeps
 * count of requests in flight per pod (so a pod is closed only once drained) and reports one access
 * record per request. X-Forwarded-For from loopback is trusted (ingress-nginx's use-forwarded-headers),
 * which lets each simulated browser have its own client IP.
 */
export class Balancer {
  private targets: Endpoint[] = []
  private reachable: Endpoint[] = []
  private rr = 0
  private readonly inFlight = new Map<string, number>()
  private readonly drained = new Map<string, () => void>()
  private readonly server: http.Server
  private readonly upstreamAgent = new http.Agent({keepAlive: false})
  private readonly now: () => number
  private lastLogged = 0
  private closing = false
  requests = 0

  constructor(private readonly options: BalancerOptions) {
    this.now = () => options.clock.now()
    this.server = http.createServer((req, res) => this.handle(req, res))
    this.server.keepAliveTimeout = 5000
  }

  /** Listens on 127.0.0.1; returns the port (0 asks for any free one). */
  listen(port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject)
        resolve((this.server.address() as AddressInfo).port)
      })
    })
  }

  /** Who gets new traffic, and who an affinity cookie can still reach (blue/green drains). */
  setEndpoints(targets: readonly Endpoint[], reachable: readonly Endpoint[] = targets): void {
    this.targets = [...targets]
    this.reachable = [...reachable]
  }

  /** Resolves once no request is in flight to this pod any more, or after `timeoutMs`. */
  drain(name: string, timeoutMs: number): Promise<void> {
    if ((this.inFlight.get(name) ?? 0) === 0) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs)
      function done(): void {
        clearTimeout(timer)
        resolve()
      }
      this.drained.set(name, done)
    })
  }

  /** Stops accepting, lets requests in flight finish for up to `graceMs`, then cuts every connection. */
  async close(graceMs = 1000): Promise<void> {
    this.closing = true
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()))
    this.server.closeIdleConnections()
    const timer = setTimeout(() => this.server.closeAllConnections(), graceMs)
    await closed
    clearTimeout(timer)
    this.upstreamAgent.destroy()
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    this.requests++
    // Closing: answer what is already on a kept-alive connection, and tell the client not to reuse it.
    if (this.closing) res.shouldKeepAlive = false
    const started = this.now()
    const requestId = randomBytes(16).toString('hex')
    const forwarded = typeof req.headers['x-forwarded-for'] === 'string' ? req.headers['x-forwarded-for'].split(',')[0]?.trim() : undefined
    const peer = req.socket.remoteAddress ?? ''
    const clientIp = forwarded && isLoopback(peer) ? forwarded : peer.replace(/^::ffff:/, '')
    const cookie = cookieValue(typeof req.headers.cookie === 'string' ? req.headers.cookie : undefined, AFFINITY_COOKIE)
    const document = req.method === 'GET' && !isAssetPath((req.url ?? '/').split('?')[0] ?? '/')
    const attempts: UpstreamAttempt[] = []
    const excluded = new Set<string>()
    let sent = 0
    let logged = false
    const log = (status: number): void => {
      if (logged) return
      logged = true
      // Non-decreasing times, so the log is in time order even if the clock steps back.
      const time = Math.max(this.now(), this.lastLogged)
      this.lastLogged = time
      this.options.onAccess({
        time, clientIp, method: req.method ?? 'GET', uri: req.url ?? '/', status, bytes: sent,
        referer: header(req, 'referer'), userAgent: header(req, 'user-agent'), requestLength: requestLength(req),
        ms: time - started, upstreams: attempts, requestId,
      })
    }
    // A simulated clock stands still until the request is answered and logged.
    void this.options.clock.busy(() => new Promise<void>((resolve) => res.on('close', () => {
      log(res.writableFinished ? res.statusCode : 499)
      resolve()
    })))
    const hasBody = req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0' || req.headers['transfer-encoding'] !== undefined

    const attempt = (): void => {
      const decision = route({
        affinity: this.options.affinity, targets: this.targets, reachable: this.reachable, cookie, document, excluded, rr: this.rr, random: this.options.random,
      })
      if (!decision) return this.fail(res, 503, 'no pod is serving')
      this.rr = decision.rr
      const endpoint = decision.endpoint
      const attemptStart = this.now()
      this.enter(endpoint.name)
      const [host, port] = splitAddress(endpoint.address)
      const headers = forwardHeaders(req, clientIp, requestId)
      const upstream = http.request({host, port, method: req.method, path: req.url, headers, agent: this.upstreamAgent})
      let left = false
      const leave = (): void => {
        if (left) return
        left = true
        this.leave(endpoint.name)
      }
      upstream.on('error', () => {
        leave()
        if (res.headersSent) return void res.destroy()
        attempts.push({address: endpoint.address, status: 502, bytes: 0, ms: this.now() - attemptStart})
        excluded.add(endpoint.name)
        if (!hasBody && attempts.length < MAX_TRIES) attempt()
        else this.fail(res, 502, 'bad gateway')
      })
      upstream.on('response', (up) => {
        const out: Record<string, string | string[]> = {}
        for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v
        if (decision.setCookie !== undefined) out['set-cookie'] = [...asList(out['set-cookie']), affinitySetCookie(decision.setCookie)]
        res.writeHead(up.statusCode ?? 502, out)
        let upBytes = 0
        up.on('data', (chunk: Buffer) => {
          upBytes += chunk.length
          sent += chunk.length
        })
        up.on('end', () => {
          attempts.push({address: endpoint.address, status: up.statusCode ?? 0, bytes: upBytes, ms: this.now() - attemptStart})
          leave()
        })
        up.on('error', () => {
          leave()
          res.destroy()
        })
        up.pipe(res)
      })
      if (hasBody) req.pipe(upstream)
      else upstream.end()
    }
    attempt()
  }

  private fail(res: ServerResponse, status: number, text: string): void {
    const body = `${status} ${text}\n`
    res.writeHead(status, {'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body)})
    res.end(body)
  }

  private enter(name: string): void {
    this.inFlight.set(name, (this.inFlight.get(name) ?? 0) + 1)
  }

  private leave(name: string): void {
    const n = (this.inFlight.get(name) ?? 1) - 1
    this.inFlight.set(name, n)
    if (n === 0) {
      this.drained.get(name)?.()
      this.drained.delete(name)
    }
  }
}

function isLoopback(address: string): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1'
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name]
  return typeof v === 'string' ? v : undefined
}

function asList(v: string | string[] | undefined): string[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v]
}

function splitAddress(address: string): [string, number] {
  const colon = address.lastIndexOf(':')
  return [address.slice(0, colon), Number(address.slice(colon + 1))]
}

function forwardHeaders(req: IncomingMessage, clientIp: string, requestId: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v
  out['x-forwarded-for'] = clientIp
  out['x-real-ip'] = clientIp
  out['x-request-id'] = requestId
  return out
}

/** $request_length: the request line, headers and body as received (approximately: header bytes as sent). */
function requestLength(req: IncomingMessage): number {
  let n = `${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/${req.httpVersion}\r\n`.length + 2
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) n += (req.rawHeaders[i]?.length ?? 0) + (req.rawHeaders[i + 1]?.length ?? 0) + 4
  return n + Number(req.headers['content-length'] ?? 0)
}
