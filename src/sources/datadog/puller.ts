/**
 * Pulls planned slices from the Logs search API: cursor paging per slice, several slices at once,
 * each stream's slices handed out in time order, streams merged by time and de-duplicated by event
 * id. What comes out is the wire JSON of each log, in time order.
 */
import type {LogsListRequest} from './client-types'
import {parseTime} from '../../normalize/datadog'
import {SourceError} from '../errors'
import {merge} from '../order'
import type {Apis, DatadogClient} from './client'
import {DatadogRequestError, type Operation} from './errors'
import type {RateLimitBudget} from './rate-limit'
import type {RequestFailure} from './retry'

/** Datadog's maximum page size; its default (10) would cost a hundred times more requests. */
export const PAGE_LIMIT = 1000
/** A slice that pages past this is a runaway cursor, not data. */
const MAX_PAGES_PER_SLICE = 100_000
/** An expired cursor is recovered by restarting from the last time seen, a few times per slice. */
const MAX_CURSOR_RESTARTS = 5

export type StorageTier = 'indexes' | 'online-archives' | 'flex'

/** Where to search, besides the query and times. */
export interface SearchScope {
  indexes?: readonly string[]
  storageTier?: StorageTier
}

/**
 * One page request of a search API that pages by cursor in ascending time (logs; RUM events for
 * `--rum-query`): the operation it counts as, and the call, given a fresh body's parts each time.
 */
export interface PageSearch {
  operation: Operation
  page: (apis: Apis, page: {query: string; from: string; to: string; limit: number; cursor?: string}) => Promise<unknown>
}

/** The Logs search API over a scope (indexes, storage tier). */
export function logsSearch(scope: SearchScope): PageSearch {
  return {
    operation: 'logs-search',
    page: (apis, p) => {
      const body: LogsListRequest = {
        filter: {
          query: p.query, from: p.from, to: p.to,
          ...(scope.indexes && scope.indexes.length > 0 ? {indexes: [...scope.indexes]} : {}),
          ...(scope.storageTier ? {storageTier: scope.storageTier} : {}),
        },
        page: {limit: p.limit, ...(p.cursor === undefined ? {} : {cursor: p.cursor})},
        sort: 'timestamp',
      }
      return apis.logs.listLogs({body})
    },
  }
}

const isPageSearch = (s: SearchScope | PageSearch): s is PageSearch => typeof (s as Partial<PageSearch>).page === 'function'

/** One log (or RUM event) as Datadog sent it, with its time for ordering. */
export interface Pulled {
  time: number
  id?: string
  item: Record<string, unknown>
}

export interface SliceTask {
  /** Which stream (query) it belongs to. */
  stream: number
  query: string
  from: number
  to: number
  estimate?: number
  /**
   * Exactly how many events this slice's own search returns (an aggregate count of the very same
   * query, scope and [from, to)), when the plan knows it: the slice ends once that many distinct
   * events came in on a short page, without the empty page that closes a cursor. Never inferred
   * from `estimate`, and dropped when the slice's times change (a resumed pull).
   */
  count?: number
}

export interface PullProgress {
  slicesDone: number
  slicesTotal: number
  pages: number
  events: number
  requests: number
  retries: number
  budget?: RateLimitBudget
  /** Seconds left, from the events still expected (aggregate counts) or the slices left. */
  etaSeconds?: number
}

export interface PullerOptions {
  concurrency: number
  onProgress?: (p: PullProgress) => void
  onNotice?: (message: string) => void
  now?: () => number
}

/**
 * A slice ending closer than this to now keeps its closing page whatever its count says: logs are
 * searchable some time after their timestamp (indexing latency, late shippers), so events counted
 * a moment ago may be followed by more by the time the pages are read.
 */
export const INDEXING_LATENCY_MS = 15 * 60_000

/** Pages in a row that bring no new event (the cursor sent back unchanged, or only ids already pulled) before a slice is given up. */
export const MAX_STUCK_PAGES = 3

/**
 * Pages of one slice, oldest first, each event of the slice once. A fresh request body is built
 * for every request.
 *
 * Copies are dropped by id within the slice whatever their age (pages that overlap, a cursor
 * restarted from the last time seen): the merge behind it keeps ids for a minute only, and a copy
 * older than that would put the stream out of time order. The ids are those of one slice (its
 * planned events, about `--slice-events`), dropped when it ends.
 */
export async function* pullSlice(client: DatadogClient, scope: SearchScope | PageSearch, task: SliceTask, notice?: (m: string) => void, onCopies?: (n: number) => void, now: () => number = Date.now): AsyncGenerator<Pulled[]> {
  const search = isPageSearch(scope) ? scope : logsSearch(scope)
  const count = countedEnd(task, now())
  let cursor: string | undefined
  let from = task.from
  let lastTime: number | undefined
  let restarts = 0
  const seen = new Set<string>()
  let stuck = 0
  for (let page = 0; page < MAX_PAGES_PER_SLICE; page++) {
    const pageCursor = cursor
    const page = {query: task.query, from: new Date(from).toISOString(), to: new Date(task.to).toISOString(), limit: PAGE_LIMIT, ...(pageCursor === undefined ? {} : {cursor: pageCursor})}
    let json: unknown
    try {
      json = await client.call(search.operation, (apis) => search.page(apis, {...page}), hasDataList)
    } catch (error: unknown) {
      if (pageCursor !== undefined && isInvalidCursor(error) && restarts < MAX_CURSOR_RESTARTS) {
        // Cursors expire. Ascending order makes every event before the last time seen already
        // pulled: start again from that time; the events of that very time come twice and are
        // dropped by id.
        restarts++
        cursor = undefined
        from = lastTime ?? task.from
        notice?.(`Datadog rejected a page cursor (${new Date(from).toISOString()} onwards): starting that slice again from there`)
        continue
      }
      throw error
    }
    // A data list is there (checked by the client): only an empty one ends the slice.
    const data = (json as {data: unknown[]}).data
    if (data.length === 0) return
    const items: Pulled[] = []
    let copies = 0
    for (const raw of data) {
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) continue
      const item = raw as Record<string, unknown>
      const id = typeof item.id === 'string' ? item.id : undefined
      if (id !== undefined) {
        if (seen.has(id)) {
          copies++
          continue
        }
        seen.add(id)
      }
      const attrs = item.attributes as {timestamp?: unknown} | undefined
      // An item without a usable time keeps its place; the normalizer rejects it with a reason.
      const time = parseTime(attrs?.timestamp)?.ms ?? lastTime ?? from
      items.push({time, item, ...(id === undefined ? {} : {id})})
      lastTime = time
    }
    if (copies > 0) onCopies?.(copies)
    if (items.length > 0) yield items
    // Counted: every event there is came in (distinct ids only: copies and id-less items never
    // count) on a short page; a full page may have more behind it, and more than counted goes on.
    if (count !== undefined && seen.size === count && data.length < PAGE_LIMIT) return
    // A short page is not the last one: only an empty page or a missing cursor ends the slice.
    const after = (json as {meta?: {page?: {after?: unknown}}}).meta?.page?.after
    if (typeof after !== 'string' || after === '') return
    // A cursor that does not move, or pages of events already pulled, would be followed for ever.
    stuck = after === pageCursor || items.length === 0 ? stuck + 1 : 0
    if (stuck >= MAX_STUCK_PAGES) {
      throw new SourceError(`Datadog's page cursor stopped moving in the slice ${sliceName(task)}: ${MAX_STUCK_PAGES} pages in a row ${after === pageCursor ? 'sent back the cursor they were asked with' : 'held only events already pulled'}; stopping`, 'datadog')
    }
    cursor = after
  }
  throw new SourceError(`Datadog kept returning pages for the slice ${sliceName(task)} (over ${MAX_PAGES_PER_SLICE}): stopping`, 'datadog')
}

/** The count a slice may end on: none for a slice ending within the indexing latency of now. */
function countedEnd(task: SliceTask, now: number): number | undefined {
  return task.count !== undefined && task.to <= now - INDEXING_LATENCY_MS ? task.count : undefined
}

/** A slice as a user can find it: its times, and its query (cut short: a narrowed query lists many terms). */
function sliceName(task: SliceTask): string {
  const q = task.query.length > 120 ? `${task.query.slice(0, 117)}...` : task.query
  return `${new Date(task.from).toISOString()}..${new Date(task.to).toISOString()} (query ${q})`
}

/** A search answer is a page only with a `data` list; `{"errors": [...]}`, `{}` or `{"data": null}` is a failed request. */
function hasDataList(json: unknown): RequestFailure | undefined {
  return Array.isArray((json as {data?: unknown} | null)?.data) ? undefined : {kind: 'no-data'}
}

function isInvalidCursor(error: unknown): boolean {
  return error instanceof DatadogRequestError && error.failure.kind === 'http' && error.failure.status === 400 && /cursor/i.test(error.body ?? '')
}

/** One slice being pulled in the background; its pages wait here until the stream reaches it. */
class SliceRun {
  readonly pages: Pulled[][] = []
  started = false
  done = false
  private wake: (() => void) | undefined

  constructor(readonly task: SliceTask) {}

  push(page: Pulled[]): void {
    this.pages.push(page)
    this.notify()
  }

  finish(): void {
    this.done = true
    this.notify()
  }

  notify(): void {
    const w = this.wake
    this.wake = undefined
    w?.()
  }

  wait(): Promise<void> {
    return new Promise((resolve) => (this.wake = resolve))
  }
}

/**
 * Runs the slices with bounded concurrency. Slices start in time order (across streams), at most
 * `concurrency` at once and at most twice that many pulled ahead of what was consumed, so memory
 * stays at a few slices whatever the range. The first slice that fails for good stops the pull.
 */
export class Puller {
  slicesDone = 0
  pages = 0
  /** Events received, copies dropped within a slice left out. */
  events = 0
  /** Copies dropped by id (slice edges, restarted cursors, overlapping pages). */
  duplicates = 0
  private readonly runs: SliceRun[]
  private readonly order: SliceRun[]
  private next = 0
  private startedRuns = 0
  /** Runs a stream waits on that have not started: they start next, past the look-ahead limit. */
  private readonly wanted: SliceRun[] = []
  private running = 0
  private consumed = 0
  private error: unknown
  private stopped = false
  private readonly started: number
  private readonly now: () => number

  /** `scope`: the Logs search API's (indexes, storage tier), or another search API (RUM events). */
  constructor(private readonly client: DatadogClient, private readonly scope: SearchScope | PageSearch, tasks: readonly SliceTask[], private readonly options: PullerOptions) {
    this.runs = tasks.map((t) => new SliceRun(t))
    this.order = [...this.runs].sort((a, b) => a.task.from - b.task.from || a.task.stream - b.task.stream)
    this.now = options.now ?? Date.now
    this.started = this.now()
  }

  get slicesTotal(): number {
    return this.runs.length
  }

  /** The events of every stream, merged in time order, each event once. */
  async *pulled(): AsyncGenerator<Pulled[]> {
    const streams = [...new Set(this.runs.map((r) => r.task.stream))].sort((a, b) => a - b)
    const dedupe = new RecentIds(DEDUPE_SLACK_MS)
    try {
      this.fill()
      const lanes = streams.flatMap((s) => inLanes(this.runs.filter((r) => r.task.stream === s), (r) => r.task))
      for await (const batch of merge(lanes.map((l) => this.lane(l)))) {
        const fresh = batch.filter((p) => p.id === undefined || !dedupe.seen(p.id, p.time))
        this.duplicates += batch.length - fresh.length
        if (fresh.length > 0) yield fresh
      }
    } finally {
      this.stopped = true
      for (const r of this.runs) r.notify()
    }
  }

  /** The pages of slices that follow one another in time, in order. */
  private async *lane(runs: readonly SliceRun[]): AsyncGenerator<Pulled[]> {
    for (const run of runs) {
      for (;;) {
        if (this.error !== undefined) throw this.error
        const page = run.pages.shift()
        if (page) {
          yield page
          continue
        }
        if (run.done) break
        if (!run.started) {
          // The merge waits for this stream's next slice: start it even if the slices started
          // ahead (of other streams) fill the look-ahead, or the pull would wait for itself.
          this.wanted.push(run)
          this.fill()
        }
        await run.wait()
      }
      this.consumed++
      this.fill()
    }
  }

  /**
   * Starts slices in time order, at most `concurrency` at once and at most twice that many started
   * ahead of what was consumed; a slice a stream waits on starts first, whatever the look-ahead.
   */
  private fill(): void {
    const ahead = this.options.concurrency * 2
    while (!this.stopped && this.error === undefined && this.running < this.options.concurrency) {
      while (this.next < this.order.length && (this.order[this.next] as SliceRun).started) this.next++
      let run: SliceRun | undefined
      while (this.wanted.length > 0 && !run) {
        const w = this.wanted.shift() as SliceRun
        if (!w.started) run = w
      }
      if (!run && this.next < this.order.length && this.startedRuns - this.consumed < ahead) run = this.order[this.next]
      if (!run) return
      run.started = true
      this.startedRuns++
      this.running++
      void this.pull(run)
    }
  }

  private async pull(run: SliceRun): Promise<void> {
    try {
      // Copies a slice drops (overlapping pages, a restarted cursor) are counted as the merge's are.
      for await (const page of pullSlice(this.client, this.scope, run.task, this.options.onNotice, (n) => (this.duplicates += n), this.now)) {
        this.pages++
        this.events += page.length
        run.push(page)
        this.progress()
        if (this.stopped || this.error !== undefined) return
      }
      this.slicesDone++
      this.progress()
    } catch (error: unknown) {
      if (this.error === undefined) this.error = error
      // Wake every waiting stream so the error surfaces now, not when its slice comes up.
      for (const r of this.runs) r.notify()
    } finally {
      this.running--
      run.finish()
      this.fill()
    }
  }

  private progress(): void {
    if (!this.options.onProgress) return
    const elapsed = (this.now() - this.started) / 1000
    const expected = this.runs.reduce((n, r) => n + (r.task.estimate ?? 0), 0)
    let etaSeconds: number | undefined
    if (this.runs.every((r) => r.task.estimate !== undefined) && this.events > 0 && expected > this.events) etaSeconds = (elapsed * (expected - this.events)) / this.events
    else if (this.slicesDone > 0) etaSeconds = (elapsed * (this.runs.length - this.slicesDone)) / this.slicesDone
    this.options.onProgress({
      slicesDone: this.slicesDone, slicesTotal: this.runs.length, pages: this.pages, events: this.events,
      requests: this.client.stats.requests, retries: this.client.stats.retries, budget: this.client.rate.budget(isPageSearch(this.scope) ? this.scope.operation : 'logs-search'),
      ...(etaSeconds === undefined ? {} : {etaSeconds: Math.round(etaSeconds)}),
    })
  }
}

/**
 * A stream's slices in lanes: each lane slices that follow one another in time (read one after the
 * other, its events come in time order), the lanes merged by time. One lane for a stream cut along
 * time; more where its slices overlap: the sessions stream reads the same window once per batch of
 * addresses, and read one after the other those batches went back in time (a pull of a day with
 * more than one batch ended "asked to be read twice": the analysis found its source out of order).
 */
export function inLanes<T>(items: readonly T[], range: (item: T) => {from: number; to: number}): T[][] {
  const lanes: T[][] = []
  const ordered = items.map((item, i) => ({item, i})).sort((a, b) => range(a.item).from - range(b.item).from || a.i - b.i)
  for (const {item} of ordered) {
    const lane = lanes.find((l) => range(l[l.length - 1] as T).to <= range(item).from)
    if (lane) lane.push(item)
    else lanes.push([item])
  }
  return lanes
}

/** Copies of one event share its time; ids are kept for this long behind the newest time seen. */
const DEDUPE_SLACK_MS = 60_000

/** Event ids seen recently, bounded by time so memory follows the event rate, not the range. */
export class RecentIds {
  private readonly ids = new Map<string, number>()
  private readonly queue: {id: string; time: number}[] = []
  private head = 0
  private newest = Number.NEGATIVE_INFINITY

  constructor(private readonly slackMs: number) {}

  /** True when this id was seen within the slack; records it otherwise. */
  seen(id: string, time: number): boolean {
    if (this.ids.has(id)) return true
    this.ids.set(id, time)
    this.queue.push({id, time})
    if (time > this.newest) {
      this.newest = time
      while (this.head < this.queue.length && (this.queue[this.head] as {time: number}).time < this.newest - this.slackMs) {
        this.ids.delete((this.queue[this.head++] as {id: string}).id)
      }
      if (this.head > 4096 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head)
        this.head = 0
      }
    }
    return false
  }
}
