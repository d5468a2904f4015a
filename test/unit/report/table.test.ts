import {join} from 'node:path'
import {analyze} from '../../../src/app/analyze'
import {DEFAULT_OPTIONS} from '../../../src/analysis/options'
import type {AnalysisReport} from '../../../src/model/report'
import {DEFAULT_NORMALIZE} from '../../../src/normalize/fields'
import {headline, renderTable} from '../../../src/report/table'
import {terminalSafe} from '../../../src/report/sanitize'
import {ROOT} from '../../helpers/cli'

const fixture = (scenario: string, file: string, deploys?: string): Promise<AnalysisReport> => analyze({
  inputs: [join(ROOT, 'fixtures', scenario, file)], deploysFile: deploys && join(ROOT, 'fixtures', scenario, deploys),
  normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000,
})

describe('table report', () => {
  it('answers in one sentence: users, page loads, the longest rollout window and its deploy, stale tabs', async () => {
    const r = await fixture('rolling-round-robin', 'ingress.log', 'deploys.json')
    expect(headline(r)).toBe('16 users hit broken pages (20 of 80 page loads) in 2 incidents across 1 deploy; ' +
      'the longest rollout window was 113 s, during deploy D1 (B1 → B2) at 2026-11-29 14:10:00Z; 3 users on stale tabs failed after the deploy had ended.')
  })

  it('says plainly when nothing broke', async () => {
    const r = await fixture('quiet', 'ingress.log')
    expect(headline(r)).toBe('No broken page loads found in 46 page loads (0 deploys seen).')
    expect(renderTable(r, {topSessions: 10})).not.toContain('Incidents')
  })

  it('lists deploys, incidents, the most affected sessions, builds and the input', async () => {
    const out = renderTable(await fixture('two-deploys', 'dd-events.ndjson'), {topSessions: 3})
    for (const s of ['Deploys', 'Incidents', 'Most affected sessions (3 of 17)', 'Builds (by shell length)', 'Input: 528 records', 'Orphan hits'] ) expect(out).toContain(s)
    expect(out).toMatch(/│ D2 +│ inferred │/)
    // ip + user agent sessions are not printed twice
    expect(out).not.toContain('│ Session')
  })

  it('shows the session column when an explicit session key is used', async () => {
    const r = await fixture('rolling-round-robin', 'ingress.log')
    const withKey = {...r, affectedUsers: r.affectedUsers.map((u, i) => ({...u, session: `cookie-${i}`}))}
    expect(renderTable(withKey, {topSessions: 2})).toContain('│ cookie-0')
  })

  it('escapes control characters, bidi overrides and line separators from log text', () => {
    expect(terminalSafe('a\u001b[2Jb\rc\u202ed\u2028')).toBe('a\\u001b[2Jb\\u000dc\\u202ed\\u2028')
  })
})
