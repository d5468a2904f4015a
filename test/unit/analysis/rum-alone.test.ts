/**
 * RUM without access logs (analysis/rum-alone.ts): deploys from the versions the pages carried,
 * per service, and each failure on the deploy its page's version and time say, on cases made to
 * tell the rules apart.
 */
import {rumOnlyReport} from '../../../src/analysis/rum-alone'
import type {RumEvent} from '../../../src/model/rum'

const T0 = Date.parse('2026-11-30T07:00:00.000Z')
let n = 0
/** A page load of `service` at `at` seconds with `version`, and, when given, its crash or failed lazy load at `failAt` seconds. */
function page(service: string, at: number, version: string | undefined, fail?: {kind: 'crash' | 'lazy'; at: number}, user?: string): RumEvent[] {
  const id = `v${++n}`
  const common = {session: `s${n}`, view: id, service, ...(version === undefined ? {} : {version}), ...(user === undefined ? {} : {user}), location: {file: 'rum.json', line: n}}
  const out: RumEvent[] = [{kind: 'view', time: T0 + at * 1000, loadingType: 'initial_load', ...common}]
  if (fail?.kind === 'crash') out.push({kind: 'error', time: T0 + fail.at * 1000, error: {message: 'Uncaught SyntaxError: Unexpected token \'<\''}, ...common})
  if (fail?.kind === 'lazy') out.push({kind: 'error', time: T0 + fail.at * 1000, error: {message: `TypeError: Failed to fetch dynamically imported module: https://x/${id}.js`}, ...common})
  return out
}
const INPUT = {files: [], views: 0, resources: 0, errors: 0, skipped: {total: 0, byReason: {}, examples: []}}
const report = (events: RumEvent[]): ReturnType<typeof rumOnlyReport> =>
  rumOnlyReport({events: events.sort((a, b) => a.time - b.time), input: INPUT}, [], {deployMarginMs: 60_000})

describe('RUM alone', () => {
  it('a deploy per version change, per service; each failure on its own service\'s deploy', () => {
    const r = report([
      ...page('web', 0, 'w1'), ...page('web', 100, 'w1', {kind: 'crash', at: 100}, 'acct-1'), ...page('web', 90, 'w2'), ...page('web', 200, 'w2'),
      ...page('shop', 10, 's1'), ...page('shop', 95, 's2', {kind: 'crash', at: 95}, 'acct-2'), ...page('shop', 300, 's2'),
    ])
    expect(r.rum?.deploys?.map((d) => [d.id, d.service, d.fromVersion, d.toVersion, d.sources, d.crashedPageLoads, d.accountIds])).toEqual([
      ['D1', 'web', 'w1', 'w2', ['inferred'], 1, ['acct-1']],
      ['D2', 'shop', 's1', 's2', ['inferred'], 1, ['acct-2']],
    ])
    expect(r.rum).toMatchObject({withoutLogs: true, crashedPageLoads: 2, accounts: 2, confirmed: 0, unexplained: 0})
    expect(r.deploys).toEqual([])
  })

  it('a stale tab of the first version fails in the second deploy\'s window: the first deploy\'s (it retired that version)', () => {
    const r = report([
      ...page('web', 0, 'a', {kind: 'lazy', at: 250}), ...page('web', 100, 'b'), ...page('web', 110, 'a'),
      ...page('web', 240, 'c'), ...page('web', 245, 'b'), ...page('web', 400, 'c'),
    ])
    expect(r.rum?.deploys?.map((d) => [d.fromVersion, d.toVersion, d.lazyFailures])).toEqual([['a', 'b', 1], ['b', 'c', 0]])
  })

  it('a page of no known version goes to the deploy whose window holds its failure; none when no window does', () => {
    const r = report([...page('web', 0, 'a'), ...page('web', 100, 'b'), ...page('web', 120, 'a'), ...page('web', 130, undefined, {kind: 'crash', at: 130}), ...page('web', 900, undefined, {kind: 'crash', at: 900})])
    expect(r.rum?.deploys?.map((d) => d.crashedPageLoads)).toEqual([1])
    expect(r.rum?.crashedPageLoads).toBe(2)
  })
})
