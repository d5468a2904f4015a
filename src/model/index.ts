export type {AccessEvent, RecordLocation} from './access-event'
export type {DeclaredDeploy} from './deploy'
export type {RejectReason, Rejection} from './rejection'
export type {AccessFields, ParseOutcome} from './parse-outcome'
