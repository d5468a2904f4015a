/** `kubectl get events -o json` (core/v1 and events.k8s.io/v1), and the message both shapes share. */
import {rejectedStep, rolloutsFromSteps, type ScalingStep, type StepOutcome} from './rollouts'
import {firstTime} from './time'
import {type Indexed, isRecord, isRepeat, type JsonObject, type PartialResult, path, textValue} from './values'

export type ScalingChange = Pick<ScalingStep, 'direction' | 'replicaSet' | 'replicas'>

// Kubernetes 1.26+ appends "from <old count>"; older releases end at "to <count>".
const SCALING_MESSAGE = /^Scaled (up|down) replica set (\S+) to (\d+)(?: from \d+)?\.?$/

export function parseScalingMessage(message: string): ScalingChange | undefined {
  const match = SCALING_MESSAGE.exec(message.trim())
  if (!match) return undefined
  const [, direction, replicaSet = '', replicas] = match
  return {direction: direction === 'up' ? 'up' : 'down', replicaSet, replicas: Number(replicas)}
}

/** The object an event is about: `involvedObject` in core/v1, `regarding` in events.k8s.io/v1. */
interface EventSubject {
  kind?: string
  namespace?: string
  name?: string
}

export function parseKubectlEvents(entries: readonly Indexed[]): PartialResult {
  const steps: ScalingStep[] = []
  const result: PartialResult = {deploys: [], rejected: []}
  const seen = new Set<string>()
  for (const {index, value} of entries) {
    const outcome = kubectlStep(value, steps.length)
    if (outcome.kind === 'rejected') result.rejected.push({index, reason: outcome.reason})
    else if (outcome.kind === 'steps') {
      // a watch stream (`-w`) repeats an event each time its count changes; the first copy is enough
      if (isRepeat(seen, textValue(path(value, 'metadata', 'uid')))) result.rejected.push({index, reason: 'duplicate'})
      else steps.push(...outcome.steps)
    }
  }
  result.deploys = rolloutsFromSteps(steps)
  return result
}

/** Only ScalingReplicaSet events of Deployments matter; the rest of a cluster's events are ignored. */
function kubectlStep(event: unknown, seq: number): StepOutcome {
  if (!isRecord(event)) return rejectedStep('not-an-object')
  const subject = eventSubject(event)
  if (subject.kind !== 'Deployment' || event.reason !== 'ScalingReplicaSet') return {kind: 'ignored'}
  const change = parseScalingMessage(textValue(event.message) ?? textValue(event.note) ?? '')
  if (change === undefined) return rejectedStep('unparsed-message')
  if (subject.name === undefined) return rejectedStep('missing-deployment')
  const time = firstTime(eventTimes(event))
  if (!time.ok) return rejectedStep(time.reason)
  const step: ScalingStep = {time: time.ms, seq, deployment: subject.name, ...change}
  const namespace = subject.namespace ?? textValue(path(event, 'metadata', 'namespace'))
  if (namespace !== undefined) step.namespace = namespace
  return {kind: 'steps', steps: [step]}
}


function eventSubject(event: JsonObject): EventSubject {
  const subject = isRecord(event.involvedObject) ? event.involvedObject : event.regarding
  return {
    kind: textValue(path(subject, 'kind')),
    namespace: textValue(path(subject, 'namespace')),
    name: textValue(path(subject, 'name')),
  }
}

/**
 * When the step first happened, best first. Legacy recorders (the deployment controller) set
 * firstTimestamp and leave eventTime null; the events.k8s.io view renames the legacy fields.
 */
function eventTimes(event: JsonObject): unknown[] {
  return [
    event.eventTime,
    event.firstTimestamp,
    event.deprecatedFirstTimestamp,
    event.lastTimestamp,
    event.deprecatedLastTimestamp,
    path(event, 'series', 'lastObservedTime'),
    path(event, 'metadata', 'creationTimestamp'),
  ]
}
