/** Deploy lists written by people or CI: JSON objects or CSV rows with loosely named fields. */
import type {DeclaredDeploy} from '../../model/deploy'
import {isAbsent, parseTime} from './time'
import {type Indexed, isRecord, type PartialResult, type Rejected, textValue} from './values'

/** Accepted field names, lower-cased: JSON keys and CSV headers are matched case-insensitively. */
export const LIST_FIELDS = {
  start: ['start', 'time', 'timestamp', 'started_at', 'startedat', 'start_time'],
  end: ['end', 'finished_at', 'finishedat', 'end_time'],
  service: ['service'],
  version: ['version'],
  fromVersion: ['from', 'fromversion', 'previous_version'],
  description: ['description'],
  app: ['app', 'application'],
  namespace: ['namespace', 'kube_namespace'],
  deployment: ['deployment', 'kube_deployment'],
} as const

/** Looks a field up by its lower-cased name; undefined when the record has no such field. */
export type FieldLookup = (lowerCaseName: string) => unknown

export type ListOutcome = {ok: true; deploy: DeclaredDeploy} | {ok: false; reason: string}

export function hasTimeField(item: Record<string, unknown>): boolean {
  return Object.keys(item).some((key) => isTimeColumn(key))
}

export function isTimeColumn(name: string): boolean {
  return (LIST_FIELDS.start as readonly string[]).includes(name.trim().toLowerCase())
}

export function parseListJson(entries: readonly Indexed[]): PartialResult {
  const deploys: DeclaredDeploy[] = []
  const rejected: Rejected[] = []
  for (const {index, value} of entries) {
    const outcome = isRecord(value) ? deployFromFields(lookupIn(value)) : {ok: false as const, reason: 'not-an-object'}
    if (outcome.ok) deploys.push(outcome.deploy)
    else rejected.push({index, reason: outcome.reason})
  }
  return {deploys, rejected}
}

function lookupIn(item: Record<string, unknown>): FieldLookup {
  const byLowerName = new Map<string, unknown>()
  for (const [key, value] of Object.entries(item)) {
    const name = key.toLowerCase()
    // the first spelling wins when a record has both `Start` and `start`
    if (!byLowerName.has(name)) byLowerName.set(name, value)
  }
  return (name) => byLowerName.get(name)
}

export function deployFromFields(lookup: FieldLookup): ListOutcome {
  const start = parseTime(firstPresent(lookup, LIST_FIELDS.start))
  if (!start.ok) return start
  const rawEnd = firstPresent(lookup, LIST_FIELDS.end)
  const end = isAbsent(rawEnd) ? undefined : parseTime(rawEnd)
  if (end && !end.ok) return end
  if (end && end.ms < start.ms) return {ok: false, reason: 'end-before-start'}
  const deploy: DeclaredDeploy = {start: start.ms, source: 'file'}
  if (end) deploy.end = end.ms
  assignText(deploy, 'service', textValue(firstPresent(lookup, LIST_FIELDS.service)))
  assignText(deploy, 'version', textValue(firstPresent(lookup, LIST_FIELDS.version)))
  assignText(deploy, 'fromVersion', textValue(firstPresent(lookup, LIST_FIELDS.fromVersion)))
  assignText(deploy, 'description', textValue(firstPresent(lookup, LIST_FIELDS.description)))
  assignText(deploy, 'app', textValue(firstPresent(lookup, LIST_FIELDS.app)))
  assignText(deploy, 'namespace', textValue(firstPresent(lookup, LIST_FIELDS.namespace)))
  assignText(deploy, 'deployment', textValue(firstPresent(lookup, LIST_FIELDS.deployment)))
  return {ok: true, deploy}
}

/** The value of the first alias that is present and not empty. */
function firstPresent(lookup: FieldLookup, names: readonly string[]): unknown {
  for (const name of names) {
    const value = lookup(name)
    if (!isAbsent(value)) return value
  }
  return undefined
}

/** Leaves absent fields out rather than set to undefined, which keeps JSON output and strict equality clean. */
function assignText(
  deploy: DeclaredDeploy,
  field: 'service' | 'version' | 'fromVersion' | 'description' | 'app' | 'namespace' | 'deployment',
  value: string | undefined,
): void {
  if (value !== undefined) deploy[field] = value
}
