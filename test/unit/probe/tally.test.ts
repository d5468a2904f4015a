import {ProbeTally, verdictOf} from '../../../src/probe/tally'
import type {AssetResult, BarrageResult} from '../../../src/probe/types'

const T0 = Date.parse('2026-11-30T10:00:00.000Z')
const asset = (outcome: AssetResult['outcome']): AssetResult => ({
  url: 'http://h/_build/a.js', kind: 'module', status: outcome === 'error' ? null : outcome === 'missing' ? 404 : 200,
  bytes: 100, contentType: null, outcome, reason: null, ms: 1,
})
const barrage = (seq: number, outcomes: AssetResult['outcome'][], fp: string | null = '1832:aaaaaaaa'): BarrageResult => {
  const assets = outcomes.map(asset)
  return {
    seq, startedAt: T0 + seq * 300, endedAt: T0 + seq * 300 + 20,
    page: {url: 'http://h/', status: fp ? 200 : null, bytes: fp ? Number(fp.split(':')[0]) : 0, contentType: null, error: fp ? null : 'ECONNREFUSED', ms: 5},
    build: fp ? {fingerprint: fp, shellBytes: Number(fp.split(':')[0]), assetsHash: fp.split(':')[1] ?? ''} : null,
    assets, verdict: fp ? verdictOf(assets.map((a) => a.outcome)) : 'page-error',
  }
}

describe('ProbeTally', () => {
  it('summarises barrages: failures, window, builds with first and last time, page errors, rate', () => {
    const t = new ProbeTally()
    const infos = [
      barrage(1, ['ok', 'ok']),
      barrage(2, ['html-for-asset', 'ok']),
      barrage(3, ['ok', 'ok'], '1851:bbbbbbbb'),
      barrage(4, [], null),
      barrage(5, ['missing', 'ok'], '1851:bbbbbbbb'),
      barrage(6, ['error', 'html-for-asset'], '1832:aaaaaaaa'),
      barrage(7, ['ok', 'ok'], '1851:bbbbbbbb'),
    ].map((b) => t.add(b))
    expect(infos.map((i) => `${i.newBuild ? 'N' : '-'}${i.changed ? 'C' : '-'}`)).toEqual(['N-', '--', 'NC', '--', '--', '-C', '-C'])
    const s = t.summary({url: 'http://h/', startedAt: T0, endedAt: T0 + 2400, stoppedBy: 'count'})
    expect(s).toEqual({
      schemaVersion: 1, url: 'http://h/', startedAt: '2026-11-30T10:00:00.000Z', endedAt: '2026-11-30T10:00:02.400Z', stoppedBy: 'count',
      barrages: 7, failedBarrages: 3, byVerdict: {html: 2, missing: 1, error: 0}, pageErrors: 1, failureRate: 0.5,
      firstFailure: '2026-11-30T10:00:00.600Z', lastFailure: '2026-11-30T10:00:01.800Z', windowSeconds: 1.2,
      builds: [
        {fingerprint: '1832:aaaaaaaa', shellBytes: 1832, assetsHash: 'aaaaaaaa', assets: 2, firstSeen: '2026-11-30T10:00:00.300Z', lastSeen: '2026-11-30T10:00:01.800Z', barrages: 3},
        {fingerprint: '1851:bbbbbbbb', shellBytes: 1851, assetsHash: 'bbbbbbbb', assets: 2, firstSeen: '2026-11-30T10:00:00.900Z', lastSeen: '2026-11-30T10:00:02.100Z', barrages: 3},
      ],
      buildChanges: 3,
      assets: {requests: 12, ok: 8, htmlForAsset: 2, missing: 1, error: 1},
    })
  })

  it('has no window and a zero rate without failures, or without any page', () => {
    const t = new ProbeTally()
    expect(t.summary({url: 'u', startedAt: T0, endedAt: T0, stoppedBy: 'interrupt'})).toMatchObject({barrages: 0, failureRate: 0, firstFailure: null, windowSeconds: null, builds: []})
    t.add(barrage(1, ['ok']))
    expect(t.summary({url: 'u', startedAt: T0, endedAt: T0, stoppedBy: 'duration'})).toMatchObject({barrages: 1, failedBarrages: 0, windowSeconds: null})
  })

  it('names the worst outcome, HTML first', () => {
    expect(verdictOf(['ok', 'error', 'missing', 'html-for-asset'])).toBe('html')
    expect(verdictOf(['error', 'missing'])).toBe('missing')
    expect(verdictOf(['ok', 'error'])).toBe('error')
    expect(verdictOf([])).toBe('all-ok')
  })
})
