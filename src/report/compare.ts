import Table from 'cli-table3'
import type {CompareReport} from '../model/compare'
import {esc, htmlPage} from './html'
import {mdCell} from './markdown'
import {duration, shortTime} from './table'

const pct = (x: number): string => `${Math.round(x * 1000) / 10}%`
const plain = {head: [] as string[], border: [] as string[]}

function cells(r: CompareReport) {
  return {
    deploys: r.deploys.map((d) => [d.group, d.id, shortTime(d.start), `${d.fromBuild ?? '?'} → ${d.toBuild ?? '?'}`, d.pods ?? '?',
      d.pageLoads, d.brokenPageLoads, pct(d.brokenShare), d.staleBrokenPageLoads, d.affectedUsers, duration(d.windowSeconds)]),
    groups: r.groups.map((g) => [g.name, g.deploys, g.pods ?? '?', g.pageLoads, g.brokenPageLoads, pct(g.brokenShare), g.staleBrokenPageLoads, g.affectedUsers,
      g.usersPerDeploy, duration(g.meanWindowSeconds)]),
  }
}

const DEPLOY_HEAD = ['Group', 'Deploy', 'Start (UTC)', 'Builds', 'Pods', 'Page loads', 'Race broken', 'Share', 'Stale broken', 'Users', 'Rollout window']
const GROUP_HEAD = ['Group', 'Deploys', 'Pods', 'Page loads', 'Race broken', 'Share', 'Stale broken', 'Users', 'Users/deploy', 'Mean window']

function expectation(r: CompareReport): string {
  const c = r.comparison
  if (!c) return 'Only one group: nothing to compare.'
  const change = c.relativeChange === null ? '' : ` (${c.relativeChange > 0 ? '+' : ''}${pct(c.relativeChange)})`
  const affinity = c.affinityExpectedShare === null ? '' : `; cookie affinity alone predicts about ${pct(c.affinityExpectedShare)}`
  return `${c.before} → ${c.after}: race broken share ${pct(c.brokenShareBefore)} → ${pct(c.brokenShareAfter)}${change}${affinity}.`
}

export function renderCompareTable(r: CompareReport): string {
  const {deploys, groups} = cells(r)
  const d = new Table({head: DEPLOY_HEAD, style: plain})
  d.push(...deploys)
  const g = new Table({head: GROUP_HEAD, style: plain})
  g.push(...groups)
  const split = r.split.kind === 'fix-date' ? `Split at ${shortTime(r.split.fixDate)}.` : 'Split by labelled input sets.'
  return [r.comparison?.verdict ?? expectation(r), '', split, 'Per deploy', d.toString(), '', 'Per group', g.toString(), '', expectation(r), ''].join('\n')
}

export function renderCompareMarkdown(r: CompareReport): string {
  const {deploys, groups} = cells(r)
  const row = (xs: (string | number)[]): string => `| ${xs.map((x) => mdCell(String(x))).join(' | ')} |`
  return ['## skewscan: did the fix work?', '', mdCell(r.comparison?.verdict ?? expectation(r)), '',
    row(GROUP_HEAD), `|${GROUP_HEAD.map(() => ' --- ').join('|')}|`, ...groups.map(row), '',
    row(DEPLOY_HEAD), `|${DEPLOY_HEAD.map(() => ' --- ').join('|')}|`, ...deploys.map(row), ''].join('\n')
}

export function renderCompareHtml(r: CompareReport, generatedAt: Date, version: string): string {
  const {deploys, groups} = cells(r)
  const table = (head: string[], rows: (string | number)[][]): string =>
    `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((x) => `<tr>${x.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`
  // Bars of broken share per deploy, grouped: the drop is visible at a glance.
  const max = Math.max(0.01, ...r.deploys.map((d) => d.brokenShare))
  const bars = r.deploys.map((d, i) => {
    const h = (d.brokenShare / max) * 120
    return `<rect class="share ${r.groups[0]?.name === d.group ? 'first' : 'later'}" x="${20 + i * 46}" y="${140 - h}" width="32" height="${h.toFixed(1)}"><title>${esc(`${d.group} ${d.id}: ${pct(d.brokenShare)}`)}</title></rect>` +
      `<text class="axis" x="${36 + i * 46}" y="156">${esc(d.id)}</text>`
  }).join('')
  const svg = `<svg class="compare" viewBox="0 0 ${Math.max(300, 40 + r.deploys.length * 46)} 165" width="100%" xmlns="http://www.w3.org/2000/svg">${bars}</svg>`
  return htmlPage('skewscan: did the fix work?', [
    '<h1>Did the fix work?</h1>', `<p class="muted">Generated ${esc(generatedAt.toISOString())} by skewscan ${esc(version)}</p>`,
    `<p class="answer">${esc(r.comparison?.verdict ?? expectation(r))}</p>`, '<h2>Broken share per deploy</h2>', svg,
    '<h2>Per group</h2>', table(GROUP_HEAD, groups), `<p>${esc(expectation(r))}</p>`, '<h2>Per deploy</h2>', table(DEPLOY_HEAD, deploys),
  ].join('\n'))
}
