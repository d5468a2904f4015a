import type {DatadogLog} from '../../normalize/datadog'

/** How a Log Explorer CSV header maps to a Datadog log. */
export interface CsvColumns {
  time: number
  host?: number
  service?: number
  message?: number
  tags?: number
  /** `@http.status_code` -> column index, keyed by the attribute path without the `@`. */
  attributes: [string, number][]
}

const TIME_NAMES = new Set(['date', 'timestamp', 'time', '@timestamp'])
const MESSAGE_NAMES = new Set(['content', 'message'])

/** Finds the columns by header name, case-insensitively; undefined when there is no time column. */
export function csvColumns(header: readonly string[]): CsvColumns | undefined {
  const names = header.map((h) => h.trim().replace(/^\uFEFF/, ''))
  const lower = names.map((h) => h.toLowerCase())
  const time = lower.findIndex((h) => TIME_NAMES.has(h))
  if (time === -1) return undefined
  const index = (pred: (h: string) => boolean): number | undefined => {
    const i = lower.findIndex(pred)
    return i === -1 ? undefined : i
  }
  const attributes: [string, number][] = []
  names.forEach((h, i) => {
    if (h.startsWith('@') && lower[i] !== '@timestamp') attributes.push([h.slice(1), i])
  })
  return {
    time, host: index((h) => h === 'host'), service: index((h) => h === 'service'),
    message: index((h) => MESSAGE_NAMES.has(h)), tags: index((h) => h === 'tags'), attributes,
  }
}

/** The cells of a header line, unquoted (header names hold no commas). */
export function csvCells(line: string): string[] {
  return line.replace(/^\uFEFF/, '').split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1'))
}

/** True when a first line reads as a Log Explorer CSV header. */
export function looksLikeCsvHeader(line: string): boolean {
  const cells = csvCells(line).map((c) => c.toLowerCase())
  if (cells.length < 2 || !cells.some((c) => TIME_NAMES.has(c))) return false
  return cells.some((c) => MESSAGE_NAMES.has(c) || c.startsWith('@') || c === 'host' || c === 'service')
}

/**
 * A cell as its value. Log Explorer writes facet values JSON-encoded (`"web"` with the quotes,
 * numbers bare); one layer of that is removed.
 */
export function cellValue(cell: string | undefined): unknown {
  if (cell === undefined || cell === '') return undefined
  const c = cell.trim()
  if (c.startsWith('"') || c.startsWith('[') || c.startsWith('{')) {
    try {
      return JSON.parse(c)
    } catch {
      return cell
    }
  }
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(c)) return Number(c)
  return cell
}

/** One CSV row as a Datadog log; attribute columns become flat dotted keys. */
export function csvRowToLog(row: readonly string[], cols: CsvColumns): DatadogLog {
  const at = (i: number | undefined): unknown => (i === undefined ? undefined : cellValue(row[i]))
  const attributes: Record<string, unknown> = {}
  let any = false
  for (const [path, i] of cols.attributes) {
    const v = cellValue(row[i])
    if (v !== undefined) {
      attributes[path] = v
      any = true
    }
  }
  const tags = at(cols.tags)
  return {
    timestamp: at(cols.time), host: at(cols.host), service: at(cols.service), message: at(cols.message),
    tags: Array.isArray(tags) ? tags : typeof tags === 'string' ? tags.split(',').map((t) => t.trim()) : undefined,
    attributes: any ? attributes : undefined,
  }
}
