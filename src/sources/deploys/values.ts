import type {DeclaredDeploy} from '../../model/deploy'

export type JsonObject = Record<string, unknown>

/** One record of the input, with its 0-based position among all records of the file. */
export interface Indexed {
  index: number
  value: unknown
}

export interface Rejected {
  index: number
  reason: string
}

/** What one format's reader makes of its records. */
export interface PartialResult {
  deploys: DeclaredDeploy[]
  rejected: Rejected[]
}

export function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A trimmed, non-empty string; numbers are accepted because versions are often written as 42. */
export function textValue(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  if (typeof value !== 'string') return undefined
  const trimmed = value.trim()
  return trimmed === '' ? undefined : trimmed
}

export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []
}

/** The value of the first `name:value` tag, as Datadog writes tags. */
export function tagValue(tags: readonly string[], name: string): string | undefined {
  const prefix = `${name}:`
  const tag = tags.find((candidate) => candidate.startsWith(prefix) && candidate.length > prefix.length)
  return tag?.slice(prefix.length)
}

/** Reads nested properties without a cast at every step: `path(event, 'attributes', 'title')`. */
export function path(value: unknown, ...keys: string[]): unknown {
  let current = value
  for (const key of keys) {
    if (!isRecord(current)) return undefined
    current = current[key]
  }
  return current
}

/** True when the key was seen before; records without a key are never repeats. */
export function isRepeat(seen: Set<string>, key: string | undefined): boolean {
  if (key === undefined) return false
  if (seen.has(key)) return true
  seen.add(key)
  return false
}

export function byStart(a: DeclaredDeploy, b: DeclaredDeploy): number {
  return a.start - b.start
}
