import type {PullEstimate, RumPullEstimate} from '../model/pull-estimate'
import {plural, pluralCount} from '../util/plural'
import {duration} from './table'
import {terminalSafe} from './sanitize'

/** What `analyze --plan` says (and a live run on a terminal, before it pulls), as lines of text. */
export interface PullPlanView {
  query: string
  from: string
  to: string
  estimate: PullEstimate
  /** `--rum-query`: what the RUM pull costs, as far as it is known before the logs are analysed. */
  rum?: RumPullEstimate
}

const when = (iso: string): string => iso.replace('T', ' ').replace(/\.000Z$/, 'Z')

export function renderPullPlan(p: PullPlanView): string {
  const e = p.estimate
  const held = e.held === null ? 'holds an unknown number of events (the aggregate count failed)' : `holds ${pluralCount(e.held, 'event')}`
  const share = e.held !== null && e.held > 0 ? ` (${Math.round((e.toPull / e.held) * 1000) / 10}%)` : ''
  const unknown = e.unknownSlices === 0 ? '' : e.held === null ? ' (of unknown size)' : ` (${e.unknownSlices} of them, ${unknownWhat(e)}, of unknown size)`
  const lines = [
    `Datadog plan: ${when(p.from)} → ${when(p.to)} ${held} for ${JSON.stringify(terminalSafe(p.query || '*'))}.`,
    `The pull takes ${e.unknownSlices > 0 ? 'at least ' : ''}${pluralCount(e.toPull, 'event')}${share} in ${plural(e.slices, 'slice')}${unknown}: ` +
      `about ${plural(e.searchRequests, 'search request')}, after ${plural(e.planningRequests, 'request')} to plan it.`,
    rateLine(e),
    ...(p.rum ? [rumLine(p.rum)] : []),
  ]
  return `${lines.join('\n')}\n`
}

/** What the slices of unknown size are, by their streams: each named for what it reads. */
const UNKNOWN_NAMES: Record<string, string> = {edges: "the pods' edges", sessions: "hurt people's own requests"}

function unknownWhat(e: PullEstimate): string {
  const streams = Object.entries(e.unknownStreams).filter(([, n]) => n > 0)
  const name = (stream: string): string => UNKNOWN_NAMES[stream] ?? `the ${terminalSafe(stream)} stream`
  if (streams.length <= 1) return streams[0] ? name(streams[0][0]) : 'slices'
  const parts = streams.map(([stream, n]) => `${name(stream)} (${n})`)
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1] as string}`
}

function rateLine(e: PullEstimate): string {
  const b = e.budget
  if (!b) return 'Rate limit: not announced by Datadog (no X-RateLimit-* headers): the pull goes as fast as it is answered.'
  const per = b.limit === undefined ? '' : `${b.limit} requests per ${b.periodSeconds ?? '?'} s, `
  const refills = b.resetInSeconds === undefined ? '' : `, refills in ${duration(b.resetInSeconds)}`
  const wait = e.waitSeconds === null ? 'how long it holds the pull back is unknown' : e.waitSeconds === 0 ? 'no wait' : `about ${duration(e.waitSeconds)} of waiting for it`
  return `Rate limit ${terminalSafe(b.name)}: ${per}${b.remaining ?? '?'} left${refills}: ${wait}.`
}

/**
 * The RUM pull: its counts (made already), the searches reading the browsers' failures, and what
 * is known only once the logs are analysed (the sessions the failures and the log's failed page loads name).
 */
function rumLine(r: RumPullEstimate): string {
  const loads = r.pageLoads === null ? 'page loads could not be counted (their views are read instead)' : `${pluralCount(r.pageLoads, 'page load')} counted`
  const failures = r.failures === null ? 'the errors and failed scripts (not counted)' : pluralCount(r.failures, 'error and failed script', 'errors and failed scripts')
  return `RUM ${JSON.stringify(terminalSafe(r.query || '*'))}: ${loads}; reads ${failures} in about ${plural(r.failureSearches, 'search request')}, after ${plural(r.requests, 'request')} to count; ` +
    'then the views and resources of the sessions that matter, known once the logs are analysed (an aggregate per 50 addresses of failed page loads, an aggregate and a search or more per 50 sessions).'
}
