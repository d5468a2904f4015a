import {BREAK_PX, MAX_BREAKS, MAX_TICKS, MIN_PART_PX, timeAxis} from '../../../src/report/time-axis'

const at = (iso: string): number => Date.parse(iso)
const T0 = at('2026-11-29T14:00:00Z')
/** 10-second buckets at these offsets (ms) from `base`. */
const buckets = (offsets: number[], base = T0): [number, number][] => offsets.map((o) => [base + o, base + o + 10_000])
const every = (n: number, stepMs: number, base = T0): [number, number][] => buckets(Array.from({length: n}, (_, i) => i * stepMs), base)
const texts = (a: ReturnType<typeof timeAxis>): string[] => a.ticks.map((t) => t.text)

describe('time axis', () => {
  it('draws a continuous half hour to scale over the whole width, ticks every five minutes', () => {
    const a = timeAxis(T0, T0 + 1_720_000, every(172, 10_000), 50, 940)
    expect(a.breaks).toEqual([])
    expect(a.parts).toEqual([{from: T0, to: T0 + 1_720_000, x0: 50, x1: 990, slot0: 50, slot1: 990}])
    expect(texts(a)).toEqual(['14:00', '14:05', '14:10', '14:15', '14:20', '14:25'])
    expect(a.dates).toEqual([{x: 50, text: '2026-11-29', anchor: 'start'}])
    expect(a.x(T0 + 860_000)).toBeCloseTo(520)
  })

  it('labels short spans in seconds and long ones in days, months and years', () => {
    expect(texts(timeAxis(T0, T0 + 60_000, every(6, 10_000), 50, 940))).toEqual(['14:00:00', '14:00:10', '14:00:20', '14:00:30', '14:00:40', '14:00:50', '14:01:00'])
    const days = timeAxis(at('2026-11-01T00:00:00Z'), at('2026-11-09T00:00:00Z'), every(8 * 24, 3_600_000, at('2026-11-01T00:00:00Z')), 50, 940)
    expect(texts(days)).toEqual(['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05', '2026-11-06', '2026-11-07', '2026-11-08', '2026-11-09'])
    expect(days.dates).toEqual([])
    const year = timeAxis(at('2026-01-01T00:00:00Z'), at('2026-12-31T00:00:00Z'), every(365, 86_400_000, at('2026-01-01T00:00:00Z')), 50, 940)
    expect(texts(year)).toEqual(['2026-01', '2026-03', '2026-05', '2026-07', '2026-09', '2026-11'])
    // Records spread evenly over eight thousand years leave nothing to cut: millennia.
    const wide = timeAxis(at('1970-01-01T00:00:00Z'), at('9999-12-31T23:59:59Z'), Array.from({length: 81}, (_, i) => [at('1970-01-01T00:00:00Z') + i * 100 * 365.2425 * 86_400_000, 0] as [number, number]).map(([a]) => [a, a + 10_000]), 50, 940)
    expect(wide.breaks).toEqual([])
    expect(texts(wide)).toEqual(['2000', '4000', '6000', '8000'])
  })

  it('puts the day under time-of-day ticks where a day begins', () => {
    const from = at('2026-11-29T12:00:00Z')
    const a = timeAxis(from, from + 36 * 3_600_000, every(36 * 6, 600_000, from), 50, 940)
    expect(texts(a)).toEqual(['12:00', '18:00', '00:00', '06:00', '12:00', '18:00', '00:00'])
    expect(a.dates.map((d) => d.text)).toEqual(['2026-11-29', '2026-11-30', '2026-12-01'])
  })

  it('cuts a stretch without anything when it is over an hour and longer than the rest together', () => {
    const twoStretches = (gapMs: number) => [...every(120, 10_000), ...every(120, 10_000, T0 + 1_200_000 + gapMs)]
    const end = (gapMs: number) => T0 + 2_400_000 + gapMs
    // 50 minutes between two 20-minute stretches: too short to cut.
    expect(timeAxis(T0, end(3_000_000), twoStretches(3_000_000), 50, 940).breaks).toEqual([])
    // Two hours between them: cut, each stretch half the width.
    const cut = timeAxis(T0, end(7_200_000), twoStretches(7_200_000), 50, 940)
    expect(cut.breaks).toEqual([{from: T0 + 1_200_000, to: T0 + 8_400_000, x0: 508, x1: 508 + BREAK_PX}])
    expect(cut.parts.map((p) => [p.x0, p.x1])).toEqual([[50, 508], [532, 990]])
    // A point inside the break is drawn inside it, between the two parts.
    expect(cut.x(T0 + 4_800_000)).toBeCloseTo(520)
  })

  it('draws a stray record (9999-12-31) in a narrow part at the scale of the others, beside the bulk', () => {
    const last = at('9999-12-31T23:59:59Z')
    const a = timeAxis(T0, last, [...every(120, 10_000), [at('9999-12-31T23:59:50Z'), at('9999-12-31T23:59:50Z') + 10_000]], 50, 940)
    expect(a.parts).toHaveLength(2)
    const [bulk, stray] = a.parts as [NonNullable<(typeof a.parts)[0]>, NonNullable<(typeof a.parts)[0]>]
    expect(stray.slot1 - stray.slot0).toBe(MIN_PART_PX)
    expect(bulk.x1 - bulk.x0).toBe(940 - MIN_PART_PX - BREAK_PX)
    // Ten seconds are as wide in both parts.
    const scale = (p: typeof bulk) => (p.x1 - p.x0) / (p.to - p.from)
    expect(scale(stray)).toBeCloseTo(scale(bulk))
    expect(a.ticks.length).toBeLessThanOrEqual(MAX_TICKS)
    expect(texts(a)).toEqual(['14:00', '14:05', '14:10', '14:15', '14:20', '23:59:55'])
    expect(a.dates.map((d) => d.text)).toEqual(['2026-11-29', '9999-12-31'])
  })

  it('never draws more than 12 ticks or MAX_BREAKS breaks, from one second to the whole range of dates', () => {
    const min = -8.64e15
    const max = 8.64e15
    for (let span = 1000; span < max; span *= 7) {
      for (const points of [every(30, Math.max(1, Math.floor(span / 30))), [[T0, T0 + 10_000], [T0 + span, T0 + span + 10_000]] as [number, number][]]) {
        const a = timeAxis(T0, T0 + Math.max(span, 60_000), points, 50, 940)
        expect(a.ticks.length).toBeLessThanOrEqual(MAX_TICKS)
        expect(a.ticks.length).toBeGreaterThan(0)
        for (const t of a.ticks) {
          expect(t.x).toBeGreaterThanOrEqual(50)
          expect(t.x).toBeLessThanOrEqual(990)
        }
      }
    }
    // Clusters far apart everywhere: at most MAX_BREAKS cut, still at most 12 ticks.
    const far = [min, -1e15, -1e14, 0, T0, 1e14, 1e15, max - 10_000].map((t) => [t, t + 10_000] as [number, number])
    const a = timeAxis(min, max, far, 50, 940)
    expect(a.breaks.length).toBeLessThanOrEqual(MAX_BREAKS)
    expect(a.ticks.length).toBeLessThanOrEqual(MAX_TICKS)
    for (const p of a.parts) expect(p.slot1).toBeGreaterThan(p.slot0)
  })
})
