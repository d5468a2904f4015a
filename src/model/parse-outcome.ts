import type {AccessEvent} from './access-event'
import type {Rejection, RejectReason} from './rejection'

/** An access event before the reader attaches where it came from. */
export type AccessFields = Omit<AccessEvent, 'location'>

/** What a parser makes of one record: the event, or why it was rejected. */
export type ParseOutcome =
  | {ok: true; event: AccessFields}
  | {ok: false; reason: RejectReason; detail?: string}

/**
 * What a format's byte count measures. `body`: the response body alone (nginx `$body_bytes_sent`,
 * Traefik `DownstreamContentSize`, Envoy `%BYTES_SENT%`, Caddy `size`), so a shell's fingerprint is
 * the length of its index.html. `response`: headers and body together (AWS ALB `sent_bytes`,
 * CloudFront `sc-bytes`, Google Cloud `responseSize`), so the same shell is logged with the length
 * of its header block added, which varies with the headers a response carries (a Set-Cookie, a
 * cache hit's Age).
 */
export type ByteCount = 'body' | 'response'

/** One record as `skewscan parse` shows it: its fields and app, or why it was rejected. */
export type ParsedRecord =
  | {file: string; line: number; event: AccessEvent; app: string | null; bytesCount: ByteCount}
  | {file: string; line: number; rejection: Rejection}
