import {ProgressLine, pullSummaryLine, renderProgress} from '../../../../src/cli/datadog-progress'

const status = {phase: 'pulling' as const, slicesDone: 3, slicesTotal: 8, pages: 12, events: 11482, requests: 17, retries: 2, budget: {name: 'logs', limit: 300, remaining: 283, resetInSeconds: 2460}, etaSeconds: 130}

describe('progress on stderr', () => {
  it('one line: slices, pages, events, requests, retries, budget left, ETA', () => {
    expect(renderProgress(status)).toBe('datadog: slices 3/8 · 12 pages · 11,482 events · 17 requests · 2 retries · budget 283/300 (refills in 41m00s) · ETA 2m10s')
    expect(renderProgress({...status, phase: 'planning'})).toBe('datadog: counting the range (aggregate API)... 17 requests')
  })

  it('prints nothing when stderr is not a terminal', () => {
    const out: string[] = []
    const line = new ProgressLine((s) => out.push(s), false)
    line.update(status, true)
    line.update(status, true)
    expect(out).toEqual([])
  })

  it('on a terminal, rewrites its line in place, at most twice a second; notices go below it', () => {
    const out: string[] = []
    let now = 0
    const line = new ProgressLine((s) => out.push(s), true, () => now)
    line.update(status)
    now = 100
    line.update({...status, pages: 13})
    now = 600
    line.update({...status, pages: 14})
    line.note('Datadog logs-search: HTTP 503; retrying in 1s')
    now = 700
    line.update({...status, pages: 15})
    expect(out.map((s) => s.replace(/ · .*/, ''))).toEqual([
      'datadog: slices 3/8', '\u001b[1A\u001b[2Kdatadog: slices 3/8', 'Datadog logs-search: HTTP 503; retrying in 1s', 'datadog: slices 3/8',
    ])
    expect(out[1]).toContain('14 pages')
  })

  it('the summary line says what the range held, what was pulled and what it cost', () => {
    expect(pullSummaryLine({
      query: 'service:web', from: '', to: '', site: 'datadoghq.com', pull: 'windows', narrowing: {aggregate: 'used', shellLengths: [1832]}, held: 466, pulled: 388,
      duplicates: 0, requests: {total: 20, search: 17, aggregate: 3, events: 0, retries: 1}, slices: 6, windows: {count: 1, pulledSeconds: 2340, rangeSeconds: 3000, list: []},
    })).toBe('Datadog: pulled 388 events (83.3% of 466 in the range) with 20 requests (17 search, 3 aggregate, 0 events, 1 retries) in 6 slices, 1 asset window (39 of 50 min)')
  })
})
