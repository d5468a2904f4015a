import type {AnalysisReport, AppReport, DeployReport, IncidentReport} from '../model/report'
import {ADVICE_HEAD, ADVICE_LEGEND, adviceText, bestFix} from './advice'
import {type Column, fitTable} from './fit-table'
import {idList, listed, MAX_ROWS, moreLine, mostUsersFirst} from './listed'
import {RUM_HEAD, RUM_LEGEND, rumSentence, rumText} from './rum'
import {terminalSafe} from './sanitize'
import {notAccessLines} from './input-notes'
import {duration} from '../util/duration'
import {plural} from '../util/plural'

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

export {duration}

export const pct = (share: number): string => `${Math.round(share * 1000) / 10}%`
export {plural}

/** The app's name as a person reads it. */
export const appLabel = (app: string | null): string => app ?? '(unnamed)'

/** The answer: who was hurt and how, for how long, by which deploy; then the fix that would have prevented the most of it. */
export function headline(r: AnalysisReport): string {
  const t = r.totals
  if (r.rum?.withoutLogs) return rumSentence(r.rum)
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
  const stale = new Set(r.incidents.filter((i) => i.cause === 'stale-client').map((i) => i.id))
  if (stale.size > 0) {
    const users = new Set(r.affectedUsers.filter((u) => u.incidentIds.some((id) => stale.has(id))).map((u) => u.session)).size
    parts.push(`${plural(users, 'user')} on stale tabs failed after their build was retired`)
  }
  const unattributed = t.byCause.unattributed
  if (unattributed > 0) parts.push(`${plural(unattributed, 'failed request')} could not be tied to a deploy`)
  const fix = bestFix(r)
  return `${parts.join('; ')}.${fix ? ` Best fix: ${fix}.` : ''}${r.rum ? ` ${rumSentence(r.rum)}` : ''}`
}

const builds = (d: DeployReport): string => `${d.fromBuild ?? '?'} → ${d.toBuild ?? '?'}`

/**
 * Times as the tables show them: when the whole input lies in one UTC day, its date goes in the
 * section titles and cells show the time of day alone (with milliseconds where the log has them).
 */
interface Clock {
  at(iso: string): string
  /** ` (UTC, 2026-11-30)` or ` (UTC)`. */
  title: string
}

function clockOf(r: AnalysisReport): Clock {
  const first = r.input.first
  const last = r.input.last
  const oneDay = first !== null && last !== null && first.slice(0, 10) === last.slice(0, 10)
  return {
    at: (iso) => (oneDay ? shortTime(iso).slice(11).replace(/Z$/, '') : shortTime(iso).replace(/Z$/, '')),
    title: oneDay ? ` (UTC, ${(first as string).slice(0, 10)})` : ' (UTC)',
  }
}

/** A fitted table and, when columns had to go, a line that says which and how to see them. */
function fitted(columns: Column[], width: number | undefined): string {
  const {text, dropped} = fitTable(columns, width)
  return dropped.length > 0 ? `${text}\n(${dropped.join(', ')} left out to fit ${width} columns: --wide shows them)` : text
}

/** A table of at most MAX_ROWS rows, and a line saying how many more there are. */
function capped(table: string, more: number, line: () => string, width: number | undefined): string {
  return more > 0 ? `${table}\n${wrap(line(), width)}` : table
}

function deployTable(r: AnalysisReport, clock: Clock, width: number | undefined): string {
  const {shown: d, more, firstLeftOut} = listed(r.deploys, MAX_ROWS, mostUsersFirst)
  return capped(fitted([
    {head: 'Deploy', cells: d.map((x) => x.id)},
    ...(r.apps.length > 1 ? [{head: 'App', cells: d.map((x) => terminalSafe(appLabel(x.app))), shrink: true}] : []),
    {head: 'From', cells: d.map((x) => x.sources.join('+')), drop: 1, shrink: true},
    {head: 'Start', cells: d.map((x) => clock.at(x.start))},
    {head: 'Length', cells: d.map((x) => duration(x.windowSeconds)), align: 'right'},
    {head: 'Builds', cells: d.map(builds)},
    {head: 'Race', cells: d.map((x) => (x.rolloutWindow ? duration(x.rolloutWindow.seconds) : '-')), align: 'right'},
    {head: 'Users', cells: d.map((x) => x.affectedUsers), align: 'right'},
    {head: 'Crashed', cells: d.map((x) => `${x.byOutcome.crashed} of ${x.pageLoads}`), align: 'right'},
    {head: 'Stale', cells: d.map((x) => x.byCause['stale-client']), align: 'right', drop: 3},
    {head: 'Fwd/Bwd', cells: d.map((x) => `${x.byDirection.oldPageNewPod}/${x.byDirection.newPageOldPod}`), drop: 2},
    {head: 'Incidents', cells: d.map((x) => idList(x.incidentIds) || '-'), drop: 4, shrink: true},
  ], width), more, () => moreLine(more, 'deploy', `with at most ${plural(firstLeftOut?.affectedUsers ?? 0, 'user')} hit each`), width)
}

function incidentTable(r: AnalysisReport, clock: Clock, width: number | undefined): string {
  const {shown: inc, more, firstLeftOut} = listed<IncidentReport>(r.incidents, MAX_ROWS, mostUsersFirst)
  return capped(fitted([
    {head: 'Incident', cells: inc.map((i) => i.id)},
    {head: 'Cause', cells: inc.map((i) => i.cause)},
    {head: 'Deploy', cells: inc.map((i) => i.deployId ?? '-')},
    ...(r.apps.length > 1 ? [{head: 'App', cells: inc.map((i) => terminalSafe(appLabel(i.app))), shrink: true, drop: 5}] : []),
    {head: 'Start', cells: inc.map((i) => clock.at(i.start))},
    {head: 'Length', cells: inc.map((i) => duration(i.windowSeconds)), align: 'right'},
    {head: 'Users', cells: inc.map((i) => i.affectedUsers), align: 'right'},
    {head: 'Crashed', cells: inc.map((i) => `${i.byOutcome.crashed} of ${i.pageLoads}`), align: 'right'},
    {head: 'Lazy', cells: inc.map((i) => i.byOutcome.lazyChunkFailed), align: 'right', drop: 3},
    {head: 'Unstyled', cells: inc.map((i) => i.byOutcome.unstyled), align: 'right', drop: 2},
    {head: 'Failed', cells: inc.map((i) => i.failedRequests), align: 'right', drop: 4},
    {head: 'Fwd/Bwd', cells: inc.map((i) => `${i.byDirection.oldPageNewPod}/${i.byDirection.newPageOldPod}`), drop: 1},
  ], width), more, () => moreLine(more, 'incident', `with at most ${plural(firstLeftOut?.affectedUsers ?? 0, 'user')} each`), width)
}

function sessionTable(r: AnalysisReport, top: number, clock: Clock, width: number | undefined): string {
  const users = r.affectedUsers.slice(0, top)
  // Without an explicit session key the session is just ip + user agent: no need to print it twice.
  const explicit = users.some((u) => u.session !== `${u.clientIp} ${u.userAgent}`)
  return fitted([
    ...(explicit ? [{head: 'Session', cells: users.map((u) => terminalSafe(u.session)), shrink: true}] : []),
    {head: 'Client IP', cells: users.map((u) => terminalSafe(u.clientIp))},
    {head: 'First failure', cells: users.map((u) => clock.at(u.firstFailure))},
    {head: 'Failed', cells: users.map((u) => u.failedRequests), align: 'right'},
    {head: 'Crashed', cells: users.map((u) => `${u.brokenPageLoads} of ${u.affectedPageLoads}`), align: 'right'},
    {head: 'Incidents', cells: users.map((u) => idList(u.incidentIds)), drop: 1},
    {head: 'User agent', cells: users.map((u) => terminalSafe(u.userAgent)), shrink: true},
  ], width)
}

function buildTable(r: AnalysisReport, clock: Clock, width: number | undefined): string {
  const {shown: b, more, firstLeftOut} = listed(r.builds, MAX_ROWS, (x, y) => y.shellRequests - x.shellRequests)
  return capped(fitted([
    {head: 'Build', cells: b.map((x) => x.id)},
    ...(r.apps.length > 1 ? [{head: 'App', cells: b.map((x) => terminalSafe(appLabel(x.app))), shrink: true}] : []),
    {head: 'Known by', cells: b.map((x) => terminalSafe(x.entry ?? `shell ${x.shellBytes} B`)), shrink: true},
    {head: 'Shell bytes', cells: b.map((x) => x.shellBytes), align: 'right', drop: 3},
    {head: 'First served', cells: b.map((x) => clock.at(x.firstServed))},
    {head: 'Last served', cells: b.map((x) => clock.at(x.lastServed))},
    {head: 'Pods', cells: b.map((x) => x.pods ?? '-'), align: 'right', drop: 2},
    {head: 'Shells', cells: b.map((x) => x.shellRequests), align: 'right', drop: 1},
    {head: 'Version', cells: b.map((x) => terminalSafe(x.version ?? '-')), shrink: true, drop: 4},
  ], width), more, () => moreLine(more, 'build', `with at most ${plural(firstLeftOut?.shellRequests ?? 0, 'shell')} each`), width)
}

function appTable(r: AnalysisReport, width: number | undefined): string {
  const {shown: apps, more, firstLeftOut} = listed(r.apps, MAX_ROWS, (a, b) => b.affectedUsers - a.affectedUsers || b.pageLoads - a.pageLoads)
  return capped(fitted([
    {head: 'App', cells: apps.map((a) => terminalSafe(appLabel(a.name))), shrink: true},
    {head: 'Named by', cells: apps.map((a) => a.source), drop: 1},
    {head: 'Page loads', cells: apps.map((a) => a.pageLoads), align: 'right'},
    {head: 'Builds', cells: apps.map((a) => a.builds), align: 'right'},
    {head: 'Deploys', cells: apps.map((a) => a.deploys), align: 'right'},
    {head: 'Users hit', cells: apps.map((a) => a.affectedUsers), align: 'right'},
    {head: 'Crashed', cells: apps.map((a) => a.brokenPageLoads), align: 'right'},
  ], width), more, () => moreLine(more, 'app', `with at most ${plural(firstLeftOut?.affectedUsers ?? 0, 'user')} hit each`), width)
}

/** Per deploy (those with the most failures): what each fix would have prevented, a table of numbers and a note per fix. */
function adviceLines(r: AnalysisReport, width: number | undefined): string[] {
  const a = adviceText(r)
  if (!a) return []
  const out = ['Advice: which fix would have prevented which failures', wrap(terminalSafe(a.overall), width), '']
  for (const d of a.deploys) {
    const numeric = (i: number): boolean => i > 0 && i < 5
    out.push(wrap(terminalSafe(d.title), width), fitted(ADVICE_HEAD.map((head, i) => ({head, cells: d.rows.map((x) => terminalSafe(x[i] ?? '')), ...(numeric(i) ? {align: 'right' as const} : {})})), width))
    for (const line of [...d.notes, ...d.unknown]) out.push(wrap(terminalSafe(`- ${line}`), width))
    out.push('')
  }
  if (a.more) out.push(wrap(a.more, width), '')
  out.push(wrap(ADVICE_LEGEND, width), '')
  return out
}

/** What the browsers said (`--rum`): per deploy and incident hurt, then all; the accounts; how it was read and joined. */
function rumLines(r: AnalysisReport, width: number | undefined): string[] {
  const t = rumText(r)
  if (!t) return []
  const numeric = (i: number): boolean => i > 0 && i < 8
  const out = ['The browsers\' word (RUM)', fitted(RUM_HEAD.map((head, i) => ({head, cells: t.rows.map((x) => terminalSafe(x[i] ?? '')), ...(numeric(i) ? {align: 'right' as const} : {}), ...(i === 8 ? {shrink: true, drop: 1} : {})})), width)]
  if (t.accounts.shown.length > 0) out.push(wrap(terminalSafe(`Accounts hurt: ${t.accounts.shown.join(', ')}${t.accounts.more > 0 ? ` and ${t.accounts.more} more (--json lists them all)` : ''}`), width))
  for (const n of t.notes) out.push(wrap(terminalSafe(n), width))
  out.push(wrap(RUM_LEGEND, width), '')
  return out
}

/** Text wrapped at word boundaries to `width` columns (no wrap without a width). */
export function wrap(text: string, width: number | undefined): string {
  if (width === undefined || !Number.isFinite(width) || width < 20) return text
  return text.split('\n').map((line) => {
    const out: string[] = []
    let cur = ''
    for (const word of line.split(' ')) {
      if (cur !== '' && visible(cur) + 1 + visible(word) > width) {
        out.push(cur)
        cur = word
      } else cur = cur === '' ? word : `${cur} ${word}`
    }
    out.push(cur)
    return out.join('\n')
  }).join('\n')
}

function visible(s: string): number {
  let n = 0
  for (const _ of s) n++
  return n
}

function legend(r: AnalysisReport): string {
  if (r.incidents.length === 0 && r.deploys.length === 0) return ''
  return 'Race: first to last failure of the rollout race. Crashed: page loads whose script failed while loading, of the page loads in the window ' +
    '(the deploy ± margin, or the incident). Stale: failed requests of tabs whose build was no longer served. Lazy: routes broken later by a ' +
    'lazy chunk. Unstyled: only a stylesheet failed. Fwd: an old page asked a new pod; Bwd: a new page asked an old pod.'
}

function inputLines(r: AnalysisReport): string[] {
  const i = r.input
  const notAccess = notAccessLines(i)
  const out = [`Input: ${plural(i.records, 'record')} from ${plural(i.sources.length, 'source')}, ${i.used} used, ${i.skipped.total} skipped` +
    (notAccess > 0 ? ` (${notAccess} of them no request: error log lines, notices)` : '') + (i.first && i.last ? `; ${shortTime(i.first)} → ${shortTime(i.last)}` : '')]
  const sources = listed(i.sources)
  for (const s of sources.shown) out.push(`  ${terminalSafe(s.file)}: ${s.format}, ${plural(s.records, 'record')}, ${s.skipped} skipped`)
  if (sources.more > 0) out.push(`  ${moreLine(sources.more, 'source')}`)
  const reasons = Object.entries(i.skipped.byReason).sort((a, b) => b[1] - a[1])
  for (const [reason, n] of reasons) {
    const where = i.skipped.examples.filter((e) => e.reason === reason).map((e) => `${terminalSafe(e.file)}:${e.line}`).join(', ')
    out.push(`  ${reason === 'not-access-line' ? 'not traffic,' : 'skipped'} ${reason}: ${n}${where ? ` (first at ${where})` : ''}`)
  }
  const n = r.nonUser
  const parts = [
    n.crawlers.requests > 0 ? `crawlers ${plural(n.crawlers.requests, 'request')} from ${plural(n.crawlers.clients, 'client')} (${n.crawlers.failedRequests} got a shell or 404)` : '',
    n.probe.requests > 0 ? `skewscan's probe ${plural(n.probe.requests, 'request')}` : '',
    n.scanners.requests > 0 ? `scanners ${plural(n.scanners.requests, 'request')} for paths no build served, from ${plural(n.scanners.clients, 'client')}` : '',
    n.sourceMaps.failedRequests > 0 ? `${plural(n.sourceMaps.failedRequests, 'source map')} answered with a shell` : '',
  ].filter((x) => x !== '')
  if (parts.length > 0) out.push(`Not people, never counted as users: ${parts.join('; ')}.`)
  if (r.orphans.requests > 0) out.push(`Orphans: ${plural(r.orphans.requests, 'failed asset request')} of people with no page load behind them (older than the horizon), from ${plural(r.orphans.clients, 'client')}.`)
  const varying = listed(r.apps.filter((x) => x.shellLengthVaries))
  for (const a of varying.shown) {
    out.push(`App ${terminalSafe(appLabel(a.name))}: its shell's length varies per request (a dynamic homepage), so no response is known for a shell by its length; failures come from 404s and HTML content types only.`)
  }
  if (varying.more > 0) out.push(moreLine(varying.more, 'app', 'whose shell\'s length varies'))
  out.push(...evidenceLines(r))
  const unmatched = listed(r.unmatchedDeploys)
  for (const u of unmatched.shown) out.push(`Deploy record at ${shortTime(u.start)} (${u.sources.join('+')}${u.service ? `, ${terminalSafe(u.service)}` : ''}) matched no app: ${terminalSafe(u.reason)}.`)
  if (unmatched.more > 0) out.push(moreLine(unmatched.more, 'deploy record', 'that matched no app'))
  return out
}

/** What the logs could not tell of an app's builds, said once per kind of gap (the JSON has it per app). */
function evidenceLines(r: AnalysisReport): string[] {
  const withBuilds = r.apps.filter((a) => a.builds > 0)
  const names = (list: readonly AppReport[]): string => (r.apps.length === 1 ? 'The logs' : `Logs of ${list.map((a) => terminalSafe(appLabel(a.name))).slice(0, 3).join(', ')}${list.length > 3 ? ` and ${list.length - 3} more` : ''}`)
  const out: string[] = []
  const byLength = withBuilds.filter((a) => !a.buildEvidence.assets)
  if (byLength.length > 0) out.push(`${names(byLength)} show no content-hashed asset a page loaded: builds are told by shell length alone, and builds whose shells are as long count as one.`)
  const noPods = withBuilds.filter((a) => a.buildEvidence.assets && !a.buildEvidence.pods)
  if (noPods.length > 0) out.push(`${names(noPods)} name no pod: builds are told by the assets pages load; the build that answered a failure is the one served beside the page's at the time${noPods.some((a) => !a.buildEvidence.shellLengths) ? ' (the builds\' shells are as long, so a fallback body\'s length names no build)' : ''}.`)
  return out
}

/** The human report: the answer first, then deploys, incidents, sessions, builds and the input. */
export function renderTable(r: AnalysisReport, opts: TableOptions): string {
  const w = opts.width
  const clock = clockOf(r)
  const parts = [wrap(terminalSafe(headline(r)), w), '']
  if (r.apps.length > 1) parts.push('Apps', appTable(r, w), '')
  if (r.deploys.length > 0) parts.push(`Deploys${clock.title}`, deployTable(r, clock, w), '')
  if (r.incidents.length > 0) parts.push(`Incidents${clock.title}`, incidentTable(r, clock, w), '')
  const l = legend(r)
  if (l) parts.push(wrap(l, w), '')
  parts.push(...adviceLines(r, w), ...rumLines(r, w))
  if (r.affectedUsers.length > 0) {
    const shown = Math.min(opts.topSessions, r.affectedUsers.length)
    parts.push(`Most affected sessions (${shown} of ${r.affectedUsers.length})`, sessionTable(r, opts.topSessions, clock, w), '')
  }
  if (r.builds.length > 0) parts.push(`Builds${clock.title}`, buildTable(r, clock, w), '')
  parts.push(...inputLines(r).map((line) => wrap(line, w)))
  return `${parts.join('\n')}\n`
}
