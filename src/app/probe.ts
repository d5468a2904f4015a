import {runBarrage} from '../probe/barrage'
import {type Clock, WALL_CLOCK} from '../probe/clock'
import {CookieJar} from '../probe/cookie-jar'
import {HttpClient} from '../probe/http-client'
import {DEFAULT_DURATION_MS, DEFAULT_GIVE_UP_AFTER} from '../probe/options'
import {ProbeTally} from '../probe/tally'
import type {BarrageResult, ProbeStop, ProbeSummary} from '../probe/types'

export interface ProbeRequest {
  url: string
  /** From one barrage's start to the next one's (a slow barrage delays the next, never overlaps it). */
  intervalMs: number
  /** Stop after this long; no new barrage starts later. Without it or `count`: DEFAULT_DURATION_MS (1h). */
  durationMs?: number
  /** Stop after this many barrages. */
  count?: number
  /**
   * Stop (`unreachable`) after this many barrages in a row whose page got no answer at all
   * (connection refused, DNS failure, timeout; an HTTP error is an answer). 0: never. Default DEFAULT_GIVE_UP_AFTER (10).
   */
  giveUpAfter?: number
  /** Per request. */
  timeoutMs: number
  userAgent: string
  headers: Record<string, string>
  /** `name=value` pairs sent with every request (seeded into the jar with `sticky`). */
  cookies: string[]
  /** Keep a cookie jar across barrages, like a browser (tests session affinity). */
  sticky: boolean
  /**
   * Requests in flight at once, the page's included: the page is fetched alone, then at most this many
   * assets; barrages never overlap (a slow one delays the next), so a slow site cannot make them pile up.
   */
  concurrency: number
  /** Stops the probe between or during barrages (Ctrl-C); the barrage cut short is not counted. */
  signal?: AbortSignal
  onBarrage?: (b: BarrageResult, info: {newBuild: boolean; changed: boolean}) => void
  /** The wall clock unless given (the lab's simulated clock, in tests). */
  clock?: Clock
}

/** Barrages against one page until a stop condition; returns the summary. */
export async function probe(req: ProbeRequest): Promise<ProbeSummary> {
  const clock = req.clock ?? WALL_CLOCK
  const now = (): number => clock.now()
  const tally = new ProbeTally()
  const jar = req.sticky ? new CookieJar(now) : undefined
  if (jar) for (const c of req.cookies) jar.store(`${c}; Path=/`, new URL(req.url))
  const cookie = req.cookies.length > 0 ? req.cookies.join('; ') : undefined
  const client = () => new HttpClient({
    userAgent: req.userAgent, timeoutMs: req.timeoutMs, headers: req.headers, maxSockets: req.concurrency,
    ...(jar ? {jar} : cookie ? {cookie} : {}),
  }, clock)
  // Sticky: one client, its connections kept like a browser's. Otherwise a fresh client per barrage,
  // as the write-up's script did: no state carried from one barrage to the next.
  const shared = jar ? client() : undefined
  let current: HttpClient | undefined
  const stop = (): void => current?.close()
  req.signal?.addEventListener('abort', stop, {once: true})
  const startedAt = now()
  // Never unbounded: without --count or --duration the probe stops after the default duration.
  const durationMs = req.durationMs ?? (req.count === undefined ? DEFAULT_DURATION_MS : undefined)
  const deadline = durationMs === undefined ? Number.POSITIVE_INFINITY : startedAt + durationMs
  const giveUpAfter = req.giveUpAfter ?? DEFAULT_GIVE_UP_AFTER
  /** Barrages in a row whose page got no answer. */
  let unanswered = 0
  let stoppedBy: ProbeStop = 'interrupt'
  try {
    for (let seq = 1; ; seq++) {
      if (req.signal?.aborted) break
      if (req.count !== undefined && seq > req.count) {
        stoppedBy = 'count'
        break
      }
      const t0 = now()
      if (t0 >= deadline) {
        stoppedBy = 'duration'
        break
      }
      current = shared ?? client()
      // The barrage starts when the plan says (t0): its start times are then exactly an interval apart at least.
      const b = await runBarrage(current, req.url, seq, req.concurrency, clock, t0)
      if (!shared) current.close()
      if (req.signal?.aborted) break
      const info = tally.add(b)
      req.onBarrage?.(b, info)
      unanswered = b.page.status === null ? unanswered + 1 : 0
      if (giveUpAfter > 0 && unanswered >= giveUpAfter) {
        stoppedBy = 'unreachable'
        break
      }
      if (req.count !== undefined && seq >= req.count) continue
      const next = t0 + req.intervalMs
      if (next >= deadline) {
        // The next barrage would start at or after the deadline: wait out the duration and stop,
        // deciding by the plan rather than by a timer that may wake a millisecond early.
        await clock.sleep(deadline - now(), req.signal)
        if (!req.signal?.aborted) stoppedBy = 'duration'
        break
      }
      await clock.sleep(next - now(), req.signal)
    }
  } finally {
    req.signal?.removeEventListener('abort', stop)
    ;(shared ?? current)?.close()
  }
  return tally.summary({url: req.url, startedAt, endedAt: now(), stoppedBy})
}
