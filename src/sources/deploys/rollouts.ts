/**
 * Turns the ScalingReplicaSet steps of Kubernetes Deployments into rollouts. A rollout starts when a
 * replica set other than the serving one is scaled up, and ends when the replica set it replaces
 * reaches 0 replicas.
 */
import type {DeclaredDeploy} from '../../model/deploy'

export interface ScalingStep {
  time: number
  /** Input order, to keep steps that share a time in a stable order. */
  seq: number
  namespace?: string
  deployment: string
  direction: 'up' | 'down'
  replicaSet: string
  replicas: number
  /** A `service:` tag on the event, which wins over the deployment name. */
  service?: string
}

/** What one event contributes: scaling steps, nothing (other kinds and reasons), or a reject reason. */
export type StepOutcome = {kind: 'steps'; steps: ScalingStep[]} | {kind: 'ignored'} | {kind: 'rejected'; reason: string}

export function rejectedStep(reason: string): StepOutcome {
  return {kind: 'rejected', reason}
}

interface Rollout {
  start: number
  end?: number
  to: string
  from?: string
  first: ScalingStep
}

interface DeploymentState {
  /** The replica set that serves, as far as the steps tell: the last one rolled out. */
  current?: string
  replicas: Map<string, number>
  open: Rollout[]
  all: Rollout[]
}

export function rolloutsFromSteps(steps: readonly ScalingStep[]): DeclaredDeploy[] {
  const states = new Map<string, DeploymentState>()
  for (const step of [...steps].sort(stepOrder)) {
    const key = `${step.namespace ?? ''}/${step.deployment}`
    let state = states.get(key)
    if (!state) states.set(key, (state = {replicas: new Map(), open: [], all: []}))
    if (step.direction === 'up') scaleUp(state, step)
    else scaleDown(state, step)
  }
  return [...states.values()].flatMap((state) => state.all.map(toDeploy))
}

/**
 * Steps that share a time come from one bundled Datadog event (whose lines are sorted as text, not
 * by time) or from one second of kubectl events. Replaying them in the order a rolling update makes
 * them (ups first, old replica sets drained last) keeps such a bundle from ending a rollout before
 * it starts.
 */
function stepOrder(a: ScalingStep, b: ScalingStep): number {
  if (a.time !== b.time) return a.time - b.time
  if (a.direction !== b.direction) return a.direction === 'up' ? -1 : 1
  if (a.replicas !== b.replicas) return a.direction === 'up' ? a.replicas - b.replicas : b.replicas - a.replicas
  return a.seq - b.seq
}

function scaleUp(state: DeploymentState, step: ScalingStep): void {
  state.replicas.set(step.replicaSet, step.replicas)
  // more replicas for the rollout in progress, or autoscaling of the serving replica set
  if (state.current === step.replicaSet || state.open.some((r) => r.to === step.replicaSet)) return
  const rollout: Rollout = {start: step.time, to: step.replicaSet, first: step}
  if (state.current !== undefined) rollout.from = state.current
  state.current = step.replicaSet
  state.all.push(rollout)
  // the Recreate strategy drains the old replica set before the new one is scaled up
  if (rollout.from !== undefined && state.replicas.get(rollout.from) === 0) rollout.end = step.time
  else state.open.push(rollout)
}

function scaleDown(state: DeploymentState, step: ScalingStep): void {
  state.replicas.set(step.replicaSet, step.replicas)
  // data that starts mid-rollout or with a scale-down: the replica set shrinking was serving
  if (state.current === undefined && state.open.length === 0) state.current = step.replicaSet
  for (const rollout of state.open) {
    // the serving replica set was unknown when this rollout started: the one drained now is it
    if (rollout.from === undefined && rollout.to !== step.replicaSet) rollout.from = step.replicaSet
  }
  if (step.replicas > 0) return
  // done when the old replica set is drained; abandoned (e.g. rolled back) when the new one is
  for (const rollout of state.open.filter((r) => r.from === step.replicaSet || r.to === step.replicaSet)) {
    rollout.end = step.time
  }
  state.open = state.open.filter((r) => r.end === undefined)
}

function toDeploy(rollout: Rollout): DeclaredDeploy {
  const {first, from, to, end} = rollout
  const name = first.namespace === undefined ? first.deployment : `${first.namespace}/${first.deployment}`
  return {
    start: rollout.start,
    ...(end === undefined ? {} : {end}),
    service: first.service ?? first.deployment,
    deployment: first.deployment,
    ...(first.namespace === undefined ? {} : {namespace: first.namespace}),
    version: to,
    ...(from === undefined ? {} : {fromVersion: from}),
    source: 'kubernetes',
    description: `Deployment ${name}: ${from === undefined ? to : `${from} -> ${to}`}`,
  }
}
