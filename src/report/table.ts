import Table from 'cli-table3'
import type {AnalysisReport, DeployReport, IncidentReport} from '../model/report'
import {terminalSafe, truncate} from './sanitize'

export interface TableOptions {
  /** How many of the most affected sessions to list. */
  topSessions: number
}

const plain = {head: [] as string[], border: [] as string[]}

const LEGEND = [
  'Fwd: an old page asked a pod of the new build (forward skew); Bwd: a new page asked an old pod (backward skew).',
  'Shell/404/type: the asset came back as the app shell (same byte length), as 404/410, or as text/html.',
  'rollout: inside a deploy window; stale-client: after it, from tabs of a build no longer served.',
].join('\n')

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

const pct = (share: number): string => `${Math.round(share * 1000) / 10}%`
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`

/** The answer in one sentence. */
export function headline(r: AnalysisReport): string {
  const t = r.totals
  if (r.input.records === 0) return 'No records in the input: nothing to analyse.'
  if (r.incidents.length === 0) {
    return `No broken page loads found in ${plural(t.pageLoads, 'page load')} (${plural(r.deploys.length, 'deploy')} seen).`
  }
  const parts = [`${plural(t.affectedUsers, 'user')} hit broken pages (${t.brokenPageLoads} of ${t.pageLoads} page loads) in ${plural(r.incidents.length, 'incident')} across ${plural(r.deploys.length, 'deploy')}`]
  const rollouts = r.incidents.filter((i) => i.cause === 'rollout')
  const longest = [...(rollouts.length > 0 ? rollouts : r.incidents)].sort((a, b) => b.windowSeconds - a.windowSeconds)[0] as IncidentReport
  const deploy = r.deploys.find((d) => d.id === longest.deployId)
  const when = deploy ? `, ${longest.cause === 'rollout' ? 'during' : 'after'} deploy ${deploy.id} (${deploy.fromBuild ?? '?'} → ${deploy.toBuild ?? '?'}) at ${shortTime(deploy.start)}` : ''
  parts.push(`the longest ${longest.cause === 'rollout' ? 'rollout ' : ''}window was ${duration(longest.windowSeconds)}${when}`)
  const stale = r.incidents.filter((i) => i.cause === 'stale-client')
  if (stale.length > 0 && rollouts.length > 0) {
    const users = stale.reduce((n, i) => n + i.affectedUsers, 0)
    parts.push(`${plural(users, 'user')} on stale tabs failed after the deploy had ended`)
  }
  return `${parts.join('; ')}.`
}

function deployTable(deploys: DeployReport[]): string {
  const t = new Table({head: ['Deploy', 'Source', 'Window (UTC)', 'Length', 'Builds', 'Users', 'Broken/loads', 'Fwd', 'Bwd', 'Incidents'], style: plain})
  for (const d of deploys) {
    t.push([
      d.id, d.sources.join('+'), span(d.start, d.end), duration(d.windowSeconds), `${d.fromBuild ?? '?'} → ${d.toBuild ?? '?'}`,
      d.affectedUsers, `${d.affectedPageLoads}/${d.pageLoads}`, d.byDirection.oldPageNewPod, d.byDirection.newPageOldPod,
      d.incidentIds.join(' ') || '-',
    ])
  }
  return t.toString()
}

function incidentTable(incidents: IncidentReport[]): string {
  const t = new Table({head: ['Incident', 'Kind', 'Deploy', 'Window (UTC)', 'Length', 'Users', 'Broken/loads', 'Share', 'Failed', 'Fwd/Bwd/?', 'Shell/404/type'], style: plain})
  for (const i of incidents) {
    t.push([
      i.id, i.cause, i.deployId ?? '-', span(i.start, i.end), duration(i.windowSeconds), i.affectedUsers,
      `${i.affectedPageLoads}/${i.pageLoads}`, pct(i.brokenShare), i.failedRequests,
      `${i.byDirection.oldPageNewPod}/${i.byDirection.newPageOldPod}/${i.byDirection.unknown}`,
      `${i.byReason.fallback}/${i.byReason.missing}/${i.byReason.contentType}`,
    ])
  }
  return t.toString()
}

function sessionTable(r: AnalysisReport, top: number): string {
  const users = r.affectedUsers.slice(0, top)
  // Without an explicit session key the session is just ip + user agent: no need to print it twice.
  const explicit = users.some((u) => u.session !== `${u.clientIp} ${u.userAgent}`)
  const t = new Table({head: [...(explicit ? ['Session'] : []), 'Client IP', 'User agent', 'First failure', 'Failed req', 'Broken loads', 'Incidents'], style: plain})
  for (const u of users) {
    t.push([
      ...(explicit ? [terminalSafe(truncate(u.session, 40))] : []), terminalSafe(u.clientIp), terminalSafe(truncate(u.userAgent, 60)),
      shortTime(u.firstFailure), u.failedRequests, u.brokenPageLoads, u.incidentIds.join(' '),
    ])
  }
  return t.toString()
}

function buildTable(r: AnalysisReport): string {
  const t = new Table({head: ['Build', 'Shell bytes', 'First seen', 'Last seen', 'Shell requests', 'Version'], style: plain})
  for (const b of r.builds) t.push([b.id, b.shellBytes, shortTime(b.firstSeen), shortTime(b.lastSeen), b.shellRequests, terminalSafe(b.version ?? '-')])
  return t.toString()
}

function inputLines(r: AnalysisReport): string[] {
  const i = r.input
  const out = [`Input: ${i.records} records from ${plural(i.sources.length, 'source')}, ${i.used} used, ${i.skipped.total} skipped` +
    (i.first && i.last ? `; ${shortTime(i.first)} → ${shortTime(i.last)}` : '')]
  for (const s of i.sources) out.push(`  ${terminalSafe(s.file)}: ${s.format}, ${s.records} records, ${s.skipped} skipped`)
  const reasons = Object.entries(i.skipped.byReason).sort((a, b) => b[1] - a[1])
  for (const [reason, n] of reasons) {
    const where = i.skipped.examples.filter((e) => e.reason === reason).map((e) => `${terminalSafe(e.file)}:${e.line}`).join(', ')
    out.push(`  skipped ${reason}: ${n}${where ? ` (first at ${where})` : ''}`)
  }
  out.push(`Orphan hits (old asset URLs with no page load behind them: crawlers, scanners; not users): ${r.orphans.requests} requests from ${plural(r.orphans.clients, 'client')}`)
  return out
}

/** The human report: the answer first, then deploys, incidents, sessions, builds and the input. */
export function renderTable(r: AnalysisReport, opts: TableOptions): string {
  const parts = [headline(r), '']
  if (r.deploys.length > 0) parts.push('Deploys', deployTable(r.deploys), '')
  if (r.incidents.length > 0) parts.push('Incidents', incidentTable(r.incidents), '')
  if (r.deploys.length > 0 || r.incidents.length > 0) parts.push(LEGEND, '')
  if (r.affectedUsers.length > 0) {
    const shown = Math.min(opts.topSessions, r.affectedUsers.length)
    parts.push(`Most affected sessions (${shown} of ${r.affectedUsers.length})`, sessionTable(r, opts.topSessions), '')
  }
  if (r.builds.length > 0) parts.push('Builds (by shell length)', buildTable(r), '')
  parts.push(...inputLines(r))
  return `${parts.join('\n')}\n`
}
