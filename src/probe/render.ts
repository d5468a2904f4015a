import {inertJson, terminalSafe} from '../report/sanitize'
import type {BarrageResult, ProbeSummary} from './types'
import {plural} from '../util/plural'

const VERDICT_TEXT: Record<BarrageResult['verdict'], string> = {
  'all-ok': 'is all JS',
  html: 'has some HTML',
  missing: 'has missing assets',
  error: 'has failed requests',
  'page-error': 'page failed',
}

/** `http://h/a/b.js?x` -> `/a/b.js?x` when it is on the page's origin, else the whole URL. */
function shortUrl(url: string, pageUrl: string): string {
  try {
    const u = new URL(url)
    return u.origin === new URL(pageUrl).origin ? `${u.pathname}${u.search}` : u.href
  } catch {
    return url
  }
}

/**
 * The write-up's line for one barrage (`Barrage started at T: is all JS` / `has some HTML`), with the
 * page's build fingerprint; when an asset failed, one line per asset, as the write-up printed them.
 * URLs come from the page: untrusted, so control characters are escaped.
 */
export function renderBarrage(b: BarrageResult, info: {newBuild: boolean; changed: boolean}): string {
  const head = `Barrage started at ${new Date(b.startedAt).toISOString()}: ${VERDICT_TEXT[b.verdict]}`
  if (b.verdict === 'page-error' || !b.build) return `${head} (${terminalSafe(b.page.error ?? 'no page')})\n`
  const mark = info.newBuild ? ', new build' : info.changed ? ', build changed' : ''
  const lines = [`${head}  [build ${b.build.shellBytes} B #${b.build.assetsHash}${mark}; ${plural(b.assets.length, 'asset')}]`]
  if (b.verdict !== 'all-ok') {
    for (const a of b.assets) {
      const got = a.status === null ? 'no response' : `${a.status} ${terminalSafe(a.contentType ?? '-')} ${a.bytes} B`
      const why = a.outcome === 'ok' ? '' : `: ${a.outcome} (${terminalSafe(a.reason ?? '')})`
      lines.push(`   ${terminalSafe(shortUrl(a.url, b.page.url))} is HTML? ${a.outcome === 'html-for-asset'}  ${got}${why}`)
    }
  }
  return `${lines.join('\n')}\n`
}

const time = (iso: string | null): string => (iso === null ? '-' : iso.slice(11))
const pct = (rate: number): string => `${Math.round(rate * 1000) / 10}%`

/** The summary printed when the probe stops. */
export function renderProbeSummary(s: ProbeSummary): string {
  const seconds = (Date.parse(s.endedAt) - Date.parse(s.startedAt)) / 1000
  const stop = s.stoppedBy === 'interrupt' ? 'interrupted'
    : s.stoppedBy === 'unreachable' ? 'gave up (the page did not answer)' : `stopped by --${s.stoppedBy}`
  const lines = [
    '',
    `Probe of ${terminalSafe(s.url)}: ${plural(s.barrages, 'barrage')} in ${seconds.toFixed(1)} s, ${stop}.`,
    `Failed barrages: ${s.failedBarrages} (${pct(s.failureRate)} of the pages that loaded): ${s.byVerdict.html} with HTML for an asset, ${s.byVerdict.missing} with missing assets, ${s.byVerdict.error} with failed requests; ${s.pageErrors} page errors.`,
  ]
  if (s.firstFailure !== null) {
    lines.push(`Failure window: ${time(s.firstFailure)} → ${time(s.lastFailure)} (${s.windowSeconds ?? 0} s), ${s.firstFailure.slice(0, 10)} UTC.`)
  } else {
    lines.push('No failures.')
  }
  lines.push(`Builds seen: ${s.builds.length} (${plural(s.buildChanges, 'change')} between consecutive barrages)`)
  for (const b of s.builds) {
    lines.push(`  ${b.shellBytes} B #${b.assetsHash}  ${plural(b.assets, 'asset')}  first ${time(b.firstSeen)}  last ${time(b.lastSeen)}  ${plural(b.barrages, 'barrage')}`)
  }
  return `${lines.join('\n')}\n`
}

/** One `--ndjson` line for a barrage: times as ISO-8601 UTC. */
export function barrageJson(b: BarrageResult, info: {newBuild: boolean; changed: boolean}): string {
  const {startedAt, endedAt, ...rest} = b
  // A server's headers and bodies are its own: the line does nothing to a terminal.
  return `${inertJson(JSON.stringify({type: 'barrage', startedAt: new Date(startedAt).toISOString(), endedAt: new Date(endedAt).toISOString(), ...rest, newBuild: info.newBuild}))}\n`
}

/** The summary as the last NDJSON line, inert on a terminal as each barrage's is. */
export function summaryJson(summary: ProbeSummary): string {
  return `${inertJson(JSON.stringify({type: 'summary', ...summary}))}\n`
}
