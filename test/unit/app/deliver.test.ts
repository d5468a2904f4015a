/**
 * Delivering a report: --out-dir keeps every run's reports, however many runs write in one second;
 * --output without --force: of runs writing one name at once, exactly one succeeds, nothing else is
 * left beside it.
 */
import {mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {deliver} from '../../../src/app/deliver'
import {loadCapture} from '../../../scripts/captures/capture'
import {analyzeCase} from '../../../scripts/captures/run'
import type {AnalysisReport} from '../../../src/model/report'
import {ROOT} from '../../helpers/cli'

let report: AnalysisReport
const root = mkdtempSync(join(tmpdir(), 'skewscan-deliver-'))
beforeAll(async () => {
  report = (await analyzeCase(loadCapture(ROOT, 'rr-3'), {format: 'nginx-json', order: 'oldest-first', stretch: 1, deploys: 'events'})).report
})
afterAll(() => rmSync(root, {recursive: true, force: true}))

describe('deliver --out-dir', () => {
  it('gives runs of the same second names of their own, every format of a run under one', async () => {
    const out = join(root, 'same-second')
    const at = new Date('2026-11-30T08:00:00.123Z')
    const plan = {formats: ['json', 'markdown'] as const, outDir: out}
    // Three runs at once, as a cron job, a CI job and a person could start them.
    const runs = await Promise.all([0, 1, 2].map(() => deliver(report, {...plan, formats: [...plan.formats]}, {failures: [], generatedAt: at, version: 't', topSessions: 10})))
    const names = runs.map((r) => r.written.map((p) => p.slice(out.length + 1)))
    expect(names.map((n) => n.map((x) => x.replace(/\.(json|md)$/, '')))).toEqual(expect.arrayContaining([
      ['skewscan-20261130T080000Z', 'skewscan-20261130T080000Z'],
      ['skewscan-20261130T080000Z-2', 'skewscan-20261130T080000Z-2'],
      ['skewscan-20261130T080000Z-3', 'skewscan-20261130T080000Z-3'],
    ]))
    expect(readdirSync(out).sort()).toEqual([
      'skewscan-20261130T080000Z-2.json', 'skewscan-20261130T080000Z-2.md', 'skewscan-20261130T080000Z-3.json', 'skewscan-20261130T080000Z-3.md',
      'skewscan-20261130T080000Z.json', 'skewscan-20261130T080000Z.md',
    ])
    for (const f of readdirSync(out).filter((x) => x.endsWith('.json'))) expect(JSON.parse(readFileSync(join(out, f), 'utf8'))).toEqual(JSON.parse(JSON.stringify(report)))
  })
})

describe('deliver --output', () => {
  // A folder of its own: the tests check that nothing else is left beside what they write.
  const dir = join(root, 'output')
  beforeAll(() => mkdirSync(dir))

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
