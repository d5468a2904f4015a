import type {AccessEvent} from '../model/access-event'

/** What identifies a browser: the explicit session key when the log carries one, else client address and user agent. */
export function sessionKey(e: Pick<AccessEvent, 'session' | 'clientIp' | 'userAgent'>): string {
  return e.session ?? `${e.clientIp} ${e.userAgent}`
}

/**
 * An access event whose reader already built its session key (readers that pack events build one
 * string per client and batch, not one per request). It must equal `sessionKey(e)`.
 */
export interface KeyedAccessEvent extends AccessEvent {
  readonly sessionKey?: string
}

/**
 * An event whose memory its reader can use again once the analysis is done with it: the analysis
 * calls `release` exactly once per event, after which it reads none of the event's fields.
 */
export interface ReleasableEvent extends AccessEvent {
  release(): void
}
