/**
 * A parsing worker: reads byte ranges of plain line files (or takes lines a streaming reader split),
 * normalises their records and sends the events back packed in one transferred buffer (see
 * event-codec). It holds no state between jobs but a few buffers to pack into.
 */
import {parentPort} from 'node:worker_threads'
import {parseLineRange, parseLines} from '../file/line-range'
import type {ParseJob, RangeReply, WorkerMessage} from './messages'

const port = parentPort
if (!port) throw new Error('parse-worker runs as a worker thread')

/** Buffers the analysis is done with, come back with jobs to be packed over (see EventPacker.finish). */
const spares: ArrayBuffer[] = []
/** Spares kept: one comes with a job at most, and one is used per job when it fits. */
const MAX_SPARES = 4

port.on('message', (job: ParseJob) => {
  let reply: RangeReply
  let transfer: ArrayBuffer[] = []
  if (job.spare) {
    spares.push(job.spare)
    if (spares.length > MAX_SPARES) spares.shift()
  }
  try {
    const before = spares.length
    const parsed = 'range' in job ? parseLineRange(job.range, job.opts, spares) : parseLines(job.lines, job.opts, spares)
    reply = {id: job.id, ok: true, ...parsed, reused: spares.length < before}
    transfer = [parsed.buffer]
  } catch (error: unknown) {
    // A read error (the file vanished or shrank) fails this job; the pool stays usable.
    reply = {id: job.id, ok: false, message: error instanceof Error ? error.message : String(error)}
  }
  port.postMessage(reply, transfer)
})

// Booted: the pool may now retune V8 (see tuneForWorkers) without this thread paying for it.
port.postMessage({ready: true} satisfies WorkerMessage)
