import type {RejectReason, UnlistedRejections} from '../../model/rejection'
import type {NormalizeOptions} from '../../normalize/fields'
import type {LineBatch, LineRange} from '../file/line-range'

/** What the pool and its parsing workers send each other. */

/** A job for a parsing worker: the lines of one byte range of a plain file, or lines read from a stream. */
export type ParseJob = {id: number; opts: NormalizeOptions; spare?: ArrayBuffer} & ({range: LineRange} | {lines: LineBatch})

/** A worker's answer: the range's events packed in `buffer` (event-codec), or why it failed. */
export type RangeReply =
  | {id: number; ok: true; buffer: ArrayBuffer; lines: number; rejections: {reason: RejectReason; line: number; detail?: string}[]; unlisted?: UnlistedRejections; reused?: boolean; changed?: string}
  | {id: number; ok: false; message: string}

export type ParsedChunk = Extract<RangeReply, {ok: true}>

/** What a worker sends: answers to jobs, and once, when it has loaded its code, that it is ready. */
export type WorkerMessage = RangeReply | {ready: true}
