import type {InputSummary} from '../../../src/model/report'
import {lostInputNote, skippedNote} from '../../../src/report/input-notes'

const input = (byReason: Record<string, number>, examples: InputSummary['skipped']['examples']): InputSummary =>
  ({records: 1000, used: 900, first: null, last: null, sources: [], skipped: {total: 100, byReason, examples}})

describe('what a run says of the input it lost or skipped', () => {
  it('names every place an input ended early, terminal-safe', () => {
    const note = lostInputNote(input({'truncated-input': 4}, [
      {reason: 'truncated-input', file: 'a\u001b]0;owned\u0007.gz', line: 12, detail: 'input ends early: unexpected end of file'},
      {reason: 'truncated-input', file: 'b.json', line: 3, detail: 'the JSON document ends before it closes'},
    ]))
    expect(note).toBe('Input lost: reading stopped early at a\\u001b]0;owned\\u0007.gz line 12 (input ends early: unexpected end of file); b.json line 3 (the JSON document ends before it closes), and 2 more. What follows was not read: the report counts only what was.')
    expect(lostInputNote(input({'bad-time': 3}, []))).toBeUndefined()
  })

  it('counts skipped records by reason, leaving out header lines, duplicates and the lost input said apart', () => {
    const note = skippedNote(input({'header-line': 2, duplicate: 5, 'bad-time': 3, 'unknown-format': 7, 'truncated-input': 1}, [
      {reason: 'header-line', file: 'x.log', line: 1},
      {reason: 'bad-time', file: 'x.log', line: 9},
    ]))
    expect(note).toBe('10 records of 1,000 skipped (unknown-format 7, bad-time 3; first at x.log:9); skewscan parse FILE --rejected shows each.')
    expect(skippedNote(input({'header-line': 2, duplicate: 5}, []))).toBeUndefined()
  })

  it('names a file of which nothing was read, and the flags that read a format of its own', () => {
    const base = input({'bad-status': 40}, [{reason: 'bad-status', file: 'custom.log', line: 1}])
    const note = skippedNote({...base, sources: [
      {file: 'custom.log', format: 'nginx', records: 40, skipped: 40},
      {file: 'ok.log', format: 'nginx', records: 960, skipped: 0},
      {file: 'dd.ndjson', format: 'datadog', records: 5, skipped: 5},
    ]})
    expect(note).toBe('40 records of 1,000 skipped (bad-status 40; first at custom.log:1); skewscan parse FILE --rejected shows each. ' +
      "Nothing of custom.log (as nginx) was read: if it was written with a format of its own, give it (nginx: --log-format '<the log_format from nginx.conf>'; JSON: --field path=… --field status=… --field time=… --field bytes=…).")
  })
})
