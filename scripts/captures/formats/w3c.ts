/**
 * Writer: one request of a real nginx JSON capture rendered as IIS would have logged it in W3C
 * extended format with every field ticked (the field order of W3C_FIELDS_LINE, IIS Manager's
 * "all fields" order, sc-bytes included), for round-trip tests of src/normalize/formats/w3c.ts.
 * A file of these lines opens with `#Software:`, `#Version:`, `#Date:` and W3C_FIELDS_LINE
 * (w3cHeader). Choices:
 * - date and time from msec, UTC, to the second (IIS's resolution).
 * - Spaces in a value are written `+`, as IIS does; a `+` the value had stays `+` (so a user agent
 *   with `+` reads back with a space there: IIS's encoding cannot tell them apart). `-` for empty.
 * - cs-uri-stem and cs-uri-query split from request_uri at the first `?`, as requested.
 * - sc-bytes is nginx's `bytes_sent` (IIS counts what HTTP.sys sent, headers included), cs-bytes
 *   request_length, time-taken request_time in ms.
 * - c-ip is remote_addr, cs-host host, cs(Cookie) the session cookie; s-ip and s-port the site's.
 * - nginx's 499 (the client went away before the response) is, in IIS, the status the app set
 *   with sc-win32-status 64 (ERROR_NETNAME_DELETED): the last upstream status, else 200
 *   (w3cStatus), as lnav's real IIS sample logs `200 0 64 0`.
 * - A request nginx could not read (no method) is written with cs-method and cs-uri-stem `-`
 *   (HTTP.sys logs such requests to its httperr log instead): missing-path.
 * - IIS logs no upstream and no request id.
 */
import {type CaptureRecord, captureMs, seconds} from './capture-record'

export type {CaptureRecord} from './capture-record'

export const W3C_FIELDS_LINE =
  '#Fields: date time s-sitename s-computername s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs-version cs(User-Agent) cs(Cookie) cs(Referer) cs-host sc-status sc-substatus sc-win32-status sc-bytes cs-bytes time-taken'

/** A value as IIS writes it: spaces as `+`, `-` when empty. */
function w3cValue(v: string): string {
  return v === '' ? '-' : v.replace(/[ \t]/g, '+')
}

/** The sc-status IIS logs for the request (nginx's 499: the status the app set, see above). */
export function w3cStatus(r: CaptureRecord): number {
  if (r.status !== 499) return r.status
  const last = r.upstream_status.split(/[,:]\s*/).pop()?.trim() ?? ''
  return /^[1-9]\d\d$/.test(last) && last !== '499' ? Number(last) : 200
}

/** The header block IIS opens a log file with, for a file starting at this record. */
export function w3cHeader(r: CaptureRecord): string {
  const iso = new Date(captureMs(r)).toISOString()
  return ['#Software: Microsoft Internet Information Services 10.0', '#Version: 1.0', `#Date: ${iso.slice(0, 10)} ${iso.slice(11, 19)}`, W3C_FIELDS_LINE].join('\n')
}

export function toW3c(r: CaptureRecord): string {
  const iso = new Date(captureMs(r)).toISOString()
  const q = r.request_uri.indexOf('?')
  const unread = r.request_method === ''
  const stem = unread ? '-' : q < 0 ? r.request_uri : r.request_uri.slice(0, q)
  const query = unread || q < 0 ? '-' : r.request_uri.slice(q + 1)
  const ms = seconds(r.request_time)
  const fields = [
    iso.slice(0, 10),
    iso.slice(11, 19),
    'W3SVC1',
    'WEB01',
    '10.0.0.4',
    unread ? '-' : r.request_method,
    w3cValue(stem),
    w3cValue(query),
    '80',
    w3cValue(r.remote_user),
    r.remote_addr,
    w3cValue(r.server_protocol),
    w3cValue(r.http_user_agent),
    r.cookie_session === '' ? '-' : `session=${w3cValue(r.cookie_session)}`,
    w3cValue(r.http_referer),
    w3cValue(r.host),
    String(w3cStatus(r)),
    '0',
    r.status === 499 ? '64' : '0',
    String(r.bytes_sent),
    String(r.request_length === '' ? 0 : r.request_length),
    String(ms === undefined ? 0 : Math.round(ms * 1000)),
  ]
  return fields.join(' ')
}
