import type {AnalysisReport, DeployReport, IncidentReport} from '../model/report'
import {fitTable} from './fit-table'
import {terminalSafe} from './sanitize'

export interface TableOptions {
  /** How many of the most affected sessions to list. */
  topSessions: number
  /** The terminal's width: tables are fitted to it (their widest columns shortened). Undefined: natural width. */
  width?: number
}

/** `2026-11-29T14:02:10.000Z` -> `2026-11-29 14:02:10` (UTC, as in the logs' second resolution). */
export function shortTime(iso: string): string {
  return iso.replace('T', ' ').replace(/\.000Z$/, 'Z').replace(/(\.\d{3})Z$/, '$1Z')
}

function span(start: string, end: string): string {
  const s = shortTime(start)
  const e = shortTime(end)
  return s.slice(0, 10) === e.slice(0, 10) ? `${s} → ${e.slice(11)}` : `${s} → ${e}`
}

export function duration(seconds: number): string {
  if (seconds < 120) return `${Math.round(seconds * 10) / 10} s`
  const m = Math.floor(seconds / 60)
  if (m < 120) return `${m} min ${Math.round(seconds - m * 60)} s`
  return `${Math.floor(m / 60)} h ${m % 60} min`
}

export const pct = (share: number): string => `${Math.round(share * 1000) / 10}%`
export const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`

/** The app's name as a person reads it. */
export const appLabel = (app: string | null): string => app ?? '(unnamed)'

/** The answer in one sentence: who was hurt and how, for how long, by which deploy. */
export function headline(r: AnalysisReport): string {
  const t = r.totals
  if (r.input.records === 0) return 'No records in the input: nothing to analyse.'
  if (t.failedRequests === 0) {
    return `No failed asset requests of people in ${plural(t.pageLoads, 'page load')} (${plural(r.deploys.length, 'deploy')} seen).`
  }
  const hurt = [`${plural(t.byOutcome.crashed, 'page load')} of ${t.pageLoads} crashed`]
  if (t.byOutcome.lazyChunkFailed > 0) hurt.push(`${t.byOutcome.lazyChunkFailed} lost a route to a lazy chunk`)
  if (t.byOutcome.unstyled > 0) hurt.push(`${t.byOutcome.unstyled} loaded unstyled`)
  if (t.byOutcome.degraded > 0) hurt.push(`${t.byOutcome.degraded} lost an image or font`)
  const apps = r.apps.length > 1 ? ` across ${r.apps.length} apps` : ''
  const parts = [`${plural(t.affectedUsers, 'user')} hit failed assets${apps}: ${hurt.join(', ')}`]
  const races = r.deploys.filter((d) => d.rolloutWindow !== null)
  const longest = [...races].sort((a, b) => (b.rolloutWindow?.seconds ?? 0) - (a.rolloutWindow?.seconds ?? 0))[0]
  if (longest?.rolloutWindow) {
    const where = r.apps.length > 1 ? ` of ${appLabel(longest.app)}` : ''
    parts.push(`the longest rollout race lasted ${duration(longest.rolloutWindow.seconds)}, in deploy ${longest.id}${where} (${longest.fromBuild ?? '?'} → ${longest.toBuild ?? '?'}) from ${shortTime(longest.rolloutWindow.start)}`)
  }
  const stale = r.incidents.filter((i) => i.cause === 'stale-client')
  if (stale.length > 0) {
    const users = new Set(r.affectedUsers.filter((u) => u.incidentIds.some((id) => stale.some((s) => s.id === id))).map((u) => u.session)).size
    parts.push(`${plural(users, 'user')} on stale tabs failed after their build was retired`)
  }
  const unattributed = t.byCause.unattributed
  if (unattributed > 0) parts.push(`${plural(unattributed, 'failed request')} could not be tied to a deploy`)
  return `${parts.join('; ')}.`
}

const builds = (d: DeployReport): string => `${d.fromBuild ?? '?'} → ${d.toBuild ?? '?'}`

function deployTable(r: AnalysisReport, width: number | undefined): string {
  const apps = r.apps.length > 1
  const head = ['Deploy', ...(apps ? ['App'] : []), 'Window (UTC)', 'Builds', 'Race', 'Users', 'Crashed', 'Stale', 'Incidents']
  const rows = r.deploys.map((d) => [
    `${d.id} ${d.sources.includes('inferred') ? '(inferred)' : `(${d.sources.join('+')})`}`, ...(apps ? [terminalSafe(appLabel(d.app))] : []),
    `${span(d.start, d.end)} (${duration(d.windowSeconds)})`, builds(d),
    d.rolloutWindow ? duration(d.rolloutWindow.seconds) : '-', d.affectedUsers,
    `${d.byOutcome.crashed} of ${d.pageLoads}`, d.byCause['stale-client'], d.incidentIds.join(' ') || '-',
  ])
  return fitTable(head, rows, {width, shrinkable: apps ? [1, 2, 8] : [1, 7]})
}

function incidentTable(r: AnalysisReport, width: number | undefined): string {
  const apps = r.apps.length > 1
  const head = ['Incident', 'Cause', 'Deploy', ...(apps ? ['App'] : []), 'Window (UTC)', 'Users', 'Crashed', 'Lazy', 'Unstyled', 'Failed', 'Fwd/Bwd']
  const rows = r.incidents.map((i: IncidentReport) => [
    i.id, i.cause, i.deployId ?? '-', ...(apps ? [terminalSafe(appLabel(i.app))] : []),
    `${span(i.start, i.end)} (${duration(i.windowSeconds)})`, i.affectedUsers,
    `${i.byOutcome.crashed} of ${i.pageLoads} (${pct(i.brokenShare)})`, i.byOutcome.lazyChunkFailed, i.byOutcome.unstyled, i.failedRequests,
    `${i.byDirection.oldPageNewPod}/${i.byDirection.newPageOldPod}`,
  ])
  return fitTable(head, rows, {width, shrinkable: apps ? [3, 4] : [3]})
}

function sessionTable(r: AnalysisReport, top: number, width: number | undefined): string {
  const users = r.affectedUsers.slice(0, top)
  // Without an explicit session key the session is just ip + user agent: no need to print it twice.
  const explicit = users.some((u) => u.session !== `${u.clientIp} ${u.userAgent}`)
  const head = [...(explicit ? ['Session'] : []), 'Client IP', 'User agent', 'First failure', 'Failed', 'Crashed', 'Incidents']
  const rows = users.map((u) => [
    ...(explicit ? [terminalSafe(u.session)] : []), terminalSafe(u.clientIp), terminalSafe(u.userAgent),
    shortTime(u.firstFailure), u.failedRequests, `${u.brokenPageLoads} of ${u.affectedPageLoads}`, u.incidentIds.join(' '),
  ])
  const ua = explicit ? 2 : 1
  return fitTable(head, rows, {width, shrinkable: explicit ? [0, ua] : [ua]})
}

function buildTable(r: AnalysisReport, width: number | undefined): string {
  const apps = r.apps.length > 1
  const head = ['Build', ...(apps ? ['App'] : []), 'Shell bytes', 'Served (UTC)', 'Shells', 'Version']
  const rows = r.builds.map((b) => [b.id, ...(apps ? [terminalSafe(appLabel(b.app))] : []), b.shellBytes, span(b.firstSeen, b.lastServed), b.shellRequests, terminalSafe(b.version ?? '-')])
  return fitTable(head, rows, {width, shrinkable: apps ? [1, 5] : [4]})
}

function legend(r: AnalysisReport): string {
  const lines = [
    'Race: first to last failure of the rollout race. Crashed: page loads whose script failed while loading, of the page loads in the',
    'window (deploy ± margin, or incident). Stale: failed requests of tabs whose build was no longer served. Lazy: routes broken by a',
    'lazy chunk later; Unstyled: only a stylesheet failed. Fwd: an old page asked a new pod; Bwd: a new page asked an old pod.',
  ]
  return r.incidents.length > 0 || r.deploys.length > 0 ? lines.join('\n') : ''
}

function inputLines(r: AnalysisReport): string[] {
  const i = r.input
  const out = [`Input: ${plural(i.records, 'record')} from ${plural(i.sources.length, 'source')}, ${i.used} used, ${i.skipped.total} skipped` +
    (i.first && i.last ? `; ${shortTime(i.first)} → ${shortTime(i.last)}` : '')]
  for (const s of i.sources) out.push(`  ${terminalSafe(s.file)}: ${s.format}, ${plural(s.records, 'record')}, ${s.skipped} skipped`)
  const reasons = Object.entries(i.skipped.byReason).sort((a, b) => b[1] - a[1])
  for (const [reason, n] of reasons) {
    const where = i.skipped.examples.filter((e) => e.reason === reason).map((e) => `${terminalSafe(e.file)}:${e.line}`).join(', ')
    out.push(`  skipped ${reason}: ${n}${where ? ` (first at ${where})` : ''}`)
  }
  const n = r.nonUser
  out.push(`Not people (never users or page loads): crawlers ${plural(n.crawlers.requests, 'request')} from ${plural(n.crawlers.clients, 'client')}` +
    ` (${n.crawlers.failedRequests} got a shell or 404), our probe ${plural(n.probe.requests, 'request')}, scanners ${plural(n.scanners.requests, 'probe')} of paths no build served` +
    ` from ${plural(n.scanners.clients, 'client')}, source maps answered with a shell ${n.sourceMaps.failedRequests}.`)
  if (r.orphans.requests > 0) out.push(`Orphans: ${plural(r.orphans.requests, 'failed asset request')} of people with no page load behind them (older than the horizon), from ${plural(r.orphans.clients, 'client')}.`)
  for (const a of r.apps.filter((x) => x.shellLengthVaries)) {
    out.push(`App ${terminalSafe(appLabel(a.name))}: its shell's length varies per request (a dynamic homepage), so lengths tell no builds; failures come from 404s and HTML content types only.`)
  }
  for (const u of r.unmatchedDeploys) out.push(`Deploy record at ${shortTime(u.start)} (${u.sources.join('+')}${u.service ? `, ${terminalSafe(u.service)}` : ''}) matched no app: ${terminalSafe(u.reason)}.`)
  return out
}

/** The human report: the answer first, then deploys, incidents, sessions, builds and the input. */
export function renderTable(r: AnalysisReport, opts: TableOptions): string {
  const w = opts.width
  const parts = [terminalSafe(headline(r)), '']
  if (r.apps.length > 1) {
    parts.push('Apps', fitTable(['App', 'By', 'Page loads', 'Builds', 'Deploys', 'Users hit', 'Crashed'],
      r.apps.map((a) => [terminalSafe(appLabel(a.name)), a.source, a.pageLoads, a.builds, a.deploys, a.affectedUsers, a.brokenPageLoads]), {width: w, shrinkable: [0]}), '')
  }
  if (r.deploys.length > 0) parts.push('Deploys', deployTable(r, w), '')
  if (r.incidents.length > 0) parts.push('Incidents', incidentTable(r, w), '')
  const l = legend(r)
  if (l) parts.push(l, '')
  if (r.affectedUsers.length > 0) {
    const shown = Math.min(opts.topSessions, r.affectedUsers.length)
    parts.push(`Most affected sessions (${shown} of ${r.affectedUsers.length})`, sessionTable(r, opts.topSessions, w), '')
  }
  if (r.builds.length > 0) parts.push('Builds (by shell length)', buildTable(r, w), '')
  parts.push(...inputLines(r))
  return `${parts.join('\n')}\n`
}
