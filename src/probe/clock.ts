import {sleep} from './concurrency'

/**
 * Time as the probe and the lab see it. The wall clock for real use; a simulated clock for runs
 * whose outcome must not depend on how busy the machine is (`lab --compare`, the tests).
 */
export interface Clock {
  now(): number
  /** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>
  /** Real work (a request and its answer, a server starting) that the clock lets finish before it moves on. */
  busy<T>(work: () => Promise<T>): Promise<T>
  /** How long each request waits before it is sent: the network's latency on a simulated clock; 0 on the wall clock. */
  readonly networkDelayMs: number
  readonly simulated: boolean
}

/**
 * Sleeps until Date.now() has moved `ms` on: a timer may fire a little before that by Date.now()
 * (Node measures timers from the event loop's cached time), so it sleeps again for what is left.
 */
async function wallSleep(ms: number, signal?: AbortSignal): Promise<void> {
  const until = Date.now() + ms
  for (let left = ms; left > 0 && !signal?.aborted; left = until - Date.now()) await sleep(left, signal)
}

export const WALL_CLOCK: Clock = {
  now: () => Date.now(),
  sleep: wallSleep,
  busy: (work) => work(),
  networkDelayMs: 0,
  simulated: false,
}

interface Timer {
  at: number
  seq: number
  fire: () => void
}

/** Event-loop turns the clock waits, with nothing busy, before it moves: lets resumed code start its work. */
const QUIET_TURNS = 2

/**
 * A discrete-event clock over real I/O. Time stands still while anything is busy (a request on
 * loopback, a pod starting); when nothing is, it jumps to the earliest sleeper and wakes that one
 * alone, then waits until whatever it started is done. So every actor runs in turn, in an order
 * fixed by the times they asked for (ties: the order they asked in), and a run with the same seed
 * gives the same outcome however loaded the machine is, in a fraction of its simulated length.
 */
export class SimulatedClock implements Clock {
  readonly simulated = true
  private t: number
  private seq = 0
  private running = 0
  private scheduled = false
  /** Sorted by time, then by the order of asking. */
  private readonly timers: Timer[] = []

  constructor(start: number, readonly networkDelayMs = 0) {
    this.t = start
  }

  now(): number {
    return this.t
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve()
      const timer: Timer = {
        at: this.t + Math.max(0, ms), seq: this.seq++,
        fire: () => {
          signal?.removeEventListener('abort', abort)
          resolve()
        },
      }
      const abort = (): void => {
        const i = this.timers.indexOf(timer)
        if (i !== -1) this.timers.splice(i, 1)
        resolve()
        this.kick()
      }
      signal?.addEventListener('abort', abort, {once: true})
      let i = this.timers.length
      while (i > 0 && (this.timers[i - 1] as Timer).at > timer.at) i--
      this.timers.splice(i, 0, timer)
      this.kick()
    })
  }

  async busy<T>(work: () => Promise<T>): Promise<T> {
    this.running++
    try {
      return await work()
    } finally {
      this.running--
      this.kick()
    }
  }

  private kick(): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => this.step(QUIET_TURNS))
  }

  private step(quietTurns: number): void {
    this.scheduled = false
    if (this.running > 0 || this.timers.length === 0) return
    if (quietTurns > 0) {
      this.scheduled = true
      setImmediate(() => this.step(quietTurns - 1))
      return
    }
    const next = this.timers.shift() as Timer
    this.t = Math.max(this.t, next.at)
    next.fire()
    this.kick()
  }
}
