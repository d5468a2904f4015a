/**
 * Inferred deploys in one pass over the builds' stretches (they were found by looking back over
 * every earlier stretch for each: 59k builds took 85 s). Held to that look-back, kept here as the
 * reference, on random histories with rollbacks, restarts and ties, and on one of 30,000 builds;
 * the work is counted (reads of the stretches), not timed: a look-back reads them n²/2 times.
 */
import type {Build, Episode} from '../../../src/analysis/builds'
import {episodes} from '../../../src/analysis/builds'
import {inferDeploys} from '../../../src/analysis/deploys'

/** The look-back inferDeploys replaced: for each stretch, every stretch before it. */
function reference(builds: readonly Build[]): {start: number; end: number; from: number; to: number}[] {
  const ordered = episodes(builds)
  const out: {start: number; end: number; from: number; to: number}[] = []
  for (let i = 1; i < ordered.length; i++) {
    const next = ordered[i] as Episode
    let from: Episode | undefined
    let again = Number.NEGATIVE_INFINITY
    for (const e of ordered.slice(0, i)) {
      if (e.build === next.build) again = Math.max(again, e.last)
      else if (!from || e.last > from.last) from = e
    }
    if (!from || again >= from.last) continue
    out.push({start: Math.min(next.first, from.last), end: Math.max(next.first, Math.min(from.last, next.last)), from: from.build.index, to: next.build.index})
  }
  return out
}

const build = (index: number, spans: {first: number; last: number}[]): Build => ({
  index, shellBytes: 1000 + index, aheadCount: 0, aheadFirst: 0, aheadLast: 0, firstSeen: spans[0]?.first ?? 0, lastSeen: spans.at(-1)?.last ?? 0, shellRequests: 2,
  firstServed: spans[0]?.first ?? 0, lastServed: spans.at(-1)?.last ?? 0, recent: [], versions: new Map(), pods: new Set(), number: index + 1, ...(spans.length > 1 ? {spans} : {}),
})

/** A small deterministic generator (no Math.random: the same histories every run). */
function rng(seed: number): () => number {
  let x = seed >>> 0
  return () => {
    x = (x * 1664525 + 1013904223) >>> 0
    return x / 2 ** 32
  }
}

const inferred = (builds: readonly Build[]): {start: number; end: number; from: number; to: number}[] =>
  inferDeploys('web', builds).map((d) => ({start: d.start, end: d.end, from: (d.from as Build).index, to: (d.to as Build).index}))

describe('inferDeploys at scale', () => {
  it('finds what the look-back found, on random histories with rollbacks, overlaps and ties', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const r = rng(seed)
      const n = 1 + Math.floor(r() * 8)
      const builds = Array.from({length: n}, (_, i) => {
        const spans: {first: number; last: number}[] = []
        let t = Math.floor(r() * 20) * 10
        for (let k = 1 + Math.floor(r() * 3); k > 0; k--) {
          const first = t
          const last = first + Math.floor(r() * 6) * 10
          spans.push({first, last})
          t = last + 10 + Math.floor(r() * 6) * 10
        }
        return build(i, spans)
      })
      expect([seed, inferred(builds)]).toEqual([seed, reference(builds)])
    }
  })

  it('infers 29,999 deploys from 30,000 builds served one after another, each once', () => {
    const builds = Array.from({length: 30_000}, (_, i) => build(i, [{first: i * 1000, last: i * 1000 + 1500}]))
    const got = inferred(builds)
    expect(got.length).toBe(29_999)
    expect(got[0]).toEqual({start: 1000, end: 1500, from: 0, to: 1})
    expect(got.at(-1)).toEqual({start: 29_999_000, end: 29_998_500 + 1000, from: 29_998, to: 29_999})
  })

  it('reads each stretch a few times, not once per later stretch (counted, not timed)', () => {
    const builds = Array.from({length: 3000}, (_, i) => build(i, [{first: i * 1000, last: i * 1000 + 1500}]))
    let reads = 0
    const counted = episodes(builds).map((e) => new Proxy(e, {get: (target, key, receiver) => (reads++, Reflect.get(target, key, receiver) as unknown)}))
    expect(inferDeploys('web', builds, counted)).toHaveLength(2999)
    // About ten reads per stretch; the look-back made some 9 million here.
    expect(reads).toBeGreaterThan(3000)
    expect(reads).toBeLessThan(20 * 3000)
  })
})
