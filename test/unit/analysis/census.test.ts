import {BuildTracker} from '../../../src/analysis/builds'
import {countedShells} from '../../../src/analysis/census'
import {PageLoadTimeline} from '../../../src/analysis/page-load-timeline'

const T = Date.parse('2026-12-01T10:00:00Z')
const MIN = 60_000

describe('page loads counted by the bucket (PageLoadTimeline)', () => {
  it('a window holds a counted bucket only whole; one that cuts it says so', () => {
    const t = new PageLoadTimeline()
    t.add(T + 5_000)
    t.add(T + 5_000)
    t.addCounted(T + MIN, MIN, 7)
    t.add(T + 2 * MIN + 1)
    expect(t.count(T, T + 3 * MIN)).toBe(10)
    expect(t.inexact).toBe(0)
    // From the bucket's start to its last millisecond: whole.
    expect(t.count(T + MIN, T + 2 * MIN - 1)).toBe(7)
    expect(t.inexact).toBe(0)
    // Cut: the counted bucket is left out, and the window is counted as inexact.
    expect(t.count(T, T + MIN + 30_000)).toBe(2)
    expect(t.inexact).toBe(1)
    expect(t.count(T + MIN + 1, T + 3 * MIN)).toBe(1)
    expect(t.inexact).toBe(2)
    // A window outside it is not concerned.
    expect(t.count(T + 2 * MIN, T + 3 * MIN)).toBe(1)
    expect(t.inexact).toBe(2)
  })
})

describe('shells counted by the bucket (BuildTracker.counted)', () => {
  // Two lengths: A served 10:00-10:20, B from 10:10; a dynamic length seen twice far apart.
  const shells: [number, number][] = []
  for (let s = 0; s < 20 * 60; s += 5) shells.push([T + s * 1000, 1832])
  for (let s = 10 * 60; s < 40 * 60; s += 5) shells.push([T + s * 1000 + 2, 1851])
  shells.push([T + 1000, 2222], [T + 39 * MIN, 2222])
  shells.sort((a, b) => a[0] - b[0])
  const bucket = (t: number): number => Math.floor(t / MIN) * MIN

  /** The tracker as the analysis leaves it: learned (look-ahead) and judged, each shell at its time. */
  function readAll(): BuildTracker {
    const b = new BuildTracker(0)
    for (const [t, bytes] of shells) b.shellServed(b.learn(bytes, t), t, undefined, undefined)
    return b
  }

  /** Only the buckets in `read` read; the others counted per length and bucket, learned in time order. */
  function readSome(read: ReadonlySet<number>): BuildTracker {
    const b = new BuildTracker(0)
    const counts = new Map<string, number>()
    for (const [t, bytes] of shells) if (!read.has(bucket(t))) counts.set(`${bucket(t)} ${bytes}`, (counts.get(`${bucket(t)} ${bytes}`) ?? 0) + 1)
    const counted = [...counts].map(([k, n]) => ({time: Number(k.split(' ')[0]), bytes: Number(k.split(' ')[1]), n})).sort((x, y) => x.time - y.time)
    let c = 0
    for (const [t, bytes] of shells) {
      while (c < counted.length && (counted[c]?.time as number) <= t) {
        const x = counted[c++] as {time: number; bytes: number; n: number}
        b.counted(x.bytes, x.time, x.n)
      }
      if (read.has(bucket(t))) b.shellServed(b.learn(bytes, t), t, undefined, undefined)
    }
    for (; c < counted.length; c++) b.counted(counted[c]?.bytes as number, counted[c]?.time as number, counted[c]?.n as number)
    return b
  }

  const view = (b: BuildTracker): unknown => b.confirm().map((x) => ({bytes: x.shellBytes, number: x.number, aheadCount: x.aheadCount, aheadFirst: x.aheadFirst, aheadLast: x.aheadLast, shellRequests: x.shellRequests, firstSeen: x.firstSeen, lastSeen: x.lastSeen}))

  it('with each length\'s first and last buckets read, confirms the same builds with the same counts and times as reading every shell', () => {
    const edges = new Set<number>()
    for (const bytes of [1832, 1851, 2222]) {
      const times = shells.filter((s) => s[1] === bytes).map((s) => bucket(s[0]))
      edges.add(Math.min(...times)).add(Math.max(...times))
    }
    const all = readAll()
    const some = readSome(edges)
    expect(view(some)).toEqual(view(all))
    expect(all.confirm().map((x) => x.shellBytes)).toEqual([1832, 1851])
    expect(some.shellResponses).toBe(all.shellResponses)
  })

  it('a length none of whose shells were read is learned at its first counted bucket', () => {
    const b = new BuildTracker(0)
    b.counted(4000, T, 3)
    b.counted(4000, T + MIN, 2)
    const [x] = b.builds
    expect(x).toMatchObject({shellBytes: 4000, aheadCount: 5, aheadFirst: T, aheadLast: T + MIN, shellRequests: 5})
    expect(b.shellResponses).toBe(5)
  })

  it('countedShells: every app\'s counts in time order, the buckets read left out', () => {
    expect(countedShells({bucketMs: MIN, read: [T + MIN], apps: {
      b: {pageLoads: [], shells: [{bytes: 2, counts: [[T, 1], [T + MIN, 5], [T + 2 * MIN, 0]]}]},
      a: {pageLoads: [], shells: [{bytes: 9, counts: [[T + 3 * MIN, 2]]}, {bytes: 1, counts: [[T, 4]]}]},
    }})).toEqual([{time: T, app: 'a', bytes: 1, n: 4}, {time: T, app: 'b', bytes: 2, n: 1}, {time: T + 3 * MIN, app: 'a', bytes: 9, n: 2}])
  })
})
