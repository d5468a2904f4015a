/**
 * The HTML report's timeline, read through the real path (a log file, analyze(), render): one
 * record stamped 9999 or 1970 among normal ones must neither blow the page up nor squeeze the
 * deploy windows into a pixel, and normal logs draw what they always drew.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {analyze} from '../../../src/app/analyze'
import {DEFAULT_OPTIONS} from '../../../src/analysis/options'
import type {AnalysisReport} from '../../../src/model/report'
import {DEFAULT_NORMALIZE} from '../../../src/normalize/fields'
import {render} from '../../../src/report/formats'
import {ROOT} from '../../helpers/cli'
import {tempDir} from '../../helpers/temp'
import {schemaValidator} from '../../helpers/schema'

const dir = tempDir('skewscan-html-unit-')

const firefox = (v: number) => `Mozilla/5.0 (X11; Linux x86_64; rv:${v}.0) Gecko/20100101 Firefox/${v}.0`
/** An ingress-nginx line; `at` is nginx's time, `29/Nov/2026:14:00:00`. */
const line = (at: string, ip: string, path: string, bytes: number, service = 'default-web-80') =>
  `${ip} - - [${at} +0000] "GET ${path} HTTP/1.1" 200 ${bytes} "https://shop.example.com/" "${firefox(120)}" 82 0.013 [${service}] [] 10.1.0.1:8080 ${bytes} 0.013 200 0123456789abcdef0123456789abcdef`
const minute = (m: number) => `29/Nov/2026:14:${String(m).padStart(2, '0')}:00`
/** A page load or its script: shells of one build and the script they load. */
const normal = (m: number, service?: string) => m % 2 === 0
  ? line(minute(m), `10.0.0.${(m % 5) + 1}`, '/', 1832, service)
  : line(minute(m), `10.0.0.${(m % 5) + 1}`, '/_build/app.aaaa.js', 50_000, service)

async function report(name: string, lines: string[] | null, deploysFile?: string, log?: string, opts: {keepOutliers?: boolean} = {}): Promise<AnalysisReport> {
  const file = log ?? join(dir, `${name}.log`)
  if (lines) writeFileSync(file, `${lines.join('\n')}\n`)
  return analyze({
    inputs: [file], ...(deploysFile ? {deploysFile} : {}), normalize: DEFAULT_NORMALIZE,
    analysis: {...DEFAULT_OPTIONS, detail: true}, reorderWindowMs: 60_000, parallel: false,
    // The timeline must draw records far apart whatever reaches it (the analysis counts a few lone
    // ones apart as time outliers; a far stretch of more does reach it): these keep them all.
    ...(opts.keepOutliers ? {timeOutliers: {gapMs: Number.POSITIVE_INFINITY, maxRecords: 0}} : {}),
  })
}

const html = (r: AnalysisReport): string => render('html', r, {failures: [], generatedAt: new Date(0), version: 'test', topSessions: 5})
const svgs = (page: string): string[] => page.match(/<svg class="timeline"[\s\S]*?<\/svg>/g) ?? []
const ticks = (svg: string): {x: string; text: string}[] =>
  [...svg.matchAll(/<text class="axis tick" x="([\d.]+)" y="\d+">([^<]*)<\/text>/g)].map((m) => ({x: m[1] as string, text: m[2] as string}))
const count = (s: string, re: RegExp): number => (s.match(re) ?? []).length
const bandWidths = (svg: string): number[] => [...svg.matchAll(/<rect class="deploy-band" data-deploy="[^"]*" x="[\d.]+" y="\d+" width="([\d.]+)"/g)].map((m) => Number(m[1]))

function validDetails(r: AnalysisReport): true | unknown {
  const validate = schemaValidator('analyze')
  return validate(JSON.parse(JSON.stringify(r))) || validate.errors
}

describe('HTML timeline', () => {
  it('draws 21 records, one dated 9999-12-31, on an axis cut where nothing happened: a small page, at most 12 ticks', async () => {
    const r = await report('one-9999', [...Array.from({length: 20}, (_, m) => normal(m)), line('31/Dec/9999:23:59:59', '10.0.0.9', '/', 1832)], undefined, undefined, {keepOutliers: true})
    // The model keeps only buckets with traffic: one per record here, whatever the span.
    expect(r.details?.timeline.map((s) => s.buckets.length)).toEqual([21])
    expect(validDetails(r)).toBe(true)
    const page = html(r)
    expect(Buffer.byteLength(page)).toBeLessThan(100_000)
    const [svg] = svgs(page)
    expect(count(svg as string, /<text class="axis tick"/g)).toBeLessThanOrEqual(12)
    // The twenty minutes of traffic keep the width, with their five-minute ticks; the stray record its own narrow part.
    expect(ticks(svg as string).map((t) => t.text)).toEqual(['14:00', '14:05', '14:10', '14:15', '23:59:55'])
    expect(count(svg as string, /<g class="axis-break">/g)).toBe(1)
    expect(count(svg as string, /<rect class="req"/g)).toBe(21)
    expect(svg).toContain('>9999-12-31</text>')
    expect(page).toContain('2026-11-29 14:19:10Z → 9999-12-31 23:59:50Z (7973 years)')
    expect(page).toContain('9999-12-31 23:59:50Z → 23:59:59Z: 1 request.')
  })

  it('renders records at 1970 and 9999 over six services without throwing, in a bounded page', async () => {
    const services = ['a', 'b', 'c', 'd', 'e', 'f'].map((s) => `default-${s}-80`)
    const r = await report('six', [
      ...services.map((s, i) => line('01/Jan/1970:00:00:00', `10.0.1.${i}`, '/', 1832, s)),
      ...Array.from({length: 30}, (_, m) => normal(m, services[m % 6])),
      ...services.map((s, i) => line('31/Dec/9999:23:59:59', `10.0.1.${i}`, '/', 1832, s)),
    ], undefined, undefined, {keepOutliers: true})
    expect(r.details?.timeline.map((s) => s.buckets.length)).toEqual([7, 7, 7, 7, 7, 7])
    expect(validDetails(r)).toBe(true)
    const page = html(r)
    expect(Buffer.byteLength(page)).toBeLessThan(200_000)
    const charts = svgs(page)
    expect(charts).toHaveLength(6)
    for (const svg of charts) {
      expect(count(svg, /<text class="axis tick"/g)).toBeLessThanOrEqual(12)
      expect(count(svg, /<g class="axis-break">/g)).toBe(2)
    }
    expect(page).toContain('(56 years)')
    expect(page).toContain('(7973 years)')
  })

  it('keeps the deploy windows and failures readable when one stray record is dated 9999', async () => {
    const fixture = readFileSync(join(ROOT, 'fixtures', 'two-deploys', 'ingress.log'), 'utf8').trimEnd().split('\n')
    const stray = (fixture.at(-1) as string).replace(/\[[^\]]+\]/, '[31/Dec/9999:23:59:59 +0000]')
    const r = await report('two-deploys-9999', [...fixture, stray], join(ROOT, 'fixtures', 'two-deploys', 'deploys.json'))
    const [svg] = svgs(html(r)) as [string]
    // Each deploy lasts a minute or two of the half hour: dozens of pixels, as without the stray record (not the 2-pixel floor).
    const widths = bandWidths(svg)
    expect(widths).toHaveLength(2)
    for (const w of widths) expect(w).toBeGreaterThan(30)
    expect(ticks(svg).map((t) => t.text).slice(0, 6)).toEqual(['14:00', '14:05', '14:10', '14:15', '14:20', '14:25'])
    expect(count(svg, /<rect class="fail"/g)).toBeGreaterThan(10)
  })

  it('draws normal logs as before: the same ticks at the same places, the same bars, no break', async () => {
    const r = await report('two-deploys', null, join(ROOT, 'fixtures', 'two-deploys', 'deploys.json'), join(ROOT, 'fixtures', 'two-deploys', 'ingress.log'))
    const page = html(r)
    const [svg] = svgs(page) as [string]
    // What the report drew before the axis could be cut (taken from it).
    expect(ticks(svg)).toEqual([
      {x: '50.0', text: '14:00'}, {x: '214.0', text: '14:05'}, {x: '378.1', text: '14:10'},
      {x: '542.1', text: '14:15'}, {x: '706.2', text: '14:20'}, {x: '870.2', text: '14:25'},
    ])
    expect(count(svg, /<rect class="req"/g)).toBe(101)
    expect(count(svg, /<g class="axis-break">/g)).toBe(0)
    expect(page).not.toContain('axis-note')
    // The day, once, under the first tick: the times alone never said which day.
    expect(svg).toContain('<text class="axis date start" x="50.0" y="314">2026-11-29</text>')
  })
})
