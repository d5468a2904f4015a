import {loadCapture} from '../../../scripts/captures/capture'
import {analyzeCase} from '../../../scripts/captures/run'
import type {AnalysisReport} from '../../../src/model/report'
import stringWidth from 'string-width'
import {fitTable} from '../../../src/report/fit-table'
import {headline, renderTable} from '../../../src/report/table'
import {terminalSafe} from '../../../src/report/sanitize'
import {ROOT} from '../../helpers/cli'

/** A real capture (nginx JSON as nginx wrote it, with its Datadog deploy events), analysed. */
const capture = async (name: string): Promise<AnalysisReport> =>
  (await analyzeCase(loadCapture(ROOT, name), {format: 'nginx-json', order: 'oldest-first', stretch: 1, deploys: 'events'})).report

describe('table report', () => {
  let rr3: AnalysisReport
  let two: AnalysisReport
  beforeAll(async () => {
    [rr3, two] = [await capture('rr-3'), await capture('two-deploys')]
  })

  it('answers in one sentence: who, how their page loads broke, the longest race and its deploy, stale tabs; then the best fix', () => {
    expect(headline(rr3)).toBe('16 users hit failed assets: 11 page loads of 90 crashed, 6 lost a route to a lazy chunk, 1 loaded unstyled; ' +
      'the longest rollout race lasted 5.8 s, in deploy D1 (B1 → B2) from 2026-11-30 07:18:31.937Z; 5 users on stale tabs failed after their build was retired. ' +
      // The advice's best fix, with the figures of its overall line.
      'Best fix: version-pinning, which would have prevented 28 of the 33 failed requests of 1 deploy.')
  })

  it('says plainly when nothing broke', () => {
    const quiet: AnalysisReport = {...rr3, incidents: [], affectedUsers: [], totals: {...rr3.totals, failedRequests: 0}}
    expect(headline(quiet)).toBe('No failed asset requests of people in 90 page loads (1 deploy seen).')
  })

  it('lists deploys, incidents, the most affected sessions, builds and what was not people', () => {
    const out = renderTable(two, {topSessions: 3})
    for (const s of ['Deploys (UTC, 2026-11-30)', 'Incidents (UTC, 2026-11-30)', 'Most affected sessions (3 of 49)', 'Builds (UTC, 2026-11-30)', 'Input: 1300 records', 'Not people, never counted as users: crawlers']) {
      expect(out).toContain(s)
    }
    expect(out).toMatch(/^D2 +marker\+kubernetes +07:19:35\.954 +8 s +B2 → B3 +7\.1 s +38 +52 of 191 +2 +46\/64 +I3 I4$/m)
    expect(out).toMatch(/^I2 +stale-client +D1 +07:19:33\.928/m)
    // ip + user agent sessions are not printed twice
    expect(out).not.toMatch(/^Session/m)
  })

  it('fits an 80-column terminal: long text shortened, optional columns left out and named', () => {
    const out = renderTable(two, {topSessions: 10, width: 80})
    for (const line of out.split('\n')) expect([...line].length).toBeLessThanOrEqual(80)
    expect(out).toMatch(/left out to fit 80 columns: --wide shows them/)
    expect(out).toMatch(/Mozilla\/5\.0 \(iPhone; CPU iPhone OS 1…|Mozilla.*…/)
    // The essentials stay: deploy, start, builds, race, users, crashed.
    expect(out).toMatch(/^D1 +07:19:25\.034 +7\.9 s +B1 → B2 +7\.1 s +27 +22 of 191/m)
  })

  it('shows the session column when an explicit session key is used', () => {
    const withKey = {...rr3, affectedUsers: rr3.affectedUsers.map((u, i) => ({...u, session: `cookie-${i}`}))}
    expect(renderTable(withKey, {topSessions: 2})).toMatch(/^cookie-0 /m)
  })

  it('names the app on every row when there are several', () => {
    const apps: AnalysisReport = {...two, apps: [...two.apps, {...(two.apps[0] as AnalysisReport['apps'][number]), name: 'default-shop-80'}]}
    const out = renderTable(apps, {topSessions: 1})
    expect(out).toMatch(/^Apps$/m)
    expect(out).toMatch(/^D1 +default-webapp-80 /m)
  })

  it('escapes control characters, bidi overrides and line separators from log text', () => {
    expect(terminalSafe('a\u001b[2Jb\rc\u202ed\u2028')).toBe('a\\u001b[2Jb\\u000dc\\u202ed\\u2028')
    const out = renderTable({...rr3, affectedUsers: rr3.affectedUsers.map((u) => ({...u, userAgent: 'evil\u001b]0;pwned\u0007'}))}, {topSessions: 1})
    // eslint-disable-next-line no-control-regex
    expect(out).not.toMatch(/[\u001b\u0007]/)
  })
})

describe('fitTable', () => {
  const cols = () => [
    {head: 'Id', cells: ['a', 'b']},
    {head: 'Text', cells: ['x'.repeat(60), 'short'], shrink: true},
    {head: 'Extra', cells: ['1', '2'], drop: 1},
  ]

  it('keeps its natural width without a limit', () => {
    expect(fitTable(cols()).text.split('\n')[2]).toBe(`a   ${'x'.repeat(60)}  1`)
  })

  it('cuts long text to a comfortable width before it leaves columns out, then cuts further', () => {
    const wide = fitTable(cols(), 40)
    expect(wide.dropped).toEqual([])
    for (const line of wide.text.split('\n')) expect([...line].length).toBeLessThanOrEqual(40)
    const narrow = fitTable(cols(), 20)
    expect(narrow.dropped).toEqual(['Extra'])
    expect(narrow.text.split('\n')[2]).toMatch(/^a +x+…$/)
  })
})

describe('fitTable with wide characters', () => {
  // CJK and emoji take two terminal columns; a ZWJ emoji sequence is several code points but two columns.
  const agents = ['Mozilla/5.0 日本語ブラウザ', 'bot 🤖🤖', 'dev 👩‍💻 tools', 'plain agent']
  const cols = () => [
    {head: 'Path', cells: ['/商品/一覧', '/a', '/ü', '/b']},
    {head: 'User agent', cells: agents, shrink: true},
    {head: 'N', cells: [1, 2, 3, 4], align: 'right' as const},
  ]
  /** The terminal column each cell of a row starts at, found by the cells' text. */
  const starts = (line: string, cells: string[]): number[] => cells.map((c) => stringWidth(line.slice(0, line.indexOf(c))))

  it('keeps its natural width without a limit: no cell cut, every column starting at one terminal column', () => {
    const lines = fitTable(cols()).text.split('\n').slice(2)
    expect(lines.join('\n')).not.toContain('…')
    const at = lines.map((l, i) => starts(l, [cols()[0]!.cells[i] as string, agents[i]!, String(i + 1)]))
    for (const a of at) expect(a).toEqual(at[0])
    // the number column is right-aligned: every line ends at the same terminal column
    expect(new Set(lines.map((l) => stringWidth(l))).size).toBe(1)
  })

  it('cuts wide text to the terminal width, counted in terminal columns', () => {
    const {text} = fitTable(cols(), 30)
    const lines = text.split('\n')
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(30)
    expect(lines.slice(2).some((l) => l.includes('…'))).toBe(true)
    expect(new Set(lines.slice(2).map((l) => stringWidth(l))).size).toBe(1)
  })
})
