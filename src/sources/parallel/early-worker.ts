/*
 * A parsing worker started before the command loads (bin/run.js, see prestartFor), and the jobs it
 * takes on before any pool asks: the first pool to start a worker takes it over (ParsePool.start).
 */
import type {Worker} from 'node:worker_threads'
import type {NormalizeOptions} from '../../normalize/fields'
import type {LineRange} from '../file/line-range'
import type {ParseJob, RangeReply, WorkerMessage} from './messages'
import {startWorker} from './start-worker'

/** A job given to the early worker before any pool asked for it (see prestartWorker), and its answer once back. */
export interface Guess {
  /** Negative: the pool's own jobs count up from 1. */
  id: number
  range: LineRange
  opts: NormalizeOptions
  answer?: RangeReply
  /** Once a pool asked for it: its promise (called with undefined when the worker is gone). */
  then?: (reply: RangeReply | undefined) => void
}

/** The guess not asked for yet of exactly this job (the same byte range of the same file at the same size, the same options). */
export function askGuess(guesses: readonly Guess[], range: LineRange, opts: NormalizeOptions): Guess | undefined {
  return guesses.find((g) => !g.then && g.range.path === range.path && g.range.start === range.start && g.range.end === range.end &&
    g.range.size === range.size && g.range.dev === range.dev && g.range.ino === range.ino && JSON.stringify(g.opts) === JSON.stringify(opts))
}

/** A guess's answer: kept until asked for, or handed to the promise of the pool that asked (and the guess is done with). */
export function answered(guesses: Guess[], reply: RangeReply): void {
  const i = guesses.findIndex((x) => x.id === reply.id)
  const g = guesses[i]
  if (!g) return
  g.answer = reply
  if (!g.then) return
  guesses.splice(i, 1)
  g.then(reply)
}

/** A worker started by prestartWorker, until a pool takes it. */
export interface EarlyWorker {
  worker: Worker
  ready: boolean
  failed: boolean
  guesses: Guess[]
  /** Its listeners until it is taken over (removed one by one: Worker keeps listeners of its own). */
  onMessage: (m: WorkerMessage) => void
  onEnd: () => void
}

let early: EarlyWorker | undefined

/**
 * Starts a parsing worker before the command is even loaded, for a run that will probably read a
 * large file (see prestartFor): it boots on another core while oclif loads, where it would
 * otherwise boot once the run has begun (~30-60 ms later). `jobs` are what the run will most likely
 * ask first (a file's first ranges with the default options): the worker starts on them at once,
 * and a pool asked for exactly one of them gets its answer (anything else is parsed as usual). The
 * first pool to start a worker takes it over; one never taken does not keep the process alive.
 */
export function prestartWorker(jobs: readonly {range: LineRange; opts: NormalizeOptions}[] = []): void {
  if (early) return
  const e: EarlyWorker = (early = {
    worker: startWorker(undefined), ready: false, failed: false,
    guesses: jobs.map((j, k) => ({id: -(k + 1), range: j.range, opts: j.opts})),
    onMessage: (m) => {
      if ('ready' in m) e.ready = true
      else if (m.id < 0) answered(e.guesses, m)
    },
    onEnd: () => (e.failed = true),
  })
  e.worker.on('message', e.onMessage).on('error', e.onEnd).on('exit', e.onEnd)
  // After the listeners: adding a 'message' listener refs the worker again.
  e.worker.unref()
  for (const g of e.guesses) e.worker.postMessage({id: g.id, range: g.range, opts: g.opts} satisfies ParseJob)
}

/** The prestarted worker, if there is one in working order: now the caller's. */
export function takeEarlyWorker(): EarlyWorker | undefined {
  const e = early
  early = undefined
  if (!e) return undefined
  e.worker.off('message', e.onMessage).off('error', e.onEnd).off('exit', e.onEnd)
  if (e.failed) {
    void e.worker.terminate().catch(() => 0)
    return undefined
  }
  e.worker.ref()
  return e
}
