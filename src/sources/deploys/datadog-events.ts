/**
 * Datadog events (v2 search/list items and v1 list events) as deploys: Kubernetes Deployment
 * rollouts, and deploy markers (a `version:` tag, or "deploy" in the title or text).
 */
import type {DeclaredDeploy} from '../../model/deploy'
import type {DatadogEvent} from './datadog-event'
import {kubernetesSteps, stripMarkdownFence} from './datadog-kubernetes'
import {rolloutsFromSteps, type ScalingStep} from './rollouts'
import {firstTime} from './time'
import {type Indexed, isRecord, isRepeat, type PartialResult, stringList, tagValue, textValue} from './values'


const DEPLOY_WORD = /deploy(ed|ment)?/i
/** A marker of a rollout's end ("Deploy web v2 finished", "… successfully rolled out"), or of its start. */
const END_WORDS = /\b(finish(ed)?|complete[ds]?|succeeded|success(ful(ly)?)?|done|rolled out|ended)\b/i
const START_WORDS = /\b(start(ed|ing)?|begin(s|ning)?|began|rolling out|in progress)\b/i
const DESCRIPTION_MAX = 200

export function parseDatadogEvents(entries: readonly Indexed[], api: 'v1' | 'v2'): PartialResult {
  const result: PartialResult = {deploys: [], rejected: []}
  const steps: ScalingStep[] = []
  const seen = new Set<string>()
  for (const {index, value} of entries) {
    const event = api === 'v2' ? fromV2(value) : fromV1(value)
    if (typeof event === 'string') result.rejected.push({index, reason: event})
    // pages fetched with overlapping windows repeat events
    else if (isRepeat(seen, event.id)) result.rejected.push({index, reason: 'duplicate'})
    else readEvent(event, steps, result, index)
  }
  result.deploys.push(...rolloutsFromSteps(steps))
  return result
}

/** Kubernetes events go first: their titles ("Events from the Deployment ...") also say "deploy". */
function readEvent(event: DatadogEvent, steps: ScalingStep[], result: PartialResult, index: number): void {
  const kubernetes = kubernetesSteps(event, steps.length)
  if (kubernetes?.kind === 'steps') steps.push(...kubernetes.steps)
  else if (kubernetes?.kind === 'rejected') result.rejected.push({index, reason: kubernetes.reason})
  else if (kubernetes === undefined) {
    const marker = markerDeploy(event)
    if (typeof marker === 'string') result.rejected.push({index, reason: marker})
    else result.deploys.push(marker)
  }
}

function markerDeploy(event: DatadogEvent): DeclaredDeploy | string {
  const version = tagValue(event.tags, 'version')
  if (version === undefined && !DEPLOY_WORD.test(event.title) && !DEPLOY_WORD.test(event.text)) return 'not-a-deploy'
  const time = firstTime(event.times)
  if (!time.ok) return time.reason
  const deploy: DeclaredDeploy = {start: time.ms, source: 'marker'}
  const phase = markerPhase(event)
  if (phase !== undefined) deploy.phase = phase
  const service = tagValue(event.tags, 'service')
  if (service !== undefined) deploy.service = service
  if (version !== undefined) deploy.version = version
  const namespace = tagValue(event.tags, 'kube_namespace')
  if (namespace !== undefined) deploy.namespace = namespace
  const deployment = tagValue(event.tags, 'kube_deployment')
  if (deployment !== undefined) deploy.deployment = deployment
  if (event.key !== undefined) deploy.key = event.key
  const description = textValue(event.title) ?? textValue(stripMarkdownFence(event.text))
  if (description !== undefined) deploy.description = description.slice(0, DESCRIPTION_MAX)
  return deploy
}

/** Whether a marker tells a rollout's end or its start, by its title (then its text). */
function markerPhase(event: DatadogEvent): DeclaredDeploy['phase'] {
  for (const text of [event.title, event.text]) {
    if (END_WORDS.test(text)) return 'end'
    if (START_WORDS.test(text)) return 'start'
  }
  return undefined
}

/**
 * `{id, type: "event", attributes: {timestamp, message, tags, attributes: {title, timestamp}}}`.
 * The inner timestamp (ms) comes first because it is a number with ms precision.
 */
function fromV2(item: unknown): DatadogEvent | string {
  if (!isRecord(item)) return 'not-an-object'
  if (item.type !== undefined && item.type !== 'event') return 'not-an-event'
  const outer = isRecord(item.attributes) ? item.attributes : {}
  const inner = isRecord(outer.attributes) ? outer.attributes : {}
  return withId(item.id, {
    title: textValue(inner.title) ?? textValue(outer.title) ?? '',
    text: textValue(outer.message) ?? textValue(inner.text) ?? '',
    tags: stringList(outer.tags),
    sourceType: textValue(inner.source_type_name) ?? textValue(inner.sourceTypeName),
    key: textValue(inner.aggregation_key) ?? textValue(inner.aggregationKey),
    times: [inner.timestamp, outer.timestamp],
  })
}

/** `{id, date_happened (s), title, text, tags, source_type_name}`; camelCase as the official client writes it. */
function fromV1(item: unknown): DatadogEvent | string {
  if (!isRecord(item)) return 'not-an-object'
  return withId(item.id_str ?? item.idStr ?? item.id, {
    title: textValue(item.title) ?? '',
    text: textValue(item.text) ?? '',
    tags: stringList(item.tags),
    sourceType: textValue(item.source_type_name) ?? textValue(item.sourceTypeName),
    key: textValue(item.aggregation_key) ?? textValue(item.aggregationKey),
    times: [item.date_happened, item.dateHappened],
  })
}

function withId(id: unknown, event: DatadogEvent): DatadogEvent {
  const text = textValue(id)
  return text === undefined ? event : {...event, id: text}
}
