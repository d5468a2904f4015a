import type {AccessEvent} from '../model/access-event'

/**
 * What makes two events of one time copies of one record (analysis/detect.ts): the Datadog event
 * id, else the request id (with what the request was: compared apart). The copy key is a small
 * number made of it: a hash of the id (its kind in the lowest bit), -1 for an event with neither.
 * Events whose keys differ are no copies; events whose keys meet are compared by their ids. A
 * reader that packs events in a worker (sources/parallel/event-codec.ts) makes the key there, so
 * the analysis compares numbers and reads an id only when two keys meet (nearly never), instead of
 * decoding and hashing a fresh id string for every event.
 */
export function copyKeyOf(e: Pick<AccessEvent, 'id' | 'requestId'>): number {
  const id = e.id
  if (id !== undefined) return hashOf(id) * 2 + 1
  const rid = e.requestId
  return rid === undefined ? -1 : hashOf(rid) * 2
}

/**
 * An access event whose reader made its copy key. It must equal `copyKeyOf(e)`: an event read any
 * other way, in the same batch, is keyed alike.
 */
export interface CopyKeyedEvent extends AccessEvent {
  readonly copyKey?: number
}

/**
 * A 29-bit FNV-1a hash of every character: keys stay small integers (stored and compared without
 * an allocation), and two ids of one time that share one are told apart by comparing them.
 */
function hashOf(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return (h ^ (h >>> 15)) & 0x1fffffff
}
