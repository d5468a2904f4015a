/** Log text bound for a terminal or a spreadsheet: every format's last line of defence (issue 14, item 7). */
import {csvCell} from '../../../src/report/csv'
import {inertJson, terminalSafe, terminalSafeLines} from '../../../src/report/sanitize'

// eslint-disable-next-line no-control-regex
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/

describe('CSV cells', () => {
  it.each([
    ['=HYPERLINK("http://x")'], ['+1'], ['-1+2'], ['@SUM(A1)'], ['\tcmd'], ['\rcmd'],
    // Skipped by spreadsheets before evaluating (ASVS lists NUL), or folded to = + - @ by some.
    ['\u0000=1'], [' =1'], ['\n=1'], ['\uff1d1+1'], ['\uff0b1'], ['\uff0d1'], ['\uff20SUM(A1)'],
  ])('neutralises %j', (v) => {
    const cell = csvCell(v)
    expect(cell.replace(/^"/, '').startsWith("'")).toBe(true)
    expect(cell).not.toMatch(ACTIVE)
  })

  it('writes control characters and bidi overrides as escapes, keeps plain text and numbers as they are', () => {
    expect(csvCell('Mozilla/5.0 \u001b]0;owned\u0007 \u009b2J \u202egnp.exe')).not.toMatch(ACTIVE)
    expect(csvCell('/assets/app.js')).toBe('/assets/app.js')
    expect(csvCell('a,b')).toBe('"a,b"')
    expect(csvCell(-3)).toBe('-3')
  })
})

describe('JSON bound for a terminal', () => {
  it('escapes what JSON.stringify leaves raw, and means the same', () => {
    const value = {ua: 'x\u009b2J\u202e\u2028\u2066\u007f\u001b[31m'}
    const text = inertJson(JSON.stringify(value))
    expect(text).not.toMatch(ACTIVE)
    expect(JSON.parse(text)).toEqual(value)
  })
})

describe('messages', () => {
  it('keep their line breaks, lose every control character', () => {
    const m = terminalSafeLines('/tmp/\u001b]0;x\u0007evil.log: not in any format\n  - nginx')
    expect(m.split('\n')).toHaveLength(2)
    expect(m).not.toMatch(ACTIVE)
    expect(terminalSafe('a\nb')).toBe('a\\u000ab')
  })
})

describe('bidirectional marks', () => {
  it('ALM, LRM and RLM (the rest of Unicode\'s Bidi_Control) are escaped like the overrides (a property test found them raw)', () => {
    const text = 'access.log\u200f:12 \u200e\u061c'
    const bidi = /\p{Bidi_Control}/u
    expect(terminalSafe(text)).toBe('access.log\\u200f:12 \\u200e\\u061c')
    expect(inertJson(JSON.stringify(text))).not.toMatch(bidi)
    expect(JSON.parse(inertJson(JSON.stringify(text)))).toBe(text)
    expect(csvCell(text)).not.toMatch(bidi)
  })
})
