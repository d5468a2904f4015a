/**
 * The test doubles of issue 16, held to hand-computed answers: the fake Datadog's search syntax
 * (every query the tool sends, boolean groups, escapes, wildcards, ranges, long value lists,
 * phrases), its Logs aggregate (count and cardinality, totals and timeseries at several intervals,
 * nested group-bys with limits, sorts and `missing`, paging, limits refused as Datadog refuses
 * them, a refused facet, faults), and the day of traffic built from the real captures
 * (deterministic, in time order, two apps, N deploys, healthy traffic on the build of its time, and
 * a truth an offline and a live analysis of the day agree with).
 */
import {createHash} from 'node:crypto'
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {DEFAULT_OPTIONS} from '../../src/analysis/options'
import type {FailureRecord} from '../../src/model/report'
import {QueryBuilder} from '../../src/sources/datadog/query'
import {analyze} from '../../src/app/analyze'
import {DEFAULT_NORMALIZE} from '../../src/normalize/fields'
import {type Capture, loadCapture} from '../../scripts/captures/capture'
import {ROOT} from '../helpers/cli'
import {buildDay, type Day, dayEventsJson, dayNdjson, scoreDay, writeDayNdjson} from '../helpers/datadog-day'
import {FakeDatadog, faults} from '../helpers/fake-datadog'
import {API_KEY, APP_KEY, fileAnalyze, liveAnalyze, QUERY, withoutInput} from '../helpers/fake-datadog-live'
import {compileQuery, docOf} from '../helpers/fake-datadog-query'
import {tempDir} from '../helpers/temp'

const tmp = tempDir('skewscan-fake-datadog-day-')

interface LogSpec {
  at: string
  service?: string
  env?: string
  path: string
  status?: number
  bytes: number
  ip?: string
  method?: string
  agent?: string
  message?: string
  upstream?: string
}

function log(id: string, s: LogSpec): Record<string, unknown> {
  const service = s.service ?? 'web'
  return {
    id, type: 'log',
    attributes: {
      timestamp: `2026-12-01T${s.at}Z`, service, host: 'ingress-1', status: 'info', message: s.message ?? `${s.method ?? 'GET'} ${s.path}`,
      tags: [`service:${service}`, `env:${s.env ?? 'prod'}`, 'source:nginx-ingress-controller'],
      attributes: {
        http: {method: s.method ?? 'GET', status_code: s.status ?? 200, url_details: {path: s.path}, useragent: s.agent ?? 'Mozilla/5.0 (X11; Linux x86_64) Firefox/132.0'},
        network: {bytes_written: s.bytes, ...(s.ip === undefined ? {} : {client: {ip: s.ip}})},
        ...(s.upstream === undefined ? {} : {upstream_addr: s.upstream}),
      },
    },
  }
}

/** Seven logs in two hours, the answers below computed from them by hand. */
const LOGS = [
  log('L1', {at: '00:00:05.000', path: '/', bytes: 3300, ip: '1.1.1.1', upstream: '10.0.0.1:80'}),
  log('L2', {at: '00:00:30.000', path: '/_build/app.js', bytes: 1000, ip: '1.1.1.1', upstream: '10.0.0.1:80'}),
  log('L3', {at: '00:01:10.000', path: '/_build/app.js', bytes: 3300, ip: '2.2.2.2', upstream: '10.0.0.2:80'}),
  log('L4', {at: '00:01:20.000', path: '/api/x', status: 500, bytes: 10, ip: '2.2.2.2', method: 'POST', upstream: '10.0.0.2:80'}),
  log('L5', {at: '00:05:00.000', service: 'api', env: 'staging', path: '/v1', status: 404, bytes: 22, ip: '3.3.3.3'}),
  log('L6', {at: '00:59:59.000', path: '/', status: 304, bytes: 0, ip: '1.1.1.1', upstream: '10.0.0.1:80'}),
  log('L7', {at: '01:00:00.000', path: '/index.html', bytes: 3301, upstream: '10.0.0.3:80'}),
]
const FROM = '2026-12-01T00:00:00.000Z'
const TO = '2026-12-01T02:00:00.000Z'
const t = (hms: string): string => `2026-12-01T${hms}.000Z`

describe('search syntax', () => {
  const docs = LOGS.map(docOf)
  const ids = (query: string): string[] => {
    const m = compileQuery(query)
    return LOGS.filter((_l, k) => m(docs[k] as ReturnType<typeof docOf>)).map((l) => l.id as string)
  }

  it('boolean groups: implicit AND binds tighter than OR, NOT and - negate terms and groups, parentheses nest', () => {
    expect(ids('service:web @http.status_code:200 OR service:api')).toEqual(['L1', 'L2', 'L3', 'L5', 'L7'])
    expect(ids('service:web (@http.status_code:200 OR service:api)')).toEqual(['L1', 'L2', 'L3', 'L7'])
    expect(ids('-(service:web @http.status_code:200)')).toEqual(['L4', 'L5', 'L6'])
    expect(ids('service:web AND NOT @http.method:GET')).toEqual(['L4'])
    expect(ids('((service:web -(@http.url_details.path:\\/ OR (@http.status_code:500))) OR (env:staging))')).toEqual(['L2', 'L3', 'L5', 'L7'])
  })

  it('escapes and wildcards: \\/_build\\/*, *.js, ?, an escaped colon and space match literally', () => {
    expect(ids('@http.url_details.path:\\/_build\\/*')).toEqual(['L2', 'L3'])
    expect(ids('@http.url_details.path:*.js')).toEqual(['L2', 'L3'])
    expect(ids('@http.url_details.path:*.JS')).toEqual([])
    expect(ids('@http.url_details.path:\\/v?')).toEqual(['L5'])
    expect(ids('@http.url_details.path:\\/_build\\/app\\.js')).toEqual(['L2', 'L3'])
    expect(ids('@upstream_addr:10.0.0.1\\:80')).toEqual(['L1', 'L2', 'L6'])
    expect(ids('@http.useragent:Mozilla\\/5.0\\ \\(X11*')).toHaveLength(7)
    // An escaped * is a star, not a wildcard.
    expect(ids('@http.url_details.path:\\/_build\\/\\*')).toEqual([])
  })

  it('ranges and comparisons: inclusive, exclusive, open ends; only numbers match a numeric range', () => {
    expect(ids('@http.status_code:[200 TO 299]')).toEqual(['L1', 'L2', 'L3', 'L7'])
    expect(ids('@http.status_code:{200 TO 500]')).toEqual(['L4', 'L5', 'L6'])
    expect(ids('@http.status_code:[400 TO *]')).toEqual(['L4', 'L5'])
    expect(ids('@network.bytes_written:>=3300')).toEqual(['L1', 'L3', 'L7'])
    expect(ids('@network.bytes_written:<22')).toEqual(['L4', 'L6'])
    expect(ids('@http.url_details.path:[200 TO 299]')).toEqual([])
  })

  it('value lists of any length, with wildcards and quoted values among them', () => {
    const many = Array.from({length: 150}, (_x, k) => `9.9.${k >> 8}.${k & 255}`)
    expect(ids(`@network.client.ip:(${[...many, '2.2.2.2'].join(' OR ')})`)).toEqual(['L3', 'L4'])
    expect(ids(`@network.client.ip:(${many.join(' OR ')})`)).toEqual([])
    expect(ids('@network.bytes_written:(1843 OR 2011 OR 3301)')).toEqual(['L7'])
    expect(ids('@http.url_details.path:("/v1" OR \\/api\\/*)')).toEqual(['L4', 'L5'])
    expect(ids('@http.method:(GET OR HEAD)')).toEqual(['L1', 'L2', 'L3', 'L5', 'L6', 'L7'])
    // `*word*` lists (the bot words) match within a value, case-sensitively, beside other patterns.
    expect(ids('@http.url_details.path:(*uil* OR *api*)')).toEqual(['L2', 'L3', 'L4'])
    expect(ids('@http.url_details.path:(*UIL* OR *ap?\\/*)')).toEqual(['L4'])
    expect(ids('@http.url_details.path:(*dex.h* OR \\/v*)')).toEqual(['L5', 'L7'])
    expect(ids('@http.url_details.path:("*uil*" OR *\\**)')).toEqual([])
  })

  it('quoted phrases: free text anywhere in the message, case-insensitively; a quoted value has no wildcards', () => {
    expect(ids('"post /api"')).toEqual(['L4'])
    expect(ids('"GET /_build/app.js"')).toEqual(['L2', 'L3'])
    expect(ids('"get /*"')).toEqual([])
    expect(ids('@http.url_details.path:"/_build/*"')).toEqual([])
    expect(ids('@http.url_details.path:"/_build/app.js"')).toEqual(['L2', 'L3'])
  })

  it('what it does not know fails loudly instead of matching by accident', () => {
    expect(() => compileQuery('@a:(x AND y)')).toThrow(/only OR lists/)
    expect(() => compileQuery('"open')).toThrow(/unclosed quote/)
    expect(() => compileQuery('(service:web')).toThrow(/missing \)/)
    expect(() => compileQuery('@a:[1 TO')).toThrow(/unclosed range/)
  })

  it('parses every query the tool sends, and each selects what it says', () => {
    const q = new QueryBuilder(QUERY, {assetPatterns: DEFAULT_OPTIONS.assetPatterns, shellPaths: DEFAULT_OPTIONS.shellPaths, lengthTolerance: 0})
    const pods = Array.from({length: 150}, (_x, k) => `172.16.${k >> 8}.${k & 255}:8080`)
    const day = buildDay({root: ROOT, deploys: 1, events: 3000})
    const items = day.items as unknown as Record<string, unknown>[]
    const lengths = day.apps.flatMap((a) => a.builds.map((b) => b.shellBytes))
    const count = (query: string): number => {
      const m = compileQuery(query)
      return items.filter((i) => m(docOf(i))).length
    }
    const inner = (i: Record<string, unknown>): any => (i.attributes as {attributes: any}).attributes
    const asset = (i: Record<string, unknown>): boolean => {
      const path: string = inner(i).http.url_details.path
      return ['/_build/', '/assets/', '/static/', '/_next/static/', '/_app/immutable/'].some((p) => path.startsWith(p)) || /\.(js|mjs|cjs|css|map|wasm)$/i.test(path)
    }
    const get = (i: Record<string, unknown>): boolean => inner(i).http.method === 'GET' || inner(i).http.method === 'HEAD'
    expect(count(q.assetRequests())).toBe(items.filter((i) => get(i) && asset(i)).length)
    expect(count(q.readable())).toBe(items.filter(get).length)
    expect(count(q.shellResponses())).toBe(items.filter((i) => inner(i).http.method === 'GET' && ['/', '/index.html'].includes(inner(i).http.url_details.path) && inner(i).http.status_code >= 200 && inner(i).http.status_code < 300).length)
    const candidates = count(q.candidates(lengths))
    expect(candidates).toBe(items.filter((i) => get(i) && asset(i) && (lengths.includes(inner(i).network.bytes_written) || [404, 410].includes(inner(i).http.status_code))).length)
    expect(candidates).toBeGreaterThan(0)
    // All of them parse; the narrowed query selects pages and assets, and no POST.
    for (const query of [q.pageRequests(lengths), q.pageRequests(), q.narrowed(lengths), q.narrowed(), q.all(), q.podRequests('@upstream_addr', pods, lengths, false), q.podRequests('@upstream_addr', pods, lengths, true)]) expect(() => count(query)).not.toThrow()
    expect(count(q.narrowed(lengths))).toBeGreaterThan(count(q.assetRequests()))
    expect(count(`${q.narrowed()} @http.method:POST`)).toBe(0)
    // A pod's requests the page and asset streams leave out: by its address, escaped.
    const pod = '172.16.0.10:8080'
    const podItems = items.filter((i) => inner(i).upstream_addr === pod && get(i))
    expect(count(q.podRequests('@upstream_addr', [pod], lengths, true))).toBeLessThan(podItems.length)
    expect(count(q.podRequests('@upstream_addr', [pod], lengths, true))).toBe(podItems.filter((i) => !compileQuery(q.pageRequests(lengths))(docOf(i))).length)
  })
})

describe('the fake Datadog: Logs aggregate', () => {
  let fake: FakeDatadog
  let refusing: FakeDatadog
  beforeAll(async () => {
    ;[fake, refusing] = await Promise.all([
      FakeDatadog.start({logs: LOGS, apiKey: API_KEY, appKey: APP_KEY}),
      FakeDatadog.start({logs: LOGS, apiKey: API_KEY, appKey: APP_KEY, refusedFacets: ['@network.bytes_written'], maxGroupValues: 1, timeseriesZeros: true}),
    ])
  })
  afterAll(async () => {
    await Promise.all([fake.close(), refusing.close()])
  })

  const post = async (server: FakeDatadog, body: Record<string, unknown>, signal?: AbortSignal): Promise<{status: number; json: any; headers: Headers}> => {
    const res = await fetch(`${server.url}/api/v2/logs/analytics/aggregate`, {
      method: 'POST', headers: {'content-type': 'application/json', 'dd-api-key': API_KEY, 'dd-application-key': APP_KEY},
      body: JSON.stringify({filter: {query: '*', from: FROM, to: TO}, ...body}), ...(signal ? {signal} : {}),
    })
    return {status: res.status, json: await res.json(), headers: res.headers}
  }
  const buckets = async (body: Record<string, unknown>, server = fake): Promise<any[]> => {
    const r = await post(server, body)
    expect(r.status).toBe(200)
    return r.json.data.buckets
  }

  it('count total and timeseries at 10s, 1m and 1h: ISO bucket starts, only buckets that hold logs; c0, c1 in order', async () => {
    const [b] = await buckets({compute: [{aggregation: 'count', type: 'total'}, {aggregation: 'count', type: 'timeseries', interval: '1m'}, {aggregation: 'count', type: 'timeseries', interval: '1h'}, {aggregation: 'count', type: 'timeseries', interval: '10s'}]})
    expect(b.by).toEqual({})
    expect(b.computes.c0).toBe(7)
    expect(b.computes.c1).toEqual([
      {time: t('00:00:00'), value: 2}, {time: t('00:01:00'), value: 2}, {time: t('00:05:00'), value: 1}, {time: t('00:59:00'), value: 1}, {time: t('01:00:00'), value: 1},
    ])
    expect(b.computes.c2).toEqual([{time: t('00:00:00'), value: 6}, {time: t('01:00:00'), value: 1}])
    expect(b.computes.c3.map((p: {time: string}) => p.time)).toEqual([t('00:00:00'), t('00:00:30'), t('00:01:10'), t('00:01:20'), t('00:05:00'), t('00:59:50'), t('01:00:00')])
  })

  it('a timeseries can list every bucket of the range, empty ones as 0; without an interval, about 150 points', async () => {
    const [b] = await buckets({compute: [{aggregation: 'count', type: 'timeseries', interval: '30m'}, {aggregation: 'count', type: 'timeseries'}]}, refusing)
    expect(b.computes.c0).toEqual([{time: t('00:00:00'), value: 5}, {time: t('00:30:00'), value: 1}, {time: t('01:00:00'), value: 1}, {time: t('01:30:00'), value: 0}])
    // Two hours / 150 = 48 s: 1 min buckets, 120 of them.
    expect(b.computes.c1).toHaveLength(120)
  })

  it('cardinality of a metric, total and per bucket; logs without it count for nothing; measures of numbers', async () => {
    const [b] = await buckets({compute: [
      {aggregation: 'cardinality', metric: '@network.client.ip', type: 'total'}, {aggregation: 'cardinality', metric: '@network.client.ip', type: 'timeseries', interval: '1h'},
      {aggregation: 'max', metric: '@network.bytes_written'}, {aggregation: 'sum', metric: '@http.status_code'}, {aggregation: 'pc75', metric: '@network.bytes_written'},
    ]})
    expect(b.computes).toEqual({c0: 3, c1: [{time: t('00:00:00'), value: 3}, {time: t('01:00:00'), value: 0}], c2: 3301, c3: 200 + 200 + 200 + 500 + 404 + 304 + 200, c4: 3300})
  })

  it('nested group-bys: each level its own limit and sort (ties alphabetical), every facet in `by`', async () => {
    expect(await buckets({group_by: [
      {facet: 'service', limit: 10, sort: {aggregation: 'count', order: 'desc', type: 'measure'}},
      {facet: '@http.status_code', limit: 2, sort: {aggregation: 'count', order: 'desc', type: 'measure'}},
    ]})).toEqual([
      {by: {'service': 'web', '@http.status_code': 200}, computes: {c0: 4}},
      {by: {'service': 'web', '@http.status_code': 304}, computes: {c0: 1}},
      {by: {'service': 'api', '@http.status_code': 404}, computes: {c0: 1}},
    ])
    // A tag as the outer facet, sorted by the cardinality of the clients, a timeseries inside.
    expect(await buckets({
      compute: [{aggregation: 'count', type: 'timeseries', interval: '1h'}],
      group_by: [{facet: 'env', sort: {type: 'measure', aggregation: 'cardinality', metric: '@network.client.ip', order: 'asc'}}, {facet: '@http.method', limit: 1}],
    })).toEqual([
      {by: {'env': 'staging', '@http.method': 'GET'}, computes: {c0: [{time: t('00:00:00'), value: 1}]}},
      {by: {'env': 'prod', '@http.method': 'GET'}, computes: {c0: [{time: t('00:00:00'), value: 4}, {time: t('01:00:00'), value: 1}]}},
    ])
  })

  it('alphabetical sorts both ways; `missing` names the logs without the facet, which are left out otherwise', async () => {
    const paths = await buckets({group_by: [{facet: '@http.url_details.path', sort: {order: 'desc'}}]})
    expect(paths.map((b) => b.by['@http.url_details.path'])).toEqual(['/v1', '/index.html', '/api/x', '/_build/app.js', '/'])
    const codes = await buckets({group_by: [{facet: '@http.status_code', sort: {type: 'alphabetical', order: 'asc'}}]})
    expect(codes.map((b) => [b.by['@http.status_code'], b.computes.c0])).toEqual([[200, 4], [304, 1], [404, 1], [500, 1]])
    const ips = await buckets({group_by: [{facet: '@network.client.ip', missing: 'n/a'}]})
    expect(ips.map((b) => [b.by['@network.client.ip'], b.computes.c0])).toEqual([['1.1.1.1', 3], ['2.2.2.2', 2], ['3.3.3.3', 1], ['n/a', 1]])
    expect(await buckets({group_by: [{facet: '@network.client.ip'}]})).toHaveLength(3)
  })

  it('pages the outer group: `meta.page.after` while values remain, the next ones with the cursor; a foreign cursor is refused', async () => {
    const body = {group_by: [{facet: '@http.url_details.path', limit: 2, sort: {order: 'asc'}}]}
    const seen: string[][] = []
    let cursor: string | undefined
    for (let k = 0; k < 5; k++) {
      const r = await post(fake, {...body, ...(cursor ? {page: {cursor}} : {})})
      expect(r.status).toBe(200)
      seen.push(r.json.data.buckets.map((b: any) => b.by['@http.url_details.path']))
      cursor = r.json.meta.page?.after
      if (!cursor) break
    }
    expect(seen).toEqual([['/', '/_build/app.js'], ['/api/x', '/index.html'], ['/v1']])
    const first = await post(fake, body)
    const other = await post(fake, {...body, filter: {query: 'service:web', from: FROM, to: TO}, page: {cursor: first.json.meta.page.after}})
    expect(other.status).toBe(400)
    // A server that gives fewer values than the limit asks pages too.
    const small = await post(refusing, {group_by: [{facet: 'service', limit: 10}]})
    expect(small.json.data.buckets.map((b: any) => b.by.service)).toEqual(['web'])
    expect(typeof small.json.meta.page.after).toBe('string')
    // Without a group-by there is one bucket and no cursor.
    expect((await post(fake, {})).json.meta.page).toBeUndefined()
  })

  it('refuses what Datadog refuses: limits over 10000 or multiplying past it, bad intervals, and (here) histograms', async () => {
    const refused = async (body: Record<string, unknown>): Promise<string> => {
      const r = await post(fake, body)
      expect(r.status).toBe(400)
      return r.json.errors[0]
    }
    expect(await refused({group_by: [{facet: 'service', limit: 200}, {facet: '@http.status_code', limit: 100}]})).toMatch(/product of group_by limits \(20000\) must not exceed 10000/)
    expect(await refused({group_by: [{facet: 'service', limit: 10_001}]})).toMatch(/limit must be between 1 and 10000/)
    expect(await refused({compute: [{aggregation: 'count', type: 'timeseries', interval: 'often'}]})).toMatch(/bad interval/)
    expect(await refused({compute: [{aggregation: 'cardinality'}]})).toMatch(/needs a metric/)
    expect(await refused({compute: [{aggregation: 'count', type: 'total'}], group_by: [{facet: '@network.bytes_written', histogram: {interval: 10, min: 0, max: 100}}]})).toMatch(/histogram/)
    // 100 x 100 is allowed.
    expect((await post(fake, {group_by: [{facet: 'service', limit: 100}, {facet: '@http.status_code', limit: 100}]})).status).toBe(200)
  })

  it('a refused facet answers 400 "<facet> is not a facet" wherever it is named, while other facets work', async () => {
    for (const body of [
      {group_by: [{facet: '@network.bytes_written', limit: 10_000}]},
      {compute: [{aggregation: 'cardinality', metric: '@network.bytes_written'}]},
      {group_by: [{facet: 'service', sort: {type: 'measure', aggregation: 'max', metric: '@network.bytes_written'}}]},
    ]) {
      const r = await post(refusing, body)
      expect(r.status).toBe(400)
      expect(r.json).toEqual({errors: ['@network.bytes_written is not a facet']})
    }
    expect((await post(refusing, {group_by: [{facet: '@http.status_code'}]})).status).toBe(200)
  })

  it('faults hit the aggregate too: 429 with its reset, 5xx, a body cut short, a slow answer', async () => {
    fake.inject({endpoint: 'logs-aggregate', fault: faults.rateLimited(7)})
    const limited = await post(fake, {})
    expect(limited.status).toBe(429)
    expect(limited.headers.get('x-ratelimit-reset')).toBe('7')
    expect((await post(fake, {})).status).toBe(200)
    fake.inject({endpoint: 'logs-aggregate', fault: faults.status(503)})
    expect((await post(fake, {})).status).toBe(503)
    fake.inject({endpoint: 'logs-aggregate', fault: faults.cut()})
    await expect(post(fake, {})).rejects.toThrow()
    fake.inject({endpoint: 'logs-aggregate', fault: faults.slow(2000)})
    await expect(post(fake, {}, AbortSignal.timeout(100))).rejects.toThrow()
    fake.clearFaults()
    // The search is untouched by aggregate faults.
    fake.inject({endpoint: 'logs-aggregate', fault: faults.status(500), times: Infinity})
    const search = await fetch(`${fake.url}/api/v2/logs/events/search`, {method: 'POST', headers: {'content-type': 'application/json', 'dd-api-key': API_KEY, 'dd-application-key': APP_KEY}, body: JSON.stringify({filter: {from: FROM, to: TO}, page: {limit: 1000}, sort: 'timestamp'})})
    expect(search.status).toBe(200)
    fake.clearFaults()
  })
})

describe('a day of traffic from the real captures', () => {
  const days = new Map<string, Day>()
  const day = (deploys: number, events = 20_000, seed = 1): Day => {
    const key = `${deploys} ${events} ${seed}`
    let d = days.get(key)
    if (!d) days.set(key, (d = buildDay({root: ROOT, deploys, events, seed})))
    return d
  }
  const captures = new Map<string, Capture>()
  const capture = (name: string): Capture => captures.get(name) ?? (captures.set(name, loadCapture(ROOT, name)).get(name) as Capture)
  const inner = (i: {attributes: Record<string, unknown>}): any => i.attributes.attributes
  const time = (i: {attributes: Record<string, unknown>}): number => Date.parse(String(i.attributes.timestamp))
  const digest = (d: Day): string => createHash('sha1').update(JSON.stringify({items: d.items, events: d.events, truths: d.truths})).digest('hex')

  it('is the same for the same seed, and another for another seed', () => {
    expect(digest(buildDay({root: ROOT, deploys: 3, events: 10_000}))).toBe(digest(day(3, 10_000)))
    expect(digest(day(3, 10_000, 2))).not.toBe(digest(day(3, 10_000)))
  })

  it('holds about the events asked for, every rollout replayed whole, in time order within the day, ids unique', () => {
    for (const n of [1, 3, 10]) {
      const d = day(n)
      expect(d.items.length).toBeGreaterThan(18_000)
      expect(d.items.length).toBeLessThan(22_000)
      expect(d.counts.rollout).toBe(d.rollouts.reduce((k, r) => k + capture(r.capture).datadog.length, 0))
      expect(d.counts.rollout + d.counts.healthy).toBe(d.items.length)
      const times = d.items.map(time)
      expect(times.every((x, k) => k === 0 || x >= (times[k - 1] as number))).toBe(true)
      expect(times[0]).toBeGreaterThanOrEqual(d.range.from)
      expect(times[times.length - 1]).toBeLessThan(d.range.to)
      expect(d.range.to - d.range.from).toBe(24 * 3_600_000)
      expect(new Set(d.items.map((i) => i.id)).size).toBe(d.items.length)
      expect(new Set(d.items.map((i) => inner(i).http.request_id)).size).toBe(d.items.length)
    }
    expect(day(3, 50_000).items.length).toBeGreaterThan(45_000)
  })

  it('two apps behind one ingress, each on its own host, upstream and clients, in about equal shares', () => {
    const d = day(3)
    expect(d.apps.map((a) => [a.upstream, a.host])).toEqual([['default-webapp-80', 'webapp.lab.test'], ['default-shop-80', 'shop.lab.test']])
    const [web, shop] = [d.counts.byApp['default-webapp-80'] ?? 0, d.counts.byApp['default-shop-80'] ?? 0]
    expect(Math.abs(web - shop) / (web + shop)).toBeLessThan(0.1)
    // Every item's host is its app's, and its message names its client and request id (checked in one go: 20k items).
    const wrong = d.items.filter((i) => {
      const a = inner(i)
      const host = {'default-shop-80': 'shop.lab.test', 'default-webapp-80': 'webapp.lab.test'}[a.proxy_upstream_name as string]
      const m = String(i.attributes.message)
      return (host !== undefined && a.http.url_details.host !== host) || !m.startsWith(`${a.network.client.ip} `) || !m.endsWith(` ${a.http.request_id}`)
    })
    expect(wrong).toEqual([])
    // A client belongs to one app.
    const appsOf = new Map<string, Set<string>>()
    for (const i of d.items) {
      const a = inner(i)
      if (a.proxy_upstream_name === 'upstream-default-backend') continue
      appsOf.set(a.network.client.ip, (appsOf.get(a.network.client.ip) ?? new Set()).add(a.proxy_upstream_name))
    }
    expect([...appsOf.values()].filter((s) => s.size > 1)).toEqual([])
  })

  it('N deploys spread over the day, given to the apps in turn, each from one build to the next', () => {
    for (const n of [1, 3, 10]) {
      const d = day(n)
      expect(d.deploys).toHaveLength(n)
      expect(d.deploys.map((x) => x.app)).toEqual(Array.from({length: n}, (_x, k) => (k % 2 === 0 ? 'default-webapp-80' : 'default-shop-80')))
      const gap = (d.range.to - d.range.from) / n
      d.deploys.forEach((x, k) => {
        expect(Math.abs(x.start - (d.range.from + (k + 0.5) * gap))).toBeLessThan(gap / 4)
        expect(x.end).toBeGreaterThan(x.start)
        const k2 = d.deploys.filter((y, m) => m < k && y.app === x.app).length
        expect([x.fromBuild, x.toBuild]).toEqual([`B${k2 + 1}`, `B${k2 + 2}`])
      })
      // The deploy events name each rollout: a start marker per deploy, in the app's own service.
      const markers = d.events.filter((e: any) => String(e.attributes.message).startsWith('Rolling out'))
      expect(markers.map((e: any) => Date.parse(e.attributes.timestamp))).toEqual(d.deploys.map((x) => x.start))
      expect(markers.map((e: any) => e.attributes.attributes.service)).toEqual(d.deploys.map((x) => (x.app === 'default-webapp-80' ? 'webapp' : 'shop')))
    }
    expect(() => buildDay({root: ROOT, deploys: 3, events: 5000, apps: ['two-deploys', 'two-deploys']})).toThrow(/cannot be made/)
    expect(buildDay({root: ROOT, deploys: 4, events: 5000, apps: ['two-deploys', 'rr-3']}).deploys.map((x) => x.app)).toEqual(['default-webapp-80', 'default-webapp-80', 'default-shop-80', 'default-shop-80'])
  })

  it('between rollouts, every shell an app serves is the build of that time, from that build\'s pods', () => {
    const d = day(10)
    for (const app of d.apps) {
      const mine = d.deploys.filter((x) => x.app === app.upstream)
      const spans = d.rollouts.filter((r) => r.app === app.upstream).map((r) => r.span)
      const buildAt = (at: number): number => mine.filter((x) => x.end < at).length
      const podsOf = new Map<number, Set<string>>()
      for (const i of d.items) {
        const a = inner(i)
        const at = time(i)
        if (a.proxy_upstream_name !== app.upstream || spans.some((s) => at >= s.from && at <= s.to)) continue
        if (a.http.url_details.path === '/' && a.http.status_code === 200) expect(a.network.bytes_written).toBe(app.builds[buildAt(at)]?.shellBytes)
        const set = podsOf.get(buildAt(at)) ?? new Set<string>()
        set.add(a.upstream_addr)
        podsOf.set(buildAt(at), set)
      }
      for (const [, set] of podsOf) expect(set.size).toBeLessThanOrEqual(3)
    }
  })

  it('each rollout\'s failures, as its capture\'s truth has them, are in the day, in its span and on its deploy', () => {
    const d = day(3)
    const byRequest = new Map(d.items.map((i) => [inner(i).http.request_id as string, i]))
    for (const r of d.rollouts) {
      expect(r.failures).toHaveLength(capture(r.capture).truth.failure_requests.length)
      for (const f of r.failures) {
        const item = byRequest.get(f.requestId)
        expect(item).toBeDefined()
        if (!item) continue
        expect(time(item)).toBe(f.time)
        expect(f.time).toBeGreaterThanOrEqual(r.span.from)
        expect(f.time).toBeLessThanOrEqual(r.span.to)
        expect(inner(item).network.client.ip).toBe(f.clientIp)
        expect(inner(item).http.url_details.path).toBe(f.path)
        if (f.deploy !== null) expect(r.deploys.map((x) => x.id)).toContain(f.deploy)
      }
    }
  })

  it('an offline analysis of the day finds what its truth says, with deploys inferred and from its deploy events', async () => {
    const d = day(3, 10_000)
    const dir = mkdtempSync(join(tmp, 'skewscan-day-'))
    const file = join(dir, 'day.ndjson')
    // Written a few thousand lines at a time (10,000 items: three pieces), it is the day's NDJSON text.
    writeDayNdjson(d, file)
    expect(readFileSync(file, 'utf8')).toBe(dayNdjson(d))
    writeFileSync(join(dir, 'events.json'), dayEventsJson(d))
    for (const deploysFile of [undefined, join(dir, 'events.json')]) {
      const failures: FailureRecord[] = []
      const report = await analyze({inputs: [file], ...(deploysFile ? {deploysFile} : {}), normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000, onFailure: (f) => failures.push(f)})
      expect(report.input.skipped.total).toBe(0)
      expect(report.deploys.map((x) => [x.app, x.fromBuild, x.toBuild])).toEqual(d.deploys.map((x) => [x.app, x.fromBuild, x.toBuild]))
      for (const {score} of scoreDay(d, report, failures)) {
        expect(score.problems).toEqual([])
        expect(score.requests).toMatchObject({precision: 1, recall: 1})
      }
    }
  })

  it('a windowed live pull of the day gives the offline report of the same events, and pulls less than it holds', async () => {
    const d = day(3, 10_000)
    const file = join(mkdtempSync(join(tmp, 'skewscan-day-')), 'day.ndjson')
    writeFileSync(file, dayNdjson(d))
    const server = await FakeDatadog.start({logs: d.items as unknown as Record<string, unknown>[], apiKey: API_KEY, appKey: APP_KEY})
    try {
      const live = await liveAnalyze(server, {mode: 'windows', spec: {range: d.range, query: QUERY}, tuning: {sliceEvents: 5000}})
      expect(live.report.input.datadog?.held).toBe(d.items.length)
      expect(live.report.input.datadog?.pulled).toBeLessThan(d.items.length)
      expect(withoutInput(live.report)).toEqual(withoutInput(await fileAnalyze('day', file)))
      // Asset windows open around people's failures only: the scanner's 404s (python-requests, a bot
      // to isbot) fall in most hours of the day, yet the windows cover the three rollouts, not the day.
      const scannerHours = new Set(d.items.filter((i) => /python-requests/.test(String(inner(i).http?.useragent)) && inner(i).http?.status_code === 404).map((i) => Math.floor(time(i) / 3_600_000)))
      expect(scannerHours.size).toBeGreaterThan(12)
      const windows = live.report.input.datadog?.windows
      expect(windows?.count).toBeLessThanOrEqual(3)
      expect(windows?.pulledSeconds).toBeLessThan(4 * 3600)
      expect(live.plan.streams.map((st) => st.name)).toEqual(expect.arrayContaining(['pages', 'assets', 'candidates']))
    } finally {
      await server.close()
    }
  })
})
