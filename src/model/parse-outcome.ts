import type {AccessEvent} from './access-event'
import type {RejectReason} from './rejection'

/** An access event before the reader attaches where it came from. */
export type AccessFields = Omit<AccessEvent, 'location'>

/** What a parser makes of one record: the event, or why it was rejected. */
export type ParseOutcome =
  | {ok: true; event: AccessFields}
  | {ok: false; reason: RejectReason; detail?: string}
