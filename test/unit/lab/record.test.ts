import {compareRow, renderCompare, STRATEGIES} from '../../../src/lab/compare'
import {BrowserRecord} from '../../../src/lab/record'

const T0 = Date.parse('2026-11-30T10:00:00.000Z')

describe('the lab\'s record of its browsers', () => {
  it('counts page loads, broken ones (by first phase), users, symptoms and directions; errors apart', () => {
    const r = new BrowserRecord()
    const a = r.startPageLoad('192.0.2.1 UA', T0 - 50)
    const b = r.startPageLoad('192.0.2.2 UA', T0 + 2000)
    const c = r.startPageLoad('192.0.2.2 UA', T0 + 2100)
    r.startPageLoad('192.0.2.3 UA', T0 - 9000)
    r.asset({time: T0, browser: '192.0.2.1 UA', path: '/a.js', pageLoad: a, pageBuild: 0, servingBuild: 0, outcome: 'ok', phase: 'load'})
    r.asset({time: T0 + 100, browser: '192.0.2.1 UA', path: '/a.js', pageLoad: a, pageBuild: 0, servingBuild: 1, outcome: 'html-for-asset', phase: 'load'})
    r.asset({time: T0 + 900, browser: '192.0.2.1 UA', path: '/c.js', pageLoad: a, pageBuild: 0, servingBuild: 1, outcome: 'html-for-asset', phase: 'lazy'})
    r.asset({time: T0 + 2500, browser: '192.0.2.2 UA', path: '/b.js', pageLoad: c, pageBuild: 1, servingBuild: 0, outcome: 'missing', phase: 'lazy'})
    r.asset({time: T0 + 3000, browser: '192.0.2.2 UA', path: '/b.js', pageLoad: b, pageBuild: null, servingBuild: 0, outcome: 'error', phase: 'load'})
    r.error()
    expect(r.summary([{start: T0 + 1000, end: T0 + 4000}])).toEqual({
      browsers: 3, pageLoads: 4, brokenPageLoads: 2, byPhase: {load: 1, lazy: 1}, perThousand: 500, affectedUsers: 2, exposedUsers: 1, failedRequests: 3, errors: 2,
      byDirection: {oldPageNewPod: 2, newPageOldPod: 1, unknown: 0}, bySymptom: {html: 2, missing: 1},
      firstFailure: '2026-11-30T10:00:00.100Z', lastFailure: '2026-11-30T10:00:02.500Z', windowSeconds: 2.4,
    })
    // Busy while a deploy ran: the first browser's last request (T0 + 900) reaches into an open window, the third's does not.
    expect(r.summary([{start: T0 + 900, end: null}]).exposedUsers).toBe(2)
    expect(r.summary().exposedUsers).toBe(0)
    expect(r.failures.map((f) => `${f.path} ${f.symptom} ${f.direction} ${f.phase}`)).toEqual([
      '/a.js html oldPageNewPod load', '/c.js html oldPageNewPod lazy', '/b.js missing newPageOldPod lazy',
    ])
  })

  it('makes one comparison row per strategy and a table with all of them', () => {
    const r = new BrowserRecord()
    r.startPageLoad('x', T0)
    const rows = STRATEGIES.map((s) => compareRow(s, r.summary(), 6))
    expect(rows[0]).toEqual({
      id: 'round-robin', label: 'round-robin, rolling', pageLoads: 1, brokenPageLoads: 0, byPhase: {load: 0, lazy: 0}, perThousand: 0,
      affectedUsers: 0, exposedUsers: 0, windowSeconds: null, deploySeconds: 6, bySymptom: {html: 0, missing: 0}, byDirection: {oldPageNewPod: 0, newPageOldPod: 0, unknown: 0}, errors: 0,
    })
    const table = renderCompare(rows)
    for (const s of STRATEGIES) expect(table).toContain(s.label)
    expect(table).toContain('Per 1000')
    expect(STRATEGIES.map((s) => s.id)).toEqual(['round-robin', 'cookie-affinity', 'keep-old-assets', '404-for-missing', 'blue-green'])
  })
})
