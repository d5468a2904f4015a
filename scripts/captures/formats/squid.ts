/**
 * Writer: one request of a real nginx JSON capture rendered as Squid, a reverse proxy in front of
 * the app, would have logged it in its native format (src/log/FormatSquidNative.cc:
 * `%9ld.%03d %6ld client code/%03d bytes method URL user hierarchy/peer type`), for round-trip
 * tests of src/normalize/formats/squid.ts. Choices:
 * - time from msec (Squid logs when the reply is done, to the millisecond, as nginx's msec).
 * - elapsed is request_time in ms; bytes nginx's `bytes_sent` (Squid counts the reply's headers
 *   and body); user remote_user or `-`; type `-` (the capture has no content type).
 * - The URL is absolute, `http://HOST/URI`, as Squid logs an accelerated request.
 * - The result code is TCP_MISS (no caching in front of an SPA's server); the peer the address of
 *   the last upstream_addr entry (the one that answered) without its port, `HIER_DIRECT/10.0.0.5`;
 *   `HIER_NONE/-` when none answered.
 * - nginx's 499 (the client went away before the response) is Squid's `TCP_MISS_ABORTED/000` with
 *   the bytes sent (squidStatus): rejected as bad-status, as a real line is.
 * - A request nginx could not read (no method) is Squid's `NONE_NONE/400 … NONE error:invalid-request`:
 *   missing-path.
 */
import {lastUpstream} from '../../../src/normalize/access-line'
import {type CaptureRecord, captureMs, seconds} from './capture-record'

export type {CaptureRecord} from './capture-record'

/** The status Squid logs (`000` for nginx's 499: no reply reached the client). */
export function squidStatus(r: CaptureRecord): string {
  return r.status === 499 ? '000' : String(r.status).padStart(3, '0')
}

/** The peer address Squid logs for the record (the upstream that answered, without its port), or undefined. */
export function squidPeer(r: CaptureRecord): string | undefined {
  const up = lastUpstream(r.upstream_addr)
  if (up === undefined) return undefined
  if (up.startsWith('[')) {
    const close = up.indexOf(']')
    return close > 0 ? up.slice(1, close) : undefined
  }
  const colon = up.lastIndexOf(':')
  return colon > 0 && up.indexOf(':') === colon ? up.slice(0, colon) : up
}

export function toSquid(r: CaptureRecord): string {
  const ms = captureMs(r)
  const time = `${String(Math.floor(ms / 1000)).padStart(9, ' ')}.${String(ms % 1000).padStart(3, '0')}`
  const elapsed = String(Math.round((seconds(r.request_time) ?? 0) * 1000)).padStart(6, ' ')
  const user = r.remote_user === '' ? '-' : r.remote_user
  if (r.request_method === '') return `${time} ${elapsed} ${r.remote_addr} NONE_NONE/400 ${r.bytes_sent} NONE error:invalid-request ${user} HIER_NONE/- -`
  const code = r.status === 499 ? 'TCP_MISS_ABORTED' : 'TCP_MISS'
  const peer = squidPeer(r)
  const hier = peer === undefined ? 'HIER_NONE/-' : `HIER_DIRECT/${peer}`
  const host = r.host === '' ? 'localhost' : r.host
  return `${time} ${elapsed} ${r.remote_addr} ${code}/${squidStatus(r)} ${r.bytes_sent} ${r.request_method} http://${host}${r.request_uri} ${user} ${hier} -`
}
