import {TOP_FAILURES, type TopFailures} from '../model/report'
import {browserName} from './browser-name'

/** One failed request as the lists count it. */
export interface CountedFailure {
  path: string
  status: number
  session: string
  userAgent: string
}

/** The `max` keys seen most, the most first (ties by key, so the lists never depend on input order). */
function top<K extends string | number>(counts: ReadonlyMap<K, number>, max: number): [K, number][] {
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, max)
}

/** The paths, status codes and browsers that failed most among some failed requests (an incident's): at most `max` of each. */
export function topFailures(failures: Iterable<CountedFailure>, max = TOP_FAILURES): TopFailures {
  const paths = new Map<string, number>()
  const statuses = new Map<number, number>()
  const browsers = new Map<string, number>()
  const people = new Map<string, Set<string>>()
  for (const f of failures) {
    paths.set(f.path, (paths.get(f.path) ?? 0) + 1)
    statuses.set(f.status, (statuses.get(f.status) ?? 0) + 1)
    const browser = browserName(f.userAgent)
    browsers.set(browser, (browsers.get(browser) ?? 0) + 1)
    let who = people.get(browser)
    if (!who) people.set(browser, (who = new Set()))
    who.add(f.session)
  }
  return {
    paths: top(paths, max).map(([path, failedRequests]) => ({path, failedRequests})),
    statuses: top(statuses, max).map(([status, failedRequests]) => ({status, failedRequests})),
    browsers: top(browsers, max).map(([browser, failedRequests]) => ({browser, failedRequests, users: people.get(browser)?.size ?? 0})),
  }
}
