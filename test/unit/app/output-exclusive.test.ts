/** `--output` without --force: of runs writing one name at once, exactly one succeeds; nothing else is left beside it. */
import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {deliver} from '../../../src/app/deliver'
import {loadCapture} from '../../../scripts/captures/capture'
import {analyzeCase} from '../../../scripts/captures/run'
import type {AnalysisReport} from '../../../src/model/report'
import {ROOT} from '../../helpers/cli'

let report: AnalysisReport
const dir = mkdtempSync(join(tmpdir(), 'skewscan-exclusive-'))
beforeAll(async () => {
  report = (await analyzeCase(loadCapture(ROOT, 'rr-3'), {format: 'nginx-json', order: 'oldest-first', stretch: 1, deploys: 'events'})).report
})
afterAll(() => rmSync(dir, {recursive: true, force: true}))

describe('deliver --output', () => {
  it('two runs at once to one name without --force: one writes it, the other is refused', async () => {
    const path = join(dir, 'report.json')
    const at = new Date('2026-11-30T08:00:00.123Z')
    const runs = await Promise.allSettled([0, 1].map(() => deliver(report, {formats: ['json'], output: path}, {failures: [], generatedAt: at, version: 't', topSessions: 10})))
    expect(runs.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    const refused = runs.filter((r): r is PromiseRejectedResult => r.status === 'rejected')
    expect(refused).toHaveLength(1)
    expect(String(refused[0]?.reason)).toContain(`${path} exists: give --force`)
    expect(readdirSync(dir)).toEqual(['report.json'])
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(JSON.parse(JSON.stringify(report)))
  })

  it('--force replaces it', async () => {
    const path = join(dir, 'forced.json')
    const ctx = {failures: [], generatedAt: new Date('2026-11-30T08:00:00Z'), version: 't', topSessions: 10}
    await deliver(report, {formats: ['markdown'], output: path}, ctx)
    await deliver(report, {formats: ['json'], output: path, force: true}, ctx)
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(JSON.parse(JSON.stringify(report)))
    expect(readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([])
  })
})
