import type {AnalysisReport, DeployAdvice, FixAdvice, FixId} from '../model/report'
import {plural} from '../util/plural'
import {listed, moreLine} from './listed'

/** Deploys whose advice a human report shows (those with the most failed requests); the JSON has them all. */
export const ADVICE_DEPLOYS = 10

/** The advice as the human reports show it, in plain text: each renderer escapes it for its medium. */
export interface AdviceText {
  /** What each fix would have prevented over every deploy advised, the most first. */
  overall: string
  deploys: {title: string; rows: string[][]; notes: string[]; unknown: string[]}[]
  /** How many deploys' advice was left out, or null. */
  more: string | null
}

export const ADVICE_HEAD = ['Fix', 'Prevents', 'Page loads', 'Users', 'Recovers', 'In place']

/** `19`, `~19` (an estimate), `?` (unknown). */
const count = (f: FixAdvice, n: number | undefined): string => (n === undefined ? '?' : f.basis === 'estimated' ? `~${n}` : String(n))

function row(f: FixAdvice): string[] {
  return [f.fix, count(f, f.prevented?.failedRequests), count(f, f.prevented?.pageLoads), count(f, f.prevented?.users),
    f.recovered === null ? '?' : String(f.recovered.pageLoads), f.inPlace]
}

/** The failed requests each fix would have prevented, summed over the deploys (an estimate when any part is). */
function totals(advice: readonly DeployAdvice[]): {fix: FixId; n: number; estimated: boolean; unknown: boolean}[] {
  const by = new Map<FixId, {fix: FixId; n: number; estimated: boolean; unknown: boolean}>()
  for (const a of advice) {
    for (const f of a.fixes) {
      const t = by.get(f.fix) ?? {fix: f.fix, n: 0, estimated: false, unknown: false}
      t.n += f.prevented?.failedRequests ?? 0
      t.estimated ||= f.basis === 'estimated'
      t.unknown ||= f.prevented === null
      by.set(f.fix, t)
    }
  }
  return [...by.values()].sort((a, b) => b.n - a.n)
}

/**
 * The one fix that would have prevented the most failed requests over every deploy advised, in the
 * words and figures of the advice's overall line (`version-pinning, which would have prevented 40
 * of the 42 failed requests of 2 deploys`); null when no fix would have prevented any.
 */
export function bestFix(r: AnalysisReport): string | null {
  const best = totals(r.advice)[0]
  if (!best || best.n === 0) return null
  const failed = r.advice.reduce((n, a) => n + a.failures.failedRequests, 0)
  return `${best.fix}, which would have prevented ${best.estimated ? 'about ' : ''}${best.n} of the ${plural(failed, 'failed request')} of ${plural(r.advice.length, 'deploy')}`
}

function overall(r: AnalysisReport): string {
  const failed = r.advice.reduce((n, a) => n + a.failures.failedRequests, 0)
  const parts = totals(r.advice).filter((t) => t.n > 0).map((t) => `${t.fix} ${t.estimated ? 'about ' : ''}${t.n}${t.unknown ? ' (unknown for some deploys)' : ''}`)
  const none = r.totals.failedRequests - failed
  const rest = none > 0 ? ` ${plural(none, 'failed request')} tied to no deploy are advised on by none.` : ''
  if (parts.length === 0) return `No fix would have prevented any of the ${plural(failed, 'failed request')} of the ${plural(r.advice.length, 'deploy')} advised.${rest}`
  const halving = parts.some((p) => p.startsWith('shorter-rollout')) ? ' (shorter-rollout: per halving of the window)' : ''
  return `What each fix would have prevented of the ${plural(failed, 'failed request')} of ${plural(r.advice.length, 'deploy')}: ${parts.join(', ')}${halving}.${rest}`
}

/** The advice of a report in plain text: the overall line, then the deploys with the most failed requests, each fix a row and a note. */
export function adviceText(r: AnalysisReport, max = ADVICE_DEPLOYS): AdviceText | null {
  if (r.advice.length === 0) return null
  const {shown, more, firstLeftOut} = listed(r.advice, max, (a, b) => b.failures.failedRequests - a.failures.failedRequests)
  const apps = r.apps.length > 1
  return {
    overall: overall(r),
    deploys: shown.map((a) => {
      const d = r.deploys.find((x) => x.id === a.deployId && x.app === a.app)
      const f = a.failures
      const where = apps ? ` of ${a.app ?? '(unnamed)'}` : ''
      return {
        title: `Advice for ${a.deployId} (${d?.fromBuild ?? '?'} → ${d?.toBuild ?? '?'})${where}: ${plural(f.failedRequests, 'failed request')}, ${plural(f.pageLoads, 'page load')} and ${plural(f.users, 'user')} hit`,
        rows: a.fixes.map(row), notes: a.fixes.map((x) => `${x.fix}: ${x.note}`), unknown: a.unknown.map((u) => `unknown: ${u}.`),
      }
    }),
    more: more > 0 ? moreLine(more, 'deploy', `with at most ${plural(firstLeftOut?.failures.failedRequests ?? 0, 'failed request')} each`) : null,
  }
}

export const ADVICE_LEGEND = 'Prevents: failed requests that would not have happened; Page loads, Users: those left with no failure at all (~: an estimate, ' +
  'a share of the race; ?: the logs cannot tell). Recovers: page loads that still fail a request but can recover (a 404 is a load error the page can catch). ' +
  'In place: what the logs show is already done.'
