/**
 * The HTML timeline's time axis, one for every service's chart, bounded whatever the time span.
 *
 * A record stamped 9999-12-31 (or 1970-01-01) among an hour of traffic must not squeeze the deploy
 * window into a pixel, nor draw a tick per day for eight thousand years. So long stretches in which
 * nothing happened are cut out of the axis and drawn as a narrow break, each remaining part gets
 * a share of the width by its length (never less than a readable minimum), and the ticks are at
 * most MAX_TICKS in all, at nice steps (1 s … 1 h … 1 day … 1 month … 1 year … 10⁵ years) of the
 * part they label. Everything here is bounded by the number of points it is given (the sparse
 * buckets, the deploys), never by the span.
 */

/** A part of the axis drawn to scale: [from, to] over [x0, x1], centred in its slot. */
export interface AxisPart {
  from: number
  to: number
  x0: number
  x1: number
  /** The pixels the part may use: wider than [x0, x1] when a short part is given the minimum width but drawn at the scale of the others. */
  slot0: number
  slot1: number
}

/** A stretch with nothing in it, cut out of the axis between two parts. */
export interface AxisBreak {
  /** The end of the part before and the start of the part after. */
  from: number
  to: number
  x0: number
  x1: number
}

export interface AxisLabel {
  x: number
  text: string
  /** SVG text-anchor. */
  anchor: 'start' | 'middle'
}

export interface TimeAxis {
  /** What the axis covers: the first record or deploy to the last. The last part may reach past `to` to hold its last bucket whole. */
  from: number
  to: number
  parts: AxisPart[]
  breaks: AxisBreak[]
  /** Where a time is drawn: inside its part to scale, inside a break proportionally, outside the axis extrapolated from the nearest part. */
  x(ms: number): number
  /** The part a time belongs to (the nearest one for a time in a break). */
  partOf(ms: number): number
  /** At most MAX_TICKS. */
  ticks: AxisLabel[]
  /** The dates of ticks that show only the time of day: at each part's start and where a day begins. */
  dates: AxisLabel[]
}

/** Ticks on the whole axis, however many parts it has. */
export const MAX_TICKS = 12
/** Tick intervals on an axis without breaks: what the report always drew. */
const INTERVALS = 8
/** Breaks at most, so parts are at most MAX_BREAKS + 1. */
export const MAX_BREAKS = 4
/** A stretch without anything shorter than this is never cut. */
export const MIN_BREAK_MS = 3_600_000
export const BREAK_PX = 24
/** The narrowest part: room for a tick label and a bar. */
export const MIN_PART_PX = 80
/** Date labels closer than this to the previous one are left out. */
const DATE_GAP_PX = 70

interface Step {
  /** Length in ms (a month or a year: its average, for choosing). */
  approx: number
  /** The last tick at or before `t`. */
  floor(t: number): number
  /** The tick after the tick `t`. */
  next(t: number): number
  label(t: number): string
  /** Labels show the time of day only (the date goes on the row below). */
  timeOfDay: boolean
}

const DAY = 86_400_000
const pad = (n: number, w = 2): string => String(n).padStart(w, '0')
const yearOf = (d: Date): string => {
  const y = d.getUTCFullYear()
  return y >= 0 && y <= 9999 ? pad(y, 4) : String(y)
}
export const ymd = (ms: number): string => {
  const d = new Date(ms)
  return `${yearOf(d)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`
}
const hms = (ms: number): string => new Date(ms).toISOString().slice(11, 19)
const hm = (ms: number): string => new Date(ms).toISOString().slice(11, 16)

/** Midnight UTC of the first day of month `m` (may be out of 0..11) of year `y`, for any year (Date.UTC maps 0..99 to 19xx). */
function utc(y: number, m: number): number {
  const d = new Date(0)
  d.setUTCFullYear(y + Math.floor(m / 12), ((m % 12) + 12) % 12, 1)
  return d.getTime()
}

function fixed(ms: number, offset = 0): Step {
  return {
    approx: ms,
    floor: (t) => Math.floor((t - offset) / ms) * ms + offset,
    next: (t) => t + ms,
    label: ms < 60_000 ? hms : ms < DAY ? hm : ymd,
    timeOfDay: ms < DAY,
  }
}

function months(n: number): Step {
  const index = (t: number): number => {
    const d = new Date(t)
    return d.getUTCFullYear() * 12 + d.getUTCMonth()
  }
  return {
    approx: n * 30.436875 * DAY,
    floor: (t) => {
      const i = Math.floor(index(t) / n) * n
      return utc(Math.floor(i / 12), i - Math.floor(i / 12) * 12)
    },
    next: (t) => {
      const i = index(t) + n
      return utc(Math.floor(i / 12), i - Math.floor(i / 12) * 12)
    },
    label: (t) => ymd(t).slice(0, -3),
    timeOfDay: false,
  }
}

function years(n: number): Step {
  return {
    approx: n * 365.2425 * DAY,
    floor: (t) => utc(Math.floor(new Date(t).getUTCFullYear() / n) * n, 0),
    next: (t) => utc(new Date(t).getUTCFullYear() + n, 0),
    label: (t) => yearOf(new Date(t)),
    timeOfDay: false,
  }
}

/** Monday 1970-01-05: weeks start on Mondays. */
const MONDAY = 4 * DAY

/** Nice steps, finest first: 1 s … 1 day … 1 month … 1 year … 500 000 years (dates end at ±275 760). */
const STEPS: readonly Step[] = [
  ...[1, 2, 5, 10, 15, 30].map((s) => fixed(s * 1000)),
  ...[1, 2, 5, 10, 15, 30].map((m) => fixed(m * 60_000)),
  ...[1, 2, 3, 6, 12].map((h) => fixed(h * 3_600_000)),
  fixed(DAY), fixed(2 * DAY), fixed(7 * DAY, MONDAY), fixed(14 * DAY, MONDAY),
  ...[1, 2, 3, 6].map(months),
  ...[0, 1, 2, 3, 4, 5].flatMap((e) => [1, 2, 5].map((m) => years(m * 10 ** e))),
]

/** The ticks of `step` in [from, to], or undefined when there would be more than `max`. */
function ticksOf(step: Step, from: number, to: number, max: number): number[] | undefined {
  const out: number[] = []
  let t = step.floor(from)
  if (t < from) t = step.next(t)
  for (; t <= to; t = step.next(t)) {
    if (out.length === max) return undefined
    out.push(t)
  }
  return out
}

/** The parts of [from, to] worth drawing: stretches of points, with the longest empty gaps cut out. */
function cut(from: number, to: number, spans: readonly (readonly [number, number])[]): {from: number; to: number}[] {
  const sorted = spans.map(([a, b]) => [Math.max(from, Math.min(to, a)), Math.max(from, Math.min(to, b))] as const).sort((x, y) => x[0] - y[0])
  // The gaps between merged stretches, as [end of one, start of the next].
  const gaps: [number, number][] = []
  let end: number | undefined
  for (const [a, b] of sorted) {
    if (end !== undefined && a > end) gaps.push([end, a])
    end = end === undefined ? b : Math.max(end, b)
  }
  // The longest gap is cut while it is longer than everything else left on the axis together.
  gaps.sort((x, y) => (y[1] - y[0]) - (x[1] - x[0]))
  let shown = to - from
  const cuts: [number, number][] = []
  for (const g of gaps) {
    const len = g[1] - g[0]
    if (cuts.length === MAX_BREAKS || len < MIN_BREAK_MS || len <= shown - len) break
    cuts.push(g)
    shown -= len
  }
  cuts.sort((x, y) => x[0] - y[0])
  const parts: {from: number; to: number}[] = []
  let start = from
  for (const [a, b] of cuts) {
    parts.push({from: start, to: a})
    start = b
  }
  parts.push({from: start, to})
  return parts
}

/**
 * Pixel widths by length, each at least MIN_PART_PX, and the scale (px per ms) of the parts not
 * held at the minimum: a short part is drawn at that scale too, so a 10-second bucket is as wide
 * in the part of a stray record as in the part where the traffic is.
 */
function widths(lengths: readonly number[], total: number): {w: number[]; scale: number} {
  const fixedAtMin = new Set<number>()
  for (;;) {
    const free = lengths.reduce((s, l, i) => (fixedAtMin.has(i) ? s : s + l), 0)
    const room = total - fixedAtMin.size * MIN_PART_PX
    const w = lengths.map((l, i) => (fixedAtMin.has(i) ? MIN_PART_PX : free > 0 ? (l / free) * room : room / (lengths.length - fixedAtMin.size)))
    const small = w.findIndex((v, i) => !fixedAtMin.has(i) && v < MIN_PART_PX)
    if (small < 0) return {w, scale: free > 0 ? room / free : Infinity}
    fixedAtMin.add(small)
  }
}

/**
 * The axis over [from, to] drawn from `left` over `width` pixels. `spans` are where something is
 * ([start, end] of each bucket with traffic, [t, t] for a deploy's start or end): the gaps between
 * them are what may be cut.
 */
export function timeAxis(from: number, to: number, spans: readonly (readonly [number, number])[], left: number, width: number): TimeAxis {
  const cutParts = cut(from, to, spans)
  // With breaks, the last part holds its last bucket whole (the record at 23:59:59 sits in a 10-second bucket).
  if (cutParts.length > 1) {
    const last = cutParts[cutParts.length - 1] as {from: number; to: number}
    for (const [a, b] of spans) if (a >= last.from) last.to = Math.max(last.to, b)
  }
  const {w, scale} = cutParts.length === 1 ? {w: [width], scale: Infinity} : widths(cutParts.map((p) => p.to - p.from), width - (cutParts.length - 1) * BREAK_PX)
  const parts: AxisPart[] = []
  let slot0 = left
  cutParts.forEach((p, i) => {
    const slot1 = slot0 + (w[i] as number)
    const drawn = Math.min(slot1 - slot0, (p.to - p.from) * scale)
    const x0 = slot0 + (slot1 - slot0 - drawn) / 2
    parts.push({...p, x0, x1: x0 + drawn, slot0, slot1})
    slot0 = slot1 + BREAK_PX
  })
  const breaks: AxisBreak[] = parts.slice(1).map((p, i) => {
    const before = parts[i] as AxisPart
    return {from: before.to, to: p.from, x0: before.slot1, x1: p.slot0}
  })
  const partOf = (ms: number): number => {
    for (let i = 0; i < parts.length - 1; i++) {
      const p = parts[i] as AxisPart
      const b = breaks[i] as AxisBreak
      if (ms <= p.to) return i
      if (ms < b.to) return ms - b.from < b.to - ms ? i : i + 1
    }
    return parts.length - 1
  }
  const inPart = (p: AxisPart, ms: number): number => (p.to > p.from ? p.x0 + ((ms - p.from) / (p.to - p.from)) * (p.x1 - p.x0) : (p.x0 + p.x1) / 2)
  const x = (ms: number): number => {
    const i = breaks.findIndex((g) => ms > g.from && ms < g.to)
    const b = breaks[i]
    // Inside a break: from the end of the part before to the start of the part after.
    if (b) {
      const x0 = (parts[i] as AxisPart).x1
      return x0 + ((ms - b.from) / (b.to - b.from)) * ((parts[i + 1] as AxisPart).x0 - x0)
    }
    return inPart(parts[partOf(ms)] as AxisPart, ms)
  }
  const {ticks, dates} = labels(parts, x, width)
  return {from, to, parts, breaks, x, partOf, ticks, dates}
}

function labels(parts: readonly AxisPart[], x: (ms: number) => number, width: number): {ticks: AxisLabel[]; dates: AxisLabel[]} {
  // Intervals over the whole width: 8 as the report always drew, fewer as parts (each with a tick of its own) add up.
  const intervals = Math.min(INTERVALS, MAX_TICKS - parts.length)
  const ticks: AxisLabel[] = []
  const dates: AxisLabel[] = []
  for (const p of parts) {
    const budget = (intervals * (p.slot1 - p.slot0)) / width
    const span = p.to - p.from
    let chosen: {step: Step; times: number[]} | undefined
    if (budget >= 1) {
      for (const step of STEPS) {
        if (span / step.approx > budget) continue
        const times = ticksOf(step, p.from, p.to, Math.floor(budget) + 1)
        if (times) {
          chosen = {step, times}
          break
        }
      }
    }
    if (!chosen || chosen.times.length === 0) {
      // Too narrow for a scale, or no nice time inside: one tick near the middle, rounded to a step
      // at most half the part (so it stays inside).
      const mid = p.from + span / 2
      const step = [...STEPS].reverse().find((s) => s.approx <= span / 2) ?? (STEPS[0] as Step)
      const lo = step.floor(mid)
      const hi = step.next(lo)
      const t = [lo, hi].filter((v) => v >= p.from && v <= p.to).sort((a, b) => Math.abs(a - mid) - Math.abs(b - mid))[0] ?? Math.round(mid)
      chosen = {step, times: [t]}
    }
    const {step, times} = chosen
    for (const t of times) ticks.push({x: x(t), text: step.label(t), anchor: 'middle'})
    if (step.timeOfDay) {
      dates.push({x: p.slot0, text: ymd(p.from), anchor: 'start'})
      let lastX = p.slot0
      for (const t of times) {
        if (t % DAY !== 0 || ymd(t) === ymd(p.from)) continue
        const tx = x(t)
        if (tx - lastX < DATE_GAP_PX) continue
        dates.push({x: tx, text: ymd(t), anchor: 'middle'})
        lastX = tx
      }
    }
  }
  return {ticks, dates}
}

/** How long a stretch is, in words: seconds to hours as the report writes them, then days, then years. */
export function lengthWords(ms: number): string {
  const s = ms / 1000
  if (s < 120) return `${Math.round(s * 10) / 10} s`
  const m = Math.floor(s / 60)
  if (m < 120) return `${m} min`
  const h = Math.floor(m / 60)
  if (h < 48) return `${h} h ${m % 60} min`
  const d = Math.floor(ms / DAY)
  if (d < 730) return `${d} days`
  return `${Math.floor(ms / (365.2425 * DAY))} years`
}
