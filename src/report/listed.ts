import {pluralCount} from '../util/plural'

/**
 * What a human report lists of one kind of thing (builds, deploys, incidents, apps, sources):
 * at most MAX_ROWS rows, then a line saying how many more there are and where to find them all.
 * A person reads fifty rows, not twenty thousand, and a report's size and rendering time then
 * follow what it shows, never the input. The machine formats (JSON, NDJSON, CSV) hold them all.
 */
export const MAX_ROWS = 50

export interface Listed<T> {
  /** The items listed, in the order they were given. */
  shown: T[]
  /** How many were left out. */
  more: number
  /** The first item left out by `rank` (the one that matters most of them), for the line that says what they are. */
  firstLeftOut?: T
}

/**
 * All the items when there are at most `max`; otherwise the `max` that come first by `rank` (or
 * the first `max` without one), kept in the order they were given.
 */
export function listed<T>(items: readonly T[], max = MAX_ROWS, rank?: (a: T, b: T) => number): Listed<T> {
  if (items.length <= max) return {shown: [...items], more: 0}
  if (!rank) return {shown: items.slice(0, max), more: items.length - max, firstLeftOut: items[max]}
  const order = items.map((_, i) => i).sort((a, b) => rank(items[a] as T, items[b] as T) || a - b)
  const kept = order.slice(0, max).sort((a, b) => a - b)
  return {shown: kept.map((i) => items[i] as T), more: items.length - max, firstLeftOut: items[order[max] as number]}
}

/** Of many deploys, incidents or apps, a person reads first those that hurt the most users. */
export const mostUsersFirst = (a: {affectedUsers: number; failedRequests?: number}, b: {affectedUsers: number; failedRequests?: number}): number =>
  b.affectedUsers - a.affectedUsers || (b.failedRequests ?? 0) - (a.failedRequests ?? 0)

/** `… and 19,950 more builds with at most 2 shells each (all of them in --format json)`. */
export function moreLine(more: number, word: string, each = '', where = '--format json'): string {
  return `… and ${pluralCount(more, `more ${word}`)}${each ? ` ${each}` : ''} (all of them in ${where})`
}

/** Ids in one cell (a deploy's incidents): the first `max`, then how many more (`I1 I2 I3 I4 I5 I6 +994`). */
export function idList(ids: readonly string[], separator = ' ', max = 6): string {
  return ids.length <= max ? ids.join(separator) : `${ids.slice(0, max).join(separator)}${separator}+${ids.length - max}`
}
