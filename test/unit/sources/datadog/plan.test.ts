import {aloneScannerBuckets, bucketFor, bucketRanges, clientsIn, edgeSlices, joinEdgeSlices, junkOnlyBuckets, junkPaths, nearShell, planSlices, planWindows, podEdges, readBuckets, scannerBuckets, withoutBuckets} from '../../../../src/sources/datadog/plan'

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

  it('costs what the counts hold, not the length of the range (issue 14: bounded by what is read)', () => {
    // 1970 to 9999 in one-day buckets is 2.9 million buckets; two of them hold events.
    const day = 86_400_000
    let looks = 0
    const held = new Map([[T - (T % day), 500], [T - (T % day) + day, 700]])
    const c = {bucketMs: day, counts: new Proxy(held, {get: (m, k) => (k === 'get' ? (b: number) => (looks++, m.get(b)) : Reflect.get(m, k, m).bind?.(m) ?? Reflect.get(m, k, m))})}
    const slices = planSlices([{from: 0, to: Date.parse('9999-12-31T00:00:00Z')}], c, {targetEvents: 1000, maxSliceMs: 3_600_000})
    expect(slices.reduce((n, s) => n + (s.estimate ?? 0), 0)).toBe(1200)
    expect(looks).toBeLessThanOrEqual(2)
    const byTime = planSlices([{from: 0, to: Date.parse('9999-12-31T00:00:00Z')}], undefined, {targetEvents: 1000, maxSliceMs: 3_600_000})
    expect(byTime.length).toBeLessThanOrEqual(1024)
    expect(byTime.at(-1)?.to).toBe(Date.parse('9999-12-31T00:00:00Z'))
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

describe('planSlices: which slices know exactly how many events their search returns (issue 27 item 4)', () => {
  const opts = {targetEvents: 800, maxSliceMs: 3_600_000}
  const entries: [number, number][] = [[0, 400], [1, 400], [2, 400], [3, 100], [5, 100]]
  const counts = (exact?: {from: number; to: number}) => ({bucketMs: MIN, counts: new Map(entries.map(([m, n]) => [T + m * MIN, n])), ...(exact ? {exact} : {})})
  const day = {from: T - 60 * MIN, to: T + 60 * MIN}

  it('slices of whole buckets of the counts of their own query carry the count; empty buckets count 0', () => {
    expect(planSlices([{from: T, to: T + 7 * MIN}], counts(day), opts)).toEqual([
      {from: T, to: T + 2 * MIN, estimate: 800, count: 800},
      {from: T + 2 * MIN, to: T + 7 * MIN, estimate: 600, count: 600},
    ])
    // A range with nothing counted in it holds nothing.
    expect(planSlices([{from: T + 10 * MIN, to: T + 12 * MIN}], counts(day), opts)).toEqual([{from: T + 10 * MIN, to: T + 12 * MIN, estimate: 0, count: 0}])
  })

  it('never without the counts saying they are exact (another query\'s counts, a count that failed)', () => {
    expect(planSlices([{from: T, to: T + 7 * MIN}], counts(), opts).every((s) => s.count === undefined)).toBe(true)
  })

  it('a slice holding part of a bucket is an estimate: a range edge inside a bucket, or a busy bucket cut evenly', () => {
    // The range starts 30 s into the first bucket: that slice holds half of it, the next ones whole buckets.
    expect(planSlices([{from: T + 30_000, to: T + 7 * MIN}], counts(day), opts)).toEqual([
      {from: T + 30_000, to: T + 3 * MIN, estimate: 1000},
      {from: T + 3 * MIN, to: T + 7 * MIN, estimate: 200, count: 200},
    ])
    const busy = {bucketMs: MIN, counts: new Map([[T, 10], [T + MIN, 3000]]), exact: day}
    expect(planSlices([{from: T, to: T + 2 * MIN}], busy, {targetEvents: 1000, maxSliceMs: 3_600_000})).toEqual([
      {from: T, to: T + MIN, estimate: 10, count: 10},
      {from: T + MIN, to: T + MIN + 20_000, estimate: 1000},
      {from: T + MIN + 20_000, to: T + MIN + 40_000, estimate: 1000},
      {from: T + MIN + 40_000, to: T + 2 * MIN, estimate: 1000},
    ])
  })

  it('where the range counted starts or ends inside a bucket, that bucket is what was counted of it', () => {
    // Counted from 30 s into the first bucket (an unaligned --from): a slice from there holds all of it that was counted.
    expect(planSlices([{from: T + 30_000, to: T + 2 * MIN}], counts({from: T + 30_000, to: day.to}), opts)).toEqual([
      {from: T + 30_000, to: T + 2 * MIN, estimate: 600, count: 800},
    ])
    // A range reaching past what was counted knows nothing of the rest.
    expect(planSlices([{from: T, to: T + 7 * MIN}], counts({from: T, to: T + 6 * MIN}), opts).every((s) => s.count === undefined)).toBe(true)
  })
})

describe('bucketFor', () => {
  it.each([
    [40 * MIN, '1m'], [24 * 60 * MIN, '1m'], [25 * 60 * MIN, '5m'], [7 * 24 * 60 * MIN, '10m'], [30 * 24 * 60 * MIN, '30m'], [400 * 24 * 60 * MIN, '12h'], [1000 * 24 * 60 * MIN, '1d'],
  ])('%d ms → %s', (range, interval) => {
    expect(bucketFor(range).interval).toBe(interval)
  })
})

describe('podEdges (the buckets holding a pod\'s first response and its last few)', () => {
  const range = {from: T, to: T + 120 * MIN}
  const counts = (pairs: [number, number][]): Map<number, number> => new Map(pairs.map(([m, n]) => [T + m * MIN, n]))
  it('the first bucket, and the last buckets back to where they hold the tail', () => {
    expect(podEdges(counts([[0, 5], [10, 4], [50, 2], [51, 3], [52, 5]]), MIN, 9, range)).toEqual([{from: T, to: T + MIN}, {from: T + 50 * MIN, to: T + 53 * MIN}])
    // The last bucket alone holds the tail.
    expect(podEdges(counts([[0, 5], [30, 20]]), MIN, 9, range)).toEqual([{from: T, to: T + MIN}, {from: T + 30 * MIN, to: T + 31 * MIN}])
  })
  it('a pod with fewer requests than the tail: everything from its first bucket', () => {
    expect(podEdges(counts([[3, 2], [40, 1], [41, 1]]), MIN, 9, range)).toEqual([{from: T + 3 * MIN, to: T + 42 * MIN}])
  })
  it('empty buckets are skipped, edges clipped to the range; no requests, no edges', () => {
    expect(podEdges(counts([[-1, 0], [5, 1], [119, 20]]), 2 * MIN, 9, range)).toEqual([{from: T + 5 * MIN, to: T + 7 * MIN}, {from: T + 119 * MIN, to: T + 120 * MIN}])
    expect(podEdges(new Map(), MIN, 9, range)).toEqual([])
  })
})

describe('edgeSlices', () => {
  const r = (a: number, b: number) => ({from: T + a * MIN, to: T + b * MIN})
  it('cuts where the pods or the windows change, merges what is alike', () => {
    const pods = [{value: 'a', edges: [r(0, 1), r(10, 12)]}, {value: 'b', edges: [r(0, 1), r(11, 13)]}]
    expect(edgeSlices(pods, undefined)).toEqual([
      {...r(0, 1), pods: ['a', 'b'], inWindow: false},
      {...r(10, 11), pods: ['a'], inWindow: false},
      {...r(11, 12), pods: ['a', 'b'], inWindow: false},
      {...r(12, 13), pods: ['b'], inWindow: false},
    ])
    expect(edgeSlices(pods, [r(5, 11.5)])).toEqual([
      {...r(0, 1), pods: ['a', 'b'], inWindow: false},
      {...r(10, 11), pods: ['a'], inWindow: true},
      {...r(11, 11.5), pods: ['a', 'b'], inWindow: true},
      {...r(11.5, 12), pods: ['a', 'b'], inWindow: false},
      {...r(12, 13), pods: ['b'], inWindow: false},
    ])
  })
  it('no pods, no slices', () => {
    expect(edgeSlices([], [r(0, 5)])).toEqual([])
  })
})

describe('joinEdgeSlices', () => {
  const edge = (from: number, to: number, pods: string[], inWindow = false) => ({from: T + from * MIN, to: T + to * MIN, pods, inWindow})
  // Each pod answers 100 requests a minute.
  const estimate = (pods: readonly string[], from: number, to: number) => pods.length * 100 * ((to - from) / MIN)

  it('joins slices while the joined one holds at most a page, its pods the union', () => {
    expect(joinEdgeSlices([edge(0, 1, ['a']), edge(2, 3, ['b']), edge(3, 4, ['c']), edge(10, 11, ['d'])], [], estimate, 1000)).toEqual([
      edge(0, 3, ['a', 'b']), edge(3, 4, ['c']), edge(10, 11, ['d']),
    ])
  })

  it('never joins across a window, nor a slice in a window with one outside', () => {
    const windows = [{from: T + 5 * MIN, to: T + 6 * MIN}]
    const big = () => 0
    expect(joinEdgeSlices([edge(0, 1, ['a']), edge(8, 9, ['b']), edge(5, 6, ['c'], true)], windows, big, 1000)).toEqual([edge(0, 1, ['a']), edge(8, 9, ['b']), edge(5, 6, ['c'], true)])
    expect(joinEdgeSlices([edge(0, 1, ['a']), edge(2, 3, ['b'])], windows, big, 1000)).toEqual([edge(0, 3, ['a', 'b'])])
  })
})

describe('readBuckets and bucketRanges: where page requests are read when the rest is counted', () => {
  const range = {from: T + 30_000, to: T + 60 * MIN}
  it('every bucket a window overlaps; every bucket an edge overlaps, with one either side; clipped to the range', () => {
    const read = readBuckets([{from: T + 10 * MIN + 5_000, to: T + 12 * MIN}], [{from: T + 30 * MIN, to: T + 31 * MIN}, {from: T + 45 * MIN + 1, to: T + 45 * MIN + 2}, {from: T, to: T + 1}], MIN, range)
    expect([...read].sort((a, b) => a - b).map((t) => (t - T) / MIN)).toEqual([0, 1, 10, 11, 29, 30, 31, 44, 45, 46])
  })
  it('as ranges: adjacent buckets joined, the first and last clipped to the range', () => {
    const read = new Set([T, T + MIN, T + 10 * MIN, T + 11 * MIN, T + 59 * MIN])
    expect(bucketRanges(read, MIN, range)).toEqual([{from: T + 30_000, to: T + 2 * MIN}, {from: T + 10 * MIN, to: T + 12 * MIN}, {from: T + 59 * MIN, to: T + 60 * MIN}])
    expect(bucketRanges(new Set(), MIN, range)).toEqual([])
  })
})

describe('the scanner check: buckets that need no asset window (issue 27 item 1)', () => {
  const M = 60_000

  it('junk paths: never served, and no content hash in the name (a hashed name beside served files may be a build\'s missing file)', () => {
    const served = new Set(['/static/js/main.js'])
    expect([...junkPaths(['/js/app.js', '/static/js/main.js', '/_build/app.5f3a9c21.js', '/assets/index-abc12345.js', '/wp-includes/js/jquery.js'], served)])
      .toEqual(['/js/app.js', '/wp-includes/js/jquery.js'])
  })

  it('a bucket is dropped only when every path in it is junk and every client in it a scanner', () => {
    const byPath = new Map([['/js/app.js', [0, 2 * M, 4 * M + 5]], ['/_build/a.js', [2 * M]], ['/static/js/main.js', [6 * M]]])
    const byClient = new Map([['scanner', [0, 2 * M, 4 * M]], ['person', [2 * M, 6 * M]]])
    const junk = new Set(['/js/app.js', '/static/js/main.js'])
    expect([...junkOnlyBuckets(byPath, junk, M)].sort((a, b) => a - b)).toEqual([0, 4 * M, 6 * M])
    expect(clientsIn(byClient, junkOnlyBuckets(byPath, junk, M), M)).toEqual(['person', 'scanner'])
    // 2M: a path of a build; 6M: a person (who got content) asked for junk: both keep their windows.
    expect([...scannerBuckets(byPath, byClient, junk, new Set(['scanner']), M)].sort((a, b) => a - b)).toEqual([0, 4 * M])
    // A bucket one grouping lacks is kept.
    expect([...scannerBuckets(byPath, new Map([['scanner', [0]]]), junk, new Set(['scanner']), M)]).toEqual([0])
    expect(withoutBuckets([0, 2 * M, 4 * M + 30_000, 6 * M], new Set([0, 4 * M]), M)).toEqual([2 * M, 6 * M])
  })

  it('only the windows scanners alone would open are left out: a scanner\'s bucket whose window would join a person\'s keeps it', () => {
    const range = {from: 0, to: 100 * M}
    // Windows pad a minute each way: 10 and 12 would merge (a person's at 10), 30-31 are scanners' alone, 50 a person's, 60 a scanner's alone.
    const scanners = new Set([12 * M, 30 * M, 31 * M, 60 * M])
    const all = [10 * M, 12 * M + 5000, 30 * M, 31 * M, 50 * M, 60 * M]
    expect([...aloneScannerBuckets(all, scanners, M, M, M, range)].sort((a, b) => a - b)).toEqual([30 * M, 31 * M, 60 * M])
    expect(planWindows(withoutBuckets(all, aloneScannerBuckets(all, scanners, M, M, M, range), M), M, M, M, range)).toEqual([{from: 9 * M, to: 14 * M + 5000}, {from: 49 * M, to: 52 * M}])
    // A gap exactly the pads wide still merges (planWindows joins touching windows).
    expect([...aloneScannerBuckets([10 * M, 13 * M], new Set([13 * M]), M, M, M, range)]).toEqual([])
    expect([...aloneScannerBuckets(all, new Set(), M, M, M, range)]).toEqual([])
  })

  it('a shell-length answer is surely a fallback only when a shell of that length was served within the horizon before and the look-ahead after', () => {
    const shells = new Map([[10 * M, 3], [40 * M, 0]])
    const near = (b: number, lookahead = M): boolean => nearShell(shells, b, M, 30 * M, lookahead)
    // The shell's bucket and the 29 after it (a shell up to 30 min before any time of the bucket).
    expect([10 * M, 11 * M, 39 * M].map((b) => near(b))).toEqual([true, true, true])
    // 40 min after (beyond the horizon), before it (not learned yet: the look-ahead is a minute), an empty bucket's count.
    expect([40 * M, 9 * M, 41 * M].map((b) => near(b))).toEqual([false, false, false])
    expect(near(9 * M, 2 * M)).toBe(true)
    expect(near(10 * M, 30_000)).toBe(false)
    expect(nearShell(undefined, 10 * M, M, 30 * M, M)).toBe(false)
  })
})
