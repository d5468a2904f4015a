import {ConfigError} from '../../../src/config/parse'
import {parseTimeExpression, resolveTimeRange} from '../../../src/config/time-range'

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
  ])('%s → %s', (input, iso) => {
    expect(new Date(parseTimeExpression('from', input, NOW)).toISOString()).toBe(iso)
  })

  it.each([
    ['1795960800', /looks like epoch seconds; give epoch milliseconds \(1795960800000\)/],
    ['yesterday', /--from: "yesterday" is not a time\. Use ISO-8601/],
    ['2026-02-30T00:00:00Z', /not a time/],
    ['now-2', /not a time/],
    ['now-2y', /not a time/],
  ])('%s is refused', (input, message) => {
    expect(() => parseTimeExpression('from', input, NOW)).toThrow(ConfigError)
    expect(() => parseTimeExpression('from', input, NOW)).toThrow(message)
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
