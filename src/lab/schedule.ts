export type DeployStrategy = 'rolling' | 'blue-green'

export interface ScheduleInput {
  replicas: number
  /** Rolling: time per pod. Blue/green: from the new pods' start to the switch, and from the switch to stopping the old ones. */
  stepMs: number
  deploys: number
  /** Calm before the first deploy and between deploys (from one's end to the next one's start). */
  everyMs: number
  /** After the last deploy, how long until `end` (only with `once`). */
  tailMs: number
  strategy: DeployStrategy
  once: boolean
}

/** What the lab does, and when (ms after it started). Builds and pod slots are 0-based. */
export type LabAction =
  | {at: number; kind: 'pod-start'; build: number; slot: number; deploy: number | null; routed: boolean}
  | {at: number; kind: 'pod-stop'; build: number; slot: number; deploy: number}
  | {at: number; kind: 'deploy-start'; deploy: number; from: number; to: number}
  | {at: number; kind: 'switch'; deploy: number; to: number}
  | {at: number; kind: 'deploy-end'; deploy: number}
  | {at: number; kind: 'end'}

/** How long one deploy takes from its first new pod to its last old pod gone. */
export function deployLength(input: Pick<ScheduleInput, 'replicas' | 'stepMs' | 'strategy'>): number {
  return input.strategy === 'rolling' ? input.replicas * input.stepMs : 2 * input.stepMs
}

/**
 * The lab's timetable. Rolling (Kubernetes with maxSurge 1, maxUnavailable 0): new pod i starts at
 * T + i·step and takes traffic at once; old pod i stops at T + (i+1)·step, so the deploy lasts
 * replicas × step. Blue/green: every new pod starts at T without traffic, the balancer switches to
 * them at once at T + step, and the old pods stop at T + 2·step.
 */
export function planSchedule(input: ScheduleInput): LabAction[] {
  const actions: LabAction[] = []
  for (let slot = 0; slot < input.replicas; slot++) actions.push({at: 0, kind: 'pod-start', build: 0, slot, deploy: null, routed: true})
  const length = deployLength(input)
  let end = input.everyMs
  for (let d = 0; d < input.deploys; d++) {
    const t = input.everyMs + d * (length + input.everyMs)
    actions.push({at: t, kind: 'deploy-start', deploy: d, from: d, to: d + 1})
    if (input.strategy === 'rolling') {
      for (let i = 0; i < input.replicas; i++) actions.push({at: t + i * input.stepMs, kind: 'pod-start', build: d + 1, slot: i, deploy: d, routed: true})
      for (let i = 0; i < input.replicas; i++) actions.push({at: t + (i + 1) * input.stepMs, kind: 'pod-stop', build: d, slot: i, deploy: d})
    } else {
      for (let i = 0; i < input.replicas; i++) actions.push({at: t, kind: 'pod-start', build: d + 1, slot: i, deploy: d, routed: false})
      actions.push({at: t + input.stepMs, kind: 'switch', deploy: d, to: d + 1})
      for (let i = 0; i < input.replicas; i++) actions.push({at: t + 2 * input.stepMs, kind: 'pod-stop', build: d, slot: i, deploy: d})
    }
    end = t + length
    actions.push({at: end, kind: 'deploy-end', deploy: d})
  }
  if (input.once) actions.push({at: end + input.tailMs, kind: 'end'})
  // Stable: at equal times, a new pod starts before an old one stops (capacity never drops).
  return actions.map((a, i) => ({a, i})).sort((x, y) => x.a.at - y.a.at || x.i - y.i).map(({a}) => a)
}
