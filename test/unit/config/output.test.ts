import {failedRules, measure, parseFailOn} from '../../../src/config/fail-on'
import {outputSettings} from '../../../src/config/output-options'
import {parseDuration, parseFields, parseSessionKey} from '../../../src/config/parse'
import {ROOT} from '../../helpers/cli'
import {loadCapture} from '../../../scripts/captures/capture'
import {analyzeCase} from '../../../scripts/captures/run'
import type {AnalysisReport} from '../../../src/model/report'

describe('--fail-on', () => {
  let report: AnalysisReport
  beforeAll(async () => {
    // The real two-deploys capture, with its Datadog deploy events.
    report = (await analyzeCase(loadCapture(ROOT, 'two-deploys'), {format: 'nginx-json', order: 'oldest-first', stretch: 1, deploys: 'events'})).report
  })

  it('measures what the report says', () => {
    // 49 users, 74 crashed and 90 affected page loads, 166 failed requests (9 of stale tabs), 4 incidents,
    // largest incident share 0.9286, longest rollout race 7.115 s (D2).
    expect(report.totals).toMatchObject({affectedUsers: 49, brokenPageLoads: 74, affectedPageLoads: 90, failedRequests: 166, byCause: {'stale-client': 9}})
    expect(report.incidents).toHaveLength(4)
    expect(Math.max(...report.incidents.map((i) => i.brokenShare))).toBe(0.9286)
    expect(Math.max(...report.deploys.map((d) => d.rolloutWindow?.seconds ?? 0))).toBe(7.115)
    expect(parseFailOn('affected-users>10').map((r) => measure(report, r))).toEqual([49])
  })

  it.each([
    ['incident', true], ['affected-users>10', true], ['affected-users>49', false], ['affected-users>=49', true],
    ['broken-share>=0.9', true], ['broken-share>0.93', false], ['window-seconds>7.2', false], ['window-seconds>=7', true],
    ['failed-requests>200,incidents>3', true], ['failed-requests<167', true], ['broken-page-loads=74', true], ['affected-page-loads>=90', true],
    ['stale-failures>9', false], ['stale-failures=9', true], ['', false],
  ])('%s -> %s', (spec, fails) => {
    expect(failedRules(report, parseFailOn(spec)).length > 0).toBe(fails)
  })

  it.each(['users>3', 'incidents', 'affected-users>>1', 'broken-share>x'])('rejects %s', (spec) => {
    expect(() => parseFailOn(spec)).toThrow(/--fail-on: .* must be "incident" or MEASURE>N/)
  })
})

describe('output settings', () => {
  it('defaults to the table on stdout', () => {
    expect(outputSettings({}).plan).toEqual({formats: ['table'], output: undefined, outDir: undefined, force: false})
  })

  it.each([
    [{format: ['pdf']}, '--format: "pdf" is not one of table, json, ndjson, csv, markdown, html'],
    [{format: ['markdown,json']}, 'several formats need --out-dir'],
    [{format: ['html'], output: 'a', 'out-dir': 'b'}, '--output and --out-dir do not go together'],
  ])('rejects %j', (flags, message) => {
    expect(() => outputSettings(flags)).toThrow(message)
  })

  it('accepts several formats, repeated or comma-separated, once each', () => {
    expect(outputSettings({format: ['markdown,json', 'json', 'html'], 'out-dir': 'r'}).plan.formats).toEqual(['markdown', 'json', 'html'])
  })
})

describe('flag values', () => {
  it.each([['90s', 90_000], ['5m', 300_000], ['1h30m', 5_400_000], ['250ms', 250], ['2', 2000], ['1d', 86_400_000]])('duration %s', (v, ms) => {
    expect(parseDuration('x', v)).toBe(ms)
  })
  it.each(['', 'soon', '5 m', '5mm', '-1s'])('rejects duration %j', (v) => expect(() => parseDuration('gap', v)).toThrow(/--gap: .* is not a duration/))
  it('parses --field and --session-key', () => {
    expect(parseFields(['session=@http.cookies.INGRESSCOOKIE', 'version=tag:version'])).toEqual({session: '@http.cookies.INGRESSCOOKIE', version: 'tag:version'})
    expect(() => parseFields(['nope=x'])).toThrow(/--field/)
    expect(parseSessionKey('cookie:INGRESSCOOKIE')).toEqual({kind: 'cookie', name: 'INGRESSCOOKIE'})
    expect(parseSessionKey('attr:usr.id')).toEqual({kind: 'attr', path: 'usr.id'})
    expect(() => parseSessionKey('cookie:')).toThrow(/--session-key/)
  })
})

describe('--fail-on skipped and skipped-share (issue 14, item 5)', () => {
  const reportWith = (records: number, byReason: Record<string, number>) =>
    ({input: {records, used: 0, first: null, last: null, sources: [], skipped: {total: 0, byReason, examples: []}}}) as unknown as AnalysisReport
  it('counts every skip but header lines and duplicates', () => {
    const r = reportWith(100, {'bad-time': 2, 'truncated-input': 1, 'header-line': 40, duplicate: 30})
    expect(failedRules(r, parseFailOn('skipped>2')).map((x) => x.text)).toEqual(['skipped>2'])
    expect(failedRules(r, parseFailOn('skipped>3'))).toEqual([])
    expect(failedRules(r, parseFailOn('skipped-share>=0.03')).map((x) => x.text)).toEqual(['skipped-share>=0.03'])
    expect(failedRules(reportWith(0, {}), parseFailOn('skipped-share>0'))).toEqual([])
  })
})
