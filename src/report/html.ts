import {notAccessLines} from './input-notes'
import {type AnalysisReport, type DeployReport, type IncidentReport, type ReportDetails, TOP_FAILURES} from '../model/report'
import {appLabel, duration, headline, pct, shortTime} from './table'
import {plural} from '../util/plural'
import {type AxisPart, lengthWords, type TimeAxis, timeAxis} from './time-axis'
import {idList, type Listed, listed, MAX_ROWS, moreLine, mostUsersFirst} from './listed'
import {ADVICE_HEAD, ADVICE_LEGEND, adviceText} from './advice'
import {RUM_HEAD, RUM_LEGEND, rumText} from './rum'

export interface HtmlOptions {
  /** When the report was made (passed in: renderers do not read the clock). */
  generatedAt: Date
  version: string
}

/** Log content is attacker-controlled: everything that reaches the page goes through here. */
export function esc(s: string | number | null | undefined): string {
  return String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

const t = (iso: string): number => Date.parse(iso)
const iso = (ms: number): string => new Date(ms).toISOString()

type Series = ReportDetails['timeline'][number]

const W = 1000
const L = 50
const PLOT_W = W - L - 10
/** Bars per chart at most (over the whole width; each part of the axis gets its share). */
const MAX_BARS = 240

/**
 * The one time axis of every chart: from the input's first record (or earliest deploy) to its last,
 * with long stretches where nothing happened cut out (see time-axis.ts). The buckets are sparse
 * (only those with traffic), so this reads what the report keeps, never the span.
 */
function reportAxis(r: AnalysisReport, details: ReportDetails): TimeAxis {
  const starts = [r.input.first, ...r.deploys.flatMap((d) => [d.start, d.end])].filter((x): x is string => x !== null).map(t)
  const ends = [r.input.last, ...r.deploys.map((d) => d.end)].filter((x): x is string => x !== null).map(t)
  let from = Infinity
  for (const s of starts) from = Math.min(from, s)
  let to = from + 60_000
  for (const e of ends) to = Math.max(to, e)
  const bucket = details.bucketSeconds * 1000
  const spans: [number, number][] = [...starts, ...ends].map((ms) => [ms, ms])
  for (const s of details.timeline) for (const b of s.buckets) spans.push([t(b.start), t(b.start) + bucket])
  return timeAxis(from, to, spans, L, PLOT_W)
}

/**
 * At most MAX_BARS bars (a few more with breaks): buckets merged into bars about PLOT_W / MAX_BARS
 * pixels wide. Every part is drawn at the same scale, so bars are as long in each.
 */
function rebucket(buckets: readonly Series['buckets'][number][], axis: TimeAxis, baseSeconds: number) {
  const base = baseSeconds * 1000
  const widths = axis.parts.map((p) => (p.to > p.from ? Math.max(base, Math.ceil((p.to - p.from) * PLOT_W / MAX_BARS / (p.x1 - p.x0) / base) * base) : base))
  const bars = new Map<string, {part: number; k: number; requests: number; failures: number}>()
  for (const b of buckets) {
    const start = t(b.start)
    const part = axis.partOf(start)
    const k = Math.floor((start - (axis.parts[part] as AxisPart).from) / (widths[part] as number))
    const key = `${part}:${k}`
    const bar = bars.get(key) ?? {part, k, requests: 0, failures: 0}
    bar.requests += b.requests
    bar.failures += b.failures
    bars.set(key, bar)
  }
  return {widths, bars: [...bars.values()]}
}

/** Apps charted at most (those with the most requests): each chart is a few hundred lines of SVG. */
const MAX_TIMELINES = 20

const byShells = (a: {shellRequests: number}, b: {shellRequests: number}): number => b.shellRequests - a.shellRequests

/** A deploy window or incident on the chart: one, or several whose marks would overlap. */
interface Mark<T> {
  first: T
  last: T
  count: number
  affectedUsers: number
  x0: number
  x1: number
}

/**
 * The marks of deploy windows or incidents (in time order), at least `minWidth` pixels wide.
 * Up to MAX_ROWS of them each get their own; of more, marks that would overlap or touch are
 * drawn as one (its title says how many): the chart then has at most one mark per couple of
 * pixels, however many deploys there were.
 */
function marks<T extends {start: string; end: string; affectedUsers: number}>(items: readonly T[], x: (ms: number) => number, minWidth: number): Mark<T>[] {
  const out: Mark<T>[] = []
  const merge = items.length > MAX_ROWS
  for (const item of merge ? [...items].sort((a, b) => t(a.start) - t(b.start)) : items) {
    const x0 = x(t(item.start))
    const x1 = Math.max(x0 + minWidth, x(t(item.end)))
    const prev = out.at(-1)
    if (merge && prev && x0 <= prev.x1 + 1) {
      prev.last = item
      prev.count++
      prev.affectedUsers += item.affectedUsers
      prev.x1 = Math.max(prev.x1, x1)
    } else out.push({first: item, last: item, count: 1, affectedUsers: item.affectedUsers, x0, x1})
  }
  return out
}

/** A line under a table that lists only some: how many more, and where they all are. */
const more = <T>(l: Listed<T>, line: () => string): string => (l.more > 0 ? `<p class="muted more">${esc(line())}</p>` : '')

/** The timeline of one service: traffic, failures, deploy windows shaded, incidents and builds marked. */
function timelineSvg(r: AnalysisReport, series: Series, bucketSeconds: number, axis: TimeAxis): string {
  const x = axis.x
  const {widths, bars} = rebucket(series.buckets, axis, bucketSeconds)
  let maxReq = 1
  let maxFail = 1
  for (const b of bars) {
    maxReq = Math.max(maxReq, b.requests)
    maxFail = Math.max(maxFail, b.failures)
  }
  const deploys = marks(r.deploys.filter((d) => d.app === series.app), x, 2)
  const incidents = marks(r.incidents.filter((i) => i.app === series.app), x, 3)
  const builds = listed(r.builds.filter((b) => b.app === series.app), MAX_ROWS, byShells)
  const reqTop = 20
  const reqH = 100
  const failTop = 140
  const failH = 60
  const incTop = 212
  const buildTop = 236
  const tickY = buildTop + (builds.shown.length + (builds.more > 0 ? 1 : 0)) * 14 + 24
  const H = tickY + 6 + (axis.dates.length > 0 ? 12 : 0)
  const parts: string[] = [`<svg class="timeline" viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="timeline of ${esc(series.app ?? 'all traffic')}" xmlns="http://www.w3.org/2000/svg">`]
  for (const {first: d, last, count, x0, x1} of deploys) {
    const title = count === 1 ? `${d.id}: ${shortTime(d.start)} → ${shortTime(d.end)} (${d.fromBuild ?? '?'} → ${d.toBuild ?? '?'})` : `${count} deploys, ${d.id} to ${last.id}: ${shortTime(d.start)} → ${shortTime(last.end)}`
    const id = count === 1 ? d.id : `${d.id}–${last.id}`
    parts.push(`<rect class="deploy-band" data-deploy="${esc(id)}" x="${x0.toFixed(1)}" y="${reqTop - 12}" width="${(x1 - x0).toFixed(1)}" height="${incTop - reqTop + 6}"><title>${esc(title)}</title></rect>`,
      `<text class="deploy-label" x="${(x0 + 2).toFixed(1)}" y="${reqTop - 2}">${esc(id)}</text>`)
  }
  for (const b of bars) {
    const p = axis.parts[b.part] as AxisPart
    const scale = p.to > p.from ? (p.x1 - p.x0) / (p.to - p.from) : 0
    const width = widths[b.part] as number
    const left = p.x0 + b.k * width * scale
    // A bar stays in its part, never running into a break (the last part may use the right margin, as it always did).
    const right = b.part === axis.parts.length - 1 ? W : p.slot1
    const barW = Math.max(1, Math.min(width * scale - 0.5, right - left))
    const bx = left.toFixed(1)
    const rh = (b.requests / maxReq) * reqH
    parts.push(`<rect class="req" x="${bx}" y="${(reqTop + reqH - rh).toFixed(1)}" width="${barW.toFixed(1)}" height="${rh.toFixed(1)}"/>`)
    if (b.failures > 0) {
      const fh = Math.max(1.5, (b.failures / maxFail) * failH)
      parts.push(`<rect class="fail" x="${bx}" y="${(failTop + failH - fh).toFixed(1)}" width="${barW.toFixed(1)}" height="${fh.toFixed(1)}"><title>${b.failures} failed</title></rect>`)
    }
  }
  parts.push(`<text class="axis" x="4" y="${reqTop + 10}">requests</text><text class="axis" x="4" y="${reqTop + 22}">max ${maxReq}</text>`,
    `<text class="axis" x="4" y="${failTop + 10}">failures</text><text class="axis" x="4" y="${failTop + 22}">max ${maxFail}</text>`,
    `<line class="base" x1="${L}" x2="${W - 10}" y1="${reqTop + reqH}" y2="${reqTop + reqH}"/><line class="base" x1="${L}" x2="${W - 10}" y1="${failTop + failH}" y2="${failTop + failH}"/>`)
  for (const g of axis.breaks) {
    const mid = (g.x0 + g.x1) / 2
    const zig = (y: number): string => `M${(mid - 5).toFixed(1)} ${y + 5}L${(mid - 1).toFixed(1)} ${y - 5}M${(mid + 1).toFixed(1)} ${y + 5}L${(mid + 5).toFixed(1)} ${y - 5}`
    parts.push(`<g class="axis-break"><rect class="gap" x="${(g.x0 + 2).toFixed(1)}" y="${reqTop - 12}" width="${(g.x1 - g.x0 - 4).toFixed(1)}" height="${tickY - reqTop + 2}"/>` +
      `<path class="break-mark" d="${zig(reqTop + reqH)}${zig(failTop + failH)}"/><title>${esc(`${lengthWords(g.to - g.from)} without traffic: ${shortTime(iso(g.from))} → ${shortTime(iso(g.to))}`)}</title></g>`)
  }
  for (const {first: i, last, count, x0, x1, affectedUsers} of incidents) {
    const title = count === 1 ? `${i.id} ${i.cause}: ${plural(i.affectedUsers, 'user')}, ${shortTime(i.start)} → ${shortTime(i.end)}` : `${count} incidents, ${i.id} to ${last.id}: ${plural(affectedUsers, 'user')}, ${shortTime(i.start)} → ${shortTime(last.end)}`
    const id = count === 1 ? i.id : `${i.id}–${last.id}`
    parts.push(`<rect class="incident-mark ${esc(i.cause)}" data-incident="${esc(id)}" x="${x0.toFixed(1)}" y="${incTop}" width="${(x1 - x0).toFixed(1)}" height="10"><title>${esc(title)}</title></rect>`,
      `<text class="axis" x="${(x0 + 2).toFixed(1)}" y="${incTop + 20}">${esc(id)}</text>`)
  }
  if (builds.more > 0) {
    const y = buildTop + 14 + builds.shown.length * 14
    parts.push(`<text class="axis" x="4" y="${y + 4}">${esc(moreLine(builds.more, 'build', `with at most ${plural(builds.firstLeftOut?.shellRequests ?? 0, 'shell')} each`))}</text>`)
  }
  builds.shown.forEach((b, n) => {
    const y = buildTop + 14 + n * 14
    const x0 = x(t(b.firstSeen))
    parts.push(`<line class="build" x1="${x0.toFixed(1)}" x2="${Math.max(x0 + 2, x(t(b.lastServed))).toFixed(1)}" y1="${y}" y2="${y}"><title>${esc(`${b.id}: ${b.entry ?? `shell ${b.shellBytes} bytes`}, served ${shortTime(b.firstSeen)} → ${shortTime(b.lastServed)}`)}</title></line>`,
      `<text class="axis" x="4" y="${y + 4}">${esc(b.id)}</text>`)
  })
  for (const tick of axis.ticks) parts.push(`<text class="axis tick" x="${tick.x.toFixed(1)}" y="${tickY}">${esc(tick.text)}</text>`)
  for (const d of axis.dates) parts.push(`<text class="axis date${d.anchor === 'start' ? ' start' : ''}" x="${d.x.toFixed(1)}" y="${tickY + 12}">${esc(d.text)}</text>`)
  parts.push('</svg>')
  return parts.join('\n')
}

/** Under the charts when the axis is cut: what was left out, and the requests in each part shown (a stray record stands out). */
function axisNote(axis: TimeAxis, details: ReportDetails): string {
  if (axis.breaks.length === 0) return ''
  const requests = axis.parts.map(() => 0)
  for (const s of details.timeline) {
    for (const b of s.buckets) {
      const i = axis.partOf(t(b.start))
      requests[i] = (requests[i] as number) + b.requests
    }
  }
  const range = (from: number, to: number): string => {
    const a = shortTime(iso(Math.max(axis.from, from)))
    const b = shortTime(iso(Math.min(axis.to, to)))
    return a.slice(0, 10) === b.slice(0, 10) ? `${a} → ${b.slice(11)}` : `${a} → ${b}`
  }
  const cuts = axis.breaks.map((g) => `${range(g.from, g.to)} (${lengthWords(g.to - g.from)})`)
  const shown = axis.parts.map((p, i) => `${range(p.from, p.to)}: ${plural(requests[i] as number, 'request')}`)
  return `<p class="muted axis-note">${esc(`The time axis is cut (//) where nothing happened for long: ${cuts.join('; ')}. Requests in each part shown: ${shown.join('; ')}.`)}</p>`
}

function table(head: string[], rows: (string | number)[][], cls = ''): string {
  return `<table class="${cls}"><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>` +
    rows.map((r) => `<tr>${r.map((c) => `<td>${typeof c === 'number' ? c : c}</td>`).join('')}</tr>`).join('') + '</tbody></table>'
}

/**
 * A crashed count said with what it is of: the headline's total is every page load of the input, a
 * deploy's those that started during it (its window and margin), an incident's those that started
 * between its first and last failure (and, for both, the affected ones that started earlier).
 */
function crashedOf(crashed: number, pageLoads: number, during: 'deploy' | 'incident'): string {
  return `${crashed} of ${plural(pageLoads, 'page load')} during the ${during}`
}

/** Under the headline: what each total of page loads on the page counts. */
function pageLoadScopes(r: AnalysisReport): string {
  if (r.totals.failedRequests === 0) return ''
  const t = r.totals
  return `<p class="muted scopes">${esc(`Crashed page loads are counted against three totals: ${t.byOutcome.crashed} of ${plural(t.pageLoads, 'page load')} in the whole input (the line above); ` +
    'per deploy, of the page loads that started during it (its window and the deploy margin); per incident, of those that started between its first and last failure. ' +
    'Affected page loads that started earlier (stale tabs) count in their deploy and incident too.')}</p>`
}

function deployRows(r: AnalysisReport, deploys: readonly DeployReport[]): (string | number)[][] {
  const apps = r.apps.length > 1
  return deploys.map((d) => [esc(d.id), ...(apps ? [esc(appLabel(d.app))] : []), esc(d.sources.join('+')), esc(`${shortTime(d.start)} → ${shortTime(d.end)}`), esc(duration(d.windowSeconds)),
    esc(`${d.fromBuild ?? '?'} → ${d.toBuild ?? '?'}`), esc(d.rolloutWindow ? duration(d.rolloutWindow.seconds) : '-'), d.affectedUsers,
    esc(crashedOf(d.byOutcome.crashed, d.pageLoads, 'deploy')), d.byCause['stale-client'], d.byDirection.oldPageNewPod, d.byDirection.newPageOldPod, esc(idList(d.incidentIds) || '-')])
}

function incidentRows(r: AnalysisReport, incidents: readonly IncidentReport[]): (string | number)[][] {
  const apps = r.apps.length > 1
  return incidents.map((i) => [`<a href="#${esc(i.id)}">${esc(i.id)}</a>`, `<span class="kind ${esc(i.cause)}">${esc(i.cause)}</span>`, esc(i.deployId ?? '-'),
    ...(apps ? [esc(appLabel(i.app))] : []), esc(`${shortTime(i.start)} → ${shortTime(i.end)}`), esc(duration(i.windowSeconds)), i.affectedUsers,
    esc(crashedOf(i.byOutcome.crashed, i.pageLoads, 'incident')), esc(pct(i.brokenShare)), i.byOutcome.lazyChunkFailed, i.byOutcome.unstyled, i.failedRequests,
    `${i.byDirection.oldPageNewPod} / ${i.byDirection.newPageOldPod} / ${i.byDirection.unknown}`,
    `${i.byReason.fallback} / ${i.byReason.missing} / ${i.byReason.contentType}`])
}

type BrokenPageLoad = ReportDetails['brokenPageLoads'][number]

/** A page load's requests as a small waterfall: offset from the shell, path, status, bytes, the build that answered. */
function waterfall(pl: BrokenPageLoad): string {
  const t0 = t(pl.time)
  const span = Math.max(1000, ...pl.requests.map((q) => t(q.time) - t0))
  const rows = pl.requests.map((q) => {
    const off = t(q.time) - t0
    const left = Math.min(97, (off / span) * 100)
    return `<tr class="${q.reason ? 'failed' : ''}"><td class="num">+${(off / 1000).toFixed(off % 1000 === 0 ? 0 : 3)} s</td><td class="path">${esc(q.path)}</td>` +
      `<td class="num">${q.status}</td><td class="num">${q.bytes}</td><td>${esc(q.build ?? '?')}</td><td>${q.pod ? `<code>${esc(q.pod)}</code>` : '-'}</td><td>${esc(q.reason ?? '')}</td>` +
      `<td class="lane"><span class="bar" style="margin-left:${left.toFixed(1)}%"></span></td></tr>`
  })
  return `<table class="waterfall"><thead><tr><th>at</th><th>path</th><th>status</th><th>bytes</th><th>answered by</th><th>pod</th><th>broke</th><th></th></tr></thead><tbody>${rows.join('')}</tbody></table>`
}

/** What RUM said of a page load (`--rum`): whether the browser crashed, with what, whose account and which version. */
function rumOfPageLoad(p: BrokenPageLoad): string {
  const r = p.rum
  if (r === undefined) return ''
  const who = [r.user ? `account <code>${esc(r.user)}</code>` : '', r.version ? `version <code>${esc(r.version)}</code>` : ''].filter((x) => x !== '').join(', ')
  return `; RUM (joined by ${esc(r.join)}): ${r.crashed ? 'crashed' : 'no crash'}${r.error ? `, “${esc(r.error)}”` : ''}${who ? `, ${who}` : ''}`
}

/** Sessions shown per incident, and page loads per session: the rest are in --format ndjson or csv, every failed request. */
const SESSIONS_PER_INCIDENT = 20
const PAGE_LOADS_PER_SESSION = 10

function incidentSessions(inc: IncidentReport, pls: readonly BrokenPageLoad[]): string {
  const sessions = new Map<string, BrokenPageLoad[]>()
  for (const p of pls) {
    const list = sessions.get(p.session)
    if (list) list.push(p)
    else sessions.set(p.session, [p])
  }
  const shown = listed([...sessions.values()], SESSIONS_PER_INCIDENT)
  const items = shown.shown.map((list, n) => {
    const first = list[0] as BrokenPageLoad
    const failed = list.reduce((n, p) => n + p.requests.filter((q) => q.reason).length, 0)
    const loads = listed(list, PAGE_LOADS_PER_SESSION)
    // The first session is open, so the page shows a waterfall without a click.
    return `<details class="session"${n === 0 ? ' open' : ''}><summary><code>${esc(first.clientIp)}</code> ${esc(first.userAgent)} — ${list.length} affected page load${list.length === 1 ? '' : 's'}, ${failed} failed request${failed === 1 ? '' : 's'}</summary>` +
      loads.shown.map((p) => `<p class="pl">Page load ${p.id}: <code>${esc(p.path)}</code> at ${esc(shortTime(p.time))}, build ${esc(p.build ?? '?')}, ${esc(OUTCOME_WORDS[p.outcome])}${rumOfPageLoad(p)}</p>${waterfall(p)}`).join('') +
      more(loads, () => moreLine(loads.more, 'affected page load', 'of this session', '--format ndjson or csv')) + '</details>'
  })
  return `<section class="incident" id="${esc(inc.id)}"><h3>${esc(inc.id)} · <span class="kind ${esc(inc.cause)}">${esc(inc.cause)}</span> · ${esc(`${shortTime(inc.start)} → ${shortTime(inc.end)}`)} · ${plural(inc.affectedUsers, 'user')}</h3>` +
    `<p>${esc(`${plural(inc.failedRequests, 'failed request')}; crashed: ${crashedOf(inc.byOutcome.crashed, inc.pageLoads, 'incident')}.`)}</p>` + topHtml(inc) +
    (items.length > 0 ? items.join('\n') + more(shown, () => moreLine(shown.more, 'session', 'in this incident', '--format ndjson or csv')) : '<p class="muted">Run with --format html to keep the page loads of affected sessions.</p>') + '</section>'
}

/** The broken page loads of each incident, found in one pass (not one pass per incident). */
function pageLoadsByIncident(details: ReportDetails | undefined): Map<string, BrokenPageLoad[]> {
  const out = new Map<string, BrokenPageLoad[]>()
  for (const p of details?.brokenPageLoads ?? []) {
    for (const id of p.incidentIds) {
      const list = out.get(id)
      if (list) list.push(p)
      else out.set(id, [p])
    }
  }
  return out
}

const OUTCOME_WORDS: Record<BrokenPageLoad['outcome'], string> = {crashed: 'crashed', lazyChunkFailed: 'a lazy chunk failed later', unstyled: 'unstyled', degraded: 'an image or font failed'}

const LEGEND = [
  ['App', 'the site one set of pods serves: the ingress upstream (namespace-service-port) when logged, else the virtual host, else the log\'s service. Builds, deploys and incidents are per app.'],
  ['Shell', 'the app\'s index.html: the homepage and every route the app answers with it. Its byte length fingerprints a build; a length seen once is no build.'],
  ['Fallback hit', 'an asset request (a .js or .css file) answered 200 with a shell: the pod did not have the file and served its index.html instead. The browser fails with “Unexpected token \'<\'” or a strict MIME type error.'],
  ['Missing asset', 'an asset request answered 404/410, on hosts that do not fall back to the shell.'],
  ['Crashed', 'a page load whose script or module failed while it loaded. Lazy chunk: a script failed later, the route the user opened broke. Unstyled: only a stylesheet failed.'],
  ['Forward skew', 'an old page (shell of the older build) asked a pod of the newer build for its assets.'],
  ['Backward skew', 'a new page asked a pod still running the older build.'],
  ['Rollout', 'a failure while the page\'s build was still being served, beside another build: the race of a rolling deploy.'],
  ['Stale client', 'a failure after the page\'s build stopped being served: an old tab loading a chunk that is gone. It belongs to the deploy that retired the build.'],
  ['Not people', 'crawlers and bots (by user agent), skewscan\'s probe, and scanners asking for asset paths no build ever served: counted apart, never users.'],
]

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1100px;color:#1d2330;padding:0 16px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #dde1e8;padding-bottom:4px} h3{font-size:15px;margin:16px 0 6px}
.answer{font-size:17px;background:#fff4f2;border-left:4px solid #d2452f;padding:10px 14px;margin:12px 0}
.answer.ok{background:#f1faf3;border-color:#2f9d57}
.muted{color:#6a7282} code{font:12px ui-monospace,Menlo,Consolas,monospace;background:#f3f4f7;padding:1px 4px;border-radius:3px}
table{border-collapse:collapse;margin:6px 0 12px;font-size:13px} th,td{border:1px solid #dde1e8;padding:3px 8px;text-align:left;vertical-align:top} th{background:#f6f7f9}
td.num{text-align:right;font-variant-numeric:tabular-nums} td.path{font-family:ui-monospace,Menlo,Consolas,monospace;word-break:break-all;max-width:420px}
.kind.rollout{color:#b3261e;font-weight:600} .kind.stale-client{color:#a45c00;font-weight:600} .kind.unattributed{color:#555}
svg.timeline{background:#fbfbfc;border:1px solid #e3e6eb;margin:6px 0}
svg .req{fill:#9aa5b8} svg .fail{fill:#d2452f} svg .deploy-band{fill:#3b6fd8;fill-opacity:.13;stroke:#3b6fd8;stroke-opacity:.5}
svg .deploy-label{font:600 11px system-ui,sans-serif;fill:#2a54aa} svg .axis{font:10px system-ui,sans-serif;fill:#5b6474} svg .tick,svg .date{text-anchor:middle} svg .date.start{text-anchor:start}
svg .axis-break .gap{fill:#fff} svg .break-mark{stroke:#8a93a3;stroke-width:1.5;fill:none}
svg .base{stroke:#c5cad3} svg .incident-mark{fill:#d2452f} svg .incident-mark.stale-client{fill:#e08a00} svg .incident-mark.unattributed{fill:#777}
svg .build{stroke:#2f9d57;stroke-width:5;stroke-linecap:round} svg .share.first{fill:#d2452f} svg .share.later{fill:#2f9d57}
details.session{border:1px solid #e3e6eb;border-radius:4px;margin:4px 0;padding:4px 8px;background:#fff} details.session summary{cursor:pointer}
table.waterfall tr.failed td{background:#fff0ee} td.lane{width:180px;padding:3px 4px} .bar{display:inline-block;width:6px;height:8px;background:#6d7a91;border-radius:2px}
tr.failed .bar{background:#d2452f} section.top{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start} section.top p{flex-basis:100%;margin:0} dl.legend dt{font-weight:600;margin-top:6px} dl.legend dd{margin:0 0 0 16px} p.note{margin:2px 0 2px 16px}
`

/** One self-contained page: no scripts, no external fetches; a CSP forbids both in case anything slipped through. */
export function renderHtml(r: AnalysisReport, opts: HtmlOptions): string {
  const ok = r.totals.failedRequests === 0
  const details = r.details
  const axis = details && details.timeline.length > 0 ? reportAxis(r, details) : undefined
  const requests = new Map((details?.timeline ?? []).map((s) => [s, s.buckets.reduce((n, b) => n + b.requests, 0)]))
  const charts = listed(details?.timeline ?? [], MAX_TIMELINES, (a, b) => (requests.get(b) ?? 0) - (requests.get(a) ?? 0))
  const chartsLeftOut = charts.more > 0 ? [more(charts, () => moreLine(charts.more, 'app', `with at most ${plural(requests.get(charts.firstLeftOut as Series) ?? 0, 'request')} each`))] : []
  const timelines = axis && details
    ? [...charts.shown.map((s) => `<h3>${esc(s.app ?? 'all traffic')}</h3>${timelineSvg(r, s, details.bucketSeconds, axis)}`), ...chartsLeftOut, axisNote(axis, details)].join('\n')
    : ''
  const i = r.input
  const apps = r.apps.length > 1
  const deploys = listed(r.deploys, MAX_ROWS, mostUsersFirst)
  const incidents = listed(r.incidents, MAX_ROWS, mostUsersFirst)
  const byIncident = pageLoadsByIncident(details)
  const builds = listed(r.builds, MAX_ROWS, byShells)
  const sources = listed(i.sources)
  const body = [
    '<h1>skewscan report</h1>',
    `<p class="muted">Generated ${esc(opts.generatedAt.toISOString())} by skewscan ${esc(opts.version)} · input ${esc(i.first ? shortTime(i.first) : '-')} → ${esc(i.last ? shortTime(i.last) : '-')} · ${plural(i.records, 'record')}, ${i.skipped.total} skipped${notAccessLines(i) > 0 ? ` (${notAccessLines(i)} of them no request: error log lines, notices)` : ''}</p>`,
    `<p class="answer${ok ? ' ok' : ''}">${esc(headline(r))}</p>`,
    pageLoadScopes(r),
    '<h2>Timeline</h2>',
    '<p class="muted">Grey: requests per interval. Red: failed asset requests. Blue bands: deploy windows. Marks below: incidents (red rollout, orange stale clients). Green lines: when each build\'s shell was served.</p>',
    timelines || '<p class="muted">No traffic.</p>',
    '<h2>Deploys</h2>',
    r.deploys.length > 0 ? table(['Deploy', ...(apps ? ['App'] : []), 'Source', 'Window (UTC)', 'Length', 'Builds', 'Rollout race', 'Users', 'Crashed', 'Stale-tab failures', 'Forward', 'Backward', 'Incidents'], deployRows(r, deploys.shown)) +
      more(deploys, () => moreLine(deploys.more, 'deploy', `with at most ${plural(deploys.firstLeftOut?.affectedUsers ?? 0, 'user')} hit each`)) : '<p class="muted">No deploys seen.</p>',
    ...adviceHtml(r),
    ...rumHtml(r),
    '<h2>Incidents</h2>',
    r.incidents.length > 0 ? table(['Incident', 'Cause', 'Deploy', ...(apps ? ['App'] : []), 'Window (UTC)', 'Length', 'Users', 'Crashed', 'Share', 'Lazy chunk', 'Unstyled', 'Failed', 'Fwd / Bwd / ?', 'Shell / 404 / type'], incidentRows(r, incidents.shown)) +
      more(incidents, () => moreLine(incidents.more, 'incident', `with at most ${plural(incidents.firstLeftOut?.affectedUsers ?? 0, 'user')} each`)) : '<p class="muted">No incidents.</p>',
    // The sessions of the incidents listed (the others' failed requests are all in --format ndjson or csv).
    ...incidents.shown.map((inc) => incidentSessions(inc, byIncident.get(inc.id) ?? [])),
    '<h2>Builds</h2>',
    table(['Build', ...(apps ? ['App'] : []), 'Entry', 'Shell bytes', 'First served', 'Last served', 'Pods', 'Shell requests', 'Version'], builds.shown.map((b) => [esc(b.id), ...(apps ? [esc(appLabel(b.app))] : []), esc(b.entry ?? '-'), esc(b.shellLengths.join(', ')), esc(shortTime(b.firstServed)), esc(shortTime(b.lastServed)), podsCell(b), b.shellRequests, esc(b.versions.join(', ') || '-')])) +
      more(builds, () => moreLine(builds.more, 'build', `with at most ${plural(builds.firstLeftOut?.shellRequests ?? 0, 'shell')} each`)),
    '<h2>Input</h2>',
    table(['Source', 'Format', 'Records', 'Skipped'], sources.shown.map((s) => [esc(s.file), esc(s.format), s.records, s.skipped])) + more(sources, () => moreLine(sources.more, 'source')),
    Object.keys(i.skipped.byReason).length > 0
      ? table(['Skipped because', 'Records', 'First at'], Object.entries(i.skipped.byReason).map(([reason, n]) => [esc(reason), n,
        esc(i.skipped.examples.filter((e) => e.reason === reason).map((e) => `${e.file}:${e.line}`).join(', '))]))
      : '',
    `<p>Not people, never counted as users: crawlers ${plural(r.nonUser.crawlers.requests, 'request')} from ${plural(r.nonUser.crawlers.clients, 'client')} (${r.nonUser.crawlers.failedRequests} got a shell or 404); skewscan's probe ${plural(r.nonUser.probe.requests, 'request')}; scanners ${plural(r.nonUser.scanners.requests, 'request')} for paths no build served, from ${plural(r.nonUser.scanners.clients, 'client')}; source maps answered with a shell ${r.nonUser.sourceMaps.failedRequests}. Orphans (people's failed asset requests with no page load behind them): ${r.orphans.requests} from ${plural(r.orphans.clients, 'client')}.</p>`,
    '<h2>Terms</h2>',
    `<dl class="legend">${LEGEND.map(([term, text]) => `<dt>${esc(term)}</dt><dd>${esc(text)}</dd>`).join('')}</dl>`,
  ]
  return htmlPage('skewscan report', body.join('\n'))
}

/** The advice: per deploy (those with the most failures) a table of what each fix would have prevented, and a note per fix. */
function adviceHtml(r: AnalysisReport): string[] {
  const a = adviceText(r)
  if (!a) return []
  return ['<h2>Advice: which fix would have prevented which failures</h2>', `<p>${esc(a.overall)}</p>`,
    ...a.deploys.map((d) => `<h3>${esc(d.title)}</h3>` + table(ADVICE_HEAD, d.rows.map((x) => x.map((c) => esc(c))), 'advice') +
      [...d.notes, ...d.unknown].map((n) => `<p class="note">${esc(n)}</p>`).join('')),
    a.more ? `<p class="muted more">${esc(a.more)}</p>` : '', `<p class="muted">${esc(ADVICE_LEGEND)}</p>`]
}

/** What the browsers said (`--rum`): a row per deploy and incident hurt, then all; the accounts; how it was read and joined. */
function rumHtml(r: AnalysisReport): string[] {
  const t = rumText(r)
  if (!t) return []
  return ['<h2>The browsers\' word (RUM)</h2>', `<p>${esc(t.summary)}</p>`, table(RUM_HEAD, t.rows.map((x) => x.map((c) => esc(c))), 'rum'),
    t.accounts.shown.length > 0 ? `<p>Accounts hurt: ${t.accounts.shown.map((a) => `<code>${esc(a)}</code>`).join(', ')}${t.accounts.more > 0 ? ` and ${t.accounts.more} more` : ''}</p>` : '',
    ...t.notes.map((n) => `<p class="note">${esc(n)}</p>`), `<p class="muted">${esc(RUM_LEGEND)}</p>`]
}

/** A build's pods: how many, and their addresses (at most the ten the report keeps, then how many more). */
function podsCell(b: AnalysisReport['builds'][number]): string {
  if (b.pods === undefined) return '-'
  const list = b.podAddresses ?? []
  const rest = b.pods - list.length
  return `${b.pods}${list.length > 0 ? `: ${list.map((p) => `<code>${esc(p)}</code>`).join(' ')}${rest > 0 ? esc(` and ${rest} more`) : ''}` : ''}`
}

/** What failed most in an incident: its top paths, status codes and browsers, side by side. */
function topHtml(inc: IncidentReport): string {
  const {paths, statuses, browsers} = inc.top
  if (paths.length === 0) return ''
  return '<section class="top">' +
    table(['Failing path', 'Failed'], paths.map((p) => [`<code>${esc(p.path)}</code>`, p.failedRequests]), 'top') +
    table(['Status', 'Failed'], statuses.map((x) => [x.status, x.failedRequests]), 'top') +
    table(['Browser', 'Failed', 'Users'], browsers.map((x) => [esc(x.browser), x.failedRequests, x.users]), 'top') +
    `<p class="muted">${esc(`Of its ${plural(inc.failedRequests, 'failed request')}: the paths, status codes and browsers (by user agent) that failed most, at most ${TOP_FAILURES} of each; every one is in --format ndjson or csv.`)}</p></section>`
}

/** A whole page: inline styles only, and a CSP that forbids scripts and fetches. */
export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style></head>
<body>
${body}
</body></html>
`
}
