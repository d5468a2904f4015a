import http, {type IncomingHttpHeaders} from 'node:http'
import type {AddressInfo} from 'node:net'
import {probe, type ProbeRequest} from '../../src/app/probe'
import {SimulatedClock} from '../../src/probe/clock'
import {DEFAULT_DURATION_MS, DEFAULT_GIVE_UP_AFTER, probeSettings} from '../../src/probe/options'
import type {BarrageResult} from '../../src/probe/types'
import {startCli, waitFor} from '../helpers/cli-process'
import {schemaValidator} from '../helpers/schema'

/*
 * The probe against a small site on 127.0.0.1 whose behaviour each test sets: healthy, serving its
 * shell for a bundle, 404, a BOM-prefixed HTML body, a hanging bundle, a redirect.
 */
type Mode = 'ok' | 'html' | 'missing' | 'bom' | 'hang' | 'redirect' | 'slow' | 'unavailable'
let mode: Mode = 'ok'
const seen: {path: string; headers: IncomingHttpHeaders}[] = []
let inFlightAssets = 0
let maxInFlightAssets = 0
/** Every request, the page's included, from its arrival until its response is done or its connection closed. */
let inFlight = 0
let maxInFlight = 0
let port = 0
const page = (n = 4) => Buffer.from(`<!doctype html><html><head><base href="/app/">
<link rel="stylesheet" href="/_build/site.css"><script type="module" src="main.js"></script>
${Array.from({length: n - 3}, (_, i) => `<link rel="modulepreload" href="/_build/extra-${i}.js">`).join('')}
<script src="http://127.0.0.1:${port}/abs.js"></script></head><body></body></html>`)
let assetsOnPage = 4

const server = http.createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0] ?? '/'
  seen.push({path, headers: req.headers})
  inFlight++
  maxInFlight = Math.max(maxInFlight, inFlight)
  res.on('close', () => inFlight--)
  if (path === '/' || path === '/home') {
    if (mode === 'unavailable') return res.writeHead(503, {'content-type': 'text/plain'}).end('down for maintenance\n')
    if (mode === 'redirect' && path === '/') {
      res.writeHead(302, {location: '/home', 'set-cookie': 'from-redirect=1; Path=/'})
      return res.end()
    }
    const body = page(assetsOnPage)
    const headers: Record<string, string | string[]> = {'content-type': 'text/html', 'content-length': String(body.length)}
    if (!req.headers.cookie?.includes('sid=')) headers['set-cookie'] = `sid=${seen.length}; Path=/`
    if (mode === 'slow') return setTimeout(() => res.writeHead(200, headers).end(body), 20)
    res.writeHead(200, headers)
    return res.end(body)
  }
  inFlightAssets++
  maxInFlightAssets = Math.max(maxInFlightAssets, inFlightAssets)
  res.on('close', () => inFlightAssets--)
  const send = (status: number, type: string, body: Buffer, extra: Record<string, string> = {}) => setTimeout(() => {
    res.writeHead(status, {'content-type': type, 'content-length': String(body.length), ...extra})
    res.end(body)
  }, mode === 'slow' ? 60 : 15)
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
  maxInFlight = 0
})

/** A loopback port nothing listens on: a server's, opened and closed again. */
async function deadPort(): Promise<number> {
  const closed = http.createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()))
  const p = (closed.address() as AddressInfo).port
  await new Promise((resolve) => closed.close(resolve))
  return p
}

const T0 = Date.parse('2026-12-01T20:00:00.000Z')

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

describe('probe bounds (issue 14)', () => {
  /** Stops a probe that would otherwise never end (the bug): the test then fails on its assertions, at once. */
  const safetyNet = (max: number) => {
    const controller = new AbortController()
    let n = 0
    return {signal: controller.signal, onBarrage: () => void (++n >= max && controller.abort())}
  }

  it('gives up on a dead site by itself, without --count or --duration, after the default number of unanswered barrages', async () => {
    const dead = `http://127.0.0.1:${await deadPort()}/`
    const settings = probeSettings(dead, {interval: '300ms', timeout: '5s', sticky: false, concurrency: 6, 'give-up-after': DEFAULT_GIVE_UP_AFTER})
    expect(settings).not.toHaveProperty('count')
    expect(settings).not.toHaveProperty('durationMs')
    const barrages: BarrageResult[] = []
    const net = safetyNet(5 * DEFAULT_GIVE_UP_AFTER)
    const summary = await probe({
      ...settings, userAgent: 'skewscan-probe/test', clock: new SimulatedClock(T0), signal: net.signal,
      onBarrage: (b) => {
        barrages.push(b)
        net.onBarrage()
      },
    })
    expect(summary).toMatchObject({stoppedBy: 'unreachable', barrages: DEFAULT_GIVE_UP_AFTER, pageErrors: DEFAULT_GIVE_UP_AFTER})
    expect(barrages.every((b) => b.verdict === 'page-error' && b.page.status === null && b.page.error === 'ECONNREFUSED')).toBe(true)
    // On the simulated clock the barrages are exactly an interval apart.
    expect(barrages.map((b) => b.startedAt - T0)).toEqual(Array.from({length: DEFAULT_GIVE_UP_AFTER}, (_, i) => i * 300))
  })

  it('counts an HTTP error as an answer, so a site answering 503 is watched, not given up on', async () => {
    mode = 'unavailable'
    const {summary} = await run({count: 4, giveUpAfter: 2, clock: new SimulatedClock(T0)})
    expect(summary).toMatchObject({stoppedBy: 'count', barrages: 4, pageErrors: 4})
  })

  it('without --count or --duration stops after the default bound (1h), even when told never to give up', async () => {
    const dead = `http://127.0.0.1:${await deadPort()}/`
    // A long interval keeps the hour to a few barrages; the bound is the same for any interval.
    const settings = probeSettings(dead, {interval: '10m', timeout: '5s', sticky: false, concurrency: 6, 'give-up-after': 0})
    const net = safetyNet(100)
    const summary = await probe({...settings, userAgent: 'skewscan-probe/test', clock: new SimulatedClock(T0), ...net})
    expect(summary).toMatchObject({stoppedBy: 'duration', barrages: 6})
    expect(Date.parse(summary.endedAt) - Date.parse(summary.startedAt)).toBe(DEFAULT_DURATION_MS)
  })

  it('never has more than --concurrency requests in flight against a slow site, page included, and barrages never overlap', async () => {
    mode = 'slow'
    assetsOnPage = 12
    // The wall clock, so requests really overlap (the simulated clock runs them one at a time). The site
    // answers the page in 20 ms and each asset in 60 ms: a barrage (the page, then 12 assets 3 at a time)
    // outlasts the 100 ms interval, so each next one is due before the last has ended.
    const {barrages} = await run({count: 4, intervalMs: 100, concurrency: 3})
    expect(barrages.map((b) => b.verdict)).toEqual(['all-ok', 'all-ok', 'all-ok', 'all-ok'])
    expect(seen).toHaveLength(4 * 13)
    expect(maxInFlight).toBeLessThanOrEqual(3)
    for (let i = 1; i < barrages.length; i++) {
      expect((barrages[i] as BarrageResult).startedAt).toBeGreaterThanOrEqual((barrages[i - 1] as BarrageResult).endedAt)
    }
  })
})

describe('skewscan probe, run as a user would', () => {
  const validateSummary = schemaValidator('probe')
  const validateBarrage = schemaValidator('probe', '#/definitions/barrage')

  it('--json prints the summary, valid against schemas/probe.schema.json; barrage lines go to stderr', async () => {
    const cli = startCli(['probe', url(), '--count', '2', '--interval', '100ms', '--json'])
    expect((await cli.exited).code).toBe(0)
    const summary = JSON.parse(cli.stdout())
    expect(validateSummary(summary) || validateSummary.errors).toBe(true)
    expect(summary).toMatchObject({barrages: 2, failedBarrages: 0, stoppedBy: 'count'})
    expect(cli.stderr()).toMatch(/Barrage started at \S+Z: is all JS/)
    expect(seen.find((r) => r.path === '/')?.headers['user-agent']).toMatch(/^skewscan-probe\/\d+\.\d+\.\d+/)
  })

  it('--ndjson streams one line per barrage, then the summary; --fail-on failure exits 1', async () => {
    mode = 'html'
    const cli = startCli(['probe', url(), '--count', '2', '--interval', '100ms', '--ndjson', '--fail-on', 'failure'])
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
    const cli = startCli(['probe', url(), '--interval', '100ms'])
    await waitFor(() => (cli.stdout().match(/Barrage started/g) ?? []).length >= 2, 15_000, 'two barrages')
    cli.child.kill('SIGINT')
    const exit = await cli.exited
    expect(exit).toEqual({code: 0, signal: null})
    expect(cli.stdout()).toMatch(/barrages in [\d.]+ s, interrupted\./)
    const connections = await new Promise<number>((resolve) => server.getConnections((_e, n) => resolve(n)))
    expect(connections).toBe(0)
  })

  it('refuses an --interval under 100ms: exit 2, naming the flag and the minimum, before any request', async () => {
    for (const interval of ['0', '99ms']) {
      const cli = startCli(['probe', url(), '--interval', interval, '--count', '1'])
      expect((await cli.exited).code).toBe(2)
      expect(cli.stderr()).toContain(`--interval must be at least 100ms (got "${interval}")`)
    }
    expect(seen).toHaveLength(0)
  })

  it('gives up on a site that does not answer, without --count or --duration: exit 3 and says why', async () => {
    // Killed after 12 s if it does not stop by itself (the bug), so both runs fit in the test's time.
    const cli = startCli(['probe', `http://127.0.0.1:${await deadPort()}/`, '--interval', '100ms'], 12_000)
    expect((await cli.exited).code).toBe(3)
    expect(cli.stdout().match(/page failed \(ECONNREFUSED\)/g)).toHaveLength(10)
    expect(cli.stdout()).toMatch(/10 barrages in [\d.]+ s, gave up \(the page did not answer\)\./)
    expect(cli.stderr()).toContain('Gave up: the page did not answer 10 barrages in a row (last: ECONNREFUSED)')
    const fewer = startCli(['probe', `http://127.0.0.1:${await deadPort()}/`, '--interval', '100ms', '--give-up-after', '2', '--json'], 12_000)
    expect((await fewer.exited).code).toBe(3)
    const summary = JSON.parse(fewer.stdout())
    expect(validateSummary(summary) || validateSummary.errors).toBe(true)
    expect(summary).toMatchObject({stoppedBy: 'unreachable', barrages: 2})
  })

  it('exits 2 on usage errors and 3 when the page never loads', async () => {
    const bad = startCli(['probe', 'not-a-url', '--count', '1'])
    const down = startCli(['probe', `http://127.0.0.1:${await deadPort()}/`, '--count', '2', '--interval', '100ms'])
    expect((await bad.exited).code).toBe(2)
    expect(bad.stderr()).toMatch(/not a URL/)
    expect((await down.exited).code).toBe(3)
    expect(down.stdout()).toContain('page failed (ECONNREFUSED)')
    expect(down.stderr()).toMatch(/never loaded/)
  })
})
