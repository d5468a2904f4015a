/**
 * The advice on the real captures (fixtures/captures), held to the browsers' own truth. Per capture,
 * in every format nginx and Datadog wrote, at the recorded speed and stretched, with deploys inferred
 * and from the captured events, captures.test.ts checks it on the analyses it makes anyway
 * (test/helpers/advice-truth.ts: keep-old-assets prevents exactly the forward skew, version pinning
 * the race). Here: two captures as two apps, each app's advice its own truth's; and what the logs
 * show already in place: old assets kept in keep-old-assets, 404s in mode-404, affinity in sticky.
 */
import {type Capture, CAPTURES, FORMATS, loadCapture} from '../../scripts/captures/capture'
import {composeCaptures, SECOND_APP} from '../../scripts/captures/compose'
import {analyzeCase, type CaseSpec} from '../../scripts/captures/run'
import type {FixId} from '../../src/model/report'
import {renderMarkdown} from '../../src/report/markdown'
import {renderTable} from '../../src/report/table'
import {adviceOf, fixOf, forward} from '../helpers/advice-truth'
import {ROOT} from '../helpers/cli'

const captures = new Map<string, Capture>(CAPTURES.map((name) => [name, loadCapture(ROOT, name)]))
const capture = (name: string): Capture => captures.get(name) as Capture

describe('two apps behind one ingress (two captures composed): each app\'s advice is its own truth\'s', () => {
  it.each([['sticky', 'keep-old-assets'], ['lazy-stale', 'mode-404'], ['rr-3', 'two-deploys']] as const)('%s + %s', async (first, second) => {
    const {capture: both, truths} = composeCaptures(capture(first), capture(second), {offsetMs: 60_000, lengthShift: 1000})
    const {report} = await analyzeCase(both, {format: 'upstreaminfo', order: 'oldest-first', stretch: 10, deploys: 'events'})
    for (const [app, truth] of [['default-webapp-80', truths[0]], [SECOND_APP.upstream, truths[1]]] as const) {
      const mine = report.advice.filter((a) => a.app === app)
      const sum = (fix: FixId): number => mine.reduce((n, a) => n + (fixOf(a, fix).prevented?.failedRequests ?? 0), 0)
      expect([app, sum('keep-old-assets')]).toEqual([app, truth?.failure_requests.filter(forward).length])
      expect([app, mine.reduce((n, a) => n + a.failures.failedRequests, 0)]).toEqual([app, truth?.failure_requests.length])
    }
    // The second app's pods are its own: keep-old-assets' old assets are seen kept there, not in the first.
    if (second === 'keep-old-assets') expect(report.advice.map((a) => [a.app, fixOf(a, 'keep-old-assets').inPlace])).toEqual([['default-webapp-80', 'no'], [SECOND_APP.upstream, 'yes']])
  })
})

describe('what the logs show already in place', () => {
  const run = (name: string, spec: Partial<CaseSpec> = {}) => analyzeCase(capture(name), {format: 'nginx-json', order: 'oldest-first', stretch: 10, deploys: 'events', ...spec})

  it.each(FORMATS.map((f) => [f]))('keep-old-assets (%s): old assets are already kept, what remains is backward skew, for version pinning', async (format) => {
    const {report} = await run('keep-old-assets', {format})
    const a = adviceOf(report, 'D1')
    const keep = fixOf(a, 'keep-old-assets')
    expect(keep).toMatchObject({inPlace: 'yes', prevented: {failedRequests: 0, pageLoads: 0, users: 0}})
    expect(keep.note).toMatch(/^Old assets are already kept: .*what remains is backward skew, new pages asking old pods \(9\)/)
    // Every remaining failure is a new page on an old pod; pinning prevents them all, and comes first.
    expect(a?.evidence.byDirection).toEqual({oldPageNewPod: 0, newPageOldPod: 9, unknown: 0})
    expect(a?.fixes[0]).toMatchObject({fix: 'version-pinning', prevented: a?.failures})
    expect(renderTable(report, {topSessions: 5, width: 100}).replace(/\s+/g, ' ')).toContain('Old assets are already kept')
  })

  it.each(FORMATS.map((f) => [f]))('mode-404 (%s): pods already answer 404, and one reload on the chunk error would recover every page load hit', async (format) => {
    const {report} = await run('mode-404', {format})
    const a = adviceOf(report, 'D1')
    expect(fixOf(a, 'not-found-for-missing-assets')).toMatchObject({inPlace: 'yes', prevented: {failedRequests: 0, pageLoads: 0, users: 0}})
    expect(fixOf(a, 'not-found-for-missing-assets').note).toMatch(/^Pods already answer 404 for missing assets/)
    const reload = fixOf(a, 'client-reload-on-chunk-error')
    expect(reload.recovered).toEqual({pageLoads: a?.failures.pageLoads, users: a?.failures.users})
    expect(reload.note).toMatch(/^With 404s, one reload on the chunk error .* recovers/)
    expect(renderMarkdown(report)).toContain('Pods already answer 404 for missing assets')
  })

  it('rr-3 answers with the shell: 404s first, then a reload recovers; sticky: sessions already stick to their pods', async () => {
    const rr = adviceOf((await run('rr-3')).report, 'D1')
    expect(fixOf(rr, 'client-reload-on-chunk-error')).toMatchObject({inPlace: 'unknown', recovered: {pageLoads: 0, users: 0}})
    expect(fixOf(rr, 'client-reload-on-chunk-error').note).toMatch(/^Needs 404s first/)
    expect(fixOf(rr, 'cookie-affinity')).toMatchObject({inPlace: 'no', basis: 'estimated'})
    expect(rr?.evidence.samePod?.share).toBeLessThan(0.5)
    const sticky = adviceOf((await run('sticky')).report, 'D1')
    expect(fixOf(sticky, 'cookie-affinity')).toMatchObject({inPlace: 'yes', prevented: {failedRequests: 0, pageLoads: 0, users: 0}})
    expect(sticky?.evidence.samePod?.share).toBeGreaterThan(0.95)
    // Affinity leaves lazy chunks and stale tabs: keeping old assets would have prevented them all.
    expect(sticky?.fixes[0]).toMatchObject({fix: 'keep-old-assets', prevented: sticky?.failures})
    // nginx's combined lines name no pods: affinity and its residual are then unknown, and said so.
    const blind = adviceOf((await run('rr-3', {format: 'combined'})).report, 'D1')
    expect(fixOf(blind, 'cookie-affinity')).toMatchObject({basis: 'unknown', prevented: null, inPlace: 'unknown'})
    expect(blind?.evidence).toMatchObject({pods: null, samePod: null})
    expect(blind?.unknown.join(' ')).toContain('the logs name no upstream pods')
  })

  it('lazy-stale: keep old assets at least as long as the oldest stale tab that failed had been open', async () => {
    const {report, failures} = await run('lazy-stale', {stretch: 60})
    const a = adviceOf(report, 'D1')
    const stale = failures.filter((f) => f.cause === 'stale-client').map((f) => Date.parse(f.time) - Date.parse(f.pageLoad.time))
    expect(a?.evidence.oldestStalePageSeconds).toBe(Math.max(...stale) / 1000)
    // Stretched 60 times, the 5–20 s lazy loads come 5–20 minutes after their page.
    expect(a?.evidence.oldestStalePageSeconds).toBeGreaterThan(15 * 60)
    expect(fixOf(a, 'keep-old-assets').note).toMatch(/keep them at least \d+ min \d+ s: the oldest stale tab/)
    expect(a?.fixes[0]?.fix).toBe('keep-old-assets')
  })
})
