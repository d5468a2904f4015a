import {ProgressLine, readHooks, renderProgress, renderReadProgress} from '../../../src/cli/progress'
import {pullSummaryLine} from '../../../src/report/pull-summary'
import {stderrText} from '../../../src/cli/stderr'

const status = {phase: 'pulling' as const, slicesDone: 3, slicesTotal: 8, pages: 12, events: 11482, requests: 17, retries: 2, budget: {name: 'logs', limit: 300, remaining: 283, resetInSeconds: 2460}, etaSeconds: 130}

describe('progress on stderr', () => {
  it('one line: slices, pages, events, requests, retries, budget left, ETA', () => {
    expect(renderProgress(status)).toBe('datadog: slices 3/8 · 12 pages · 11,482 events · 17 requests · 2 retries · budget 283/300 (refills in 41m00s) · ETA 2m10s')
    expect(renderProgress({...status, phase: 'planning'})).toBe('datadog: counting the range (aggregate API)... 17 requests')
  })

  it('prints nothing when stderr is not a terminal', () => {
    const out: string[] = []
    const line = new ProgressLine((s, c) => out.push(stderrText(s, c)), false)
    line.update(status, true)
    line.update(status, true)
    expect(out).toEqual([])
  })

  it('on a terminal, rewrites its line in place, at most twice a second; notices go below it', () => {
    const out: string[] = []
    let now = 0
    const line = new ProgressLine((s, c) => out.push(stderrText(s, c)), true, () => now)
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

  it('a pull that goes from planning to pulling shows it at once, within the interval (a quick pull still shows its slices)', () => {
    const out: string[] = []
    let now = 0
    const line = new ProgressLine((s, c) => out.push(stderrText(s, c)), true, () => now)
    line.update({...status, phase: 'planning'})
    now = 50
    line.update({...status, phase: 'planning', requests: 18})
    now = 80
    line.update(status)
    now = 90
    line.update({...status, pages: 13})
    expect(out.map((s) => s.replace(/ · .*/, ''))).toEqual(['datadog: counting the range (aggregate API)... 17 requests', '\u001b[1A\u001b[2Kdatadog: slices 3/8'])
    expect(out[1]).toContain('12 pages')
  })

  it('the summary line says what the range held, what was pulled and what it cost', () => {
    expect(pullSummaryLine({
      query: 'service:web', from: '', to: '', site: 'datadoghq.com', pull: 'windows', narrowing: {aggregate: 'used', shellLengths: [1832]}, held: 466, pulled: 388,
      duplicates: 0, requests: {total: 20, search: 17, aggregate: 3, events: 0, retries: 1}, slices: 6, windows: {count: 1, pulledSeconds: 2340, rangeSeconds: 3000, list: []},
    })).toBe('Datadog: pulled 388 events (83.3% of 466 in the range) with 20 requests (17 search, 3 aggregate, 0 events, 1 retries) in 6 slices, 1 asset window (39 of 50 min)')
  })

  it('after --spool continued a pull: the events an earlier run pulled count with this run\'s, and the line says how many', () => {
    expect(pullSummaryLine({
      query: 'service:web', from: '', to: '', site: 'datadoghq.com', pull: 'windows', narrowing: {aggregate: 'used', shellLengths: [1832]}, held: 466, pulled: 88, resumed: {events: 300},
      duplicates: 0, requests: {total: 5, search: 5, aggregate: 0, events: 0, retries: 0}, slices: 6, windows: {count: 1, pulledSeconds: 2340, rangeSeconds: 3000, list: []},
    })).toBe('Datadog: pulled 388 events (83.3% of 466 in the range), 300 of them by an earlier run (read back from the spool) with 5 requests (5 search, 0 aggregate, 0 events, 0 retries) in 6 slices, 1 asset window (39 of 50 min)')
  })
})

describe('progress of a long file read', () => {
  const at = Date.parse('2026-11-30T07:19:00Z')
  it.each([
    ['records only (no source told its bytes)', {records: 32_768, time: at}, 3000, 'reading: 32,768 records, log time 2026-11-30 07:19:00Z'],
    ['nothing read yet, size known: 0% and no ETA', {records: 0, time: undefined, bytes: 0, totalBytes: 1_234_567_890}, 400, 'reading: 0 B of 1.2 GB (0%), 0 records'],
    ['a quarter in 2 s: 6 s to go', {records: 250_000, time: at, bytes: 250_000_000, totalBytes: 1_000_000_000}, 2000, 'reading: 250.0 MB of 1.0 GB (25%), 250,000 records, log time 2026-11-30 07:19:00Z, ETA 6s'],
    ['the share is rounded down: 99.9% is not done', {records: 9, time: undefined, bytes: 999, totalBytes: 1000}, 999_000, 'reading: 999 B of 1.0 KB (99%), 9 records, ETA 1s'],
    ['minutes and hours to go', {records: 1, time: undefined, bytes: 1_000_000, totalBytes: 91_000_000}, 1000, 'reading: 1.0 MB of 91.0 MB (1%), 1 record, ETA 1m30s'],
    ['all read, the analysis finishing', {records: 1_000_000, time: at, bytes: 80_000_000, totalBytes: 80_000_000}, 9000, 'reading: 80.0 MB of 80.0 MB (100%), 1,000,000 records, log time 2026-11-30 07:19:00Z, all read, analysing'],
    ['a gzip member past the size at open never says more than 100%', {records: 5, time: undefined, bytes: 2_000, totalBytes: 1_500}, 10, 'reading: 1.5 KB of 1.5 KB (100%), 5 records, all read, analysing'],
    ['standard input: no size, bytes read only', {records: 12, time: undefined, bytes: 4_500_000}, 1000, 'reading: 4.5 MB read, 12 records'],
  ])('%s', (_label, p, elapsed, line) => expect(renderReadProgress(p, elapsed)).toBe(line))

  it('on a terminal: nothing in the first second, then bytes of the total, share and ETA, rewritten in place; cleared at the end', () => {
    const out: string[] = []
    let now = 0
    const hooks = readHooks((s, c) => out.push(stderrText(s, c)), true, () => now)
    now = 250
    hooks.onProgress({records: 0, time: undefined, bytes: 1_000_000, totalBytes: 40_000_000})
    now = 1000
    hooks.onProgress({records: 16_384, time: at, bytes: 4_000_000, totalBytes: 40_000_000})
    now = 1200
    hooks.onProgress({records: 32_768, time: at, bytes: 5_000_000, totalBytes: 40_000_000})
    now = 2000
    hooks.onProgress({records: 65_536, time: at, bytes: 10_000_000, totalBytes: 40_000_000})
    hooks.done()
    expect(out).toEqual([
      'reading: 4.0 MB of 40.0 MB (10%), 16,384 records, log time 2026-11-30 07:19:00Z, ETA 9s',
      '\u001b[1A\u001b[2Kreading: 10.0 MB of 40.0 MB (25%), 65,536 records, log time 2026-11-30 07:19:00Z, ETA 6s',
      '\u001b[1A\u001b[2K\u001b[1A',
    ])
  })

  it('never when stderr is piped', () => {
    const out: string[] = []
    let now = 0
    const hooks = readHooks((s, c) => out.push(stderrText(s, c)), false, () => now)
    now = 5000
    hooks.onProgress({records: 1, time: undefined, bytes: 1, totalBytes: 2})
    hooks.done()
    expect(out).toEqual([])
  })
})
