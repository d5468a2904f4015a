import type {AccessFields, ParseOutcome} from '../../model'
import {splitTarget} from '../access-line'
import {stripPort} from '../../util/host-port'
import type {ByteCount} from './types'
import {isDigit, isMethodAt, reject, snippet} from '../text'

/*
 * Google Cloud Storage usage logs: the hourly CSV objects a bucket with logging on writes to its
 * log bucket (https://cloud.google.com/storage/docs/access-logs#format), for SPAs served straight
 * from a bucket (a website bucket behind a custom domain, or storage.googleapis.com/BUCKET/…).
 * Every cell is quoted; the first line is the header:
 *
 *   "time_micros","c_ip","c_ip_type","c_ip_region","cs_method","cs_uri","sc_status","cs_bytes",
 *   "sc_bytes","time_taken_micros","cs_host","cs_referer","cs_user_agent","s_request_id",
 *   "cs_operation","cs_bucket","cs_object"
 *
 * The CSV is parsed by the reader (csv-records); a row reaches parseGcsUsageRow as header name ->
 * cell. time is time_micros ("The time that the request was completed, in microseconds" since
 * the epoch), kept to the millisecond; path cs_uri without its query (for a path-style request
 * the path starts with the bucket: it is what the browser asked for); vhost cs_host; requestId
 * s_request_id; requestTime time_taken_micros. cs_user_agent is kept as logged, with the
 * `,gzip(gfe)` Google's front end appends when the client accepts gzip.
 *
 * Bytes: sc_bytes, "The number of bytes sent in the response" (the format table of the page
 * above). The docs do not say whether headers count; the logs say they do not, so
 * `bytes: 'body'`: in the kanjiapi.dev sample every 304 (headers, no body) is logged with
 * sc_bytes 0, and its 200s with the length of the JSON object alone (267 and 277 bytes).
 */

export const GCS_USAGE: {readonly id: 'gcs-usage'; readonly name: string; readonly bytes: ByteCount} = {
  id: 'gcs-usage',
  name: 'Google Cloud Storage usage log (CSV)',
  bytes: 'body',
}

/** The columns a usage-log header must name. */
const REQUIRED = ['time_micros', 'c_ip', 'cs_method', 'cs_uri', 'sc_status', 'sc_bytes'] as const
/** Cells of a header row: about 17; anything far longer is no usage-log header. */
const MAX_HEADER_CELLS = 64

const MAX_BYTES_DIGITS = 15
/** µs since the epoch: 16 digits until 2286 (and exact in a double until 2255). */
const MAX_MICROS_DIGITS = 16

/** A non-negative integer of at most `max` digits, or -1. */
function integer(s: string, max: number): number {
  if (s.length === 0 || s.length > max) return -1
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (!isDigit(c)) return -1
    n = n * 10 + (c - 48)
  }
  return n
}

/** A usage-log header row: it names time_micros, c_ip, cs_method, cs_uri, sc_status and sc_bytes. */
export function isGcsUsageHeader(cells: string[]): boolean {
  if (cells.length < REQUIRED.length || cells.length > MAX_HEADER_CELLS) return false
  const names = new Set(cells.map((c) => (typeof c === 'string' ? c.trim() : '')))
  return REQUIRED.every((n) => names.has(n))
}

/** One data row of a usage log (header name -> cell). Never throws; a bad row is rejected. */
export function parseGcsUsageRow(row: Record<string, string>): ParseOutcome {
  const cell = (k: string): string | undefined => {
    const v = row[k]
    return typeof v === 'string' ? v : undefined
  }
  const micros = cell('time_micros')
  if (micros === undefined || micros === '') return reject('missing-time', 'no time_micros')
  const us = integer(micros, MAX_MICROS_DIGITS)
  if (us <= 0) return reject('bad-time', `time_micros is not epoch microseconds: ${snippet(micros)}`)

  const method = cell('cs_method') ?? ''
  if (method === '') return reject('missing-path', 'no cs_method')
  if (!isMethodAt(method)) return reject('unparsed-message', `cs_method is not an HTTP method: ${snippet(method)}`)
  const uri = cell('cs_uri')
  if (uri === undefined || uri === '') return reject('missing-path', 'no cs_uri')
  const target = splitTarget(uri)
  if (target === undefined) return reject('missing-path', `cs_uri is not a path: ${snippet(uri)}`)

  const statusText = cell('sc_status')
  if (statusText === undefined || statusText === '') return reject('missing-status', 'no sc_status')
  const status = statusText.length === 3 && statusText.charCodeAt(0) !== 48 ? integer(statusText, 3) : -1
  if (status < 0) return reject('bad-status', `sc_status is not a 3-digit number: ${snippet(statusText)}`)

  const bytesText = cell('sc_bytes')
  if (bytesText === undefined || bytesText === '') return reject('missing-bytes', 'no sc_bytes')
  const bytes = integer(bytesText, MAX_BYTES_DIGITS)
  if (bytes < 0) return reject('bad-bytes', `sc_bytes is not a number: ${snippet(bytesText)}`)

  const event: AccessFields = {
    time: Math.floor(us / 1000),
    resolutionMs: 1,
    method,
    path: target.path,
    status,
    bytes,
    clientIp: cell('c_ip') ?? '',
    userAgent: cell('cs_user_agent') ?? '',
  }
  const referer = cell('cs_referer')
  if (referer !== undefined && referer !== '') event.referer = referer
  const requestId = cell('s_request_id')
  if (requestId !== undefined && requestId !== '') event.requestId = requestId
  const host = cell('cs_host')
  if (host !== undefined && host !== '') event.vhost = stripPort(host)
  else if (target.host !== undefined) event.vhost = stripPort(target.host)
  const taken = integer(cell('time_taken_micros') ?? '', MAX_MICROS_DIGITS)
  if (taken >= 0) event.requestTime = taken / 1e6
  return {ok: true, event}
}
