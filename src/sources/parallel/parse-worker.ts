/**
 * A parsing worker: reads byte ranges of plain line files, normalises their records and sends the
 * events back packed in one transferred buffer (see event-codec). It holds no state between jobs.
 */
import {parentPort} from 'node:worker_threads'
import {parseLineRange} from '../file/line-range'
import type {RangeJob, RangeReply} from './parse-pool'

const port = parentPort
if (!port) throw new Error('parse-worker runs as a worker thread')

port.on('message', (job: RangeJob) => {
  let reply: RangeReply
  let transfer: ArrayBuffer[] = []
  try {
    const {buffer, lines, rejections} = parseLineRange(job.range, job.opts)
    reply = {id: job.id, ok: true, buffer, lines, rejections}
    transfer = [buffer]
  } catch (error: unknown) {
    // A read error (the file vanished or shrank) fails this job; the pool stays usable.
    reply = {id: job.id, ok: false, message: error instanceof Error ? error.message : String(error)}
  }
  port.postMessage(reply, transfer)
})
