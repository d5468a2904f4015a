/**
 * Any client sets Host, and scanners send random ones: an app with no shell or asset traffic is
 * kept as counts, not analysed, and apps analysed in full are capped (the rest counted apart).
 * Memory is checked by counting what is kept, not by measuring the heap (bench/many-hosts.ts).
 */
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Analyzer} from '../../../src/analysis/analyzer'
import {DEFAULT_OPTIONS} from '../../../src/analysis/options'
import {analyze} from '../../../src/app/analyze'
import type {AccessEvent} from '../../../src/model/access-event'
import type {AnalysisReport} from '../../../src/model/report'
import {DEFAULT_NORMALIZE} from '../../../src/normalize/fields'
import {normalizeLine} from '../../../src/sources/file/records'
import {ROOT} from '../../helpers/cli'

const FIXTURE = join(ROOT, 'fixtures', 'rolling-round-robin', 'ingress.log')
const fixtureEvents = (): AccessEvent[] => readFileSync(FIXTURE, 'utf8').split('\n').filter((l) => l !== '').map((line, i) => {
  const [out] = normalizeLine(line, DEFAULT_NORMALIZE)
  if (!out?.ok) throw new Error(`fixture line ${i + 1} not read`)
  return {...out.event, location: {file: 'ingress.log', line: i + 1}}
})
const JUNK = ['/wp-login.php', '/.env', '/admin/config.php', '/cgi-bin/luci', '/api/v1/ping']
const junk = (i: number, time: number, path = JUNK[i % JUNK.length] as string, status = 404, bytes = 153): AccessEvent => ({
  time, resolutionMs: 1000, method: 'GET', path, status, bytes, clientIp: `198.51.${(i >> 8) & 255}.${i & 255}`, userAgent: 'Mozilla/5.0 zgrab/0.x',
  vhost: `h${i.toString(36)}.scan.example`, location: {file: 'scan.log', line: i + 1},
})

function run(events: AccessEvent[], maxApps?: number): {analyzer: Analyzer; report: ReturnType<Analyzer['finish']>} {
  const analyzer = new Analyzer({...DEFAULT_OPTIONS, ...(maxApps === undefined ? {} : {maxApps})})
  // Stable: the fixture's own order within a second is kept.
  for (const e of [...events].sort((a, b) => a.time - b.time)) analyzer.push(e)
  return {analyzer, report: analyzer.finish()}
}

describe('many apps', () => {
  it('200,000 hosts with junk paths keep no app state, and the real app\'s report is unchanged', () => {
    const real = fixtureEvents()
    const own = run(real)
    const t0 = (real[0] as AccessEvent).time
    const span = (real.at(-1) as AccessEvent).time - t0
    const scans = Array.from({length: 200_000}, (_, i) => junk(i, t0 + Math.floor((i / 200_000) * span)))
    const got = run([...real, ...scans])
    expect(got.analyzer.fullApps).toBe(1)
    // Kept as counts (the first 100,000 by name, the rest as one count): every request counted.
    expect(got.analyzer.countedOnly).toEqual({apps: 100_000, requests: 200_000})
    expect(got.analyzer.appLimit.requests).toBe(0)
    const {nonUser: ownNonUser, ...ownRest} = own.report
    const {nonUser: gotNonUser, ...gotRest} = got.report
    expect(gotRest).toEqual(ownRest)
    // The scanner's requests are crawler traffic, counted as such (its addresses up to 65,536).
    expect(gotNonUser).toEqual({...ownNonUser, crawlers: {...ownNonUser.crawlers, requests: ownNonUser.crawlers.requests + 200_000, clients: ownNonUser.crawlers.clients + 65_536}})
  })

  it('an app whose first requests are neither shell nor asset is analysed from its first shell, its earlier requests counted', () => {
    const real = fixtureEvents()
    const own = run(real)
    const t0 = (real[0] as AccessEvent).time
    const before = [0, 1, 2].map((i) => ({...(real[1] as AccessEvent), path: '/api/health', time: t0 - 1000 * (3 - i), location: {file: 'x', line: i}}))
    const got = run([...before, ...real])
    expect(got.analyzer.fullApps).toBe(1)
    expect(got.analyzer.countedOnly).toEqual({apps: 0, requests: 0})
    expect(got.report.apps[0]?.requests).toBe((own.report.apps[0]?.requests ?? 0) + 3)
  })

  it('apps analysed in full are capped: the requests of the rest are counted apart as app-limit, with their place, and said', async () => {
    const real = fixtureEvents()
    const t0 = (real[0] as AccessEvent).time
    // Twelve hosts answering a shell, before the real app: a catch-all server and a scanner.
    const shells = Array.from({length: 12}, (_, i) => junk(i, t0 - 60_000 + i * 1000, '/', 200, 1832))
    const capped = run([...shells, ...real], 20)
    expect(capped.analyzer.fullApps).toBe(13)
    const tight = run([...shells, ...real], 5)
    expect(tight.analyzer.fullApps).toBe(5)
    // The real app came too late: its shells and assets are counted apart, its other requests as an app kept as counts.
    expect(tight.analyzer.countedOnly.apps).toBe(1)
    expect(tight.analyzer.appLimit.requests + tight.analyzer.countedOnly.requests).toBe(7 + real.length)
    expect(tight.analyzer.appLimit.examples.map((x) => [x.location.line, x.matched])).toEqual([[6, 'app h5.scan.example'], [7, 'app h6.scan.example'], [8, 'app h7.scan.example']])

    // Through analyze: a reason in the input summary and a line on stderr.
    const dir = mkdtempSync(join(tmpdir(), 'skewscan-apps-'))
    try {
      const file = join(dir, 'hosts.log')
      writeFileSync(file, Array.from({length: 6}, (_, i) => `h${i}.scan.example 198.51.100.${i} - - [29/Nov/2026:14:00:0${i} +0000] "GET / HTTP/1.1" 200 1832 "-" "Mozilla/5.0"`).join('\n') + '\n')
      const notices: string[] = []
      const report: AnalysisReport = await analyze({inputs: [file], normalize: DEFAULT_NORMALIZE, analysis: {...DEFAULT_OPTIONS, maxApps: 4}, reorderWindowMs: 60_000, parallel: false, onNotice: (m) => notices.push(m)})
      expect(report.input.skipped.byReason['app-limit']).toBe(2)
      expect(report.input.skipped.examples.filter((x) => x.reason === 'app-limit').map((x) => [x.line, x.detail])).toEqual([[5, 'app h4.scan.example'], [6, 'app h5.scan.example']])
      expect(notices).toEqual([expect.stringContaining(`more than 4 apps with page or asset traffic (hosts or upstreams): 2 requests of further apps counted apart as app-limit, not analysed (first at ${file}:5, app h4.scan.example)`)])
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})
