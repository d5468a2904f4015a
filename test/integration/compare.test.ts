import Ajv from 'ajv'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {compare} from '../../src/app/compare'
import {DEFAULT_OPTIONS} from '../../src/analysis/options'
import {compareReport, deployRows} from '../../src/analysis/compare'
import {DEFAULT_NORMALIZE} from '../../src/normalize/fields'
import {renderCompareHtml, renderCompareMarkdown} from '../../src/report/compare'
import {ROOT, runCli} from '../helpers/cli'

const fx = (p: string): string => join(ROOT, 'fixtures', p)
const base = {normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000}
const truth = (s: string) => JSON.parse(readFileSync(fx(`${s}/truth.json`), 'utf8'))

describe('compare: did the fix work?', () => {
  it('shows the drop from round-robin to cookie affinity, beside the 1/pods residual affinity predicts', async () => {
    const r = await compare({base: {...base, deploysFile: fx('rolling-round-robin/deploys.json')}, sets: [
      {name: 'round-robin', inputs: [fx('rolling-round-robin/ingress.log')]}, {name: 'affinity', inputs: [fx('rolling-sticky/ingress.log')]}]})
    // The truth: the race crashed 12 of 31 page loads with round-robin, 1 of 30 with affinity; 2 stale tabs each.
    const t = {rr: truth('rolling-round-robin'), sticky: truth('rolling-sticky')}
    type TruthIncident = {cause: string; brokenPageLoads: number; affectedPageLoads: number}
    const raced = (x: {incidents: TruthIncident[]}) => x.incidents.filter((i) => i.cause === 'rollout').reduce((n, i) => n + i.brokenPageLoads, 0)
    const stale = (x: {incidents: TruthIncident[]}) => x.incidents.filter((i) => i.cause === 'stale-client').reduce((n, i) => n + i.affectedPageLoads, 0)
    const pageLoads = (x: {deploys: {pageLoads: number}[]}) => x.deploys[0]?.pageLoads ?? 0
    expect(r.groups.map((g) => [g.name, g.deploys, g.pods, g.pageLoads, g.brokenPageLoads, g.staleBrokenPageLoads])).toEqual([
      ['round-robin', 1, 3, pageLoads(t.rr), raced(t.rr), stale(t.rr)], ['affinity', 1, 3, pageLoads(t.sticky), raced(t.sticky), stale(t.sticky)]])
    const round = (x: number) => Math.round(x * 10_000) / 10_000
    const before = raced(t.rr) / pageLoads(t.rr)
    const after = raced(t.sticky) / pageLoads(t.sticky)
    expect(r.comparison).toMatchObject({before: 'round-robin', after: 'affinity', brokenShareBefore: round(before), brokenShareAfter: round(after), affinityExpectedShare: round(before / 3)})
    expect(r.comparison?.relativeChange).toBeCloseTo((after - before) / before, 3)
    expect(r.comparison?.verdict).toContain(`in line with cookie affinity alone (about ${(100 * before / 3).toFixed(1)}% with 3 pods)`)
    const validate = new Ajv({strict: false}).compile(JSON.parse(readFileSync(join(ROOT, 'schemas', 'compare.schema.json'), 'utf8')))
    expect(validate.errors ?? validate(JSON.parse(JSON.stringify(r)))).toBe(true)
    expect(renderCompareMarkdown(r)).toContain('| round-robin | 1 | 3 | 31 | 12 | 38.7% | 2 | 17 | 17 | 88 s |')
    const html = renderCompareHtml(r, new Date(0), 'test')
    expect(html).toContain('default-src \'none\'')
    expect(html.match(/<rect class="share/g)).toHaveLength(2)
  })

  it('splits one set of logs at --fix-date', async () => {
    const r = await compare({base: {...base, deploysFile: fx('two-deploys/deploys.json')}, inputs: [fx('two-deploys/ingress.log')], fixDate: Date.parse('2026-11-29T14:12:00Z')})
    expect(r.split).toEqual({kind: 'fix-date', fixDate: '2026-11-29T14:12:00.000Z'})
    expect(r.deploys.map((d) => [d.group, d.id])).toEqual([['before', 'D1'], ['after', 'D2']])
  })

  it('judges an after-group worse than affinity predicts, and says when pods are unknown', () => {
    const row = (group: string, broken: number, pods: number | null) => ({group, id: 'D1', start: '2026-11-29T14:00:00.000Z', fromBuild: 'B1', toBuild: 'B2', pods,
      pageLoads: 100, brokenPageLoads: broken, brokenShare: broken / 100, staleBrokenPageLoads: 0, affectedUsers: broken, windowSeconds: 90})
    expect(compareReport({kind: 'sets'}, [{name: 'a', rows: [row('a', 60, 3)]}, {name: 'b', rows: [row('b', 50, 3)]}]).comparison?.verdict)
      .toContain('more than cookie affinity alone leaves (about 20% with 3 pods)')
    expect(compareReport({kind: 'sets'}, [{name: 'a', rows: [row('a', 60, null)]}, {name: 'b', rows: [row('b', 10, null)]}]).comparison?.verdict)
      .toContain('cannot be estimated (--pods N)')
    expect(deployRows('x', {deploys: [], incidents: [], builds: []} as never)).toEqual([])
  })

  it('runs from the command line, and rejects a half-given split with exit 2', () => {
    const r = runCli(['compare', '--set', 'rr=fixtures/rolling-round-robin/ingress.log', '--set', 'sticky=fixtures/rolling-sticky/ingress.log', '--format', 'markdown'])
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/^## skewscan: did the fix work\?/)
    const bad = runCli(['compare', 'fixtures/two-deploys/ingress.log'])
    expect([bad.status, bad.stderr]).toEqual([2, expect.stringContaining('--fix-date: when the fix went live')])
  })
})
