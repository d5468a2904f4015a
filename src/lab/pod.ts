import http, {type IncomingMessage, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {DEFAULT_ASSET_PATTERNS} from '../analysis/options'
import {assetMatcher} from '../analysis/asset-patterns'
import type {LabBuild} from './builds'

/** What a pod answers for a path it does not have: its shell (SPA fallback) or, for asset paths, 404. */
export type MissingMode = 'fallback' | '404'

export interface PodOptions {
  name: string
  build: LabBuild
  /** Assets of the previous build this pod also serves (`--keep-old-assets`). */
  previous?: LabBuild
  missing: MissingMode
  /** Added before every response: a slower network widens the races. */
  latencyMs: number
}

const isAssetPath = assetMatcher(DEFAULT_ASSET_PATTERNS)
const NOT_FOUND = Buffer.from('404 page not found\n')

/**
 * One pod: an HTTP server on 127.0.0.1 serving one build like a static SPA host. Its own bundles
 * (and, with keep-old-assets, the previous build's) are served immutable; every other path gets the
 * shell with status 200 (SPA fallback), or a 404 for asset paths in `404` mode. Each response names
 * the pod and build in `x-lab-pod` / `x-lab-build`, the lab's ground truth.
 */
export class Pod {
  readonly name: string
  readonly build: LabBuild
  private readonly server: http.Server
  private port = 0

  constructor(private readonly options: PodOptions) {
    this.name = options.name
    this.build = options.build
    this.server = http.createServer((req, res) => {
      if (options.latencyMs > 0) setTimeout(() => this.answer(req, res), options.latencyMs)
      else this.answer(req, res)
    })
  }

  get address(): string {
    return `127.0.0.1:${this.port}`
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(0, '127.0.0.1', () => {
        this.server.off('error', reject)
        this.port = (this.server.address() as AddressInfo).port
        resolve()
      })
    })
  }

  /** Stops accepting; requests in flight get `graceMs` to finish, then every connection is cut. */
  async close(graceMs = 1000): Promise<void> {
    if (!this.server.listening) return
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()))
    this.server.closeIdleConnections()
    const timer = setTimeout(() => this.server.closeAllConnections(), graceMs)
    await closed
    clearTimeout(timer)
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    const headers = {'x-lab-pod': this.name, 'x-lab-build': this.build.version}
    const asset = this.build.assets.get(path) ?? this.options.previous?.assets.get(path)
    if (asset) return send(res, 200, {...headers, 'content-type': asset.contentType, 'cache-control': 'public, max-age=31536000, immutable'}, asset.body, req)
    if (path === '/healthz') return send(res, 200, {...headers, 'content-type': 'text/plain'}, Buffer.from('ok'), req)
    if (this.options.missing === '404' && isAssetPath(path)) return send(res, 404, {...headers, 'content-type': 'text/plain; charset=utf-8'}, NOT_FOUND, req)
    send(res, 200, {...headers, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache'}, this.build.shell, req)
  }
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: Buffer, req: IncomingMessage): void {
  res.writeHead(status, {...headers, 'content-length': String(body.length)})
  res.end(req.method === 'HEAD' ? undefined : body)
}
