import type {AnalysisReport, FailureRecord} from '../model/report'
import {renderCsv} from './csv'
import {renderHtml} from './html'
import {renderMarkdown} from './markdown'
import {inertJson} from './sanitize'
import {renderTable} from './table'
import type {Format} from './format-names'

export {EXTENSIONS, FORMATS, type Format, NEEDS_FAILURES} from './format-names'

export interface RenderContext {
  failures: readonly FailureRecord[]
  generatedAt: Date
  version: string
  topSessions: number
  /** The terminal's width, for the table (undefined when stdout is no terminal). */
  width?: number
}

/** The report in one format, as a string (renderers never print). */
export function render(format: Format, r: AnalysisReport, ctx: RenderContext): string {
  switch (format) {
    case 'table': return renderTable(r, {topSessions: ctx.topSessions, ...(ctx.width ? {width: ctx.width} : {})})
    // The same JSON whatever other formats are asked for (the HTML report's detail stays out of it).
    case 'json': return `${inertJson(JSON.stringify({...r, details: undefined}, null, 2))}\n`
    case 'ndjson': return ctx.failures.map((f) => `${inertJson(JSON.stringify(f))}\n`).join('')
    case 'csv': return renderCsv(ctx.failures)
    case 'markdown': return renderMarkdown(r)
    case 'html': return renderHtml(r, {generatedAt: ctx.generatedAt, version: ctx.version})
  }
}
