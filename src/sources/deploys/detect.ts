/** Decides which known shape a JSON document has and lists the records it holds. */
import type {JsonDocument} from './json-documents'
import {hasTimeField} from './list'
import {type Indexed, isRecord, type JsonObject, type Rejected} from './values'

export type JsonFormat = 'list-json' | 'datadog-events-v2' | 'datadog-events-v1' | 'kubectl-events'

interface Classified {
  format: JsonFormat
  items: unknown[]
}

export interface JsonRecords {
  format: JsonFormat
  entries: Indexed[]
  rejected: Rejected[]
}

/**
 * The format is that of the first recognised document; the records of all documents of that format
 * are numbered in file order. A document that is broken or of another shape counts as one rejected
 * record, so one bad page or NDJSON line does not sink the file.
 */
export function collectJsonRecords(documents: readonly JsonDocument[]): JsonRecords | undefined {
  const classified = documents.map((document) => (document.ok ? classifyDocument(document.value) : undefined))
  const format = classified.find((c) => c !== undefined)?.format
  if (format === undefined) return undefined
  const result: JsonRecords = {format, entries: [], rejected: []}
  let index = 0
  documents.forEach((document, i) => {
    const c = classified[i]
    if (c?.format === format) for (const value of c.items) result.entries.push({index: index++, value})
    else result.rejected.push({index: index++, reason: document.ok ? 'unknown-format' : 'invalid-json'})
  })
  return result
}

export function classifyDocument(value: unknown): Classified | undefined {
  if (Array.isArray(value)) return classifyArray(value)
  if (!isRecord(value)) return undefined
  return classifyContainer(value) ?? classifySingle(value)
}

/** The list shapes: `{deploys}`, a kubectl List, a v2 search page, a v1 list response. */
function classifyContainer(value: JsonObject): Classified | undefined {
  const {deploys, items, data, events} = value
  if (Array.isArray(deploys)) return {format: 'list-json', items: deploys}
  if (Array.isArray(items) && (items.length === 0 ? isKubernetesList(value) : startsWith(items, isKubernetesEvent))) {
    return {format: 'kubectl-events', items}
  }
  if (Array.isArray(data) && (data.length === 0 || startsWith(data, isDatadogV2Event))) {
    return {format: 'datadog-events-v2', items: data}
  }
  if (Array.isArray(events) && (events.length === 0 || startsWith(events, isDatadogV1Event))) {
    return {format: 'datadog-events-v1', items: events}
  }
  return undefined
}

/** One record on its own: an NDJSON line, one page item, one object of a kubectl watch stream. */
function classifySingle(value: JsonObject): Classified | undefined {
  const format = itemFormat(value)
  if (format !== undefined) return {format, items: [value]}
  // GET /api/v1/events/{id} wraps the event
  if (isRecord(value.event) && isDatadogV1Event(value.event)) return {format: 'datadog-events-v1', items: [value.event]}
  return undefined
}

function classifyArray(items: unknown[]): Classified | undefined {
  const first = items.find(isRecord)
  if (first === undefined) return items.length === 0 ? {format: 'list-json', items} : undefined
  // A bare array of events is what people save from `.data` or `.items` with jq.
  return {format: itemFormat(first) ?? 'list-json', items}
}

function itemFormat(item: JsonObject): JsonFormat | undefined {
  if (isDatadogV2Event(item)) return 'datadog-events-v2'
  if (isKubernetesEvent(item)) return 'kubectl-events'
  if (isDatadogV1Event(item)) return 'datadog-events-v1'
  if (hasTimeField(item)) return 'list-json'
  return undefined
}

function startsWith(items: readonly unknown[], test: (item: JsonObject) => boolean): boolean {
  const first = items.find(isRecord)
  return first !== undefined && test(first)
}

function isKubernetesList(value: JsonObject): boolean {
  return value.kind === 'List' || value.kind === 'EventList'
}

function isKubernetesEvent(item: JsonObject): boolean {
  return item.kind === 'Event' || isRecord(item.involvedObject) || isRecord(item.regarding)
}

function isDatadogV2Event(item: JsonObject): boolean {
  return (item.type === undefined || item.type === 'event') && isRecord(item.attributes)
}

function isDatadogV1Event(item: JsonObject): boolean {
  return 'date_happened' in item || 'dateHappened' in item || ('title' in item && 'text' in item)
}
