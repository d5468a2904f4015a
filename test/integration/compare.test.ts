import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {loadCapture, renderLog, stretchOf} from '../../scripts/captures/capture'
import {compare} from '../../src/app/compare'
import {DEFAULT_OPTIONS} from '../../src/analysis/options'
import {compareReport, deployRows} from '../../src/analysis/compare'
import {DEFAULT_NORMALIZE} from '../../src/normalize/fields'
import {renderCompareHtml, renderCompareMarkdown} from '../../src/report/compare'
import {ROOT, runCli} from '../helpers/cli'
import {schemaValidator} from '../helpers/schema'

const fx = (p: string): string => join(ROOT, 'fixtures', p)
const NO_FIX = {'keep-old-assets': 0, 'version-pinning': 0, 'cookie-affinity': 0, 'not-found-for-missing-assets': 0, 'client-reload-on-chunk-error': 0, 'shorter-rollout': 0}
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
    const validate = schemaValidator('compare')
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
      pageLoads: 100, brokenPageLoads: broken, brokenShare: broken / 100, staleBrokenPageLoads: 0, affectedUsers: broken, windowSeconds: 90,
      failedRequests: 2 * broken, prevents: {...NO_FIX, 'version-pinning': 2 * broken}})
    expect(compareReport({kind: 'sets'}, [{name: 'a', rows: [row('a', 60, 3)]}, {name: 'b', rows: [row('b', 50, 3)]}]).comparison?.verdict)
      .toContain('more than cookie affinity alone leaves (about 20% with 3 pods)')
    expect(compareReport({kind: 'sets'}, [{name: 'a', rows: [row('a', 60, null)]}, {name: 'b', rows: [row('b', 10, null)]}]).comparison?.verdict)
      .toContain('cannot be estimated (--pods N)')
    expect(deployRows('x', {deploys: [], incidents: [], builds: []} as never)).toEqual([])
  })

  it('puts what a fix actually prevented beside what the advice predicted: real captures before and after keeping old assets, and affinity', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skewscan-compare-'))
    try {
      const log = (name: string): string => {
        const c = loadCapture(ROOT, name)
        const file = join(dir, `${name}.log`)
        writeFileSync(file, renderLog(c, 'nginx-json', stretchOf(c, 10), 'oldest-first'))
        return file
      }
      const sets = (after: string) => compare({base, sets: [{name: 'rr-3', inputs: [log('rr-3')]}, {name: after, inputs: [log(after)]}]})
      const kept = await sets('keep-old-assets')
      const [before, after] = kept.groups
      // The truth: 21 of rr-3's 33 failed requests were old pages asking new pods; none of keep-old-assets' 9 were.
      expect([before?.failedRequests, before?.prevents['keep-old-assets'], after?.failedRequests, after?.prevents['keep-old-assets']]).toEqual([33, 21, 9, 0])
      const perThousand = (n: number, g: typeof before) => Math.round((n / (g?.pageLoads ?? 1)) * 10_000) / 10
      expect(kept.comparison?.fixes[0]).toEqual({fix: 'keep-old-assets', before: perThousand(21, before), after: 0})
      expect(kept.comparison?.verdict).toContain(`the failures keep-old-assets prevents went from ${perThousand(21, before)} to 0 (−100%): the advice for rr-3 predicted it would prevent 21 of 33 failed requests`)
      expect(renderCompareMarkdown(kept)).toContain(`| keep-old-assets | ${perThousand(21, before)} | 0 | −100% |`)
      // Affinity: what remains after is its own residual, so the fix that was made shows as affinity.
      const sticky = await sets('sticky')
      expect(sticky.comparison?.fixes[0]).toMatchObject({fix: 'cookie-affinity', after: 0})
      expect(sticky.groups[1]?.prevents['keep-old-assets']).toBe(6)
      const validate = schemaValidator('compare')
      expect(validate.errors ?? validate(JSON.parse(JSON.stringify(kept)))).toBe(true)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('runs from the command line, and rejects a half-given split with exit 2', () => {
    const r = runCli(['compare', '--set', 'rr=fixtures/rolling-round-robin/ingress.log', '--set', 'sticky=fixtures/rolling-sticky/ingress.log', '--format', 'markdown'])
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/^## skewscan: did the fix work\?/)
    const bad = runCli(['compare', 'fixtures/two-deploys/ingress.log'])
    expect([bad.status, bad.stderr]).toEqual([2, expect.stringContaining('--fix-date: when the fix went live')])
  })
})
