import type {AnalysisReport, RumFindings, RumReport} from '../model/report'
import {plural} from '../util/plural'

/** The RUM findings as the human reports show them, in plain text: each renderer escapes it for its medium. */
export interface RumText {
  /** One sentence: what the browsers confirmed, of how many accounts, and what no log failure explains. */
  summary: string
  /** A row per deploy and incident with browser failures, then the whole input. */
  rows: string[][]
  /** What was read and how the views were joined. */
  notes: string[]
  /** The signed-in accounts hurt (at most MAX_ACCOUNTS; the JSON has them all), and how many more. */
  accounts: {shown: string[]; more: number}
}

export const RUM_HEAD = ['Scope', 'Crashed (RUM)', 'Confirmed', 'Lazy failures', 'Accounts', 'Sessions', 'Coverage', 'Unexplained', 'Versions']

/** Accounts listed in the human reports. */
export const MAX_ACCOUNTS = 50

const share = (x: number | null): string => (x === null ? '-' : `${Math.round(x * 1000) / 10}%`)
const versions = (f: RumFindings): string => f.versions.slice(0, 3).map((v) => v.version).join(', ') + (f.versions.length > 3 ? ', …' : '')
const rowOf = (scope: string, f: RumFindings): string[] => [scope, String(f.crashedPageLoads), String(f.confirmed), String(f.lazyFailures), String(f.accounts), String(f.sessions), share(f.coverage), String(f.unexplained), versions(f)]
const hurt = (f: RumFindings): boolean => f.crashedPageLoads + f.lazyFailures + f.unconfirmed > 0

/** The sentence the headline ends with: how many crashes the browsers confirmed, and how many accounts they were. */
export function rumSentence(rum: RumReport): string {
  if (rum.withoutLogs) {
    const deploys = rum.deploys ?? []
    const worst = [...deploys].sort((a, b) => b.crashedPageLoads + b.lazyFailures - (a.crashedPageLoads + a.lazyFailures))[0]
    return `RUM alone (no access logs): ${plural(rum.crashedPageLoads, 'page load')} crashed and ${plural(rum.lazyFailures, 'lazy load')} failed, hurting ` +
      `${plural(rum.accounts, 'signed-in account')} in ${plural(rum.sessions, 'session')}, over ${plural(deploys.length, 'deploy')}` +
      `${worst && worst.crashedPageLoads + worst.lazyFailures > 0 ? `; the most in ${worst.id} (${worst.fromVersion ?? '?'} → ${worst.toVersion ?? '?'})` : ''}.`
  }
  const parts = [`The browsers (RUM, ${share(rum.coverage)} of page loads seen) confirmed ${rum.confirmed} of the ${plural(rum.crashedPageLoads, 'crash', 'crashes')} they reported` +
    `${rum.lazyFailures > 0 ? ` and reported ${plural(rum.lazyFailures, 'failed lazy load')}` : ''}, hurting ${plural(rum.accounts, 'signed-in account')} in ${plural(rum.sessions, 'session')}`]
  if (rum.unconfirmed > 0) parts.push(`${plural(rum.unconfirmed, 'crashed page load')} of the log they saw did not crash there`)
  if (rum.unexplained > 0) parts.push(`${plural(rum.unexplained, 'browser failure')} no log failure explains`)
  return `${parts.join('; ')}.`
}

export function rumText(r: AnalysisReport): RumText | null {
  const rum = r.rum
  if (rum === undefined) return null
  const rows = [
    ...(rum.deploys ?? []).filter(hurt).map((d) => rowOf(`deploy ${d.id} (${d.fromVersion ?? '?'} → ${d.toVersion ?? '?'})`, d)),
    ...r.deploys.filter((d) => d.rum !== undefined && hurt(d.rum)).map((d) => rowOf(`deploy ${d.id}`, d.rum as RumFindings)),
    ...r.incidents.filter((i) => i.rum !== undefined && hurt(i.rum)).map((i) => rowOf(`incident ${i.id}`, i.rum as RumFindings)),
    rowOf('all', rum),
  ]
  const i = rum.input
  const j = rum.joins
  const notes = [
    `Read ${plural(i.views, 'view')}, ${plural(i.resources, 'resource')} and ${plural(i.errors, 'error')} from ${plural(i.files.length, 'RUM file')}` +
      `${i.skipped.total > 0 ? `; ${plural(i.skipped.total, 'record')} skipped (${Object.entries(i.skipped.byReason).map(([k, n]) => `${k}: ${n}`).join(', ')})` : ''}.`,
    `Views hurt joined to the log's page loads by client address and asset: ${j.addressAndAsset}; by asset alone: ${j.asset}; by address alone: ${j.address}; joined to none: ${j.none}.`,
    ...(rum.outsideLogs ? [`${plural(rum.outsideLogs, 'view')} hurt outside the logs' time span not counted (no log to hold them against).`] : []),
    ...rum.unexplainedExamples.slice(0, 3).map((e) => `Unexplained: ${e.time} session ${e.session}${e.user ? ` (${e.user})` : ''}: ${e.message}`),
  ]
  return {summary: rumSentence(rum), rows, notes, accounts: {shown: rum.accountIds.slice(0, MAX_ACCOUNTS), more: Math.max(0, rum.accountIds.length - MAX_ACCOUNTS)}}
}

export const RUM_LEGEND = 'Crashed (RUM): page loads whose initial load threw a script error of a stale bundle (Unexpected token \'<\', a module served as HTML). ' +
  'Confirmed: of them, joined to a crashed page load of the log. Lazy failures: dynamic imports and chunks that failed later. Accounts: signed-in users (usr.id) hurt. ' +
  'Coverage: RUM\'s page loads over the log\'s (RUM samples sessions). Unexplained: browser failures no log failure explains.'
