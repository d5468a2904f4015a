import {join} from 'node:path'
import {analyze} from '../../../src/app/analyze'
import {DEFAULT_OPTIONS} from '../../../src/analysis/options'
import {DEFAULT_NORMALIZE} from '../../../src/normalize/fields'
import {gathered, jsonPieces} from '../../../src/report/json'
import {ROOT} from '../../helpers/cli'

const joined = (value: unknown, depth?: number): string => [...jsonPieces(value, depth)].join('')

describe('JSON in pieces', () => {
  it('joins to exactly what JSON.stringify(value, null, 2) gives, at every split depth', () => {
    const values: unknown[] = [
      {}, [], 0, 'a\nb', null, true,
      {a: [], b: {}, c: [1, [2, [3, {d: 'x\ny'}]]], e: {f: {g: {h: [null]}}}},
      // No JSON form: left out of objects, null in arrays; toJSON is honoured.
      {u: undefined, f: () => 1, s: Symbol('s'), list: [undefined, () => 1, Symbol('t')], date: new Date(0), last: 1},
      {only: undefined},
      [{nested: [{deep: [1, 2]}, {}], 'quoted "key"': 'é ✓'}],
    ]
    for (const v of values) {
      for (const depth of [0, 1, 2, 3, 8]) expect(joined(v, depth)).toBe(JSON.stringify(v, null, 2))
    }
  })

  it('gives a whole report, split, as one string would be', async () => {
    const r = await analyze({
      inputs: [join(ROOT, 'fixtures', 'rolling-round-robin', 'ingress.log')], deploysFile: join(ROOT, 'fixtures', 'rolling-round-robin', 'deploys.json'),
      normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000,
    })
    expect(r.affectedUsers).toHaveLength(r.totals.affectedUsers)
    expect(r.affectedUsers.length).toBeGreaterThan(10)
    expect(joined(r)).toBe(JSON.stringify(r, null, 2))
  })

  it('puts a long list (affected users) in pieces of a few hundred items, never in one string', () => {
    const users = Array.from({length: 2000}, (_, i) => ({session: `10.0.0.${i % 250} agent ${i}`, incidentIds: [`I${i % 3}`], n: i}))
    const report = {totals: {users: users.length}, affectedUsers: users, holes: [undefined, () => 1, {toJSON: () => 'x'}]}
    const pieces = [...jsonPieces(report)]
    const text = JSON.stringify(report, null, 2)
    expect(pieces.join('')).toBe(text)
    const longest = Math.max(...pieces.map((p) => p.length))
    expect(longest).toBeLessThan(text.length / 5)
    expect(pieces.filter((p) => p.includes('"session"')).length).toBe(Math.ceil(users.length / 256))
  })

  it('gathers pieces into strings of at least the size asked, the last one shorter, losing nothing', () => {
    const pieces = ['ab', 'cde', 'f', 'ghij', 'k']
    expect([...gathered(pieces, 4)]).toEqual(['abcde', 'fghij', 'k'])
    expect([...gathered([], 4)]).toEqual([])
  })
})
