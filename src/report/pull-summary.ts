import type {DatadogInputSummary} from '../model/report'
import {plural} from '../util/plural'

/** After a pull: what the range held, what was pulled, and what it cost. */
export function pullSummaryLine(s: DatadogInputSummary): string {
  // With --spool, what an earlier run pulled is read back, not pulled again: counted with this run's.
  const got = s.pulled + (s.resumed?.events ?? 0)
  const share = s.held !== null && s.held > 0 ? ` (${Math.round((got / s.held) * 1000) / 10}% of ${s.held.toLocaleString('en-US')} in the range)` : s.held === null ? '' : ' (the range held none)'
  const resumed = s.resumed ? `, ${s.resumed.events.toLocaleString('en-US')} of them by an earlier run (read back from the spool)` : ''
  const windows = s.pull === 'windows' && s.narrowing.aggregate === 'used' ? `, ${plural(s.windows.count, 'asset window')} (${Math.round(s.windows.pulledSeconds / 60)} of ${Math.round(s.windows.rangeSeconds / 60)} min)` : ''
  const fallback = s.narrowing.aggregate === 'fell-back' ? `; aggregate narrowing fell back: ${s.narrowing.reason ?? 'unknown reason'}` : ''
  return `Datadog: pulled ${got.toLocaleString('en-US')} events${share}${resumed} with ${s.requests.total} requests (${s.requests.search} search, ${s.requests.aggregate} aggregate, ${s.requests.events} events, ${s.requests.retries} retries) in ${plural(s.slices, 'slice')}${windows}${fallback}`
}
