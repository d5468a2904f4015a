import {DEFAULT_TIMING} from './browsers'
import type {DeployWindow, LabEvent} from './cluster'
import type {LabReport} from './report'
import {plural} from '../util/plural'

const clock = (t: number): string => new Date(t).toISOString().slice(11, 23)

/** One line per lab event, as it happens (stderr). */
export function renderLabEvent(e: LabEvent): string {
  switch (e.kind) {
    case 'pod-start': return `${clock(e.time)}  pod ${e.pod.name} started, build ${e.pod.build}, ${e.pod.address}${e.routed ? '' : ' (waiting for the switch)'}`
    case 'pod-stop': return `${clock(e.time)}  pod ${e.pod.name} stopped (out of the balancer), build ${e.pod.build}, ${e.pod.address}`
    case 'deploy-start': return `${clock(e.time)}  deploy ${e.deploy.id} started: ${e.deploy.from} → ${e.deploy.to}`
    case 'switch': return `${clock(e.time)}  deploy ${e.deploy.id}: balancer switched to ${e.deploy.to}`
    case 'deploy-end': return `${clock(e.time)}  deploy ${e.deploy.id} ended after ${windowSeconds(e.deploy).toFixed(1)} s`
  }
}

function windowSeconds(d: DeployWindow): number {
  return ((d.end ?? d.start) - d.start) / 1000
}

/**
 * analyze matches a declared deploy to the first build seen from `--deploy-margin` (60 s) before it;
 * when the lab's calm before a deploy is shorter than that, the margin must shrink with it.
 */
function marginHint(everySeconds: number): string {
  if (everySeconds >= 120) return ''
  return everySeconds >= 2 ? ` --deploy-margin ${Math.floor(everySeconds / 2)}s` : ` --deploy-margin ${Math.round(everySeconds * 500)}ms`
}

/**
 * analyze tells a page's lazy loads from its initial load by a pause (`--lazy-gap`, 3 s), and the
 * lab's browsers import their lazy chunk sooner (from 300 ms after the page loaded): with RUM beside
 * the log, where the browser says which it was, the gap must shrink below that. The lab's initial
 * load has no pause but the pods' latency.
 */
function lazyGapHint(latencyMs: number): string {
  return ` --lazy-gap ${latencyMs + Math.floor(DEFAULT_TIMING.lazyMs[0] / 2)}ms`
}

/** What the lab's simulated browsers went through, and where its files are (stdout at the end). */
export function renderLabReport(r: LabReport): string {
  const s = r.settings
  const b = r.browsers
  const lines = [
    `Lab ${r.url}: ${plural(s.replicas, 'pod')}, ${s.affinity === 'cookie' ? 'cookie affinity' : 'round-robin'}, ${s.strategy}, ${s.missing === '404' ? '404 for missing assets' : 'SPA fallback'}${s.keepOldAssets ? ', old assets kept' : ''}; ${plural(r.deploys.length, 'deploy')}; ${r.stoppedBy === 'interrupt' ? 'interrupted' : `stopped (${r.stoppedBy})`}.`,
  ]
  for (const d of r.deploys) lines.push(`  deploy ${d.id} ${d.from} → ${d.to}: ${d.start.slice(11)} → ${d.end?.slice(11) ?? '-'} (${d.windowSeconds ?? '-'} s)`)
  lines.push(b.browsers === 0
    ? 'No simulated browsers (--browsers 0).'
    : `Simulated browsers: ${s.browsers} at a time, ${plural(b.browsers, 'visitor')}, ${plural(b.pageLoads, 'page load')}, ${b.brokenPageLoads} broken (${b.perThousand} per 1000; ${b.byPhase.load} while loading, ${b.byPhase.lazy} later), ${plural(b.affectedUsers, 'user')} hit of ${b.exposedUsers} busy during deploys, ${plural(b.failedRequests, 'failed request')} (HTML ${b.bySymptom.html}, 404 ${b.bySymptom.missing}; old page → new pod ${b.byDirection.oldPageNewPod}, new page → old pod ${b.byDirection.newPageOldPod}); ${plural(b.errors, 'error')}.`)
  if (b.firstFailure !== null) lines.push(`Failure window: ${b.firstFailure.slice(11)} → ${b.lastFailure?.slice(11) ?? '-'} (${b.windowSeconds} s).`)
  lines.push(`Balancer: ${plural(r.requests, 'request')}.`)
  if (r.files.log) lines.push(`Access log (Datadog NDJSON): ${r.files.log}`)
  if (r.files.ingressLog) lines.push(`Access log (ingress-nginx): ${r.files.ingressLog}`)
  if (r.files.deploys) lines.push(`Deploy windows: ${r.files.deploys}`)
  if (r.files.rum && r.rum) {
    const u = r.rum
    lines.push(`RUM events (Datadog RUM search API): ${r.files.rum} (${u.sampledSessions} of ${plural(u.sessions, 'session')} sampled, ${u.signedIn} signed in; ${plural(u.views, 'view')}, ${plural(u.resources, 'resource')}, ${plural(u.errors, 'error')})`)
  }
  const rum = r.files.rum ? ` --rum ${r.files.rum}${lazyGapHint(s.latencyMs)}` : ''
  if (r.files.log) lines.push(`Check it: skewscan analyze ${r.files.log}${r.files.deploys ? ` --deploys ${r.files.deploys}` : ''}${marginHint(s.everySeconds)}${rum}`)
  return `${lines.join('\n')}\n`
}
