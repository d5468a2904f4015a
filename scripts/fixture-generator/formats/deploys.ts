/**
 * Deploy records in the shapes the analyzer reads, the way a real rollout produces them: a simple
 * JSON/CSV list (CI's own record), a Datadog Events API v2 search response (the pipeline's "Deploy …
 * started" and "… finished" markers, sharing an aggregation key, plus the Deployment's
 * ScalingReplicaSet events as the agent's kubernetes_apiserver check sends them) and
 * `kubectl get events -o json`.
 *
 * Every record carries the rollout's real times (the first new pod's start, the last old pod's stop),
 * so each deploy file declares the same window.
 */
import {scalingMessages} from '../cluster'
import {appConfigs} from '../params'
import {Rng} from '../rng'
import {isoSeconds} from '../time'
import type {AppConfig, SimParams, TruthDeploy, TruthPodChange} from '../types'
import {csvRow} from './csv'

export function deploysJson(deploys: TruthDeploy[]): string {
  const list = deploys.map((d) => ({start: d.start, end: d.end, service: d.service, version: d.version, from: d.fromVersion}))
  return JSON.stringify(list, null, 2) + '\n'
}

export function deploysCsv(deploys: TruthDeploy[]): string {
  const rows = [csvRow(['start', 'end', 'service', 'version', 'from'])]
  for (const d of deploys) rows.push(csvRow([d.start, d.end, d.service, d.version, d.fromVersion]))
  return rows.join('\n') + '\n'
}

interface Step {
  time: number
  messages: string[]
}

function appOf(d: {service: string}, params: SimParams): AppConfig {
  const app = appConfigs(params).find((a) => a.service === d.service)
  if (!app) throw new Error(`deploy of an unknown app ${d.service}`)
  return app
}

/** The scaling steps of a deploy at their real times (one step every `step` seconds of its app). */
export function deploySteps(d: TruthDeploy, params: SimParams): Step[] {
  const app = appOf(d, params)
  const start = Date.parse(d.start)
  const steps: Step[] = []
  for (let i = 0; i <= app.replicas; i++) {
    steps.push({time: start + i * app.step * 1000, messages: scalingMessages(d.fromReplicaSet, d.toReplicaSet, app.replicas, i)})
  }
  return steps
}

/** The scaling steps of a restart (rolled like a deploy, over the pods it had) or a scale-out (one step). */
export function podChangeSteps(c: TruthPodChange, params: SimParams): Step[] {
  const start = Date.parse(c.start)
  if (c.kind === 'scale-out') return [{time: start, messages: [`Scaled up replica set ${c.toReplicaSet} to ${c.replicas}`]}]
  const step = appOf(c, params).step * 1000
  const steps: Step[] = []
  for (let i = 0; i <= c.fromReplicas; i++) steps.push({time: start + i * step, messages: scalingMessages(c.fromReplicaSet, c.toReplicaSet, c.fromReplicas, i)})
  return steps
}

/** Every Deployment change the cluster's events record: deploys, then restarts and scale-outs. */
function kubernetesChanges(deploys: TruthDeploy[], podChanges: readonly TruthPodChange[], params: SimParams): {service: string; namespace: string; steps: Step[]}[] {
  return [
    ...deploys.map((d) => ({service: d.service, namespace: d.namespace, steps: deploySteps(d, params)})),
    ...podChanges.map((c) => ({service: c.service, namespace: c.namespace, steps: podChangeSteps(c, params)})),
  ]
}

function uuid(rng: Rng): string {
  const h = rng.hex(32)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`
}

/** Where the rollout's scaling messages were seen: each step's scale-down, then (a few ms later) its scale-up; the first scale-up at the start. */
function scalingEvents(steps: readonly Step[], rng: Rng): {time: number; message: string}[] {
  const out: {time: number; message: string}[] = []
  for (const step of steps) {
    step.messages.forEach((message, i) => out.push({time: step.time + (i > 0 ? rng.int(2, 40) : 0), message}))
  }
  return out
}

const CLUSTER_TAGS = ['env:prod', 'kube_cluster_name:prod-eu1']

/**
 * A v2 events search response (`GET /api/v2/events`), as in a real capture: per rollout a
 * "Deploy <service> <version> started" marker, one Kubernetes event per ScalingReplicaSet message
 * (`%%% \n1 **ScalingReplicaSet**: Scaled up replica set … to 1\n\n _New events emitted by the
 * deployment-controller seen at …_ \n\n %%%`), and a "… finished" marker with the same aggregation
 * key; oldest first, apps interleaved by time.
 */
export function deployEventsV2(deploys: TruthDeploy[], params: SimParams, podChanges: readonly TruthPodChange[] = []): string {
  const rng = new Rng(params.seed, 'deploy-events')
  const events: {time: number; order: number; item: unknown}[] = []
  let order = 0
  const perApp = new Map<string, number>()
  const eventId = (time: number): string => {
    const buf = Buffer.alloc(32)
    buf[0] = 1
    buf.writeUIntBE(time, 6, 6)
    buf.writeUInt32BE(rng.int(0, 0xffffffff), 12)
    for (let i = 16; i < 32; i++) buf[i] = rng.int(0, 255)
    return buf.toString('base64url').slice(0, 43)
  }
  let evtSeq = 0
  const evtId = (time: number): string => `700${time}${String(evtSeq++ % 1000).padStart(3, '0')}`
  /** One Kubernetes event per ScalingReplicaSet message of a Deployment. */
  const kubernetesEvents = (d: {service: string; namespace: string}, steps: readonly Step[]): void => {
    const common = [...CLUSTER_TAGS, `kube_namespace:${d.namespace}`, `kube_deployment:${d.service}`, `service:${d.service}`]
    for (const s of scalingEvents(steps, rng)) {
      const seen = new Date(s.time).toISOString()
      events.push({
        time: s.time,
        order: order++,
        item: {
          id: eventId(s.time),
          type: 'event',
          attributes: {
            timestamp: seen,
            message: `%%% \n1 **ScalingReplicaSet**: ${s.message}\n\n _New events emitted by the deployment-controller seen at ${seen}_ \n\n %%%`,
            tags: [...common, 'source:kubernetes', 'event_reason:ScalingReplicaSet'],
            attributes: {
              title: `Events from the Deployment ${d.namespace}/${d.service}`, timestamp: s.time, status: 'info', priority: 'normal',
              service: d.service, source_type_name: 'kubernetes', evt: {id: evtId(s.time), type: 'kubernetes'},
            },
          },
        },
      })
    }
  }
  for (const d of deploys) {
    const n = (perApp.get(d.service) ?? 0) + 1
    perApp.set(d.service, n)
    const start = Date.parse(d.start)
    const end = Date.parse(d.end)
    const common = [...CLUSTER_TAGS, `kube_namespace:${d.namespace}`, `kube_deployment:${d.service}`, `service:${d.service}`]
    const key = `${d.service}-deploy-${n}`
    const marker = (time: number, title: string, message: string): unknown => ({
      id: eventId(time),
      type: 'event',
      attributes: {
        timestamp: new Date(time).toISOString(),
        message,
        tags: [...common, 'source:deployment', `version:${d.version}`],
        attributes: {
          title, timestamp: time, status: 'info', priority: 'normal', service: d.service, source_type_name: 'deployment',
          aggregation_key: key, evt: {id: evtId(time), type: 'deployment'},
        },
      },
    })
    const sha = (): string => rng.hex(7)
    events.push({time: start, order: order++, item: marker(start, `Deploy ${d.service} ${d.version} started`,
      `Rolling out ${d.service} ${d.version} (${sha()}) replacing ${d.fromVersion} (${sha()})`)})
    kubernetesEvents(d, deploySteps(d, params))
    events.push({time: end, order: order++, item: marker(end, `Deploy ${d.service} ${d.version} finished`,
      `Deployment ${d.namespace}/${d.service} successfully rolled out ${d.version}`)})
  }
  for (const c of podChanges) kubernetesEvents(c, podChangeSteps(c, params))
  events.sort((a, b) => a.time - b.time || a.order - b.order)
  const doc = {data: events.map((e) => e.item), meta: {page: {}, elapsed: rng.int(8, 40), request_id: rng.chars('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 32), status: 'done'}}
  return JSON.stringify(doc, null, 2) + '\n'
}

/** The number of events `deployEventsV2` writes for these deploys. */
export function deployEventCount(deploys: TruthDeploy[], params: SimParams, podChanges: readonly TruthPodChange[] = []): number {
  return 2 * deploys.length + kubernetesMessageCount(deploys, params, podChanges)
}

/** The number of ScalingReplicaSet messages of deploys, restarts and scale-outs. */
export function kubernetesMessageCount(deploys: TruthDeploy[], params: SimParams, podChanges: readonly TruthPodChange[] = []): number {
  return kubernetesChanges(deploys, podChanges, params).reduce((n, c) => n + c.steps.reduce((m, s) => m + s.messages.length, 0), 0)
}

/** `kubectl get events -o json` of the namespace: one ScalingReplicaSet Event per message, per Deployment. */
export function kubectlEvents(deploys: TruthDeploy[], params: SimParams, podChanges: readonly TruthPodChange[] = []): string {
  const rng = new Rng(params.seed, 'kubectl-events')
  const uids = new Map<string, string>()
  let resourceVersion = 184_000 + rng.int(0, 9999)
  const items: {at: number; order: number; item: unknown}[] = []
  let order = 0
  for (const d of kubernetesChanges(deploys, podChanges, params)) {
    let deploymentUid = uids.get(d.service)
    if (!deploymentUid) uids.set(d.service, (deploymentUid = uuid(rng)))
    for (const step of d.steps) {
      for (const message of step.messages) {
        const at = isoSeconds(step.time)
        items.push({
          at: step.time,
          order: order++,
          item: {
            apiVersion: 'v1',
            count: 1,
            eventTime: null,
            firstTimestamp: at,
            involvedObject: {
              apiVersion: 'apps/v1', kind: 'Deployment', name: d.service, namespace: d.namespace, resourceVersion: '', uid: deploymentUid,
            },
            kind: 'Event',
            lastTimestamp: at,
            message,
            metadata: {creationTimestamp: at, name: `${d.service}.${rng.hex(16)}`, namespace: d.namespace, resourceVersion: '', uid: uuid(rng)},
            reason: 'ScalingReplicaSet',
            reportingComponent: 'deployment-controller',
            reportingInstance: '',
            source: {component: 'deployment-controller'},
            type: 'Normal',
          },
        })
      }
    }
  }
  items.sort((a, b) => a.at - b.at || a.order - b.order)
  // resourceVersions grow in the order the API server stored the events.
  const list = items.map(({item}) => {
    const i = item as {involvedObject: {resourceVersion: string}; metadata: {resourceVersion: string}}
    resourceVersion += rng.int(3, 40)
    i.involvedObject.resourceVersion = String(resourceVersion - 1)
    i.metadata.resourceVersion = String(resourceVersion)
    return item
  })
  return JSON.stringify({apiVersion: 'v1', items: list, kind: 'List', metadata: {resourceVersion: ''}}, null, 2) + '\n'
}
