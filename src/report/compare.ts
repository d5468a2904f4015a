import type {CompareReport} from '../model/compare'
import {fitTable} from './fit-table'
import {esc, htmlPage} from './html'
import {mdCell} from './markdown'
import {terminalSafe} from './sanitize'
import {duration, shortTime, wrap} from './table'

const pct = (x: number): string => `${Math.round(x * 1000) / 10}%`

/**
 * A change of a share, written so it cannot be misread: the two shares, the difference in
 * percentage points, and the factor (`50% → 52.4%: +2.4 percentage points, 1.05× as high`).
 */
export function shareChange(before: number, after: number): string {
  const points = Math.round((after - before) * 1000) / 10
  const sign = points > 0 ? '+' : points < 0 ? '−' : '±'
  const factor = before === 0 ? '' : `, ${Math.round((after / before) * 100) / 100}× as high`
  return `${pct(before)} → ${pct(after)}: ${sign}${Math.abs(points)} percentage points${factor}`
}

function cells(r: CompareReport) {
  return {
    deploys: r.deploys.map((d) => [d.group, d.id, shortTime(d.start), `${d.fromBuild ?? '?'} → ${d.toBuild ?? '?'}`, d.pods ?? '?',
      d.pageLoads, d.brokenPageLoads, pct(d.brokenShare), d.staleBrokenPageLoads, d.affectedUsers, duration(d.windowSeconds)]),
    groups: r.groups.map((g) => [g.name, g.deploys, g.pods ?? '?', g.pageLoads, g.brokenPageLoads, pct(g.brokenShare), g.staleBrokenPageLoads, g.affectedUsers,
      g.usersPerDeploy, duration(g.meanWindowSeconds)]),
  }
}

/** Per fix, before and after: what it would prevent per 1000 page loads (the advice's prediction, then what is left of it). */
function fixCells(r: CompareReport): (string | number)[][] {
  const n = (x: number | null): string | number => x ?? '?'
  const change = (a: number | null, b: number | null): string => (a === null || b === null || a === 0 ? '-' : `${b <= a ? '−' : '+'}${Math.round(Math.abs(1 - b / a) * 100)}%`)
  return (r.comparison?.fixes ?? []).map((f) => [f.fix, n(f.before), n(f.after), change(f.before, f.after)])
}

const FIX_HEAD = ['Fix', 'Prevents before (per 1000)', 'Left after (per 1000)', 'Change']
const fixTitle = (r: CompareReport): string => `What each fix would prevent, per 1000 page loads: predicted for ${r.comparison?.before ?? 'before'}, left in ${r.comparison?.after ?? 'after'}`

const DEPLOY_HEAD = ['Group', 'Deploy', 'Start (UTC)', 'Builds', 'Pods', 'Page loads', 'Race broken', 'Share', 'Stale broken', 'Users', 'Rollout window']
const GROUP_HEAD = ['Group', 'Deploys', 'Pods', 'Page loads', 'Race broken', 'Share', 'Stale broken', 'Users', 'Users/deploy', 'Mean window']

function expectation(r: CompareReport): string {
  const c = r.comparison
  if (!c) return 'Only one group: nothing to compare.'
  const affinity = c.affinityExpectedShare === null ? '' : `; cookie affinity alone predicts about ${pct(c.affinityExpectedShare)}`
  return `${c.before} → ${c.after}: share of page loads in the deploy windows broken by the race, ${shareChange(c.brokenShareBefore, c.brokenShareAfter)}${affinity}.`
}

/** Columns of a table from a heading row and cell rows; the first `keep` columns are never left out. */
function columns(head: readonly string[], rows: readonly (string | number)[][], keep: number): Parameters<typeof fitTable>[0] {
  return head.map((h, i) => ({head: h, cells: rows.map((r) => r[i] ?? ''), ...(i >= keep ? {drop: head.length - i} : {}), ...(typeof rows[0]?.[i] === 'number' ? {align: 'right' as const} : {})}))
}

export function renderCompareTable(r: CompareReport, width?: number): string {
  const {deploys, groups} = cells(r)
  const fit = (head: readonly string[], rows: (string | number)[][]): string => {
    const t = fitTable(columns(head, rows, 8), width)
    return t.dropped.length > 0 ? `${t.text}\n(${t.dropped.join(', ')} left out to fit ${width} columns: --wide shows them)` : t.text
  }
  const split = r.split.kind === 'fix-date' ? `Split at ${shortTime(r.split.fixDate)}.` : 'Split by labelled input sets.'
  // Group names are the user's own (--set NAME), but a terminal gets them made safe all the same.
  const safe = (rows: (string | number)[][]): (string | number)[][] => rows.map((row) => row.map((c) => (typeof c === 'string' ? terminalSafe(c) : c)))
  const fixes = fixCells(r)
  const perFix = fixes.length > 0 ? [wrap(terminalSafe(fixTitle(r)), width), fit(FIX_HEAD, safe(fixes)), ''] : []
  return [wrap(terminalSafe(r.comparison?.verdict ?? expectation(r)), width), '', split, 'Per deploy', fit(DEPLOY_HEAD, safe(deploys)), '', 'Per group', fit(GROUP_HEAD, safe(groups)), '',
    ...perFix, wrap(terminalSafe(expectation(r)), width), ''].join('\n')
}

export function renderCompareMarkdown(r: CompareReport): string {
  const {deploys, groups} = cells(r)
  const row = (xs: (string | number)[]): string => `| ${xs.map((x) => mdCell(String(x))).join(' | ')} |`
  return ['## skewscan: did the fix work?', '', mdCell(r.comparison?.verdict ?? expectation(r)), '',
    row(GROUP_HEAD), `|${GROUP_HEAD.map(() => ' --- ').join('|')}|`, ...groups.map(row), '',
    row(DEPLOY_HEAD), `|${DEPLOY_HEAD.map(() => ' --- ').join('|')}|`, ...deploys.map(row), '',
    ...(fixCells(r).length > 0 ? [`**${mdCell(fixTitle(r))}**`, '', row(FIX_HEAD), `|${FIX_HEAD.map(() => ' --- ').join('|')}|`, ...fixCells(r).map(row), ''] : [])].join('\n')
}

export function renderCompareHtml(r: CompareReport, generatedAt: Date, version: string): string {
  const {deploys, groups} = cells(r)
  const table = (head: string[], rows: (string | number)[][]): string =>
    `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((x) => `<tr>${x.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`
  // Bars of broken share per deploy, labelled by group and deploy, with their values and an axis.
  const max = Math.max(0.01, ...r.deploys.map((d) => d.brokenShare))
  const top = Math.ceil(max * 10) / 10
  const plotH = 120
  const y = (share: number): number => 20 + plotH - (share / top) * plotH
  const ticks = [0, top / 2, top].map((v) => `<line class="base" x1="44" x2="${50 + r.deploys.length * 56}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}"/>` +
    `<text class="axis" x="40" y="${(y(v) + 3).toFixed(1)}" text-anchor="end">${esc(pct(v))}</text>`).join('')
  const bars = r.deploys.map((d, i) => {
    const x = 54 + i * 56
    const h = (d.brokenShare / top) * plotH
    return `<rect class="share ${r.groups[0]?.name === d.group ? 'first' : 'later'}" x="${x}" y="${(20 + plotH - h).toFixed(1)}" width="36" height="${h.toFixed(1)}"><title>${esc(`${d.group} ${d.id}: ${pct(d.brokenShare)} of ${d.pageLoads} page loads`)}</title></rect>` +
      `<text class="axis" x="${x + 18}" y="${(16 + plotH - h).toFixed(1)}" text-anchor="middle">${esc(pct(d.brokenShare))}</text>` +
      `<text class="axis" x="${x + 18}" y="${plotH + 34}" text-anchor="middle">${esc(d.group)}</text><text class="axis" x="${x + 18}" y="${plotH + 46}" text-anchor="middle">${esc(d.id)}</text>`
  }).join('')
  const svg = `<svg class="compare" viewBox="0 0 ${Math.max(320, 70 + r.deploys.length * 56)} ${plotH + 56}" width="100%" role="img" aria-label="share of page loads broken by the race, per deploy" xmlns="http://www.w3.org/2000/svg">${ticks}${bars}</svg>`
  return htmlPage('skewscan: did the fix work?', [
    '<h1>Did the fix work?</h1>', `<p class="muted">Generated ${esc(generatedAt.toISOString())} by skewscan ${esc(version)}</p>`,
    `<p class="answer">${esc(r.comparison?.verdict ?? expectation(r))}</p>`, '<h2>Share of page loads broken by the rollout race, per deploy</h2>', svg,
    '<h2>Per group</h2>', table(GROUP_HEAD, groups), `<p>${esc(expectation(r))}</p>`,
    ...(fixCells(r).length > 0 ? [`<h2>${esc(fixTitle(r))}</h2>`, table(FIX_HEAD, fixCells(r))] : []), '<h2>Per deploy</h2>', table(DEPLOY_HEAD, deploys),
  ].join('\n'))
}
