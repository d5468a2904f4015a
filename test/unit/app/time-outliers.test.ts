/** A record dated far outside the rest of the input (2099, 1999) is counted apart, never evidence of a build served. */
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {analyze} from '../../../src/app/analyze'
import {DEFAULT_OPTIONS} from '../../../src/analysis/options'
import type {AnalysisReport} from '../../../src/model/report'
import {DEFAULT_NORMALIZE} from '../../../src/normalize/fields'
import {ROOT} from '../../helpers/cli'

const FIXTURE = join(ROOT, 'fixtures', 'rolling-round-robin', 'ingress.log')
const dir = mkdtempSync(join(tmpdir(), 'skewscan-outliers-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

async function run(file: string): Promise<{report: AnalysisReport; notices: string[]}> {
  const notices: string[] = []
  const report = await analyze({inputs: [file], normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000, onNotice: (m) => notices.push(m), parallel: false})
  return {report, notices}
}

/** The report without its input summary (which counts the records read). */
const story = (r: AnalysisReport): Omit<AnalysisReport, 'input'> => {
  const {input: _input, ...rest} = r
  return rest
}

describe('time outliers', () => {
  it('a line dated 2099 and one dated 1999 in the rolling round-robin fixture leave its report as it was, counted with their place', async () => {
    const lines = readFileSync(FIXTURE, 'utf8').split('\n').filter((l) => l !== '')
    // Real lines of the app (a pod's asset answer, a shell), only their dates changed.
    const asset = lines.findIndex((l) => l.includes('GET /_build/') && l.includes(' 200 '))
    const shell = lines.findIndex((l) => l.includes('"GET / HTTP/1.1" 200') && !/bot|UptimeRobot/i.test(l))
    expect(asset).toBeGreaterThan(-1)
    expect(shell).toBeGreaterThan(-1)
    const future = (lines[asset] as string).replace(/\[\d\d\/\w+\/2026:/, '[29/Nov/2099:')
    const past = (lines[shell] as string).replace(/\[\d\d\/\w+\/2026:/, '[29/Nov/1999:')
    const middle = Math.floor(lines.length / 2)
    const edited = [past, ...lines.slice(0, middle), future, ...lines.slice(middle)]
    const file = join(dir, 'ingress-outliers.log')
    writeFileSync(file, `${edited.join('\n')}\n`)

    const own = await run(FIXTURE)
    const got = await run(file)
    expect(story(got.report)).toEqual(story(own.report))
    expect(got.report.input.records).toBe(own.report.input.records + 2)
    expect(got.report.input.used).toBe(own.report.input.used)
    expect(got.report.input.first).toBe(own.report.input.first)
    expect(got.report.input.last).toBe(own.report.input.last)
    expect(got.report.input.skipped.byReason['time-outlier']).toBe(2)
    expect(got.report.input.skipped.examples.filter((e) => e.reason === 'time-outlier').map((e) => [e.file, e.line, e.detail]).sort()).toEqual([
      [file, 1, '1999-11-29T' + (past.match(/1999:(\d\d:\d\d:\d\d)/)?.[1] ?? '') + '.000Z'],
      [file, middle + 2, '2099-11-29T' + (future.match(/2099:(\d\d:\d\d:\d\d)/)?.[1] ?? '') + '.000Z'],
    ].sort())
    expect(got.notices.filter((n) => n.includes('time-outlier'))).toEqual([
      expect.stringContaining(`2 records dated far outside the rest of the input counted apart as time-outlier, not analysed (first at ${file}:1, 1999-11-29T`),
    ])
    expect(own.notices.filter((n) => n.includes('time-outlier'))).toEqual([])
  })
})
