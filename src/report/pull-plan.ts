import type {PullEstimate} from '../model/pull-estimate'
import {plural, pluralCount} from '../util/plural'
import {duration} from './table'
import {terminalSafe} from './sanitize'

/** What `analyze --plan` says (and a live run on a terminal, before it pulls), as lines of text. */
export interface PullPlanView {
  query: string
  from: string
  to: string
  estimate: PullEstimate
}

const when = (iso: string): string => iso.replace('T', ' ').replace(/\.000Z$/, 'Z')

export function renderPullPlan(p: PullPlanView): string {
  const e = p.estimate
  const held = e.held === null ? 'holds an unknown number of events (the aggregate count failed)' : `holds ${pluralCount(e.held, 'event')}`
  const share = e.held !== null && e.held > 0 ? ` (${Math.round((e.toPull / e.held) * 1000) / 10}%)` : ''
  const unknown = e.unknownSlices === 0 ? '' : e.held === null ? ' (of unknown size)' : ` (${e.unknownSlices} of them, the pods' edges, of unknown size)`
  const lines = [
    `Datadog plan: ${when(p.from)} → ${when(p.to)} ${held} for ${JSON.stringify(terminalSafe(p.query || '*'))}.`,
    `The pull takes ${e.unknownSlices > 0 ? 'at least ' : ''}${pluralCount(e.toPull, 'event')}${share} in ${plural(e.slices, 'slice')}${unknown}: ` +
      `${e.unknownSlices > 0 ? 'at least ' : 'about '}${plural(e.searchRequests, 'search request')}, after ${plural(e.planningRequests, 'request')} to plan it.`,
    rateLine(e),
  ]
  return `${lines.join('\n')}\n`
}

function rateLine(e: PullEstimate): string {
  const b = e.budget
  if (!b) return 'Rate limit: not announced by Datadog (no X-RateLimit-* headers): the pull goes as fast as it is answered.'
  const per = b.limit === undefined ? '' : `${b.limit} requests per ${b.periodSeconds ?? '?'} s, `
  const refills = b.resetInSeconds === undefined ? '' : `, refills in ${duration(b.resetInSeconds)}`
  const wait = e.waitSeconds === null ? 'how long it holds the pull back is unknown' : e.waitSeconds === 0 ? 'no wait' : `about ${duration(e.waitSeconds)} of waiting for it`
  return `Rate limit ${terminalSafe(b.name)}: ${per}${b.remaining ?? '?'} left${refills}: ${wait}.`
}
