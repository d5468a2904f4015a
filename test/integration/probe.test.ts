import Ajv from 'ajv'
import addFormats from 'ajv-formats'
import {readFileSync} from 'node:fs'
import http, {type IncomingHttpHeaders} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {probe, type ProbeRequest} from '../../src/app/probe'
import type {BarrageResult} from '../../src/probe/types'
import {ROOT} from '../helpers/cli'
import {startCli, waitFor} from '../helpers/cli-process'

/*
 * The probe against a small site on 127.0.0.1 whose behaviour each test sets: healthy, serving its
 * shell for a bundle, 404, a BOM-prefixed HTML body, a hanging bundle, a redirect.
 */
type Mode = 'ok' | 'html' | 'missing' | 'bom' | 'hang' | 'redirect'
let mode: Mode = 'ok'
const seen: {path: string; headers: IncomingHttpHeaders}[] = []
let inFlightAssets = 0
let maxInFlightAssets = 0
let port = 0
const page = (n = 4) => Buffer.from(`<!doctype html><html><head><base href="/app/">
<link rel="stylesheet" href="/_build/site.css"><script type="module" src="main.js"></script>
${Array.from({length: n - 3}, (_, i) => `<link rel="modulepreload" href="/_build/extra-${i}.js">`).join('')}
<script src="http://127.0.0.1:${port}/abs.js"></script></head><body></body></html>`)
let assetsOnPage = 4

const server = http.createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0] ?? '/'
  seen.push({path, headers: req.headers})
  if (path === '/' || path === '/home') {
    if (mode === 'redirect' && path === '/') {
      res.writeHead(302, {location: '/home', 'set-cookie': 'from-redirect=1; Path=/'})
      return res.end()
    }
    const body = page(assetsOnPage)
    const headers: Record<string, string | string[]> = {'content-type': 'text/html', 'content-length': String(body.length)}
    if (!req.headers.cookie?.includes('sid=')) headers['set-cookie'] = `sid=${seen.length}; Path=/`
    res.writeHead(200, headers)
    return res.end(body)
  }
  inFlightAssets++
  maxInFlightAssets = Math.max(maxInFlightAssets, inFlightAssets)
  res.on('close', () => inFlightAssets--)
  const send = (status: number, type: string, body: Buffer, extra: Record<string, string> = {}) => setTimeout(() => {
    res.writeHead(status, {'content-type': type, 'content-length': String(body.length), ...extra})
    res.end(body)
  }, 15)
  const isMain = path === '/app/main.js'
  if (mode === 'hang' && isMain) return // never answers: the probe's timeout ends it
  if (mode === 'html' && isMain) return send(200, 'text/html', page(assetsOnPage))
  if (mode === 'missing' && isMain) return send(404, 'text/plain', Buffer.from('404 page not found\n'))
  if (mode === 'bom' && isMain) return send(200, 'application/javascript', Buffer.from('\ufeff\n  <html>oops</html>'))
  send(200, path.endsWith('.css') ? 'text/css' : 'text/javascript', Buffer.alloc(5000, 'x'), path === '/abs.js' ? {'set-cookie': 'asset-cookie=2; Path=/'} : {})
})

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  port = (server.address() as AddressInfo).port
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})
beforeEach(() => {
  mode = 'ok'
  assetsOnPage = 4
  seen.length = 0
  maxInFlightAssets = 0
})

const url = () => `http://127.0.0.1:${port}/`
const run = (over: Partial<ProbeRequest> = {}) => {
  const barrages: BarrageResult[] = []
  const done = probe({
    url: url(), intervalMs: 30, count: 1, timeoutMs: 10_000, userAgent: 'skewscan-probe/test', headers: {}, cookies: [], sticky: false, concurrency: 6,
    onBarrage: (b) => barrages.push(b), ...over,
  })
  return done.then((summary) => ({summary, barrages}))
}

describe('probe against a live page', () => {
  it('fetches every script and stylesheet the page names (base href, relative, absolute) and finds them all JS', async () => {
    const {summary, barrages} = await run({count: 2})
    expect(barrages.map((b) => b.verdict)).toEqual(['all-ok', 'all-ok'])
    expect(barrages[0]?.assets.map((a) => `${a.kind} ${new URL(a.url).pathname}`)).toEqual([
      'stylesheet /_build/site.css', 'module /app/main.js', 'modulepreload /_build/extra-0.js', 'script /abs.js',
    ])
    expect(summary).toMatchObject({barrages: 2, failedBarrages: 0, stoppedBy: 'count', builds: [{shellBytes: page().length, assets: 4, barrages: 2}]})
  })

  it.each<[Mode, BarrageResult['verdict'], string, string | null]>([
    ['html', 'html', 'html-for-asset', 'text/html'],
    ['bom', 'html', 'html-for-asset', 'starts with <'],
    ['missing', 'missing', 'missing', 'HTTP 404'],
    ['hang', 'error', 'error', 'timeout'],
  ])('classifies a bundle answered by %s', async (m, verdict, outcome, reason) => {
    mode = m
    // The hanging bundle's timeout; the others answer in 15 ms, well inside it even on a busy machine.
    const {summary, barrages} = await run({timeoutMs: m === 'hang' ? 2500 : 10_000})
    const main = barrages[0]?.assets.find((a) => a.url.endsWith('/app/main.js'))
    expect(barrages[0]?.verdict).toBe(verdict)
    expect(main).toMatchObject({outcome, reason})
    expect(summary.failedBarrages).toBe(1)
    expect(barrages[0]?.assets.filter((a) => a.outcome === 'ok')).toHaveLength(3)
  })

  it('sends a recognisable User-Agent, the extra headers, the fixed cookies and the page as Referer', async () => {
    await run({headers: {'x-env': 'lab'}, cookies: ['a=1', 'b=2']})
    for (const r of seen) {
      expect(r.headers['user-agent']).toBe('skewscan-probe/test')
      expect(r.headers['x-env']).toBe('lab')
      expect(r.headers.cookie).toBe('a=1; b=2')
    }
    expect(seen.filter((r) => r.path !== '/').every((r) => r.headers.referer === url())).toBe(true)
  })

  it('--sticky keeps the cookies the page and the assets set, across barrages, like a browser; without it every barrage starts clean', async () => {
    await run({count: 2, sticky: true})
    const pages = seen.filter((r) => r.path === '/')
    expect(pages[0]?.headers.cookie).toBeUndefined()
    expect(pages[1]?.headers.cookie).toMatch(/^sid=\d+; asset-cookie=2$|^asset-cookie=2; sid=\d+$/)
    seen.length = 0
    await run({count: 2})
    expect(seen.every((r) => r.headers.cookie === undefined)).toBe(true)
  })

  it('follows a redirect of the page, keeps its cookie when sticky, and resolves assets against the final URL', async () => {
    mode = 'redirect'
    const {barrages} = await run({count: 2, sticky: true})
    expect(barrages[0]?.page.url).toBe(`${url()}home`)
    expect(barrages[0]?.verdict).toBe('all-ok')
    expect(seen.filter((r) => r.path === '/')[1]?.headers.cookie).toContain('from-redirect=1')
  })

  it('keeps at most --concurrency asset requests in flight', async () => {
    assetsOnPage = 12
    const {barrages} = await run({concurrency: 3})
    expect(barrages[0]?.assets).toHaveLength(12)
    expect(maxInFlightAssets).toBe(3)
  })

  it('stops after --duration, and at once when interrupted, with every socket closed', async () => {
    const {summary, barrages} = await run({count: undefined, durationMs: 350, intervalMs: 100})
    expect(summary.stoppedBy).toBe('duration')
    // Barrages start 100 ms apart at the soonest, none after the 350 ms: at most 4, however slow the machine.
    expect(summary.barrages).toBeGreaterThanOrEqual(1)
    expect(summary.barrages).toBeLessThanOrEqual(4)
    const starts = barrages.map((b) => b.startedAt)
    for (let i = 1; i < starts.length; i++) expect((starts[i] as number) - (starts[i - 1] as number)).toBeGreaterThanOrEqual(99)
    expect((starts.at(-1) as number) - (starts[0] as number)).toBeLessThan(350)

    mode = 'hang'
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 200)
    // The hanging request would wait ten minutes: only the interrupt can end this run within the test's time.
    const cut = await run({count: undefined, timeoutMs: 600_000, signal: controller.signal})
    expect(cut.summary).toMatchObject({stoppedBy: 'interrupt', barrages: 0})
    await waitFor(() => inFlightAssets === 0, 2000, 'the hanging request to be closed')
  })
})

describe('skewscan probe, run as a user would', () => {
  const ajv = new Ajv({allErrors: true, strict: false})
  addFormats(ajv)
  const schema = JSON.parse(readFileSync(join(ROOT, 'schemas', 'probe.schema.json'), 'utf8')) as {$id: string}
  const validateSummary = ajv.compile(schema)
  const validateBarrage = ajv.compile({$ref: `${schema.$id}#/definitions/barrage`})

  it('--json prints the summary, valid against schemas/probe.schema.json; barrage lines go to stderr', async () => {
    const cli = startCli(['probe', url(), '--count', '2', '--interval', '50ms', '--json'])
    expect((await cli.exited).code).toBe(0)
    const summary = JSON.parse(cli.stdout())
    expect(validateSummary(summary) || validateSummary.errors).toBe(true)
    expect(summary).toMatchObject({barrages: 2, failedBarrages: 0, stoppedBy: 'count'})
    expect(cli.stderr()).toMatch(/Barrage started at \S+Z: is all JS/)
    expect(seen.find((r) => r.path === '/')?.headers['user-agent']).toMatch(/^skewscan-probe\/\d+\.\d+\.\d+/)
  })

  it('--ndjson streams one line per barrage, then the summary; --fail-on failure exits 1', async () => {
    mode = 'html'
    const cli = startCli(['probe', url(), '--count', '2', '--interval', '50ms', '--ndjson', '--fail-on', 'failure'])
    expect((await cli.exited).code).toBe(1)
    const lines = cli.stdout().trim().split('\n').map((l) => JSON.parse(l) as {type: string})
    expect(lines.map((l) => l.type)).toEqual(['barrage', 'barrage', 'summary'])
    for (const l of lines.slice(0, 2)) expect(validateBarrage(l) || validateBarrage.errors).toBe(true)
    const {type: _type, ...summary} = lines[2] as Record<string, unknown>
    expect(validateSummary(summary) || validateSummary.errors).toBe(true)
    expect(summary).toMatchObject({failedBarrages: 2, byVerdict: {html: 2}})
  })

  it('prints the write-up\'s lines and the summary; exits 0 without --fail-on', async () => {
    mode = 'html'
    const cli = startCli(['probe', url(), '--count', '1'])
    expect((await cli.exited).code).toBe(0)
    expect(cli.stdout()).toMatch(/^Barrage started at \S+Z: has some HTML {2}\[build \d+ B #[0-9a-f]{8}, new build; 4 assets\]\n {3}\/_build\/site\.css is HTML\? false/)
    expect(cli.stdout()).toContain('   /app/main.js is HTML? true  200 text/html')
    expect(cli.stdout()).toContain('Failed barrages: 1 (100% of the pages that loaded)')
  })

  it('Ctrl-C stops it: the summary is printed, the process exits 0, its connections are closed', async () => {
    const cli = startCli(['probe', url(), '--interval', '50ms'])
    await waitFor(() => (cli.stdout().match(/Barrage started/g) ?? []).length >= 2, 15_000, 'two barrages')
    cli.child.kill('SIGINT')
    const exit = await cli.exited
    expect(exit).toEqual({code: 0, signal: null})
    expect(cli.stdout()).toMatch(/barrages in [\d.]+ s, interrupted\./)
    const connections = await new Promise<number>((resolve) => server.getConnections((_e, n) => resolve(n)))
    expect(connections).toBe(0)
  })

  it('exits 2 on usage errors and 3 when the page never loads', async () => {
    const bad = startCli(['probe', 'not-a-url', '--count', '1'])
    const closed = http.createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()))
    const deadPort = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    const down = startCli(['probe', `http://127.0.0.1:${deadPort}/`, '--count', '2', '--interval', '10ms'])
    expect((await bad.exited).code).toBe(2)
    expect(bad.stderr()).toMatch(/not a URL/)
    expect((await down.exited).code).toBe(3)
    expect(down.stdout()).toContain('page failed (ECONNREFUSED)')
    expect(down.stderr()).toMatch(/never loaded/)
  })
})
