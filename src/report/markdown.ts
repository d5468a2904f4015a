import type {AnalysisReport} from '../model/report'
import {ADVICE_HEAD, ADVICE_LEGEND, adviceText} from './advice'
import {RUM_HEAD, RUM_LEGEND, rumText} from './rum'
import {idList, listed, MAX_ROWS, moreLine, mostUsersFirst} from './listed'
import {appLabel, duration, headline, pct, plural, shortTime} from './table'
import {TERMINAL_UNSAFE} from './sanitize'
import {notAccessLines} from './input-notes'

/** Log-derived text in a Markdown table cell: no pipes, no HTML, no links, no line breaks. */
export function mdCell(s: string): string {
  // Markdown is read in terminals and chat: no control character, C1 or bidirectional, reaches either.
  return s.replace(TERMINAL_UNSAFE, ' ').replace(/([\\|`*_[\]<>#!])/g, '\\$1')
}

/** For tickets and chat: the one-sentence answer and the per-deploy table (plus incidents). */
export function renderMarkdown(r: AnalysisReport): string {
  const out = ['## skewscan: stale-bundle failures', '', mdCell(headline(r)), '']
  const apps = r.apps.length > 1
  if (r.deploys.length > 0) {
    out.push(`| Deploy |${apps ? ' App |' : ''} Window (UTC) | Builds | Rollout race | Users hit | Crashed page loads | Stale-tab failures | Incidents |`,
      `| --- |${apps ? ' --- |' : ''} --- | --- | --- | ---: | ---: | ---: | --- |`)
    const {shown, more, firstLeftOut} = listed(r.deploys, MAX_ROWS, mostUsersFirst)
    for (const d of shown) {
      out.push(`| ${d.id} (${d.sources.join('+')}) |${apps ? ` ${mdCell(appLabel(d.app))} |` : ''} ${shortTime(d.start)} → ${shortTime(d.end)} (${duration(d.windowSeconds)}) | ${d.fromBuild ?? '?'} → ${d.toBuild ?? '?'} | ` +
        `${d.rolloutWindow ? duration(d.rolloutWindow.seconds) : '-'} | ${d.affectedUsers} | ${d.byOutcome.crashed} of ${d.pageLoads} | ${d.byCause['stale-client']} | ${idList(d.incidentIds, ', ') || '-'} |`)
    }
    if (more > 0) out.push('', `_${mdCell(moreLine(more, 'deploy', `with at most ${plural(firstLeftOut?.affectedUsers ?? 0, 'user')} hit each`))}_`)
    out.push('')
  }
  if (r.incidents.length > 0) {
    out.push(`| Incident | Cause | Deploy |${apps ? ' App |' : ''} Window (UTC) | Users | Crashed (share of page loads) | Lazy chunk | Unstyled | Failed requests |`,
      `| --- | --- | --- |${apps ? ' --- |' : ''} --- | ---: | ---: | ---: | ---: | ---: |`)
    const {shown, more, firstLeftOut} = listed(r.incidents, MAX_ROWS, mostUsersFirst)
    for (const i of shown) {
      out.push(`| ${i.id} | ${i.cause} | ${i.deployId ?? '-'} |${apps ? ` ${mdCell(appLabel(i.app))} |` : ''} ${shortTime(i.start)} → ${shortTime(i.end)} (${duration(i.windowSeconds)}) | ` +
        `${i.affectedUsers} | ${i.byOutcome.crashed} of ${i.pageLoads} (${pct(i.brokenShare)}) | ${i.byOutcome.lazyChunkFailed} | ${i.byOutcome.unstyled} | ${i.failedRequests} |`)
    }
    if (more > 0) out.push('', `_${mdCell(moreLine(more, 'incident', `with at most ${plural(firstLeftOut?.affectedUsers ?? 0, 'user')} each`))}_`)
    out.push('')
  }
  out.push(...adviceMarkdown(r), ...rumMarkdown(r))
  const i = r.input
  const n = r.nonUser
  const notAccess = notAccessLines(i)
  out.push(`_${plural(i.records, 'record')} read (${i.skipped.total} skipped${notAccess > 0 ? `, ${notAccess} of them no request` : ''})${i.first && i.last ? `, ${shortTime(i.first)} → ${shortTime(i.last)}` : ''}; ` +
    `not people, not counted: crawlers ${plural(n.crawlers.requests, 'request')}, probe ${n.probe.requests}, scanners ${n.scanners.requests}._`, '')
  return out.join('\n')
}

/** What the browsers said (`--rum`): a row per deploy and incident hurt, then all; the accounts; how it was read and joined. */
function rumMarkdown(r: AnalysisReport): string[] {
  const t = rumText(r)
  if (!t) return []
  const row = (xs: readonly string[]): string => `| ${xs.map(mdCell).join(' | ')} |`
  const out = ['### The browsers\' word (RUM)', '', mdCell(t.summary), '', row(RUM_HEAD), `| --- |${' ---: |'.repeat(7)} --- |`, ...t.rows.map(row), '']
  if (t.accounts.shown.length > 0) out.push(`Accounts hurt: ${t.accounts.shown.map(mdCell).join(', ')}${t.accounts.more > 0 ? ` and ${t.accounts.more} more` : ''}`, '')
  out.push(...t.notes.map((n) => `- ${mdCell(n)}`), '', `_${mdCell(RUM_LEGEND)}_`, '')
  return out
}

/** The advice: per deploy (those with the most failures) a table of what each fix would have prevented, and a note per fix. */
function adviceMarkdown(r: AnalysisReport): string[] {
  const a = adviceText(r)
  if (!a) return []
  const row = (xs: readonly string[]): string => `| ${xs.map(mdCell).join(' | ')} |`
  const out = ['### Advice: which fix would have prevented which failures', '', mdCell(a.overall), '']
  for (const d of a.deploys) {
    out.push(`**${mdCell(d.title)}**`, '', row(ADVICE_HEAD), '| --- | ---: | ---: | ---: | ---: | --- |', ...d.rows.map(row), '')
    out.push(...[...d.notes, ...d.unknown].map((n) => `- ${mdCell(n)}`), '')
  }
  if (a.more) out.push(`_${mdCell(a.more)}_`, '')
  out.push(`_${mdCell(ADVICE_LEGEND)}_`, '')
  return out
}
