/**
 * Issue 14 (cost): log fields are attacker-controlled and of any size. A 5 MB user agent must cost
 * what a bounded one costs in everything the analysis keeps (sessions, affected users, failures),
 * while two agents that differ only past the bound stay two sessions and a bot stays a bot.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {Analyzer} from '../../../src/analysis/analyzer'
import {DEFAULT_OPTIONS} from '../../../src/analysis/options'
import {assetKind} from '../../../src/analysis/request-kinds'
import {AgentClassifier} from '../../../src/util/agent-kind'
import {analyze} from '../../../src/app/analyze'
import type {AccessEvent} from '../../../src/model/access-event'
import type {AnalysisReport, FailureRecord} from '../../../src/model/report'
import {applyMapping, DEFAULT_NORMALIZE} from '../../../src/normalize/fields'
import {boundText, MAX_FIELD_LENGTH} from '../../../src/util/bounded-text'
import {tempDir} from '../../helpers/temp'

const dir = tempDir('skewscan-bounded-')
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36'
const MB5 = 5_000_000
/** A person's agent padded to `length`, its last characters `tail`: agents that differ only far past the bound. */
const padded = (length: number, tail: string, start = CHROME): string => `${start} ${'a1 '.repeat(Math.ceil(length / 3)).slice(0, length - start.length - 2 - tail.length)} ${tail}`

const nginx = (ip: string, second: number, path: string, bytes: number, ua: string): string =>
  `${ip} - - [29/Nov/2026:14:00:${String(second).padStart(2, '0')} +0000] "GET ${path} HTTP/1.1" 200 ${bytes} "https://shop.example/" "${ua}"`

/**
 * Two builds (shells of 1832 and 1851 bytes); each browser loads a shell, its script (real
 * content), then a chunk answered with the other build's shell: one failure per browser.
 */
function browserLines(agents: readonly string[]): string[] {
  const out: string[] = []
  agents.forEach((ua, b) => {
    const build = b % 2
    const ip = '192.0.2.7'
    out.push(nginx(ip, b * 2, '/', 1832 + build * 19, ua), nginx(ip, b * 2, `/assets/index-${build}a2b3c4d.js`, 50_000, ua),
      nginx(ip, b * 2 + 1, `/assets/chunk-${build}e6f7a8b.js`, 1832 + (1 - build) * 19, ua))
  })
  return out
}

async function analyzed(name: string, lines: string[], mode: 'plain' | 'workers'): Promise<{report: AnalysisReport; failures: FailureRecord[]}> {
  const file = join(dir, `${name}.log`)
  writeFileSync(file, `${lines.join('\n')}\n`)
  const failures: FailureRecord[] = []
  const report = await analyze({
    inputs: [file], normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000, onFailure: (f) => failures.push(f),
    parallel: mode === 'plain' ? false : {workers: 1, minFileBytes: 0, chunkBytes: 4 * MB5, helpOnMain: false},
  })
  return {report, failures}
}

describe('bounded text', () => {
  it('leaves a field of up to MAX_FIELD_LENGTH characters as it is (the same string)', () => {
    const s = padded(MAX_FIELD_LENGTH, 'x')
    expect(s).toHaveLength(MAX_FIELD_LENGTH)
    expect(boundText(s)).toBe(s)
  })

  it('cuts a longer one to the bound, keeping its start, its end and a digest of the whole; bounding again changes nothing', () => {
    const s = padded(MB5, 'Safari/537.36 s000001')
    const b = boundText(s)
    expect(b).toHaveLength(MAX_FIELD_LENGTH)
    expect(b.startsWith(CHROME)).toBe(true)
    expect(b.endsWith('Safari/537.36 s000001')).toBe(true)
    expect(b).toMatch(/…\[5000000 chars #[0-9a-f]{16}\]…/)
    expect(boundText(b)).toBe(b)
  })

  it('keeps values that differ only in the middle apart', () => {
    const a = `${'a'.repeat(MB5 / 2)}X${'a'.repeat(MB5 / 2)}`
    const b = `${'a'.repeat(MB5 / 2)}Y${'a'.repeat(MB5 / 2)}`
    expect(boundText(a)).not.toBe(boundText(b))
    expect(boundText(a).slice(0, 100)).toBe(boundText(b).slice(0, 100))
  })

  it('never splits a surrogate pair where it cuts', () => {
    const s = '😀'.repeat(MAX_FIELD_LENGTH)
    const b = boundText(s)
    expect(b.length).toBeLessThanOrEqual(MAX_FIELD_LENGTH)
    expect(b).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/)
  })

  it('bounds every text field of a record as it is read, and a cut path keeps its extension', () => {
    const e = applyMapping({time: 0, resolutionMs: 1000, method: 'GET', path: `/assets/${'x'.repeat(MB5)}.js`, status: 200, bytes: 1, clientIp: '192.0.2.1',
      userAgent: padded(MB5, 'end'), referer: `https://x/${'r'.repeat(MB5)}`}, {}, DEFAULT_NORMALIZE)
    for (const v of [e.path, e.userAgent, e.referer as string]) expect(v.length).toBeLessThanOrEqual(MAX_FIELD_LENGTH)
    expect(assetKind(e.path)).toBe('script')
    expect(e.clientIp).toBe('192.0.2.1')
  })
})

describe('the analysis of 5 MB user agents', () => {
  // Four browsers on one address whose agents are 5 MB each and differ only in their last characters.
  const agents = ['s000001', 's000002', 's000003', 's000004'].map((tail) => padded(MB5, tail))

  it.each(['plain', 'workers'] as const)('keeps bounded agents and keys, and still tells the four browsers apart (%s reading)', async (mode) => {
    const {report, failures} = await analyzed(`huge-${mode}`, browserLines(agents), mode)
    expect(report.totals.affectedUsers).toBe(4)
    expect(report.affectedUsers).toHaveLength(4)
    expect(new Set(report.affectedUsers.map((u) => u.session)).size).toBe(4)
    for (const u of report.affectedUsers) {
      expect(u.userAgent.length).toBeLessThanOrEqual(MAX_FIELD_LENGTH)
      expect(u.session.length).toBeLessThanOrEqual(2 * MAX_FIELD_LENGTH + 1)
      expect(u.userAgent.startsWith(CHROME)).toBe(true)
      // The session key is address and agent, the agent as kept (not a copy of 5 MB).
      expect(u.session).toBe(`192.0.2.7 ${u.userAgent}`)
    }
    expect(report.affectedUsers.map((u) => u.userAgent.slice(-7)).sort()).toEqual(['s000001', 's000002', 's000003', 's000004'])
    expect(failures).toHaveLength(4)
    for (const f of failures) expect(f.userAgent.length + f.session.length + f.path.length).toBeLessThan(3 * MAX_FIELD_LENGTH)
    // Nothing of the report is as large as one of its agents.
    expect(JSON.stringify(report).length).toBeLessThan(100_000)
  })

  it('counts a 5 MB crawler as a crawler, by its start or by its end', async () => {
    const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'
    const byStart = padded(MB5, 'x1', googlebot)
    const byEnd = padded(MB5, googlebot)
    const {report} = await analyzed('huge-bots', browserLines([byStart, byEnd, padded(MB5, 'person1'), padded(MB5, 'person2')]), 'plain')
    expect(report.nonUser.crawlers.clients).toBe(2)
    expect(report.totals.affectedUsers).toBe(2)
    const kinds = new AgentClassifier()
    expect([kinds.kind(byStart), kinds.kind(byEnd), kinds.kind(padded(MB5, 'person'))]).toEqual(['crawler', 'crawler', undefined])
  })

  it('bounds agents of events handed to the analysis directly, not read by a reader', () => {
    const analyzer = new Analyzer(DEFAULT_OPTIONS)
    const ev = (second: number, path: string, bytes: number, ua: string): AccessEvent =>
      ({time: Date.UTC(2026, 10, 29, 14, 0, second), resolutionMs: 1000, method: 'GET', path, status: 200, bytes, clientIp: '192.0.2.9', userAgent: ua, location: {file: 'x', line: second}})
    agents.forEach((ua, b) => {
      const build = b % 2
      analyzer.push(ev(b * 2, '/', 1832 + build * 19, ua))
      analyzer.push(ev(b * 2, `/assets/index-${build}a2b3c4d.js`, 50_000, ua))
      analyzer.push(ev(b * 2 + 1, `/assets/chunk-${build}e6f7a8b.js`, 1832 + (1 - build) * 19, ua))
    })
    const report = analyzer.finish()
    expect(report.affectedUsers).toHaveLength(4)
    for (const u of report.affectedUsers) expect(u.userAgent.length + u.session.length).toBeLessThanOrEqual(3 * MAX_FIELD_LENGTH + 1)
  })
})
