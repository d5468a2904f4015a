/**
 * The RUM join at scale (analysis/rum.ts joinRum): N failed page loads of the log over ten minutes
 * (default 30,000: 50 a second, five entry bundles), RUM views for 80% of them, half without client
 * addresses, the browsers' clocks 7 s fast. Prints the time the join took and what it found (all
 * crashes confirmed, none unexplained, joins by address and asset or by the asset alone).
 * `npx ts-node --transpile-only bench/rum-join.ts [N]`
 */
import {joinRum} from '../src/analysis/rum'
import type {AnalysisReport, FailureRecord} from '../src/model/report'
import type {RumEvent} from '../src/model/rum'
const N = Number(process.argv[2] ?? 30000)
const T0 = Date.parse('2026-11-30T07:00:00Z')
const failures: FailureRecord[] = []
const events: RumEvent[] = []
for (let i = 0; i < N; i++) {
  const t = T0 + Math.floor((i / N) * 600_000)
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`
  const path = `/_build/index.${(i % 5).toString(16).padStart(8, '0')}.js`
  failures.push({time: new Date(t + 50).toISOString(), app: 'web', cause: 'rollout', deployId: 'D1', incidentId: 'I1', reason: 'fallback', direction: 'oldPageNewPod', asset: 'script', phase: 'initial', method: 'GET', path, status: 200, bytes: 3385, session: ip, clientIp: ip, userAgent: 'UA', service: null, pageLoad: {id: i, time: new Date(t).toISOString(), path: '/', build: 'B1'}, servingBuild: 'B2', source: {file: 'x', line: i}})
  if (i % 5 === 4) continue
  const common = {session: `s${i}`, view: `v${i}`, ...(i % 2 === 0 ? {clientIp: ip} : {}), location: {file: 'r', line: i}}
  events.push({kind: 'view', time: t + 7000, loadingType: 'initial_load', ...common})
  events.push({kind: 'resource', time: t + 7040, resource: {url: `https://x${path}`, path, type: 'js', status: 200, size: 3385}, ...common})
  events.push({kind: 'error', time: t + 7060, error: {message: "Uncaught SyntaxError: Unexpected token '<'"}, ...common})
}
events.sort((a, b) => a.time - b.time)
const report = {input: {first: new Date(T0).toISOString(), last: new Date(T0 + 600_000).toISOString()}, totals: {pageLoads: N}, deploys: [], incidents: [], builds: []} as unknown as AnalysisReport
const t0 = process.hrtime.bigint()
const r = joinRum(report, failures, {events, input: {files: [], views: 0, resources: 0, errors: 0, skipped: {total: 0, byReason: {}, examples: []}}}, {deployMarginMs: 60_000}).report
const ms = Number(process.hrtime.bigint() - t0) / 1e6
console.log(N, 'page loads', events.length, 'events', `${ms.toFixed(0)} ms`, JSON.stringify({c: r.rum?.crashedPageLoads, cf: r.rum?.confirmed, u: r.rum?.unexplained, j: r.rum?.joins}))
