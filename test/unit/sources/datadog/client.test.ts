/**
 * DatadogClient.call: requests in flight at once each get their own answer and their own failure,
 * and the client switches no async hook on. It used to find a request's record through an
 * AsyncLocalStorage, which (Node 20) makes every promise of the process run a hook from then on:
 * the analysis behind a live pull paid for it on each of its promises. (Jest itself runs each test
 * in an AsyncLocalStorage, so the hook's effect cannot be seen from here: the test watches for
 * the calls that would switch it on.)
 */
import asyncHooks, {AsyncLocalStorage} from 'node:async_hooks'
import {DatadogClient, DatadogRequestError} from '../../../../src/sources/datadog/client'
import {FakeDatadog, faults} from '../../../helpers/fake-datadog'
import {API_KEY, APP_KEY, connection} from '../../../helpers/fake-datadog-live'

const START = Date.parse('2026-12-01T10:00:00Z')
const SERVICES = ['a', 'b', 'c', 'd']

/** Ten logs of each service, a second apart. */
const logs = SERVICES.flatMap((service, s) => Array.from({length: 10}, (_, k) => ({
  id: `${service}-${k}`, type: 'log',
  attributes: {timestamp: new Date(START + s * 100 + k * 1000).toISOString(), service, status: 'info', message: `GET /${service}`, tags: [], attributes: {}},
})))

describe('DatadogClient.call', () => {
  let server: FakeDatadog
  beforeAll(async () => {
    server = await FakeDatadog.start({logs, apiKey: API_KEY, appKey: APP_KEY})
  })
  afterAll(async () => server.close())

  const search = (client: DatadogClient, service: string): Promise<unknown> => client.call('logs-search', (apis) => apis.logs.listLogs({body: {
    filter: {query: `service:${service}`, from: new Date(START).toISOString(), to: new Date(START + 60_000).toISOString()},
    sort: 'timestamp', page: {limit: 100},
  }}))

  it('gives each of several requests in flight its own answer, while another fails on its own', async () => {
    // The second search to arrive answers 500, and is not retried: its failure must not reach the
    // others, and their pages must not be mixed up.
    server.inject({endpoint: 'logs-search', fault: faults.status(500), after: 1})
    const client = new DatadogClient(connection(server), {timeoutMs: 10_000, retry: {maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, maxElapsedMs: 10_000}})
    const results = await Promise.allSettled(SERVICES.map((service) => search(client, service)))
    const failed = results.filter((r) => r.status === 'rejected')
    expect(failed).toHaveLength(1)
    expect((failed[0] as PromiseRejectedResult).reason).toBeInstanceOf(DatadogRequestError)
    expect(String((failed[0] as PromiseRejectedResult).reason.message)).toMatch(/failed .*500/)
    expect(server.requests.filter((r) => r.status === 500)).toHaveLength(1)
    results.forEach((r, s) => {
      if (r.status === 'rejected') return
      const ids = (r.value as {data: {id: string}[]}).data.map((x) => x.id)
      expect(ids).toEqual(Array.from({length: 10}, (_, k) => `${SERVICES[s]}-${k}`))
    })
    expect(client.stats.requests).toBe(SERVICES.length)
  })

  it('switches no async hook on (no AsyncLocalStorage run or entered, no hook made) for its requests', async () => {
    const client = new DatadogClient(connection(server), {timeoutMs: 10_000, retry: {maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, maxElapsedMs: 1000}})
    await search(client, 'a') // the client's modules loaded first: what they do as they load is theirs
    const spies = [jest.spyOn(AsyncLocalStorage.prototype, 'run'), jest.spyOn(AsyncLocalStorage.prototype, 'enterWith'), jest.spyOn(asyncHooks, 'createHook')]
    try {
      await Promise.all(SERVICES.map((service) => search(client, service)))
      for (const spy of spies) expect(spy).not.toHaveBeenCalled()
    } finally {
      for (const spy of spies) spy.mockRestore()
    }
  })
})
