/**
 * The skipped records of each input file add up to the total (issue 26: a total of 999,584 skipped
 * beside a file whose own line said 0). Records the analysis sets apart (duplicates, time outliers,
 * requests past the app limit) are the file's skipped records as much as the lines it could not parse.
 */
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {analyze} from '../../../src/app/analyze'
import {DEFAULT_OPTIONS} from '../../../src/analysis/options'
import {DEFAULT_NORMALIZE} from '../../../src/normalize/fields'
import {skippedNote} from '../../../src/report/input-notes'
import {ROOT} from '../../helpers/cli'
import {schemaValidator} from '../../helpers/schema'

const FIXTURE = join(ROOT, 'fixtures', 'rolling-round-robin', 'ingress.log')
const dir = mkdtempSync(join(tmpdir(), 'skewscan-source-skipped-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

describe('skipped records per input file', () => {
  it('name the file they were read from and add up to the total', async () => {
    const lines = readFileSync(FIXTURE, 'utf8').split('\n').filter((l) => l !== '')
    // Five lines read twice (one request id each: duplicates), one dated 2099 (a time outlier) and one line no format reads.
    const copies = lines.slice(100, 105)
    const future = (lines[200] as string).replace(/\[\d\d\/\w+\/2026:/, '[29/Nov/2099:')
    const app = join(dir, 'app.log')
    writeFileSync(app, `${[...lines.slice(0, 300), ...copies, 'not a log line at all', ...lines.slice(300), future].join('\n')}\n`)
    // Six more hosts answering a shell after the app's traffic; with four apps in full, three are counted apart.
    const hosts = join(dir, 'hosts.log')
    writeFileSync(hosts, Array.from({length: 6}, (_, i) => `h${i}.scan.example 198.51.100.${i} - - [29/Nov/2026:14:30:0${i} +0000] "GET / HTTP/1.1" 200 1832 "-" "Mozilla/5.0"`).join('\n') + '\n')

    const report = await analyze({inputs: [app, hosts], normalize: DEFAULT_NORMALIZE, analysis: {...DEFAULT_OPTIONS, maxApps: 4}, reorderWindowMs: 60_000, parallel: false})
    const {skipped, sources} = report.input
    expect(skipped.byReason).toMatchObject({duplicate: 5, 'time-outlier': 1, 'app-limit': 3})
    expect(sources.map((s) => [s.file, s.records, s.skipped, s.setApart])).toEqual([[app, lines.length + 7, 5 + 1 + 1, 5 + 1], [hosts, 6, 3, 3]])
    expect(sources.reduce((n, s) => n + s.skipped, 0)).toBe(skipped.total)
    expect(sources.reduce((n, s) => n + s.records, 0)).toBe(report.input.records)
    const validate = schemaValidator('analyze')
    expect([validate(JSON.parse(JSON.stringify(report))), validate.errors]).toEqual([true, null])
  })

  it('a file that is a copy of another is all skipped, as duplicates, and was read: no "nothing of it was read"', async () => {
    // The log and its copy, each with one line no format reads (so the run has a note on skipped records).
    const [original, copy] = [join(dir, 'original.log'), join(dir, 'copy.log')]
    for (const f of [original, copy]) writeFileSync(f, `${readFileSync(FIXTURE, 'utf8')}not a log line at all\n`)
    const report = await analyze({inputs: [original, copy], normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000, parallel: false})
    const {sources, skipped} = report.input
    // Which of two identical records is the copy is the merge's to say; each is set apart in its own file.
    expect(skipped.byReason).toEqual({duplicate: 416, 'unparsed-message': 2})
    expect(sources.map((s) => s.skipped)).toEqual(sources.map((s) => (s.setApart ?? 0) + 1))
    expect(sources.reduce((n, s) => n + s.skipped, 0)).toBe(416 + 2)
    expect(sources.some((s) => s.skipped === s.records)).toBe(true)
    // Duplicates were read: the note counts the unreadable lines, and never says a file was not read.
    expect(skippedNote(report.input)).toMatch(/^2 records of 834 skipped \(unparsed-message 2;/)
    expect(skippedNote(report.input)).not.toMatch(/Nothing of/)
    expect(skippedNote({...report.input, sources: [{file: 'x.log', format: 'nginx', records: 4, skipped: 4}], skipped: {total: 4, byReason: {'unknown-format': 4}, examples: []}})).toMatch(/Nothing of x\.log \(as nginx\) was read/)
  })
})
