import type {Line} from './lines'

/** Lines a quoted cell may span before its opening quote is taken for one never closed. */
export const MAX_RECORD_LINES = 256

/** What the reader of the records says of one: it fits the file, or why not (its cell count). */
export type Verdict = 'ok' | {bad: string}

/**
 * Cuts CSV text, fed line by line, into records (RFC 4180: a cell quoted at its start may hold
 * commas, line breaks and `""`; a quote inside an unquoted cell is kept as it is). A record is
 * handed over with the line it starts on; whoever reads it says whether it fits the file, and a
 * one-line record that does not is rejected with the reason given.
 *
 * An unclosed quote must not swallow the rows after it: a record that spans lines and does not fit
 * (its cell count is wrong) or closes a quote where no cell ends (the next row's opening quote), or
 * whose quote is still open after MAX_RECORD_LINES lines or at the end, is no record. Its first line is rejected, on that line, and the lines after it are read again as
 * records of their own.
 *
 * Not csv-parse (which reads deploy lists, sources/deploys/list-csv.ts): given an unclosed quote,
 * with skip_records_with_error (and max_record_size or not) it skips one record that runs to the
 * end of the input, so every row after the broken one is lost, while a Log Explorer export must
 * lose that row only, rejected on its own line number (file-source-shapes.test.ts). Its
 * records also come whole, not fed line by line from the file reader that counts the lines.
 */
export class CsvRecords {
  private pending: Line[] = []

  constructor(
    private readonly onRecord: (cells: string[], line: number) => Verdict,
    private readonly onBad: (line: number, detail: string) => void,
  ) {}

  push(l: Line): void {
    this.feed([l], false)
  }

  end(): void {
    this.feed([], true)
  }

  private feed(lines: Line[], atEnd: boolean): void {
    let queue = lines
    let i = 0
    /** The first pending line is no record: rejected; the lines after it are read again from a clean start. */
    const reopen = (detail: string): void => {
      const [first, ...rest] = this.pending as [Line, ...Line[]]
      this.onBad(first.line, detail)
      queue = [...rest, ...queue.slice(i)]
      i = 0
      this.pending = []
    }
    for (;;) {
      while (i < queue.length) {
        const l = queue[i++] as Line
        if (this.pending.length === 0 && l.text.trim() === '') continue
        this.pending.push(l)
        const record = cellsOf(this.pending)
        if (record === undefined) {
          // The quote is still open: wait for the next line, unless it cannot close any more.
          if (this.pending.length >= MAX_RECORD_LINES) reopen(`an unclosed quote (still open ${MAX_RECORD_LINES} lines later)`)
          continue
        }
        const spans = this.pending.length - 1
        // A record across lines that closes a quote loosely, or does not fit, is an open quote that ran on.
        const verdict = spans > 0 && record.loose ? {bad: 'loose'} : this.onRecord(record.cells, (this.pending[0] as Line).line)
        if (verdict !== 'ok' && spans > 0) {
          reopen(`an unclosed quote: the cell runs into the next ${spans === 1 ? 'line' : `${spans} lines`} without making a row`)
          continue
        }
        if (verdict !== 'ok') this.onBad(l.line, verdict.bad)
        this.pending = []
      }
      if (!atEnd || this.pending.length === 0) return
      reopen('an unclosed quote (still open at the end of the file)')
    }
  }
}

/**
 * The cells of a record made of these lines (joined by line feeds), or undefined while a quote is
 * open. `loose`: a closing quote is followed by more of the cell (`"ab"cd`), which no CSV writer
 * writes; kept as the text it holds in a one-line record, the mark of an open quote that ran on.
 */
export function cellsOf(lines: readonly Line[]): {cells: string[]; loose: boolean} | undefined {
  let loose = false
  const cells: string[] = []
  let cell = ''
  let quoted = false
  let atStart = true
  for (let k = 0; k < lines.length; k++) {
    const text = (lines[k] as Line).text
    if (k > 0) cell += '\n'

    let from = 0
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (quoted) {
        if (c !== 34) continue
        if (text.charCodeAt(i + 1) === 34) {
          cell += text.slice(from, i + 1)
          from = i + 2
          i++
          continue
        }
        cell += text.slice(from, i)
        quoted = false
        from = i + 1
        if (i + 1 < text.length && text.charCodeAt(i + 1) !== 44) loose = true
      } else if (c === 44) {
        cells.push(cell + text.slice(from, i))
        cell = ''
        from = i + 1
        atStart = true
      } else if (c === 34 && atStart && i === from) {
        quoted = true
        from = i + 1
        atStart = false
      } else {
        atStart = false
      }
    }
    cell += text.slice(from)
    if (quoted && k === lines.length - 1) return undefined
  }
  cells.push(cell)
  return {cells, loose}
}
