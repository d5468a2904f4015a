import {availableParallelism} from 'node:os'
import type {Worker} from 'node:worker_threads'
import type {NormalizeOptions} from '../../normalize/fields'
import {SourceError} from '../errors'
import type {LineBatch, LineRange} from '../file/line-range'
import {answered, askGuess, type Guess, takeEarlyWorker} from './early-worker'
import type {ParseJob, ParsedChunk, RangeReply, WorkerMessage} from './messages'
import {startWorker} from './start-worker'
import {tuneForWorkers} from './v8-tuning'

export type {ParseJob, ParsedChunk, RangeReply, WorkerMessage} from './messages'


/** Worker threads to start by default: every core but the one the analysis runs on, at least one. */
export function defaultWorkers(): number {
  return Math.max(1, availableParallelism() - 1)
}

/**
 * Jobs handed to one worker at a time: one running, the others waiting, so it never idles while the
 * main thread is busy (judging a batch, or parsing a range itself).
 */
const JOBS_PER_WORKER = 4

/** Spare buffers kept (see recycle): about what the jobs in flight and a worker's own spares need. */
const MAX_SPARES = 16

interface Pending {
  job: ParseJob
  owner: object
  /** The file the job reads, for messages. */
  file: string
  resolve: (chunk: ParsedChunk) => void
  reject: (error: Error) => void
}

interface Slot {
  worker: Worker
  jobs: Map<number, Pending>
}

/**
 * A bounded pool of parsing workers, started on first use (a run that never needs one starts none).
 * Jobs beyond what the workers hold wait in a queue, which its users bound (each reader keeps only a
 * few ranges in flight). A worker that crashes or exits fails every job with a SourceError and the
 * pool with it: no run waits forever on a dead worker. `close` terminates the workers.
 */
export class ParsePool {
  readonly size: number
  /** Jobs the workers hold at once (running or waiting); more wait in the pool's queue. */
  readonly capacity: number
  private readonly slots: Slot[] = []
  private readonly queue: Pending[] = []
  private nextId = 1
  private failure: SourceError | undefined
  private closed = false
  /** Jobs the workers answered (for tests: proof that the workers were used). */
  answered = 0
  /** Answers packed into a spare buffer (for tests: proof that buffers are used again). */
  reused = 0
  /** Workers taken over from prestartWorker, and answers it had begun before that were used (for tests). */
  tookEarly = 0
  usedGuesses = 0
  /** Jobs the worker taken over had been given before (see prestartWorker), until asked for. */
  private guesses: Guess[] = []
  /**
   * Buffers of batches the analysis is done with (see recycle), packed over by the workers (one
   * goes with each job while there are any) and by the main thread's own parsing.
   */
  readonly spares: ArrayBuffer[] = []

  /** `script` replaces the worker's code (tests use it to make a worker fail). */
  constructor(size = defaultWorkers(), private readonly script?: string) {
    this.size = Math.max(1, Math.floor(size))
    this.capacity = this.size * JOBS_PER_WORKER
  }

  /** Parses one range in a worker. `owner` groups jobs so that a reader that stops can drop its queued ones. */
  parse(range: LineRange, opts: NormalizeOptions, owner: object = this): Promise<ParsedChunk> {
    const guess = askGuess(this.guesses, range, opts)
    if (guess) return this.answerOf(guess, owner)
    return this.submit({id: this.nextId++, range, opts}, owner, range.path)
  }

  /** The answer to a job the early worker took on before (see prestartWorker); when it failed, the job is run again for its error. */
  private answerOf(guess: Guess, owner: object): Promise<ParsedChunk> {
    return new Promise<ParsedChunk>((resolve, reject) => {
      const settle = (reply: RangeReply | undefined): void => {
        this.usedGuesses++
        if (reply?.ok) resolve(reply)
        else this.submit({id: this.nextId++, range: guess.range, opts: guess.opts}, owner, guess.range.path).then(resolve, reject)
      }
      guess.then = settle
      if (guess.answer) answered(this.guesses, guess.answer)
    })
  }

  /** Parses lines a streaming reader split (see parseLines) in a worker. */
  parseLines(lines: LineBatch, opts: NormalizeOptions, file: string, owner: object = this): Promise<ParsedChunk> {
    return this.submit({id: this.nextId++, lines, opts}, owner, file)
  }

  private submit(job: ParseJob, owner: object, file: string): Promise<ParsedChunk> {
    return new Promise<ParsedChunk>((resolve, reject) => {
      if (this.failure) return reject(this.failure)
      if (this.closed) return reject(new SourceError('the parsing workers were already stopped', file))
      this.queue.push({job, owner, file, resolve, reject})
      this.dispatch()
    })
  }

  /** Starts the workers now, so that they boot while the caller prepares their first jobs. */
  warm(): void {
    while (!this.failure && !this.closed && this.slots.length < this.size) this.start()
  }

  /**
   * A buffer of packed events the analysis is done with (decodeEvents' `onDone`), to pack into
   * again: the workers then allocate next to nothing, and no dead buffers pile up on this thread
   * until a full garbage collection (they did, by tens of MB). Bound: handed on as it is.
   */
  readonly recycle = (buffer: ArrayBuffer): void => {
    if (!this.closed && this.spares.length < MAX_SPARES) this.spares.push(buffer)
  }

  /** Forgets the queued (not yet started) jobs of `owner`; their promises never settle. */
  drop(owner: object): void {
    for (let i = this.queue.length - 1; i >= 0; i--) if (this.queue[i]?.owner === owner) this.queue.splice(i, 1)
  }

  /** Stops every worker. Jobs still queued or running are failed. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.stopAll(new SourceError('the parsing workers were stopped'))
  }

  private dispatch(): void {
    while (this.queue.length > 0 && !this.failure && !this.closed) {
      // An idle worker, else a new one while below the size, else the least busy one with room.
      let slot = this.slots.find((s) => s.jobs.size === 0)
      if (!slot && this.slots.length < this.size) slot = this.start()
      if (!slot) for (const s of this.slots) if (s.jobs.size < JOBS_PER_WORKER && (!slot || s.jobs.size < slot.jobs.size)) slot = s
      if (!slot) return
      const p = this.queue.shift() as Pending
      slot.jobs.set(p.job.id, p)
      // Handed over (transferred): a later read of it here would find it empty, never changed.
      const spare = this.spares.pop()
      if (spare) slot.worker.postMessage({...p.job, spare}, [spare])
      else slot.worker.postMessage(p.job)
    }
  }

  private start(): Slot {
    const early = this.script === undefined ? takeEarlyWorker() : undefined
    const worker = early?.worker ?? startWorker(this.script)
    if (early) {
      this.tookEarly++
      this.guesses = early.guesses
    }
    const slot: Slot = {worker, jobs: new Map()}
    worker.on('message', (reply: WorkerMessage) => {
      if ('ready' in reply) return tuneForWorkers()
      if (reply.id < 0) return answered(this.guesses, reply)
      const p = slot.jobs.get(reply.id)
      if (!p) return
      slot.jobs.delete(reply.id)
      this.answered++
      if (reply.ok && reply.reused) this.reused++
      if (reply.ok) p.resolve(reply)
      else p.reject(new SourceError(`${p.file}: reading failed (${reply.message})`, p.file))
      this.dispatch()
    })
    worker.on('error', (error: Error) => this.fail(`a parsing worker failed: ${error.message}`))
    worker.on('messageerror', (error: Error) => this.fail(`a parsing worker sent an unreadable message: ${error.message}`))
    worker.on('exit', (code) => {
      if (!this.closed) this.fail(`a parsing worker stopped unexpectedly (exit code ${code})`)
    })
    this.slots.push(slot)
    if (early?.ready) tuneForWorkers()
    return slot
  }

  /** A worker died: every job fails, the other workers are stopped, and later jobs fail at once. */
  private fail(message: string): void {
    if (this.failure || this.closed) return
    void this.stopAll((this.failure = new SourceError(message)))
  }

  /** Fails every job queued or running with `error`, lets go of the early worker's guesses, and stops the workers. */
  private async stopAll(error: SourceError): Promise<void> {
    for (const g of this.guesses.splice(0)) g.then?.(undefined)
    for (const p of this.queue.splice(0)) p.reject(error)
    const slots = this.slots.splice(0)
    for (const s of slots) for (const p of s.jobs.values()) p.reject(error)
    await Promise.all(slots.map((s) => s.worker.terminate().catch(() => 0)))
  }
}
