/**
 * Live pulls of the real captures (fixtures/captures, a real nginx during rolling deploys) through
 * the fake Datadog: stretched to real deploy lengths, a windowed or narrowed pull must give the
 * report of the full export of the same logs. These logs name the pod that answered only in
 * ingress-nginx's own `upstream_addr` (the capture's pipeline), so the pods' edges come by the
 * second pod facet.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {CAPTURES, loadCapture, renderLog, stretchOf} from '../../scripts/captures/capture'
import {ROOT} from '../helpers/cli'
import {FakeDatadog} from '../helpers/fake-datadog'
import {API_KEY, APP_KEY, fileAnalyze, liveAnalyze, QUERY, withoutInput} from '../helpers/fake-datadog-live'
import {tempDir} from '../helpers/temp'

const MIN = 60_000
const dir = tempDir('skewscan-dd-captures-')

describe.each([...CAPTURES])('capture %s, stretched x60, pulled live', (name) => {
  it.each(['windows', 'narrowed'] as const)('--pull %s gives the report of the full export', async (mode) => {
    const c = loadCapture(ROOT, name)
    const text = renderLog(c, 'datadog-ndjson', stretchOf(c, 60), 'oldest-first')
    const file = join(dir, `${name}-${mode}.ndjson`)
    writeFileSync(file, text)
    const logs = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    const times = logs.map((l) => Date.parse((l.attributes as {timestamp: string}).timestamp))
    const range = {from: Math.floor(Math.min(...times) / MIN) * MIN - MIN, to: Math.ceil(Math.max(...times) / MIN) * MIN + MIN}
    const server = await FakeDatadog.start({logs, apiKey: API_KEY, appKey: APP_KEY, maxPageSize: 200})
    try {
      const live = await liveAnalyze(server, {mode, spec: {range, query: QUERY}})
      expect(live.plan.pods).toEqual({facet: '@upstream_addr', count: expect.any(Number)})
      expect(live.plan.pods?.count).toBeGreaterThanOrEqual(c.truth.deploys.length + 1)
      expect(live.report.input.datadog?.pulled).toBeLessThanOrEqual(logs.length)
      expect(withoutInput(live.report)).toEqual(withoutInput(await fileAnalyze(name, file)))
    } finally {
      await server.close()
    }
  })
})
