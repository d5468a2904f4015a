import {execFileSync} from 'node:child_process'
import {join} from 'node:path'
import {ConfigError} from '../../../src/config/parse'
import {parseTimeExpression, resolveTimeRange} from '../../../src/config/time-range'

const ROOT = join(__dirname, '..', '..', '..')
const NOW = Date.parse('2026-11-29T16:00:00.000Z')

describe('parseTimeExpression', () => {
  it.each([
    ['2026-11-29T14:00:00Z', '2026-11-29T14:00:00.000Z'],
    ['2026-11-29T14:00:00.250Z', '2026-11-29T14:00:00.250Z'],
    ['2026-11-29T15:00:00+01:00', '2026-11-29T14:00:00.000Z'],
    ['2026-11-29T14:00:00', '2026-11-29T14:00:00.000Z'],
    ['2026-11-29 14:00', '2026-11-29T14:00:00.000Z'],
    ['2026-11-29', '2026-11-29T00:00:00.000Z'],
    ['1795960800000', '2026-11-29T14:00:00.000Z'],
    ['now', '2026-11-29T16:00:00.000Z'],
    ['now-2h', '2026-11-29T14:00:00.000Z'],
    ['now-90m', '2026-11-29T14:30:00.000Z'],
    ['now-30s', '2026-11-29T15:59:30.000Z'],
    ['now-1d', '2026-11-28T16:00:00.000Z'],
    ['now-1w', '2026-11-22T16:00:00.000Z'],
    ['now+5m', '2026-11-29T16:05:00.000Z'],
    // Rounded down in UTC (Grafana's and Elasticsearch's date math): NOW is Sunday 29 November.
    ['now/d', '2026-11-29T00:00:00.000Z'],
    ['now-1d/d', '2026-11-28T00:00:00.000Z'],
    ['now/w', '2026-11-23T00:00:00.000Z'],
    ['now-1w/w', '2026-11-16T00:00:00.000Z'],
    ['now/M', '2026-11-01T00:00:00.000Z'],
    ['now-1M', '2026-10-29T16:00:00.000Z'],
    ['now-1y/y', '2025-01-01T00:00:00.000Z'],
    ['now/h', '2026-11-29T16:00:00.000Z'],
    ['now-1d-2h', '2026-11-28T14:00:00.000Z'],
    ['now-90m/h', '2026-11-29T14:00:00.000Z'],
  ])('%s → %s', (input, iso) => {
    expect(new Date(parseTimeExpression('from', input, NOW)).toISOString()).toBe(iso)
  })

  it.each([
    ['1795960800', /looks like epoch seconds; give epoch milliseconds \(1795960800000\)/],
    ['yesterday', /--from: "yesterday" is not a time\. Use ISO-8601/],
    ['2026-02-30T00:00:00Z', /not a time/],
    ['now-2', /not a time/],
    ['now-2q', /not a time/],
    ['now/x', /not a time/],
    ['now/d/d', /not a time/],
    ['now-1d/', /not a time/],
    ['now/d-1d', /not a time/],
  ])('%s is refused', (input, message) => {
    expect(() => parseTimeExpression('from', input, NOW)).toThrow(ConfigError)
    expect(() => parseTimeExpression('from', input, NOW)).toThrow(message)
  })
})

describe('date math by the calendar, in UTC whatever the machine\'s zone', () => {
  const at = (iso: string, input: string): string => new Date(parseTimeExpression('from', input, Date.parse(iso))).toISOString()

  it('a month back from 31 March is the end of February; a year back from 29 February is 28 February', () => {
    expect(at('2026-03-31T12:00:00Z', 'now-1M')).toBe('2026-02-28T12:00:00.000Z')
    expect(at('2028-03-31T12:00:00Z', 'now-1M')).toBe('2028-02-29T12:00:00.000Z')
    expect(at('2028-02-29T12:00:00Z', 'now-1y')).toBe('2027-02-28T12:00:00.000Z')
    expect(at('2026-03-31T12:00:00Z', 'now-1M/M')).toBe('2026-02-01T00:00:00.000Z')
  })

  it('yesterday (now-1d/d to now/d) is the same UTC day in New York and Tokyo as in UTC, across a daylight-saving change', () => {
    // A machine's zone is read once per process: a child node per zone, on the built module (jest pins TZ=UTC).
    const script = `const {parseTimeExpression: p} = require(${JSON.stringify(join(ROOT, 'dist', 'config', 'time-range.js'))});
      const now = Date.parse('2026-03-08T02:30:00Z');
      console.log(JSON.stringify(['now-1d/d', 'now/d', 'now/w', 'now-1M/M'].map((e) => new Date(p('from', e, now)).toISOString())))`
    for (const tz of ['America/New_York', 'Asia/Tokyo', 'Pacific/Chatham']) {
      // 8 March 2026 is when New York moves its clocks; 02:30 UTC is still 7 March there.
      const out = execFileSync(process.execPath, ['-e', script], {env: {PATH: process.env['PATH'], TZ: tz}, encoding: 'utf8', timeout: 20_000})
      expect([tz, JSON.parse(out)]).toEqual([tz, ['2026-03-07T00:00:00.000Z', '2026-03-08T00:00:00.000Z', '2026-03-02T00:00:00.000Z', '2026-02-01T00:00:00.000Z']])
    }
  })
})

describe('resolveTimeRange: resolved once, against the clock given', () => {
  it('--since 2h is now-2h .. now', () => {
    expect(resolveTimeRange({since: '2h'}, NOW)).toEqual({from: NOW - 7_200_000, to: NOW})
    expect(resolveTimeRange({since: '1h30m'}, NOW)).toEqual({from: NOW - 5_400_000, to: NOW})
  })

  it('--to defaults to now; date math and absolute times mix', () => {
    expect(resolveTimeRange({from: 'now-2h'}, NOW)).toEqual({from: NOW - 7_200_000, to: NOW})
    expect(resolveTimeRange({from: '2026-11-29T14:00:00Z', to: 'now-1h'}, NOW)).toEqual({from: Date.parse('2026-11-29T14:00:00Z'), to: NOW - 3_600_000})
  })

  it.each([
    [{since: '2h', from: 'now-1h'}, /--since cannot be combined with --from\/--to/],
    [{}, /--from \(or --since\) is needed/],
    [{from: 'now+1h'}, /is in the future/],
    [{from: 'now-1h', to: 'now-2h'}, /--to .* must be after --from/],
    [{since: '0s'}, /must be longer than zero/],
    [{since: 'two hours'}, /--since: "two hours" is not a duration/],
  ])('%j is refused', (flags, message) => {
    expect(() => resolveTimeRange(flags, NOW)).toThrow(message)
  })
})
