/** The time-outlier rule on its own: stray records at the ends go, quiet stretches and sparse inputs stay. */
import type {AccessEvent} from '../../../src/model/access-event'
import {withoutTimeOutliers} from '../../../src/sources/time-outliers'

const H = 3600_000
const ev = (time: number, line: number): AccessEvent => ({time, resolutionMs: 1000, method: 'GET', path: '/', status: 200, bytes: 1, clientIp: '10.0.0.1', userAgent: 'ua', location: {file: 'f', line}}) as AccessEvent

async function split(times: number[], batch = 3): Promise<{kept: number[]; outliers: number[]}> {
  const events = times.map((t, i) => ev(t, i + 1))
  async function* source(): AsyncGenerator<AccessEvent[]> {
    for (let i = 0; i < events.length; i += batch) yield events.slice(i, i + batch)
  }
  const outliers: number[] = []
  const kept: number[] = []
  for await (const b of withoutTimeOutliers(source(), (e) => outliers.push(e.location.line), {gapMs: 24 * H, maxRecords: 3})) kept.push(...b.map((e) => e.location.line))
  return {kept, outliers}
}
const busy = (from: number, n: number): number[] => Array.from({length: n}, (_, i) => from + i * 1000)
const lines = (from: number, to: number): number[] => Array.from({length: to - from + 1}, (_, i) => from + i)

describe('withoutTimeOutliers', () => {
  // Whatever the batches: a batch inside the bulk passes on as it is, one with a silence in it is read record by record.
  it.each([1, 2, 3, 5, 100])('takes out a few records a day or more before or after the bulk (batches of %i)', async (batch) => {
    expect(await split([-1000 * H, ...busy(0, 10), 900 * H, 901 * H], batch)).toEqual({kept: lines(2, 11), outliers: [1, 12, 13]})
  })
  it.each([1, 2, 3, 5, 100])('keeps a quiet stretch between two busy ones, in order (batches of %i)', async (batch) => {
    expect(await split([...busy(0, 5), 30 * H, ...busy(60 * H, 5)], batch)).toEqual({kept: lines(1, 11), outliers: []})
  })
  it('keeps an input with no bulk, and many sparse records, whole', async () => {
    expect(await split([0, 30 * H, 60 * H])).toEqual({kept: [1, 2, 3], outliers: []})
    expect(await split([...busy(0, 5), ...[1, 2, 3, 4, 5, 6].map((d) => d * 30 * H)])).toEqual({kept: lines(1, 11), outliers: []})
    expect(await split([...[1, 2, 3, 4, 5, 6].map((d) => d * 30 * H), ...busy(900 * H, 5)])).toEqual({kept: lines(1, 11), outliers: []})
  })
  it.each([1, 2, 3, 5, 100])('keeps a steady bulk that lasts longer than the gap whole, to its last record (batches of %i)', async (batch) => {
    // An hour apart for 30 hours: no silence anywhere, so nothing at its end is a stray record.
    expect(await split(Array.from({length: 30}, (_, i) => i * H), batch)).toEqual({kept: lines(1, 30), outliers: []})
  })
  it('keeps records under a day apart, whatever their number', async () => {
    expect(await split([0, ...busy(23 * H, 5), 46 * H])).toEqual({kept: lines(1, 7), outliers: []})
  })
})
