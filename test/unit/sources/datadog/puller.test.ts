/**
 * The puller merges its streams' events by time: a stream whose slices overlap in time (the
 * sessions stream reads one window once per batch of addresses) is read in lanes of slices that
 * follow one another, so its events never go back in time. Read one slice after the other, a
 * second batch went back to the window's start: the analysis found the source out of order and the
 * run ended (issue 27's realistic day, more than 100 hurt addresses in one window).
 */
import {DatadogClient} from '../../../../src/sources/datadog/client'
import {inLanes, Puller, type SliceTask} from '../../../../src/sources/datadog/puller'
import {FakeDatadog} from '../../../helpers/fake-datadog'
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
