/**
 * What the HTML report says beyond the timeline, against the two-deploys fixture's truth (the
 * generator's own record of every failure, pod and count): the best fix in the headline, each
 * crashed count said against what it counts, the pods that served each build's shells, and the
 * top failing paths, status codes and browsers of each incident; log text stays text.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {analyze} from '../../../src/app/analyze'
import {DEFAULT_OPTIONS} from '../../../src/analysis/options'
import type {AnalysisReport} from '../../../src/model/report'
import {DEFAULT_NORMALIZE} from '../../../src/normalize/fields'
import {tempDir} from '../../helpers/temp'
import {render} from '../../../src/report/formats'
import {esc} from '../../../src/report/html'
import {ROOT} from '../../helpers/cli'
import {schemaValidator} from '../../helpers/schema'

interface TruthFailure {incidentId: string; path: string; status: number; userAgent: string}
interface Truth {
  totals: {pageLoads: number; byOutcome: {crashed: number}}
  deploys: {id: string; pageLoads: number; byOutcome: {crashed: number}}[]
  incidents: {id: string; pageLoads: number; byOutcome: {crashed: number}; failedRequests: number}[]
  builds: {id: string; key: string}[]
  pods: {ip: string; build: string}[]
  failures: TruthFailure[]
}
const truthOf = (name: string): Truth => JSON.parse(readFileSync(join(ROOT, 'fixtures', name, 'truth.json'), 'utf8')) as Truth

async function fixture(name: string, detail = true): Promise<AnalysisReport> {
  const dir = join(ROOT, 'fixtures', name)
  return analyze({
    inputs: [join(dir, 'ingress.log')], deploysFile: join(dir, 'deploys.json'), normalize: DEFAULT_NORMALIZE,
    analysis: {...DEFAULT_OPTIONS, detail}, reorderWindowMs: 60_000, parallel: false,
  })
}

const ctx = {failures: [], generatedAt: new Date(0), version: 'test', topSessions: 5}
const html = (r: AnalysisReport): string => render('html', r, ctx)
/** A section of the page: from its opening tag to the next of its kind. */
const section = (page: string, from: string, to: string): string => {
  const i = page.indexOf(from)
  expect(i).toBeGreaterThanOrEqual(0)
  const j = page.indexOf(to, i + from.length)
  return page.slice(i, j < 0 ? undefined : j)
}
const cells = (rowHtml: string): string[] => [...rowHtml.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1] as string)
const rows = (tableHtml: string): string[][] => [...tableHtml.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((m) => cells(m[1] as string)).filter((c) => c.length > 0)

/** The most counted keys of some values, the most first, ties by key: what a top list must hold, counted here from the truth. */
function counted<K extends string | number>(values: K[], max = 5): [K, number][] {
  const m = new Map<K, number>()
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1)
  return [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, max)
}

const validate = (() => {
  return schemaValidator('analyze')
})()

describe('HTML report figures (two-deploys fixture)', () => {
  const truth = truthOf('two-deploys')
  let r: AnalysisReport
  let page: string
  beforeAll(async () => {
    r = await fixture('two-deploys')
    page = html(r)
  })

  it('names the best fix in the headline, with the advice\'s own figures, in the same words as the markdown and table reports', () => {
    // The advice's overall line: version-pinning 40 of the 42 failed requests of the 2 deploys (every one of the race, none of the 2 stale tabs').
    const fix = 'Best fix: version-pinning, which would have prevented 40 of the 42 failed requests of 2 deploys.'
    expect(r.totals.byCause).toEqual({rollout: 40, 'stale-client': 2, unattributed: 0})
    const answer = section(page, '<p class="answer', '</p>')
    expect(answer).toContain('21 users hit failed assets: 17 page loads of 83 crashed')
    expect(answer).toContain(fix)
    expect(page).toContain('What each fix would have prevented of the 42 failed requests of 2 deploys: version-pinning 40,')
    expect(render('markdown', r, ctx).split('\n')[2]).toContain(fix)
    expect(render('table', r, ctx).split('\n')[0]).toContain(fix)
  })

  it('says what each crashed count is of: the input, the deploy, the incident (figures from the truth)', () => {
    const t = truth.totals
    expect(page).toContain(`${t.byOutcome.crashed} of ${t.pageLoads} page loads in the whole input`)
    const deploys = rows(section(page, '<h2>Deploys</h2>', '</table>'))
    expect(deploys.map((c) => [c[0], c[7]])).toEqual(truth.deploys.map((d) => [d.id, `${d.byOutcome.crashed} of ${d.pageLoads} page loads during the deploy`]))
    // 6 of 17 and 11 of 26 (the deploys), 6 of 9 and 11 of 13 (their races): none shown bare.
    expect(deploys.map((c) => c[7])).toEqual(['6 of 17 page loads during the deploy', '11 of 26 page loads during the deploy'])
    const incidents = rows(section(page, '<h2>Incidents</h2>', '</table>'))
    expect(incidents.map((c) => [c[0]?.replace(/<[^>]+>/g, ''), c[6]])).toEqual(truth.incidents.map((i) => [i.id, `${i.byOutcome.crashed} of ${i.pageLoads} page load${i.pageLoads === 1 ? '' : 's'} during the incident`]))
    for (const i of truth.incidents) {
      expect(section(page, `<section class="incident" id="${i.id}">`, '</section>')).toContain(`${i.failedRequests} failed request${i.failedRequests === 1 ? '' : 's'}; crashed: ${i.byOutcome.crashed} of ${i.pageLoads} page load`)
    }
    expect(page).not.toMatch(/<td>\d+ \/ \d+<\/td>/)
  })

  it('lists the pods that served each build\'s shells: the truth\'s pods of that build, and the pod of every request in the waterfalls', () => {
    const keyOf = new Map(truth.builds.map((b) => [b.id, b.key]))
    const podsOf = (id: string): string[] => truth.pods.filter((p) => p.build === keyOf.get(id)).map((p) => `${p.ip}:8080`).sort()
    const builds = rows(section(page, '<h2>Builds</h2>', '</table>'))
    expect(builds).toHaveLength(3)
    for (const c of builds) {
      const id = c[0] as string
      expect(c[5]).toBe(`3: ${podsOf(id).map((p) => `<code>${p}</code>`).join(' ')}`)
    }
    expect(r.builds.map((b) => b.podAddresses)).toEqual(r.builds.map((b) => podsOf(b.id)))
    // Every waterfall row names its pod, and the pod belongs to the build that answered (the shell's too).
    const buildOfPod = new Map(truth.pods.map((p) => [`${p.ip}:8080`, [...keyOf].find(([, k]) => k === p.build)?.[0]]))
    const waterfallRows = [...page.matchAll(/<table class="waterfall">[\s\S]*?<\/table>/g)].flatMap((m) => rows(m[0]))
    expect(waterfallRows.length).toBeGreaterThan(24)
    for (const c of waterfallRows) {
      const pod = (c[5] as string).replace(/<\/?code>/g, '')
      expect(buildOfPod.get(pod)).toBe(c[4])
    }
    // The shell of every affected page load (24 in the truth) is there with its pod.
    expect(r.details?.brokenPageLoads.map((p) => p.requests[0]?.pod !== undefined)).toEqual(Array.from({length: 24}, () => true))
  })

  it('shows each incident\'s top failing paths, status codes and browsers, counted as the truth counts them', () => {
    for (const inc of truth.incidents) {
      const mine = truth.failures.filter((f) => f.incidentId === inc.id)
      const report = r.incidents.find((i) => i.id === inc.id)
      expect(report?.top.paths.map((p) => [p.path, p.failedRequests])).toEqual(counted(mine.map((f) => f.path)))
      expect(report?.top.statuses.map((s) => [s.status, s.failedRequests])).toEqual(counted(mine.map((f) => f.status)))
      const top = section(page, `<section class="incident" id="${inc.id}">`, '<details')
      expect(rows(section(top, '<table class="top">', '</table>')).map((c) => [c[0], Number(c[1])])).toEqual(counted(mine.map((f) => f.path)).map(([p, n]) => [`<code>${p}</code>`, n]))
    }
    // I2's 25 failed requests, by the truth's user agents: 14 Chrome (one on iOS), 6 Firefox, 3 Safari (iOS), 2 Edge.
    const i2 = r.incidents.find((i) => i.id === 'I2')
    expect(i2?.top.browsers).toEqual([
      {browser: 'Chrome', failedRequests: 14, users: 7}, {browser: 'Firefox', failedRequests: 6, users: 2},
      {browser: 'Safari', failedRequests: 3, users: 1}, {browser: 'Edge', failedRequests: 2, users: 1},
    ])
    const top = section(page, '<section class="incident" id="I2">', '<details')
    expect(top).toContain('<tr><td>200</td><td>25</td></tr>')
    expect(top).toContain('<tr><td>Chrome</td><td>14</td><td>7</td></tr><tr><td>Firefox</td><td>6</td><td>2</td></tr>')
    expect(top).toContain('Of its 25 failed requests: the paths, status codes and browsers (by user agent) that failed most, at most 5 of each')
  })

  it('is valid against the schema, in the JSON too (top lists and pods are there without the HTML detail)', async () => {
    expect(validate(JSON.parse(JSON.stringify(r))) || validate.errors).toBe(true)
    const plain = await fixture('two-deploys', false)
    expect(validate(JSON.parse(render('json', plain, ctx))) || validate.errors).toBe(true)
    expect(plain.incidents.map((i) => i.top)).toEqual(r.incidents.map((i) => i.top))
    expect(plain.builds.map((b) => b.podAddresses?.length)).toEqual([3, 3, 3])
  })
})

describe('HTML report figures (missing-404 fixture)', () => {
  it('counts the 404s as the truth does', async () => {
    const truth = truthOf('missing-404')
    const r = await fixture('missing-404')
    for (const inc of truth.incidents) {
      const mine = truth.failures.filter((f) => f.incidentId === inc.id)
      expect(r.incidents.find((i) => i.id === inc.id)?.top.statuses.map((s) => [s.status, s.failedRequests])).toEqual(counted(mine.map((f) => f.status)))
    }
    expect(r.incidents[0]?.top.statuses).toEqual([{status: 404, failedRequests: 25}])
    expect(section(html(r), '<section class="incident" id="I1">', '<details')).toContain('<tr><td>404</td><td>25</td></tr>')
  })
})

describe('HTML report with hostile log text', () => {
  const dir = tempDir('skewscan-html-figures-')

  it('escapes a path and a user agent with <script> and quotes in the top lists, the waterfall and the pods', async () => {
    const UA = `Mozilla/5.0 (X11; Linux x86_64; rv:123.0) Gecko/20100101 Firefox/123.0 <script>alert('ua')</script><img src=x onerror='1'>`
    // The query string never reaches the report (paths are kept without it): the payload is in the path.
    const PATH = `/_build/'><script>alert('p')</script>.js`
    const line = (ts: string, ip: string, ua: string, path: string, bytes: number, up: string) =>
      `${ip} - - [29/Nov/2026:${ts} +0000] "GET ${path} HTTP/1.1" 200 ${bytes} "https://shop.example.com/" "${ua}" 82 0.013 [default-web-80] [] ${up} ${bytes} 0.013 200 0123456789abcdef0123456789abcdef`
    const ff = (v: number) => `Mozilla/5.0 (X11; Linux x86_64; rv:${v}.0) Gecko/20100101 Firefox/${v}.0`
    const A = '10.1.0.1:8080'
    const B = '10.1.1.1:8080'
    const log = join(dir, 'hostile.log')
    writeFileSync(log, [
      line('14:00:00', '10.0.0.1', ff(120), '/', 1832, A),
      line('14:00:00', '10.0.0.1', ff(120), '/_build/app.aaaa.js', 50000, A),
      line('14:00:10', '10.0.0.4', ff(121), '/', 1832, A),
      line('14:01:00', '10.0.0.2', ff(122), '/', 1851, B),
      line('14:01:05', '10.0.0.5', ff(124), '/', 1851, B),
      line('14:01:00', '10.0.0.3', UA, '/', 1832, A),
      line('14:01:00', '10.0.0.3', UA, '/_build/app.aaaa.js', 50000, A),
      line('14:01:00', '10.0.0.3', UA, PATH, 1851, B),
    ].join('\n') + '\n')
    const r = await analyze({inputs: [log], normalize: DEFAULT_NORMALIZE, analysis: {...DEFAULT_OPTIONS, detail: true}, reorderWindowMs: 60_000, parallel: false})
    expect(r.incidents).toHaveLength(1)
    expect(r.incidents[0]?.top).toEqual({paths: [{path: PATH, failedRequests: 1}], statuses: [{status: 200, failedRequests: 1}], browsers: [{browser: 'Firefox', failedRequests: 1, users: 1}]})
    const page = html(r)
    expect(page).not.toMatch(/<script/i)
    expect(page).toContain(`<td><code>${esc(PATH)}</code></td><td>1</td>`)
    expect(esc(PATH)).toBe('/_build/&#39;&#62;&#60;script&#62;alert(&#39;p&#39;)&#60;/script&#62;.js')
    expect(page).not.toMatch(/<img/i)
    expect(page).toContain(esc(UA))
    expect(page).toContain(`<code>${A}</code>`)
  })
})
