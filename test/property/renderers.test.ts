/**
 * Issue 14 (hardening): every renderer, given reports whose logged text is arbitrary (any code
 * points, terminal escapes, OSC 8 links, C1 controls, bidi overrides, active HTML, spreadsheet
 * formulas): what goes to a terminal (the table, JSON, NDJSON, CSV, Markdown, `parse` output, the
 * probe's lines, stderr notes) holds no control character but LF and no bidi control; the HTML
 * report, read by a real HTML parser, holds no element, attribute or URL of its own making; CSV
 * cells never start a formula. Reports come from the real analysis of the bad-input corpus's
 * scenario written with hostile text, and (faster) from one such report with its text swapped.
 */
import {parse as parseCsv} from 'csv-parse/sync'
import fc from 'fast-check'
import {type DefaultTreeAdapterMap, parse as parseHtml} from 'parse5'
import {compareReport, deployRows} from '../../src/analysis/compare'
import type {ParsedRecord} from '../../src/app/parse'
import type {CompareReport} from '../../src/model/compare'
import type {AnalysisReport, FailureRecord} from '../../src/model/report'
import {barrageJson, renderBarrage, renderProbeSummary} from '../../src/probe/render'
import type {BarrageResult, ProbeSummary} from '../../src/probe/types'
import {renderCompareHtml, renderCompareMarkdown, renderCompareTable} from '../../src/report/compare'
import {CSV_HEADER, csvCell} from '../../src/report/csv'
import {render, type RenderContext} from '../../src/report/formats'
import {lostInputNote, skippedNote} from '../../src/report/input-notes'
import {gathered, jsonPieces} from '../../src/report/json'
import {parsedJsonLine, parsedTable} from '../../src/report/parsed'
import {inertJson, terminalSafe, terminalSafeLines} from '../../src/report/sanitize'
import {firstUnsafe, HOSTILE, hostileString, settings} from '../helpers/hostile'
import {analysedReport, loggedText, PLAIN, scenarioEvents, swapped} from '../helpers/hostile-report'
import {schemaValidator} from '../helpers/schema'

const ctxOf = (failures: readonly FailureRecord[], version = 'test'): RenderContext => ({failures, generatedAt: new Date(Date.UTC(2026, 10, 30)), version, topSessions: 10})

/** Nothing in `text` acts on a terminal (the label says which output, in a failure). */
function terminalSafeText(label: string, text: string): void {
  expect({label, unsafe: firstUnsafe(text)}).toEqual({label, unsafe: undefined})
}

// ---------------------------------------------------------------------------------------------
// HTML, read as a browser reads it

type Node = DefaultTreeAdapterMap['node']
type Element = DefaultTreeAdapterMap['element']

/** Every element the report's own template writes (HTML and inline SVG). */
const TEMPLATE_TAGS = new Set(['html', 'head', 'body', 'meta', 'title', 'style', 'h1', 'h2', 'h3', 'p', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'a', 'span',
  'section', 'code', 'details', 'summary', 'dl', 'dt', 'dd', 'svg', 'rect', 'line', 'text', 'g', 'path'])
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
/** Attributes a browser follows or loads as a URL (the template's only one is an in-page `href="#I1"`). */
const URL_ATTRIBUTES = new Set(['href', 'xlink:href', 'src', 'srcset', 'action', 'formaction', 'data', 'poster', 'background', 'ping', 'cite', 'manifest'])

function elements(node: Node, out: Element[] = []): Element[] {
  if ('tagName' in node) out.push(node)
  for (const child of 'childNodes' in node ? node.childNodes : []) elements(child, out)
  if ('content' in node && node.content) elements(node.content, out)
  return out
}

const textOf = (el: Element): string => el.childNodes.map((c) => ('value' in c ? c.value : 'tagName' in c ? textOf(c) : '')).join('')

/**
 * What in an HTML page is not the template's own: an element it never writes, an event handler, a
 * link off the page, a URL that runs script, a style other than a waterfall bar's offset, a second
 * `<style>` or one with other rules, meta elements other than its three (the CSP first).
 */
function activeContent(html: string, style: string): string | undefined {
  const all = elements(parseHtml(html))
  for (const el of all) {
    if (!TEMPLATE_TAGS.has(el.tagName)) return `element <${el.tagName}>`
    for (const a of el.attrs) {
      if (/^on/i.test(a.name)) return `handler ${a.name} on <${el.tagName}>`
      // A browser drops tabs and newlines from a URL and trims its spaces and controls: `java\tscript:` runs.
      // eslint-disable-next-line no-control-regex
      if (URL_ATTRIBUTES.has(a.name) && /^(javascript|vbscript|data):/i.test(a.value.replace(/[\u0000-\u0020]/g, ''))) return `script URL in ${a.name} of <${el.tagName}>`
      if (URL_ATTRIBUTES.has(a.name) && !a.value.startsWith('#')) return `link ${a.value} in ${a.name} of <${el.tagName}>`
      if (a.name === 'style' && !/^margin-left:\d+(\.\d+)?%$/.test(a.value)) return `style ${JSON.stringify(a.value)}`
      if (a.name === 'http-equiv' && a.value.toLowerCase() !== 'content-security-policy') return `http-equiv ${a.value}`
    }
  }
  const styles = all.filter((el) => el.tagName === 'style')
  if (styles.length !== 1 || textOf(styles[0] as Element) !== style) return 'a style sheet of its own'
  const metas = all.filter((el) => el.tagName === 'meta').map((el) => Object.fromEntries(el.attrs.map((a) => [a.name, a.value])))
  if (metas.length !== 3 || metas[1]?.['http-equiv'] !== 'Content-Security-Policy' || metas[1]?.content !== CSP) return `meta elements ${JSON.stringify(metas)}`
  return undefined
}

function inertHtml(label: string, html: string, style: string): void {
  expect({label, active: activeContent(html, style)}).toEqual({label, active: undefined})
}

const styleOf = (html: string): string => textOf(elements(parseHtml(html)).find((el) => el.tagName === 'style') as Element)

// ---------------------------------------------------------------------------------------------
// CSV, read as a spreadsheet reads it

/** A cell that a spreadsheet evaluates (or folds to one it does): = + - @, fullwidth forms, or NUL, space, tab, CR, LF before one. */
// eslint-disable-next-line no-control-regex
const FORMULA_START = /^[=+\-@\u0000 \t\r\n\uff1d\uff0b\uff0d\uff20]/

function safeCsv(label: string, csv: string, rows: number): void {
  // The one CR allowed is that of the CRLF ending every row (RFC 4180).
  terminalSafeText(label, csv.replace(/\r\n/g, '\n'))
  // The columns of every run, then (a run with RUM) those of the page load's RUM view.
  expect(csv.startsWith(CSV_HEADER.slice(0, -2))).toBe(true)
  expect(csv.split('\r\n')).toHaveLength(rows + 2)
  const cells = parseCsv(csv, {relax_column_count: false}) as string[][]
  expect(cells).toHaveLength(rows + 1)
  for (const row of cells.slice(1)) {
    for (const cell of row) {
      // Numbers (status, bytes, line) are written as numbers; every other cell that would start a formula is quoted with '.
      if (FORMULA_START.test(cell)) expect({label, cell, number: /^-?\d+(\.\d+)?$/.test(cell)}).toEqual({label, cell, number: true})
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Markdown, pasted into a ticket

/** Each table row has as many cell separators as its heading row (a pipe in a cell is escaped), and no raw `<` (no HTML). */
function wellFormedMarkdown(label: string, md: string): void {
  let heading: number | undefined
  for (const line of md.split('\n')) {
    if (!line.startsWith('|')) {
      heading = undefined
      continue
    }
    const pipes = (line.match(/(?<!\\)(?:\\\\)*\|/g) ?? []).length
    heading ??= pipes
    expect({label, line, pipes}).toEqual({label, line, pipes: heading})
  }
  expect({label, html: /(?<!\\)(?:\\\\)*</.test(md)}).toEqual({label, html: false})
}

// ---------------------------------------------------------------------------------------------

const plain = analysedReport(PLAIN)
const STYLE = styleOf(render('html', plain.report, ctxOf(plain.failures)))

const validReport = schemaValidator('analyze')

/** Every check of an analysis report and its flagged requests, in every format. */
function checkReport(r: AnalysisReport, failures: readonly FailureRecord[], version = 'test'): void {
  const ctx = ctxOf(failures, version)
  terminalSafeText('table', render('table', r, ctx))
  terminalSafeText('table, 80 columns', render('table', r, {...ctx, width: 80}))
  const json = render('json', r, ctx)
  terminalSafeText('json', json)
  const expected: unknown = JSON.parse(JSON.stringify({...r, details: undefined}))
  expect(JSON.parse(json)).toEqual(expected)
  // `--json`: the report written a piece at a time.
  const pieces = [...gathered(jsonPieces(r), 512)].map(inertJson).join('')
  terminalSafeText('--json', pieces)
  expect(JSON.parse(pieces)).toEqual(JSON.parse(JSON.stringify(r)))
  const ndjson = render('ndjson', r, ctx)
  terminalSafeText('ndjson', ndjson)
  expect(ndjson.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as unknown)).toEqual(JSON.parse(JSON.stringify(failures)))
  safeCsv('csv', render('csv', r, ctx), failures.length)
  inertHtml('html', render('html', r, ctx), STYLE)
  for (const note of [skippedNote(r.input), lostInputNote(r.input)]) if (note) terminalSafeText('stderr note', note)
  const md = render('markdown', r, ctx)
  wellFormedMarkdown('markdown', md)
  terminalSafeText('markdown', md)
}

describe('analysis reports with hostile text', () => {
  it('the plain scenario reports what the checks look at: two apps, deploys, incidents, affected sessions, builds, flagged requests', () => {
    const r = plain.report
    expect(r.apps).toHaveLength(2)
    expect(r.deploys.length).toBeGreaterThan(0)
    expect(r.unmatchedDeploys).toHaveLength(1)
    expect(r.incidents.length).toBeGreaterThan(0)
    expect(r.affectedUsers.length).toBeGreaterThan(0)
    expect(r.builds.length).toBeGreaterThanOrEqual(4)
    expect(r.details?.brokenPageLoads.length).toBeGreaterThan(0)
    expect(plain.failures.length).toBeGreaterThan(0)
    // The browsers' word: each failed page load's crash confirmed, one failed lazy load unexplained, in every human format.
    expect(r.rum).toMatchObject({crashedPageLoads: r.details?.brokenPageLoads.length, unexplained: 1, accounts: 2})
    expect(r.details?.brokenPageLoads.every((p) => p.rum?.crashed === true)).toBe(true)
    // Each flagged request says what RUM saw of its page load, in the NDJSON and in the CSV's own columns.
    expect(plain.failures.every((f) => f.rum?.crashed === true)).toBe(true)
    expect(render('csv', r, ctxOf(plain.failures)).split('\r\n')[0]).toMatch(/,source_line,rum_session,rum_view,rum_join,rum_crashed,rum_error,rum_user,rum_version$/)
    for (const f of ['table', 'markdown', 'html'] as const) expect(render(f, r, ctxOf(plain.failures))).toContain('The browsers')
    checkReport(r, plain.failures)
  })

  it('a report whose every logged field holds hostile text shows it, escaped', () => {
    // No http(s) URL in the agents: an agent naming one is a crawler's (isbot), no user.
    const t = {...PLAIN, agents: PLAIN.agents.map((a) => `${a} \u001b]8;;ssh://evil.example/\u0007x\u001b]8;;\u0007 \u009b2J \u202e`), apps: ['<img src=x onerror=alert(1)>', "=cmd|' /C calc'!A0"] as [string, string]}
    const {report, failures} = analysedReport(t)
    expect(report.affectedUsers.length).toBeGreaterThan(0)
    const table = render('table', report, ctxOf(failures))
    expect(table).toContain('\\u001b]8;;ssh://evil.example/\\u0007x')
    expect(render('html', report, ctxOf(failures))).toContain('&#60;img src=x onerror=alert(1)&#62;')
    expect(render('csv', report, ctxOf(failures))).toContain(",'=cmd|' /C calc'!A0,")
    terminalSafeText('table', table)
  })

  it('the real analysis of the scenario written with arbitrary text: every format safe', () => {
    fc.assert(fc.property(loggedText, hostileString, (t, version) => {
      const {report, failures} = analysedReport(t)
      checkReport(report, failures, version)
      expect(validReport(JSON.parse(render('json', report, ctxOf(failures))))).toBe(true)
    }), settings(0xa11, 12))
  })

  it('a report and its flagged requests with every free-text string swapped for an arbitrary one: every format safe', () => {
    fc.assert(fc.property(fc.array(hostileString, {minLength: 1, maxLength: 40}), (pool) => {
      checkReport(swapped(plain.report, pool), swapped(plain.failures, pool), pool[0])
    }), settings(0x5aa, 20))
  })

  it('ids too (D1, B2, I3 are the tool\'s, but no format trusts them): JSON, NDJSON, CSV and HTML safe', () => {
    fc.assert(fc.property(fc.array(hostileString, {minLength: 1, maxLength: 40}), (pool) => {
      const r = swapped(plain.report, pool, true)
      const failures = swapped(plain.failures, pool, true)
      const ctx = ctxOf(failures)
      terminalSafeText('json', render('json', r, ctx))
      terminalSafeText('ndjson', render('ndjson', r, ctx))
      safeCsv('csv', render('csv', r, ctx), failures.length)
      inertHtml('html', render('html', r, ctx), STYLE)
    }), settings(0x1d5, 20))
  })
})

describe('skewscan parse output with hostile text', () => {
  it('each record as NDJSON and as a table row: nothing acts on a terminal, the JSON says what was read', () => {
    fc.assert(fc.property(loggedText, fc.integer({min: 40, max: 200}), (t, width) => {
      const rows: ParsedRecord[] = scenarioEvents(t).map((event) => ({file: t.file, line: event.location.line, event, app: event.upstreamName ?? null, bytesCount: 'body'}))
      rows.push({file: t.file, line: 99, rejection: {reason: 'invalid-json', location: {file: t.file, line: 99}, detail: t.detail}})
      for (const r of rows) {
        const line = parsedJsonLine(r)
        terminalSafeText('parse ndjson', line)
        const back = JSON.parse(line) as Record<string, unknown>
        if ('event' in r) expect([back.userAgent, back.path, back.app]).toEqual([r.event.userAgent || null, r.event.path, r.app])
        else expect(back.detail).toBe(t.detail)
      }
      terminalSafeText('parse table', parsedTable(rows, width))
      terminalSafeText('parse table, two files', parsedTable([...rows, {...(rows[0] as ParsedRecord), file: `${t.file}2`}], undefined))
    }), settings(0x9a5, 10))
  })
})

describe('compare reports with hostile text', () => {
  it('table, Markdown and HTML of a comparison of two labelled sets', () => {
    fc.assert(fc.property(loggedText, fc.tuple(hostileString, hostileString), (t, [before, after]) => {
      const {report} = analysedReport(t)
      const r: CompareReport = compareReport({kind: 'sets'}, [{name: before, rows: deployRows(before, report)}, {name: after, rows: deployRows(after, report)}])
      const html = renderCompareHtml(r, new Date(0), t.version)
      inertHtml('compare html', html, styleOf(renderCompareHtml(compareReport({kind: 'sets'}, [{name: 'a', rows: []}, {name: 'b', rows: []}]), new Date(0), 'x')))
      const md = renderCompareMarkdown(r)
      wellFormedMarkdown('compare markdown', md)
      terminalSafeText('compare markdown', md)
      terminalSafeText('compare table', renderCompareTable(r, 100))
    }), settings(0xc0a, 10))
  })
})

describe('the probe\'s lines with hostile pages', () => {
  const asset = fc.record({
    url: fc.oneof(hostileString, hostileString.map((s) => `https://app.example.com/${s}`)), kind: fc.constantFrom('script' as const, 'module' as const, 'stylesheet' as const),
    status: fc.option(fc.integer({min: 100, max: 599}), {nil: null}), bytes: fc.nat(), contentType: fc.option(hostileString, {nil: null}),
    outcome: fc.constantFrom('ok' as const, 'html-for-asset' as const, 'missing' as const, 'error' as const), reason: fc.option(hostileString, {nil: null}), ms: fc.nat(),
  })
  const barrage: fc.Arbitrary<BarrageResult> = fc.record({
    seq: fc.nat(), startedAt: fc.integer({min: 0, max: 4e12}), endedAt: fc.integer({min: 0, max: 4e12}),
    page: fc.record({url: fc.oneof(hostileString, hostileString.map((s) => `https://app.example.com/${s}`)), status: fc.option(fc.integer({min: 100, max: 599}), {nil: null}), bytes: fc.nat(),
      contentType: fc.option(hostileString, {nil: null}), error: fc.option(hostileString, {nil: null}), ms: fc.nat()}),
    build: fc.option(fc.record({fingerprint: fc.constant('2054:3f9a2c1b'), shellBytes: fc.nat(), assetsHash: fc.constant('3f9a2c1b')}), {nil: null}),
    assets: fc.array(asset, {maxLength: 4}),
    verdict: fc.constantFrom('all-ok' as const, 'html' as const, 'missing' as const, 'error' as const, 'page-error' as const),
  })

  it('a barrage\'s line, as printed', () => {
    fc.assert(fc.property(barrage, fc.boolean(), fc.boolean(), (b, newBuild, changed) => {
      terminalSafeText('barrage', renderBarrage(b, {newBuild, changed}))
    }), settings(0x9b0, 300))
  })

  it('a barrage\'s --ndjson line, as printed', () => {
    fc.assert(fc.property(barrage, fc.boolean(), (b, newBuild) => {
      const line = barrageJson(b, {newBuild, changed: false})
      terminalSafeText('barrage ndjson', line)
      expect((JSON.parse(line) as {page: unknown}).page).toEqual(JSON.parse(JSON.stringify(b.page)))
    }), settings(0x9b1, 300))
  })

  it('the summary when the probe stops', () => {
    const summary: fc.Arbitrary<ProbeSummary> = fc.record({
      schemaVersion: fc.constant(1 as const), url: hostileString, startedAt: fc.constant('2026-11-30T07:18:26.070Z'), endedAt: fc.constant('2026-11-30T07:19:26.070Z'),
      stoppedBy: fc.constantFrom('count' as const, 'duration' as const, 'interrupt' as const, 'unreachable' as const), barrages: fc.nat(), failedBarrages: fc.nat(),
      byVerdict: fc.record({html: fc.nat(), missing: fc.nat(), error: fc.nat()}), pageErrors: fc.nat(), failureRate: fc.double({min: 0, max: 1, noNaN: true}),
      firstFailure: fc.option(fc.constant('2026-11-30T07:18:30.000Z'), {nil: null}), lastFailure: fc.option(fc.constant('2026-11-30T07:18:40.000Z'), {nil: null}),
      windowSeconds: fc.option(fc.nat(), {nil: null}), builds: fc.constant([]), buildChanges: fc.nat(),
      assets: fc.record({requests: fc.nat(), ok: fc.nat(), htmlForAsset: fc.nat(), missing: fc.nat(), error: fc.nat()}),
    })
    fc.assert(fc.property(summary, (s) => terminalSafeText('probe summary', renderProbeSummary(s))), settings(0x9b2, 200))
  })
})

describe('the sanitisers themselves', () => {
  const anyText = fc.oneof(hostileString, fc.string({unit: 'binary', maxLength: 200}), fc.array(fc.constantFrom(...HOSTILE)).map((xs) => xs.join('')))

  it('terminalSafe leaves nothing that acts; terminalSafeLines keeps line breaks only', () => {
    fc.assert(fc.property(anyText, (s) => {
      terminalSafeText('terminalSafe', terminalSafe(s))
      expect(terminalSafe(s)).not.toContain('\n')
      const lines = terminalSafeLines(s)
      terminalSafeText('terminalSafeLines', lines)
      expect(lines.split('\n')).toHaveLength(s.split('\n').length)
    }), settings(0x5a1, 600))
  })

  it('inertJson: a JSON text that means the same and does nothing to a terminal', () => {
    fc.assert(fc.property(fc.oneof(anyText, fc.dictionary(anyText, anyText, {maxKeys: 4}), fc.array(anyText, {maxLength: 4})), (v) => {
      const text = inertJson(JSON.stringify(v))
      terminalSafeText('inertJson', text)
      expect(JSON.parse(text)).toEqual(v)
    }), settings(0x5a2, 600))
  })

  it('csvCell: one cell, never a formula, nothing that acts on a terminal', () => {
    fc.assert(fc.property(fc.oneof(anyText, fc.constantFrom(...HOSTILE).chain((h) => anyText.map((s) => h + s))), (s) => {
      const cell = csvCell(s)
      terminalSafeText('csvCell', cell)
      const [row] = parseCsv(`${cell}\r\n`, {relax_column_count: false}) as string[][]
      expect(row ?? ['']).toHaveLength(1)
      const value = (row ?? [''])[0] as string
      expect({s, cell: value, formula: FORMULA_START.test(value)}).toEqual({s, cell: value, formula: false})
    }), settings(0x5a3, 600))
  })
})
