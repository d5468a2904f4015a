/** A deploy list as CSV: a header row naming the columns, then one deploy per row. */
import {parse} from 'csv-parse/sync'
import {deployFromFields, isTimeColumn} from './list'
import type {PartialResult} from './values'

const DELIMITERS = [',', '\t', ';'] as const

/** Undefined when the first line is not a header with a time column: then this is no deploy CSV. */
export function parseListCsv(text: string): PartialResult | undefined {
  const delimiter = detectDelimiter(firstLine(text))
  if (delimiter === undefined) return undefined
  const rows = readRows(text, delimiter)
  const header = rows[0]
  if (header === undefined || header === 'bad' || !header.some(isTimeColumn)) return undefined
  return rowsToDeploys(header.map((name) => name.toLowerCase()), rows.slice(1))
}

function firstLine(text: string): string {
  return text.split(/\r?\n/, 1)[0] ?? ''
}

/** The delimiter that splits the header into cells that include a time column. */
function detectDelimiter(line: string): string | undefined {
  return DELIMITERS.find((delimiter) =>
    line.split(delimiter).some((cell) => isTimeColumn(cell.trim().replace(/^"(.*)"$/, '$1'))),
  )
}

type Row = string[] | 'bad'

/**
 * Rows in file order, with 'bad' where csv-parse had to skip a malformed record. The callbacks are
 * used instead of the return value because only they keep skipped records in their place.
 */
function readRows(text: string, delimiter: string): Row[] {
  const rows: Row[] = []
  parse(text, {
    delimiter,
    bom: true,
    trim: true,
    skip_empty_lines: true,
    relax_quotes: true,
    relax_column_count: true,
    skip_records_with_error: true,
    on_record: (record: string[]) => {
      rows.push(record)
      return null
    },
    on_skip: () => {
      rows.push('bad')
      return undefined
    },
  })
  return rows
}

function rowsToDeploys(columns: readonly string[], rows: readonly Row[]): PartialResult {
  const result: PartialResult = {deploys: [], rejected: []}
  let index = 0
  for (const row of rows) {
    // spreadsheet exports end with rows of empty cells; they are padding, not records
    if (row !== 'bad' && row.every((cell) => cell === '')) continue
    const outcome =
      row === 'bad' || hasExtraCells(row, columns.length)
        ? {ok: false as const, reason: 'bad-csv-row'}
        : deployFromFields((name) => row[columns.indexOf(name)])
    if (outcome.ok) result.deploys.push(outcome.deploy)
    else result.rejected.push({index, reason: outcome.reason})
    index++
  }
  return result
}

/** Cells past the header mean an unquoted delimiter shifted the row; trailing empty ones are harmless. */
function hasExtraCells(row: readonly string[], columnCount: number): boolean {
  return row.slice(columnCount).some((cell) => cell !== '')
}
