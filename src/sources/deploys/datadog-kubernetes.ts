/**
 * Kubernetes events as the Datadog agent's kubernetes_apiserver check sends them. Bundled (the
 * default): title `Events from the Deployment shop/web`, text `%%% \n1 **Reason**: message\n 2
 * **Reason**: message\n \n _Events emitted by ..._ \n\n %%%` with lines sorted as text. Unbundled:
 * title `Deployment shop/web: Reason`, text the raw message.
 */
import type {DatadogEvent} from './datadog-event'
import {parseScalingMessage} from './kubernetes'
import {rejectedStep, type ScalingStep, type StepOutcome} from './rollouts'
import {firstTime} from './time'
import {tagValue} from './values'

const BUNDLED_TITLE = /^Events from the (\S+) (?:([^\s/]+)\/)?(\S+)$/
const UNBUNDLED_TITLE = /^(\S+) (?:([^\s/]+)\/)?(\S+): (\S+)$/
const BUNDLE_LINE = /(\d+) \*\*([^*]+)\*\*: ([^\n]*)/g
const KNOWN_KINDS = new Set(['Deployment', 'ReplicaSet', 'Pod', 'Node', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'])

interface KubernetesObjectEvent {
  kind: string
  namespace?: string
  name: string
  lines: {reason: string; message: string}[]
}

/** Undefined when the event does not come from Kubernetes, so it can still be a deploy marker. */
export function kubernetesSteps(event: DatadogEvent, seq: number): StepOutcome | undefined {
  const parsed = bundledEvent(event) ?? unbundledEvent(event)
  if (parsed === undefined) return undefined
  if (parsed.kind !== 'Deployment') return {kind: 'ignored'}
  const changes = parsed.lines.filter((line) => line.reason === 'ScalingReplicaSet')
  if (changes.length === 0) return {kind: 'ignored'}
  const scaling = changes.map((line) => parseScalingMessage(line.message)).filter(isDefined)
  if (scaling.length < changes.length) return rejectedStep('unparsed-message')
  const time = firstTime(event.times)
  if (!time.ok) return rejectedStep(time.reason)
  const service = tagValue(event.tags, 'service')
  const steps = scaling.map((change, i) => {
    const step: ScalingStep = {time: time.ms, seq: seq + i, deployment: parsed.name, ...change}
    if (parsed.namespace !== undefined) step.namespace = parsed.namespace
    if (service !== undefined) step.service = service
    return step
  })
  return {kind: 'steps', steps}
}

function isDefined<T>(value: T | undefined): value is T {
  return value !== undefined
}

function bundledEvent(event: DatadogEvent): KubernetesObjectEvent | undefined {
  const match = BUNDLED_TITLE.exec(event.title)
  if (!match) return undefined
  const [, kind = '', namespace, name = ''] = match
  const lines = [...stripMarkdownFence(event.text).matchAll(BUNDLE_LINE)].map(([, , reason = '', message = '']) => ({
    reason: reason.trim(),
    message: message.trim(),
  }))
  return withNamespace({kind, name, lines}, namespace)
}

function unbundledEvent(event: DatadogEvent): KubernetesObjectEvent | undefined {
  const match = UNBUNDLED_TITLE.exec(event.title)
  if (!match) return undefined
  const [, kind = '', namespace, name = '', reason = ''] = match
  // a title like "Release shop/web: done" has the same shape, so ask for a sign of Kubernetes
  if (!KNOWN_KINDS.has(kind) && !fromKubernetes(event)) return undefined
  return withNamespace({kind, name, lines: [{reason, message: stripMarkdownFence(event.text).trim()}]}, namespace)
}

function withNamespace(parsed: KubernetesObjectEvent, namespace: string | undefined): KubernetesObjectEvent {
  return namespace === undefined ? parsed : {...parsed, namespace}
}

function fromKubernetes(event: DatadogEvent): boolean {
  return (
    /kube/i.test(event.sourceType ?? '') ||
    event.tags.some((tag) => /^(kube_kind|event_reason):|^orchestrator:kubernetes$|^source:kube/.test(tag))
  )
}

/** Datadog marks Markdown text by wrapping it in `%%%`. */
export function stripMarkdownFence(text: string): string {
  return text.replace(/^\s*%%%/, '').replace(/%%%\s*$/, '')
}
