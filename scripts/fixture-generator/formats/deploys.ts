/**
 * Deploy records in the shapes the analyzer reads: a simple JSON/CSV list, Datadog Events API v2
 * (Kubernetes bundled events from the agent's kubernetes_apiserver check) and `kubectl get events -o json`.
 */
import {scalingMessages} from '../cluster'
import {Rng} from '../rng'
import {goTime, isoSeconds} from '../time'
import type {SimParams, TruthDeploy} from '../types'
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

/** The scaling steps of a deploy at their real times (one step every `step` seconds). */
export function deploySteps(d: TruthDeploy, params: SimParams): Step[] {
  const start = Date.parse(d.start)
  const steps: Step[] = []
  for (let i = 0; i <= params.replicas; i++) {
    steps.push({
      time: start + i * params.step * 1000,
      messages: scalingMessages(d.fromReplicaSet, d.toReplicaSet, params.replicas, i),
    })
  }
  return steps
}

function uuid(rng: Rng): string {
  const h = rng.hex(32)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`
}

/**
 * A v2 events search response: one bundled event per scaling step. Text follows the agent's
 * bundle format: sorted `<count> **<Reason>**: <message>\n` parts joined by a space.
 */
export function deployEventsV2(deploys: TruthDeploy[], params: SimParams): string {
  const rng = new Rng(params.seed, 'deploy-events')
  const deploymentUid = uuid(rng)
  const data = []
  for (const d of deploys) {
    for (const step of deploySteps(d, params)) {
      const parts = step.messages.map((m) => `**ScalingReplicaSet**: ${m}\n`).sort()
      const text =
        `%%% \n${parts.map((p) => `1 ${p}`).join(' ')} \n _Events emitted by the deployment-controller seen at ` +
        `${goTime(step.time)} since ${goTime(step.time)}_ \n\n %%%`
      const idBuf = Buffer.alloc(16)
      idBuf[0] = 0
      idBuf.writeUIntBE(step.time, 3, 6)
      idBuf.writeUIntBE(rng.int(0, 0xffffff), 9, 3)
      data.push({
        id: idBuf.toString('base64').replace(/=+$/, ''),
        type: 'event',
        attributes: {
          timestamp: isoSeconds(step.time),
          message: text,
          tags: [
            'source:kubernetes',
            `kube_deployment:${params.service}`,
            'kube_namespace:default',
            'kube_kind:Deployment',
            `kube_name:${params.service}`,
            'kubernetes_kind:Deployment',
            `name:${params.service}`,
            'namespace:default',
            'source_component:deployment-controller',
            'orchestrator:kubernetes',
          ],
          attributes: {
            title: `Events from the Deployment default/${params.service}`,
            status: 'info',
            priority: 'normal',
            aggregation_key: `kubernetes_apiserver:${deploymentUid}`,
            source_type_name: 'kubernetes',
            timestamp: step.time,
            evt: {id: String(rng.int(1e9, 9e9)) + String(rng.int(1e8, 9e8)), type: 'kubernetes_apiserver'},
          },
        },
      })
    }
  }
  return JSON.stringify({data, meta: {page: {}}}, null, 2) + '\n'
}

/** `kubectl get events -o json` for the Deployment: one Event per scaling message. */
export function kubectlEvents(deploys: TruthDeploy[], params: SimParams): string {
  const rng = new Rng(params.seed, 'kubectl-events')
  const deploymentUid = uuid(rng)
  let resourceVersion = 184_000 + rng.int(0, 9999)
  const items = []
  for (const d of deploys) {
    for (const step of deploySteps(d, params)) {
      for (const message of step.messages) {
        const at = isoSeconds(step.time)
        resourceVersion += rng.int(3, 40)
        items.push({
          apiVersion: 'v1',
          count: 1,
          eventTime: null,
          firstTimestamp: at,
          involvedObject: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            name: params.service,
            namespace: 'default',
            resourceVersion: String(resourceVersion - 1),
            uid: deploymentUid,
          },
          kind: 'Event',
          lastTimestamp: at,
          message,
          metadata: {
            creationTimestamp: at,
            name: `${params.service}.${rng.hex(16)}`,
            namespace: 'default',
            resourceVersion: String(resourceVersion),
            uid: uuid(rng),
          },
          reason: 'ScalingReplicaSet',
          reportingComponent: 'deployment-controller',
          reportingInstance: '',
          source: {component: 'deployment-controller'},
          type: 'Normal',
        })
      }
    }
  }
  return JSON.stringify({apiVersion: 'v1', items, kind: 'List', metadata: {resourceVersion: ''}}, null, 2) + '\n'
}
