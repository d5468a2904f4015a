/** --out-dir: every run's reports kept, however many runs write in one second. */
import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {deliver} from '../../../src/app/deliver'
import {loadCapture} from '../../../scripts/captures/capture'
import {analyzeCase} from '../../../scripts/captures/run'
import type {AnalysisReport} from '../../../src/model/report'
import {ROOT} from '../../helpers/cli'

let report: AnalysisReport
const dir = mkdtempSync(join(tmpdir(), 'skewscan-deliver-'))
beforeAll(async () => {
  report = (await analyzeCase(loadCapture(ROOT, 'rr-3'), {format: 'nginx-json', order: 'oldest-first', stretch: 1, deploys: 'events'})).report
})
afterAll(() => rmSync(dir, {recursive: true, force: true}))

describe('deliver --out-dir', () => {
  it('gives runs of the same second names of their own, every format of a run under one', async () => {
    const out = join(dir, 'same-second')
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
