import {buildFingerprint} from '../../../src/probe/fingerprint'
import {barrageJson, renderBarrage, renderProbeSummary} from '../../../src/probe/render'
import {ProbeTally} from '../../../src/probe/tally'
import type {BarrageResult} from '../../../src/probe/types'

const T0 = Date.parse('2026-11-30T10:00:00.000Z')
const build = buildFingerprint(1832, ['http://h/_build/b.js', 'http://h/_build/a.js'])
const ok = {status: 200, bytes: 9000, contentType: 'text/javascript', outcome: 'ok' as const, reason: null, ms: 2}
const b: BarrageResult = {
  seq: 3, startedAt: T0, endedAt: T0 + 12,
  page: {url: 'http://h/', status: 200, bytes: 1832, contentType: 'text/html', error: null, ms: 3},
  build,
  assets: [
    {...ok, url: 'http://h/_build/a.js', kind: 'module'},
    {url: 'http://[h\u001b[31m/b.js', kind: 'script', status: 200, bytes: 1851, contentType: 'text/html', outcome: 'html-for-asset', reason: 'text/html', ms: 2},
    {...ok, url: 'https://cdn.example.net/c.css', kind: 'stylesheet'},
  ],
  verdict: 'html',
}

describe('probe rendering', () => {
  it('prints the write-up\'s line, the fingerprint and, when a barrage failed, one line per asset', () => {
    expect(renderBarrage(b, {newBuild: true, changed: false})).toBe([
      `Barrage started at 2026-11-30T10:00:00.000Z: has some HTML  [build 1832 B #${build.assetsHash}, new build; 3 assets]`,
      '   /_build/a.js is HTML? false  200 text/javascript 9000 B',
      '   http://[h\\u001b[31m/b.js is HTML? true  200 text/html 1851 B: html-for-asset (text/html)',
      '   https://cdn.example.net/c.css is HTML? false  200 text/javascript 9000 B',
      '',
    ].join('\n'))
    expect(renderBarrage({...b, assets: [], verdict: 'all-ok'}, {newBuild: false, changed: true})).toBe(
      `Barrage started at 2026-11-30T10:00:00.000Z: is all JS  [build 1832 B #${build.assetsHash}, build changed; 0 assets]\n`)
    expect(renderBarrage({...b, build: null, assets: [], verdict: 'page-error', page: {...b.page, status: null, error: 'ECONNREFUSED'}}, {newBuild: false, changed: false}))
      .toBe('Barrage started at 2026-11-30T10:00:00.000Z: page failed (ECONNREFUSED)\n')
  })

  it('fingerprints the sorted asset list, so order and duplicates do not matter', () => {
    expect(buildFingerprint(1832, ['http://h/_build/a.js', 'http://h/_build/b.js', 'http://h/_build/a.js'])).toEqual(build)
    expect(build.fingerprint).toMatch(/^1832:[0-9a-f]{8}$/)
    expect(buildFingerprint(1832, ['http://h/_build/c.js']).assetsHash).not.toBe(build.assetsHash)
  })

  it('writes an NDJSON line with ISO times', () => {
    const line = JSON.parse(barrageJson(b, {newBuild: true, changed: false}))
    expect(line).toMatchObject({type: 'barrage', seq: 3, startedAt: '2026-11-30T10:00:00.000Z', endedAt: '2026-11-30T10:00:00.012Z', verdict: 'html', newBuild: true})
  })

  it('summarises in plain words', () => {
    const t = new ProbeTally()
    t.add(b)
    const text = renderProbeSummary(t.summary({url: 'http://h/', startedAt: T0, endedAt: T0 + 5000, stoppedBy: 'interrupt'}))
    expect(text).toContain('Probe of http://h/: 1 barrage in 5.0 s, interrupted.')
    expect(text).toContain('Failed barrages: 1 (100% of the pages that loaded): 1 with HTML for an asset')
    expect(text).toContain('Failure window: 10:00:00.000Z → 10:00:00.000Z (0 s)')
    expect(text).toContain(`1832 B #${build.assetsHash}  3 assets  first 10:00:00.000Z  last 10:00:00.000Z  1 barrage`)
    expect(renderProbeSummary(t.summary({url: 'http://h/', startedAt: T0, endedAt: T0 + 2700, stoppedBy: 'unreachable'})))
      .toContain('Probe of http://h/: 1 barrage in 2.7 s, gave up (the page did not answer).')
  })
})
