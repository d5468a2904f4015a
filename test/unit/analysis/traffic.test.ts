import {TrafficHistogram} from '../../../src/analysis/traffic'

describe('traffic histogram', () => {
  it('keeps only buckets with traffic: as many as the records at most, whatever the time span', () => {
    const h = new TrafficHistogram(10_000)
    const times = [Date.parse('1970-01-01T00:00:00Z'), ...Array.from({length: 20}, (_, i) => Date.parse('2026-11-29T14:00:00Z') + i * 60_000), Date.parse('9999-12-31T23:59:59Z')]
    for (const t of times) h.request('web', t)
    h.failure('web', times[5] as number)
    const [web] = h.series()
    expect(web?.buckets).toHaveLength(22)
    expect(web?.buckets.at(-1)).toEqual({start: Date.parse('9999-12-31T23:59:50Z'), requests: 1, pageLoads: 0, failures: 0})
    expect(web?.buckets.reduce((n, b) => n + b.failures, 0)).toBe(1)
  })
})
