import {bucketFor, planSlices, planWindows} from '../../../../src/sources/datadog/plan'

const T = Date.parse('2026-11-29T14:00:00Z')
const MIN = 60_000

describe('planWindows', () => {
  const range = {from: T, to: T + 120 * MIN}
  it('pads each candidate bucket, merges overlaps, clips to the range', () => {
    expect(planWindows([T + 10 * MIN, T + 12 * MIN, T + 100 * MIN], MIN, 30 * MIN, MIN, range)).toEqual([
      {from: T, to: T + 14 * MIN},
      {from: T + 70 * MIN, to: T + 102 * MIN},
    ])
  })
  it('keeps windows apart when the gap is longer than the pad', () => {
    expect(planWindows([T + 10 * MIN, T + 50 * MIN], MIN, 5 * MIN, 0, range)).toEqual([
      {from: T + 5 * MIN, to: T + 11 * MIN},
      {from: T + 45 * MIN, to: T + 51 * MIN},
    ])
  })
  it('no candidates, no windows; unsorted input is fine; a bucket outside the range is dropped', () => {
    expect(planWindows([], MIN, MIN, MIN, range)).toEqual([])
    expect(planWindows([T + 50 * MIN, T + 10 * MIN], MIN, 0, 0, range)).toEqual([{from: T + 10 * MIN, to: T + 11 * MIN}, {from: T + 50 * MIN, to: T + 51 * MIN}])
    expect(planWindows([T + 200 * MIN], MIN, 0, 0, range)).toEqual([])
  })
  it('a bucket not aligned to the minute still covers a whole bucket', () => {
    expect(planWindows([T + 30_000], MIN, 0, 0, range)).toEqual([{from: T + 30_000, to: T + 90_000}])
  })
})

describe('planSlices', () => {
  const counts = (entries: [number, number][]) => ({bucketMs: MIN, counts: new Map(entries.map(([m, n]) => [T + m * MIN, n]))})

  it('cuts where the counts reach the target, with estimates', () => {
    const c = counts([[0, 400], [1, 400], [2, 400], [3, 100], [4, 100]])
    expect(planSlices([{from: T, to: T + 5 * MIN}], c, {targetEvents: 800, maxSliceMs: 3_600_000})).toEqual([
      {from: T, to: T + 2 * MIN, estimate: 800},
      {from: T + 2 * MIN, to: T + 5 * MIN, estimate: 600},
    ])
  })

  it('cuts a bucket busier than the target evenly', () => {
    const c = counts([[0, 10], [1, 3000]])
    expect(planSlices([{from: T, to: T + 2 * MIN}], c, {targetEvents: 1000, maxSliceMs: 3_600_000})).toEqual([
      {from: T, to: T + MIN, estimate: 10},
      {from: T + MIN, to: T + MIN + 20_000, estimate: 1000},
      {from: T + MIN + 20_000, to: T + MIN + 40_000, estimate: 1000},
      {from: T + MIN + 40_000, to: T + 2 * MIN, estimate: 1000},
    ])
  })

  it('counts a bucket partly in the range in proportion', () => {
    const c = counts([[0, 600]])
    expect(planSlices([{from: T + 30_000, to: T + MIN}], c, {targetEvents: 1000, maxSliceMs: 3_600_000})).toEqual([{from: T + 30_000, to: T + MIN, estimate: 300}])
  })

  it('without counts, cuts by time; slices tile each range exactly', () => {
    const ranges = [{from: T, to: T + 150 * MIN}, {from: T + 200 * MIN, to: T + 201 * MIN}]
    const slices = planSlices(ranges, undefined, {targetEvents: 1000, maxSliceMs: 60 * MIN})
    expect(slices).toEqual([
      {from: T, to: T + 50 * MIN}, {from: T + 50 * MIN, to: T + 100 * MIN}, {from: T + 100 * MIN, to: T + 150 * MIN},
      {from: T + 200 * MIN, to: T + 201 * MIN},
    ])
  })

  it('an empty range has no slice', () => {
    expect(planSlices([{from: T, to: T}], undefined, {targetEvents: 1, maxSliceMs: MIN})).toEqual([])
  })
})

describe('bucketFor', () => {
  it.each([
    [40 * MIN, '1m'], [24 * 60 * MIN, '1m'], [25 * 60 * MIN, '5m'], [7 * 24 * 60 * MIN, '10m'], [30 * 24 * 60 * MIN, '30m'], [400 * 24 * 60 * MIN, '12h'], [1000 * 24 * 60 * MIN, '1d'],
  ])('%d ms → %s', (range, interval) => {
    expect(bucketFor(range).interval).toBe(interval)
  })
})
