/**
 * Issue 27 item 1: scanners with a browser's user agent ask for asset-like guesses (`/js/app.js`)
 * that the SPA answers with its shell (or 404s, on a host without the fallback). The analysis counts
 * them as scanners' (a path never answered with real content, from a page load that got no real
 * asset); the live pull decides it on Datadog's side and opens no asset window for them, while a
 * person's failure at such a path (their page got its real assets) keeps its window. Live = offline.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {buildDay, type Day, type DayItem, writeDayNdjson} from '../helpers/datadog-day'
import {ROOT} from '../helpers/cli'
import {FakeDatadog} from '../helpers/fake-datadog'
import {API_KEY, APP_KEY, expectedIds, fileAnalyze, liveAnalyze, QUERY, sortById, withoutInput} from '../helpers/fake-datadog-live'
import type {TimeRange} from '../../src/model/time-range'

const TUNING = {concurrency: 3, sliceEvents: 20_000, timeoutMs: 30_000, retry: {maxAttempts: 6, baseDelayMs: 5, maxDelayMs: 40, maxElapsedMs: 60_000}}
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'

type Attrs = Record<string, any>

const attrs = (i: DayItem): Attrs => (i.attributes as Attrs).attributes as Attrs
const timeOf = (i: DayItem): number => Date.parse((i.attributes as Attrs).timestamp as string)
const pathOf = (i: DayItem): string => attrs(i).http.url_details.path as string

/** A copy of `item` as another request: its time, client, agent, method, path, status and length. */
function request(item: DayItem, id: string, r: {time: number; ip: string; agent: string; method: string; path: string; status: number; bytes: number; referer?: string}): DayItem {
  const copy = JSON.parse(JSON.stringify(item)) as DayItem
  const top = copy.attributes as Attrs
  const a = top.attributes as Attrs
  top.timestamp = new Date(r.time).toISOString()
  top.message = `${r.ip} - - "${r.method} ${r.path} HTTP/1.1" ${r.status} ${r.bytes}`
  Object.assign(a.http, {url: r.path, method: r.method, status_code: r.status, useragent: r.agent, request_id: id})
  a.http.url_details.path = r.path
  if (r.referer === undefined) delete a.http.referer
  else a.http.referer = r.referer
  a.network.client.ip = r.ip
  a.network.bytes_written = r.bytes
  a.upstream_response_length = String(r.bytes)
  delete a.cookie_session
  copy.id = `AQscan${id}`
  return copy
}

/** The app's last shell before `t` (its build's length and pod then). */
function shellBefore(day: Day, upstream: string, t: number): DayItem {
  let found: DayItem | undefined
  for (const i of day.items) {
    if (timeOf(i) > t) break
    const a = attrs(i)
    if (a.proxy_upstream_name === upstream && pathOf(i) === '/' && a.http.status_code === 200 && a.http.method === 'GET') found = i
  }
  if (!found) throw new Error(`no shell of ${upstream} before ${new Date(t).toISOString()}`)
  return found
}

interface Added {
  items: DayItem[]
  /** When each scanner burst asked for its guesses. */
  scanners: number[]
  /** When a person asked for a path no build serves, their page having its real assets. */
  person: number
}

/**
 * Scanner bursts at the given hours, each from a new address with a browser's agent: the shell,
 * then guesses the app answers with its shell (the first app, SPA fallback) or 404 (the second), and
 * a HEAD answered 200 with 0 bytes. And one person's own missing file, a second after an asset of
 * their page that got real content.
 */
function addScanners(day: Day, hours: readonly number[]): Added {
  const items: DayItem[] = []
  const scanners: number[] = []
  hours.forEach((h, n) => {
    const app = day.apps[n % 2]
    if (!app) throw new Error('two apps')
    const t = day.range.from + h * 3_600_000 + 17_000
    const shell = shellBefore(day, app.upstream, t)
    const bytes = attrs(shell).network.bytes_written as number
    const ip = `203.0.113.${10 + n}`
    const fallback = n % 2 === 0
    items.push(request(shell, `${n}s`, {time: t, ip, agent: CHROME, method: 'GET', path: '/', status: 200, bytes}))
    const guesses = ['/js/app.js', '/static/js/main.js', '/assets/js/vendor.js', `/static/js/bundle${n}.js`]
    guesses.forEach((path, k) => items.push(request(shell, `${n}g${k}`, {time: t + 1000 + k * 1000, ip, agent: CHROME, method: 'GET', path, status: fallback ? 200 : 404, bytes: fallback ? bytes : 153})))
    items.push(request(shell, `${n}h`, {time: t + 6000, ip, agent: CHROME, method: 'HEAD', path: '/js/app.js', status: 200, bytes: 0}))
    scanners.push(t + 1000)
  })
  // A person of the first app whose page got a real asset around 10:00, then asked for a file no build has.
  const app = day.apps[0]
  if (!app) throw new Error('two apps')
  const after = day.range.from + 10 * 3_600_000
  const asset = day.items.find((i) => timeOf(i) >= after && attrs(i).proxy_upstream_name === app.upstream && pathOf(i).endsWith('.js') && attrs(i).http.status_code === 200 && attrs(i).http.referer !== undefined && !/bot|crawl|spider/i.test(attrs(i).http.useragent as string))
  if (!asset) throw new Error('no asset of a person after 10:00')
  const a = attrs(asset)
  const person = timeOf(asset) + 1000
  const shellBytes = attrs(shellBefore(day, app.upstream, person)).network.bytes_written as number
  items.push(request(asset, 'p', {time: person, ip: a.network.client.ip as string, agent: a.http.useragent as string, method: 'GET', path: '/static/js/legacy-widget.js', status: 200, bytes: shellBytes, referer: a.http.referer as string}))
  return {items, scanners, person}
}

const dir = mkdtempSync(join(tmpdir(), 'skewscan-scanners-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

const inside = (windows: readonly TimeRange[], t: number): boolean => windows.some((w) => t >= w.from && t < w.to)

describe('scanners with a browser\'s user agent (issue 27 item 1)', () => {
  it('open no asset window, while a person\'s own missing file keeps its own; the live report is the offline one', async () => {
    const day = buildDay({root: ROOT, deploys: 2, events: 20_000})
    const added = addScanners(day, [2, 3, 9, 12, 14, 21])
    day.items = [...day.items, ...added.items].sort((x, y) => timeOf(x) - timeOf(y) || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0))
    const file = join(dir, 'day.ndjson')
    writeDayNdjson(day, file)
    const offline = await fileAnalyze('day', file)
    // The offline analysis: the guesses are scanners', the person's missing file a failure of theirs.
    expect(offline.nonUser.scanners.requests).toBeGreaterThanOrEqual(4 * added.scanners.length)
    expect(JSON.stringify(offline)).toContain('/static/js/legacy-widget.js')
    const server = await FakeDatadog.start({logs: day.items as unknown as Record<string, unknown>[], apiKey: API_KEY, appKey: APP_KEY, rateLimit: {limit: 100_000, periodSeconds: 3600}})
    try {
      const live = await liveAnalyze(server, {spec: {range: day.range, query: QUERY}, tuning: TUNING})
      expect(withoutInput(live.report)).toEqual(withoutInput(offline))
      expect(sortById(live.items.map((p) => p.item))).toEqual(expectedIds(server, live.plan))
      expect(live.notices.filter((n) => /scanners/.test(n))).toEqual([])
      // Ours, and the captures' own scanners among the day's noise.
      expect(live.plan.scanners?.clients).toBeGreaterThanOrEqual(added.scanners.length)
      expect(live.plan.scanners?.buckets).toBeGreaterThanOrEqual(added.scanners.length)
      for (const t of added.scanners) expect([new Date(t).toISOString(), inside(live.plan.windows, t)]).toEqual([new Date(t).toISOString(), false])
      expect(inside(live.plan.windows, added.person)).toBe(true)
      // Every guess is still read (the candidates stream), and counted as a scanner's.
      const read = new Set(live.items.map((p) => String(p.item.id)))
      for (const i of added.items.filter((x) => /g\d$/.test(x.id))) expect(read.has(i.id)).toBe(true)

      // The same pull without the check opens a window for each burst, and pulls more in more requests.
      const before = await liveAnalyze(server, {spec: {range: day.range, query: QUERY, scanners: undefined}, tuning: TUNING})
      expect(withoutInput(before.report)).toEqual(withoutInput(offline))
      for (const t of added.scanners) expect(inside(before.plan.windows, t)).toBe(true)
      const [now, then] = [live.report.input.datadog, before.report.input.datadog]
      expect(now?.pulled).toBeLessThan(then?.pulled ?? 0)
      expect(now?.requests.search).toBeLessThan(then?.requests.search ?? 0)
      process.stdout.write(`scanner check on a ${day.items.length}-event day: pulled ${then?.pulled} -> ${now?.pulled}, search requests ${then?.requests.search} -> ${now?.requests.search}, aggregates ${then?.requests.aggregate} -> ${now?.requests.aggregate}, windows ${before.plan.windows.length} -> ${live.plan.windows.length}\n`)
    } finally {
      await server.close()
    }
  }, 300_000)
})
