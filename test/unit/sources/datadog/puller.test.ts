/**
 * The puller merges its streams' events by time: a stream whose slices overlap in time (the
 * sessions stream reads one window once per batch of addresses) is read in lanes of slices that
 * follow one another, so its events never go back in time. Read one slice after the other, a
 * second batch went back to the window's start: the analysis found the source out of order and the
 * run ended (issue 27's realistic day, more than 100 hurt addresses in one window).
 */
import {DatadogClient} from '../../../../src/sources/datadog/client'
import {INDEXING_LATENCY_MS, inLanes, PAGE_LIMIT, Puller, type SliceTask} from '../../../../src/sources/datadog/puller'
import {FakeDatadog, faults} from '../../../helpers/fake-datadog'
import {API_KEY, APP_KEY, connection} from '../../../helpers/fake-datadog-live'

const START = Date.parse('2026-12-01T10:00:00Z')
const MINUTE = 60_000

describe('inLanes', () => {
  const r = (from: number, to: number) => ({from, to})
  const lanes = (xs: {from: number; to: number}[]) => inLanes(xs, (x) => x)

  it('one lane for slices cut along time, in time order', () => {
    expect(lanes([r(0, 10), r(10, 20), r(25, 30)])).toEqual([[r(0, 10), r(10, 20), r(25, 30)]])
    expect(lanes([r(10, 20), r(0, 10)])).toEqual([[r(0, 10), r(10, 20)]])
    expect(lanes([])).toEqual([])
  })

  it('a lane per batch where slices overlap (the same windows for each batch of addresses), each in time order', () => {
    // Two windows, three batches of addresses each: as clientStream lists them (window by window).
    const got = lanes([r(0, 10), r(0, 10), r(0, 10), r(50, 60), r(50, 60), r(55, 70)])
    expect(got).toEqual([[r(0, 10), r(50, 60)], [r(0, 10), r(50, 60)], [r(0, 10), r(55, 70)]])
    for (const lane of got) for (let i = 1; i < lane.length; i++) expect((lane[i] as {from: number}).from).toBeGreaterThanOrEqual((lane[i - 1] as {to: number}).to)
  })
})

describe('a stream whose slices overlap in time', () => {
  it('comes out in time order, each event once, as the slices of separate streams would', async () => {
    // Three clients' requests over an hour, one a minute each; the stream reads the hour once per client.
    const clients = ['10.1.0.1', '10.1.0.2', '10.1.0.3']
    const logs = clients.flatMap((ip, c) => Array.from({length: 60}, (_, m) => ({
      id: `e-${c}-${m}`, type: 'log',
      attributes: {
        timestamp: new Date(START + m * MINUTE + c * 1000).toISOString(), service: 'ingress-nginx', status: 'info', message: 'GET /', tags: [],
        attributes: {http: {method: 'GET', status_code: 200, url_details: {path: '/'}}, network: {client: {ip}}},
      },
    })))
    const server = await FakeDatadog.start({logs, apiKey: API_KEY, appKey: APP_KEY})
    try {
      const client = new DatadogClient(connection(server), {timeoutMs: 10_000, retry: {maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10, maxElapsedMs: 10_000}})
      const tasks: SliceTask[] = clients.map((ip) => ({stream: 0, query: `service:ingress-nginx @network.client.ip:${ip}`, from: START, to: START + 60 * MINUTE}))
      const puller = new Puller(client, {}, tasks, {concurrency: 2})
      const times: number[] = []
      const ids: string[] = []
      for await (const batch of puller.pulled()) {
        for (const p of batch) {
          times.push(p.time)
          ids.push(String(p.id))
        }
      }
      expect(ids.length).toBe(180)
      expect(new Set(ids).size).toBe(180)
      expect(times).toEqual([...times].sort((a, b) => a - b))
    } finally {
      await server.close()
    }
  })
})

describe('a slice that knows how many events its search returns (issue 27 item 4: no closing page)', () => {
  const QUERY = 'service:ingress-nginx'
  /** `n` events, one a second from START. */
  const logs = (n: number) => Array.from({length: n}, (_, i) => ({
    id: `c-${i}`, type: 'log',
    attributes: {
      timestamp: new Date(START + i * 1000).toISOString(), service: 'ingress-nginx', status: 'info', message: 'GET /', tags: [],
      attributes: {http: {method: 'GET', status_code: 200, url_details: {path: '/'}}, network: {client: {ip: '10.1.0.1'}}},
    },
  }))
  const TO = START + 3 * 3_600_000
  /** A clock well past the slice: its events are all indexed. */
  const LATER = TO + 24 * 3_600_000

  async function pull(held: number, task: Partial<SliceTask>, server?: {maxPageSize?: number; fault?: Parameters<FakeDatadog['inject']>[0]}, now = LATER): Promise<{ids: string[]; searches: number}> {
    const fake = await FakeDatadog.start({logs: logs(held), apiKey: API_KEY, appKey: APP_KEY, ...(server?.maxPageSize ? {maxPageSize: server.maxPageSize} : {})})
    try {
      if (server?.fault) fake.inject(server.fault)
      const client = new DatadogClient(connection(fake), {timeoutMs: 10_000, retry: {maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10, maxElapsedMs: 10_000}})
      const puller = new Puller(client, {}, [{stream: 0, query: QUERY, from: START, to: TO, ...task}], {concurrency: 1, now: () => now})
      const ids: string[] = []
      for await (const batch of puller.pulled()) for (const p of batch) ids.push(String(p.id))
      return {ids, searches: fake.requestsTo('logs-search').length}
    } finally {
      await fake.close()
    }
  }

  it.each([1, 999, 1001, 2500])('%i counted events take exactly ceil(n/1000) searches', async (n) => {
    const {ids, searches} = await pull(n, {count: n})
    expect(new Set(ids).size).toBe(n)
    expect(ids.length).toBe(n)
    expect(searches).toBe(Math.ceil(n / PAGE_LIMIT))
  })

  it('without a count, or with only an estimate, the empty closing page is still asked for', async () => {
    expect(await pull(2500, {}).then((r) => r.searches)).toBe(4)
    expect(await pull(2500, {estimate: 2500}).then((r) => r.searches)).toBe(4)
  })

  it('more events than counted (late-indexed logs, a count that was low): every one is pulled', async () => {
    const {ids, searches} = await pull(2500, {count: 2400})
    expect(new Set(ids).size).toBe(2500)
    expect(searches).toBe(4)
  })

  it('a count reached on a full page still asks the next page: a full page may have more behind it', async () => {
    const {ids, searches} = await pull(2000, {count: 2000})
    expect(ids.length).toBe(2000)
    expect(searches).toBe(3)
  })

  it('a slice ending within the indexing latency of now keeps its closing page', async () => {
    expect(await pull(2500, {count: 2500}, undefined, TO + INDEXING_LATENCY_MS - 1).then((r) => r.searches)).toBe(4)
    expect(await pull(2500, {count: 2500}, undefined, TO + INDEXING_LATENCY_MS).then((r) => r.searches)).toBe(3)
  })

  it('copies by id never count towards the number: overlapping short pages still bring every event', async () => {
    // Pages of 500 (short), the second starting 100 events back: counting copies, the third page
    // would reach 1500 with 100 events never pulled.
    const {ids, searches} = await pull(1500, {count: 1500}, {maxPageSize: 500, fault: {endpoint: 'logs-search', fault: faults.overlap(100), after: 1}})
    expect(new Set(ids).size).toBe(1500)
    expect(ids.length).toBe(1500)
    expect(searches).toBe(4)
  })

  it('an expired cursor restarts the slice from the last time seen; the count still ends it', async () => {
    const {ids, searches} = await pull(2500, {count: 2500}, {fault: {endpoint: 'logs-search', fault: faults.invalidCursor(), after: 1, withCursor: true}})
    expect(new Set(ids).size).toBe(2500)
    expect(ids.length).toBe(2500)
    // Page 1, the rejected page 2, then from the last time seen (1000 events, one a copy), then the short page that brings the count.
    expect(searches).toBe(4)
  })
})
