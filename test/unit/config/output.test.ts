import {analyze} from '../../../src/app/analyze'
import {DEFAULT_OPTIONS} from '../../../src/analysis/options'
import {failedRules, parseFailOn} from '../../../src/config/fail-on'
import {outputSettings} from '../../../src/config/output-options'
import {parseDuration, parseFields, parseSessionKey} from '../../../src/config/parse'
import {DEFAULT_NORMALIZE} from '../../../src/normalize/fields'
import {join} from 'node:path'
import {ROOT} from '../../helpers/cli'

describe('--fail-on', () => {
  let report: Awaited<ReturnType<typeof analyze>>
  beforeAll(async () => {
    report = await analyze({
      inputs: [join(ROOT, 'fixtures/two-deploys/ingress.log')], deploysFile: join(ROOT, 'fixtures/two-deploys/deploys.json'),
      normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000,
    })
  })

  // two-deploys: 17 users, 22 broken page loads, 40 failed requests, 3 incidents, max share 1, longest rollout 90 s
  it.each([
    ['incident', true], ['affected-users>10', true], ['affected-users>17', false], ['affected-users>=17', true],
    ['broken-share>=1', true], ['broken-share>1', false], ['window-seconds>90', false], ['window-seconds>=90', true],
    ['failed-requests>100,incidents>2', true], ['failed-requests<41', true], ['broken-page-loads=22', true], ['', false],
  ])('%s -> %s', (spec, fails) => {
    expect(failedRules(report, parseFailOn(spec)).length > 0).toBe(fails)
  })

  it.each(['users>3', 'incidents', 'affected-users>>1', 'broken-share>x'])('rejects %s', (spec) => {
    expect(() => parseFailOn(spec)).toThrow(/--fail-on: .* must be "incident" or MEASURE>N/)
  })
})

describe('output settings', () => {
  it('defaults to the table on stdout', () => {
    expect(outputSettings({}).plan).toEqual({formats: ['table'], output: undefined, outDir: undefined})
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
