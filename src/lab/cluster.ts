import {Balancer, type AccessRecord} from './balancer'
import type {LabBuild} from './builds'
import {type MissingMode, Pod} from './pod'
import {type Affinity, type Endpoint, endpointKey} from './routing'
import type {LabAction} from './schedule'
import type {Clock} from '../probe/clock'

export interface PodInfo {
  name: string
  /** The build's version. */
  build: string
  buildIndex: number
  address: string
  /** Epoch ms: listening. */
  start: number
  /** Epoch ms: taken out of the balancer (its sessions move from then on); null while it serves. */
  stop: number | null
}

export interface DeployWindow {
  /** 1-based. */
  id: number
  from: string
  to: string
  start: number
  end: number | null
}

export type LabEvent =
  | {kind: 'pod-start'; time: number; pod: PodInfo; routed: boolean}
  | {kind: 'pod-stop'; time: number; pod: PodInfo}
  | {kind: 'deploy-start'; time: number; deploy: DeployWindow}
  | {kind: 'switch'; time: number; deploy: DeployWindow}
  | {kind: 'deploy-end'; time: number; deploy: DeployWindow}

export interface ClusterOptions {
  builds: readonly LabBuild[]
  affinity: Affinity
  keepOldAssets: boolean
  missing: MissingMode
  latencyMs: number
  random: () => number
  /** Suffixes for pod names, drawn from the seed. */
  podSuffix: () => string
  salt: string
  onEvent: (e: LabEvent) => void
  onAccess: (r: AccessRecord) => void
  clock: Clock
}

/** How long a stopping pod may take to finish what it is answering. */
const DRAIN_MS = 2000

interface LivePod {
  pod: Pod
  info: PodInfo
  endpoint: Endpoint
}

/**
 * The pods and the balancer, changed by the schedule's actions: a pod starts, joins the balancer (or
 * waits for the blue/green switch), leaves it, drains and closes. It keeps the timeline of pods and
 * deploy windows that the deploys file and the report are made from.
 */
export class LabCluster {
  readonly balancer: Balancer
  readonly pods: PodInfo[] = []
  readonly deploys: DeployWindow[] = []
  private readonly slots = new Map<string, LivePod>()
  private targets: LivePod[] = []
  private draining: LivePod[] = []
  private waiting: LivePod[] = []
  private readonly stopping = new Set<Promise<void>>()

  constructor(private readonly o: ClusterOptions) {
    this.balancer = new Balancer({affinity: o.affinity, random: o.random, onAccess: o.onAccess, clock: o.clock})
  }

  async apply(a: LabAction): Promise<void> {
    const now = (): number => this.o.clock.now()
    switch (a.kind) {
      case 'pod-start': return this.startPod(a.build, a.slot, a.routed)
      case 'pod-stop': {
        const stop = this.stopPod(a.build, a.slot)
        this.stopping.add(stop)
        void stop.finally(() => this.stopping.delete(stop))
        return
      }
      case 'deploy-start': {
        const deploy = {id: a.deploy + 1, from: this.version(a.from), to: this.version(a.to), start: now(), end: null}
        this.deploys.push(deploy)
        return this.o.onEvent({kind: 'deploy-start', time: deploy.start, deploy})
      }
      case 'switch': {
        this.draining = [...this.draining, ...this.targets]
        this.targets = this.waiting
        this.waiting = []
        this.publish()
        const deploy = this.deploys[a.deploy]
        if (deploy) this.o.onEvent({kind: 'switch', time: now(), deploy})
        return
      }
      case 'deploy-end': {
        const deploy = this.deploys[a.deploy]
        if (!deploy) return
        deploy.end = now()
        return this.o.onEvent({kind: 'deploy-end', time: deploy.end, deploy})
      }
      case 'end': return
    }
  }

  /** Waits for pods being stopped, then closes the balancer and every pod. */
  async shutdown(): Promise<void> {
    await Promise.all(this.stopping)
    await this.balancer.close(500)
    await Promise.all([...this.slots.values()].map(async (p) => {
      p.info.stop ??= this.o.clock.now()
      this.o.onEvent({kind: 'pod-stop', time: p.info.stop, pod: p.info})
      await p.pod.close(500)
    }))
    this.slots.clear()
  }

  private version(build: number): string {
    return this.o.builds[build]?.version ?? `build-${build + 1}`
  }

  private async startPod(buildIndex: number, slot: number, routed: boolean): Promise<void> {
    const build = this.o.builds[buildIndex]
    if (!build) throw new Error(`no build ${buildIndex}`)
    const previous = this.o.keepOldAssets ? this.o.builds[buildIndex - 1] : undefined
    const name = `${build.replicaSet}-${this.o.podSuffix()}`
    const pod = new Pod({name, build, ...(previous ? {previous} : {}), missing: this.o.missing, latencyMs: this.o.latencyMs})
    await pod.listen()
    const info: PodInfo = {name, build: build.version, buildIndex, address: pod.address, start: this.o.clock.now(), stop: null}
    const live: LivePod = {pod, info, endpoint: {name, address: pod.address, key: endpointKey(pod.address, this.o.salt)}}
    this.pods.push(info)
    this.slots.set(`${buildIndex}/${slot}`, live)
    if (routed) {
      this.targets.push(live)
      this.publish()
    } else {
      this.waiting.push(live)
    }
    this.o.onEvent({kind: 'pod-start', time: info.start, pod: info, routed})
  }

  private async stopPod(buildIndex: number, slot: number): Promise<void> {
    const live = this.slots.get(`${buildIndex}/${slot}`)
    if (!live) return
    this.slots.delete(`${buildIndex}/${slot}`)
    this.targets = this.targets.filter((p) => p !== live)
    this.draining = this.draining.filter((p) => p !== live)
    this.publish()
    live.info.stop = this.o.clock.now()
    this.o.onEvent({kind: 'pod-stop', time: live.info.stop, pod: live.info})
    await this.balancer.drain(live.info.name, DRAIN_MS)
    await live.pod.close(DRAIN_MS)
  }

  private publish(): void {
    const targets = this.targets.map((p) => p.endpoint)
    this.balancer.setEndpoints(targets, [...targets, ...this.draining.map((p) => p.endpoint)])
  }
}
