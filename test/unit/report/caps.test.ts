/**
 * Issue 14 (cost): a human report lists at most fifty of anything (builds, deploys, incidents,
 * apps, sources), the ones that matter most, then a line saying how many more there are and where
 * they all are; its size follows what it shows, never the input. JSON keeps everything.
 */
import Table from 'cli-table3'
import {join} from 'node:path'
import {DEFAULT_OPTIONS} from '../../../src/analysis/options'
import {analyze} from '../../../src/app/analyze'
import type {AnalysisReport, BuildReport, DeployReport, IncidentReport} from '../../../src/model/report'
import {DEFAULT_NORMALIZE} from '../../../src/normalize/fields'
import {fitTable} from '../../../src/report/fit-table'
import {render} from '../../../src/report/formats'
import {listed, MAX_ROWS} from '../../../src/report/listed'
import {ROOT} from '../../helpers/cli'

const N = 20_000
/** The builds, deploys and incidents that matter most, hidden among thousands that do not. */
const SERVED_MOST = [777, 12_345, 19_999]
const HURT_MOST = [5, 9_000, 19_998]

let base: AnalysisReport
let big: AnalysisReport

/** The two-deploys fixture with 20,000 builds, deploys and incidents, and 1,000 sources. */
function many(r: AnalysisReport): AnalysisReport {
  const b0 = r.builds[0] as BuildReport
  const d0 = r.deploys[0] as DeployReport
  const i0 = r.incidents[0] as IncidentReport
  const at = (k: number): string => new Date(Date.parse(r.input.first as string) + k * 1000).toISOString()
  return {
    ...r,
    builds: Array.from({length: N}, (_, k) => ({...b0, id: `B${k + 1}`, shellBytes: 1000 + k, firstSeen: at(k), lastSeen: at(k + 1), lastServed: at(k + 1), shellRequests: SERVED_MOST.includes(k) ? 1000 + k : 2})),
    deploys: Array.from({length: N}, (_, k) => ({...d0, id: `D${k + 1}`, start: at(k), end: at(k + 1), windowSeconds: 1, fromBuild: `B${k + 1}`, toBuild: `B${k + 2}`,
      affectedUsers: HURT_MOST.includes(k) ? 100 + k : 0, failedRequests: HURT_MOST.includes(k) ? 200 + k : 0, incidentIds: k === 5 ? Array.from({length: 1000}, (_, j) => `I${j + 1}`) : []})),
    incidents: Array.from({length: N}, (_, k) => ({...i0, id: `I${k + 1}`, deployId: `D${k + 1}`, start: at(k), end: at(k + 1), windowSeconds: 1,
      affectedUsers: HURT_MOST.includes(k) ? 100 + k : 1, failedRequests: HURT_MOST.includes(k) ? 200 + k : 1})),
    input: {...r.input, sources: Array.from({length: 1000}, (_, k) => ({file: `logs/part-${k}.log`, format: 'nginx', records: 10, skipped: 0}))},
  }
}

beforeAll(async () => {
  base = await analyze({
    inputs: [join(ROOT, 'fixtures', 'two-deploys', 'ingress.log')], deploysFile: join(ROOT, 'fixtures', 'two-deploys', 'deploys.json'),
    normalize: DEFAULT_NORMALIZE, analysis: {...DEFAULT_OPTIONS, detail: true}, reorderWindowMs: 60_000, parallel: false,
  })
  big = many(base)
})

const out = (format: 'table' | 'markdown' | 'html' | 'json', r: AnalysisReport, width?: number): string =>
  render(format, r, {failures: [], generatedAt: new Date(0), version: 'test', topSessions: 10, ...(width ? {width} : {})})
const rows = (text: string, re: RegExp): string[] => text.split('\n').filter((l) => re.test(l))

describe('human reports of 20,000 builds, deploys and incidents', () => {
  it('table: fifty of each, those that matter most, then how many more and where they are, in a bounded size', () => {
    const text = out('table', big)
    expect(text.length).toBeLessThan(60_000)
    const builds = rows(text, /^B\d+ +(\/|shell \d+ B)/)
    expect(builds).toHaveLength(MAX_ROWS)
    // The builds served most are listed, in their order (B778 before B12346 before B20000).
    expect(builds.map((l) => l.split(' ')[0]).filter((id) => ['B778', 'B12346', 'B20000'].includes(id as string))).toEqual(['B778', 'B12346', 'B20000'])
    expect(text).toContain('… and 19,950 more builds with at most 2 shells each (all of them in --format json)')
    const deploys = rows(text, /^D\d+ /)
    expect(deploys).toHaveLength(MAX_ROWS)
    for (const id of ['D6', 'D9001', 'D19999']) expect(deploys.some((l) => l.startsWith(`${id} `))).toBe(true)
    expect(text).toContain('… and 19,950 more deploys with at most 0 users hit each (all of them in --format json)')
    expect(rows(text, /^I\d+ /)).toHaveLength(MAX_ROWS)
    expect(text).toContain('… and 19,950 more incidents with at most 1 user each (all of them in --format json)')
    // A deploy's thousand incidents in one cell: the first few and how many more.
    expect(text).toMatch(/^D6 .* I1 I2 I3 I4 I5 I6 \+994$/m)
    expect(rows(text, /^ {2}logs\/part-/)).toHaveLength(MAX_ROWS)
    expect(text).toContain('  … and 950 more sources (all of them in --format json)')
  })

  it('table: every line within an 80-column terminal, the lines saying how many more included', () => {
    const text = out('table', big, 80)
    for (const line of text.split('\n')) expect([...line].length).toBeLessThanOrEqual(80)
    expect(text.replace(/\n/g, ' ')).toContain('… and 19,950 more builds with at most 2 shells each (all of them in --format json)')
  })

  it('markdown: fifty deploys and incidents, then how many more', () => {
    const text = out('markdown', big)
    expect(text.length).toBeLessThan(30_000)
    expect(rows(text, /^\| D\d+ \(/)).toHaveLength(MAX_ROWS)
    expect(rows(text, /^\| I\d+ \|/)).toHaveLength(MAX_ROWS)
    expect(text).toContain('_… and 19,950 more deploys with at most 0 users hit each (all of them in --format json)_')
    expect(text).toContain('_… and 19,950 more incidents with at most 1 user each (all of them in --format json)_')
  })

  it('html: fifty rows per table, one chart line per listed build, deploy windows that would overlap drawn as one; a bounded page', () => {
    const page = out('html', big)
    expect(Buffer.byteLength(page)).toBeLessThan(400_000)
    const count = (re: RegExp): number => (page.match(re) ?? []).length
    expect(count(/<tr><td>B\d+<\/td>/g)).toBe(MAX_ROWS)
    expect(count(/<tr><td>D\d+<\/td>/g)).toBe(MAX_ROWS)
    expect(count(/<section class="incident"/g)).toBe(MAX_ROWS)
    expect(count(/<line class="build"/g)).toBe(MAX_ROWS)
    expect(count(/<rect class="deploy-band"/g)).toBeLessThanOrEqual(500)
    expect(count(/<rect class="incident-mark/g)).toBeLessThanOrEqual(500)
    for (const thing of ['builds with at most 2 shells each', 'deploys with at most 0 users hit each', 'incidents with at most 1 user each']) {
      expect(page).toContain(`… and 19,950 more ${thing} (all of them in --format json)`)
    }
    expect(page).toContain('… and 950 more sources (all of them in --format json)')
  })

  it('json: everything, complete', () => {
    const r = JSON.parse(out('json', big)) as AnalysisReport
    expect([r.builds.length, r.deploys.length, r.incidents.length, r.input.sources.length]).toEqual([N, N, N, 1000])
  })

  it('a small report is as it was: no line about more', () => {
    for (const format of ['table', 'markdown', 'html'] as const) expect(out(format, base)).not.toContain('more builds')
  })
})

describe('listed', () => {
  it('keeps all of few; of many the first by rank, in their own order', () => {
    expect(listed([3, 1, 2], 5)).toEqual({shown: [3, 1, 2], more: 0})
    expect(listed([1, 9, 3, 8, 5], 2, (a, b) => b - a)).toEqual({shown: [9, 8], more: 3, firstLeftOut: 5})
    expect(listed([1, 9, 3, 8, 5], 2)).toEqual({shown: [1, 9], more: 3, firstLeftOut: 3})
  })
})

describe('fitTable of many rows', () => {
  it('draws each row as one cli-table3 table of all of them would (it draws a few rows at a time)', () => {
    const n = 150
    const cols = [
      {head: 'Id', cells: Array.from({length: n}, (_, i) => `R${i}`)},
      {head: 'Count', cells: Array.from({length: n}, (_, i) => i * 7), align: 'right' as const},
      {head: 'Text', cells: Array.from({length: n}, (_, i) => `text ${'x'.repeat(i % 40)}`), shrink: true},
    ]
    const fitted = fitTable(cols, 40)
    const widths = [4, 5, 27]
    const t = new Table({
      chars: {top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  '},
      style: {head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true}, colWidths: widths, colAligns: ['left', 'right', 'left'], wordWrap: false,
    })
    t.push(cols.map((c) => c.head), widths.map((w) => '─'.repeat(w)))
    for (let i = 0; i < n; i++) t.push(cols.map((c) => String(c.cells[i])))
    expect(fitted.text).toBe(t.toString().split('\n').map((l) => l.trimEnd()).join('\n'))
    expect(fitted.text.split('\n')).toHaveLength(n + 2)
  })
})
