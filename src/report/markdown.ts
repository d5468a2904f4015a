import type {AnalysisReport} from '../model/report'
import {duration, headline, shortTime} from './table'

/** Log-derived text in a Markdown table cell: no pipes, no HTML, no links, no line breaks. */
export function mdCell(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f]/g, ' ').replace(/([\\|`*_[\]<>#!])/g, '\\$1')
}

const pct = (share: number): string => `${Math.round(share * 1000) / 10}%`

/** For tickets and chat: the one-sentence answer and the per-deploy table (plus incidents). */
export function renderMarkdown(r: AnalysisReport): string {
  const out = ['## skewscan: stale-bundle failures', '', mdCell(headline(r)), '']
  if (r.deploys.length > 0) {
    out.push('| Deploy | Window (UTC) | Length | Builds | Users | Broken page loads | Forward | Backward | Incidents |',
      '| --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- |')
    for (const d of r.deploys) {
      out.push(`| ${d.id} (${d.sources.join('+')}) | ${shortTime(d.start)} → ${shortTime(d.end)} | ${duration(d.windowSeconds)} | ${d.fromBuild ?? '?'} → ${d.toBuild ?? '?'} | ` +
        `${d.affectedUsers} | ${d.affectedPageLoads} of ${d.pageLoads} | ${d.byDirection.oldPageNewPod} | ${d.byDirection.newPageOldPod} | ${d.incidentIds.join(', ') || '-'} |`)
    }
    out.push('')
  }
  if (r.incidents.length > 0) {
    out.push('| Incident | Kind | Deploy | Window (UTC) | Length | Users | Broken share | Failed requests |',
      '| --- | --- | --- | --- | --- | ---: | ---: | ---: |')
    for (const i of r.incidents) {
      out.push(`| ${i.id} | ${i.cause} | ${i.deployId ?? '-'} | ${shortTime(i.start)} → ${shortTime(i.end)} | ${duration(i.windowSeconds)} | ` +
        `${i.affectedUsers} | ${pct(i.brokenShare)} (${i.affectedPageLoads} of ${i.pageLoads}) | ${i.failedRequests} |`)
    }
    out.push('')
  }
  const i = r.input
  out.push(`_${i.records} records read (${i.skipped.total} skipped)${i.first && i.last ? `, ${shortTime(i.first)} → ${shortTime(i.last)}` : ''}; ` +
    `${r.orphans.requests} orphan hits from ${r.orphans.clients} clients (crawlers, scanners) not counted as users._`, '')
  return out.join('\n')
}
