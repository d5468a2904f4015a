import Table from 'cli-table3'
import stringWidth from 'string-width'

/** One column of a table: its heading and cells, and what may give way when the terminal is narrow. */
export interface Column {
  head: string
  cells: (string | number)[]
  /** Left out when the table is too wide, lowest first; undefined: always shown. */
  drop?: number
  /** Cut (its cells ending in `…`) when the table is still too wide: long text such as user agents. */
  shrink?: boolean
  align?: 'left' | 'right'
}

export interface FittedTable {
  text: string
  /** Headings of the columns left out to fit the width. */
  dropped: string[]
}

/** Columns are separated by two spaces; a heading line, a rule under it, then the rows. */
const GAP = 2
/** A column cut to fit keeps at least this many characters; before optional columns go, this many. */
const MIN_WIDTH = 8
const COMFORTABLE = 24
const BORDERLESS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: ' '.repeat(GAP),
}

/** Cuts shrinkable columns, widest first, down to `floor`, until the table fits `width`. */
function shrinkTo(sized: {width: number; shrink?: boolean}[], width: number, floor: number, total: (cs: readonly {width: number}[]) => number): void {
  while (total(sized) > width) {
    const widest = sized.filter((c) => c.shrink && c.width > floor).sort((a, b) => b.width - a.width)[0]
    if (!widest) return
    widest.width = Math.max(floor, widest.width - (total(sized) - width))
  }
}

/**
 * The columns a cell takes on a terminal (text is made terminal-safe before it gets here): CJK and
 * most emoji take two, combining marks and joiners none. The same measure cli-table3 pads and cuts
 * cells with, so a column is as wide as its widest cell and no cell is cut that fits.
 */
const visible = (s: string): number => stringWidth(s)

/**
 * A table that fits `width` columns of a terminal. When it is wider, optional columns are left
 * out (lowest `drop` first), then shrinkable ones are cut, widest first. Without a width it has
 * its natural width, every column shown.
 */
export function fitTable(columns: readonly Column[], width?: number): FittedTable {
  const total = (cs: readonly {width: number}[]): number => cs.reduce((n, c) => n + c.width, 0) + GAP * Math.max(0, cs.length - 1)
  let sized = columns.map((c) => {
    const cells = c.cells.map(String)
    // A loop, not Math.max(...cells): a spread of many thousand arguments overflows the stack.
    let width = visible(c.head)
    for (const cell of cells) width = Math.max(width, visible(cell))
    return {...c, cells, width}
  })
  const dropped: string[] = []
  if (width !== undefined && Number.isFinite(width)) {
    // Long text gives way to a comfortable width first, then optional columns go, then long text is cut further.
    shrinkTo(sized, width, COMFORTABLE, total)
    const droppable = sized.filter((c) => c.drop !== undefined).sort((a, b) => (a.drop ?? 0) - (b.drop ?? 0))
    for (const c of droppable) {
      if (total(sized) <= width) break
      dropped.push(c.head)
      sized = sized.filter((x) => x !== c)
    }
    shrinkTo(sized, width, MIN_WIDTH, total)
  }
  const rows = sized[0]?.cells.length ?? 0
  const lines: string[] = []
  // cli-table3 lays a table out in time quadratic in its rows (it looks for row-spanning cells
  // above every cell), so it gets a few rows at a time: the columns' widths are fixed, a row is
  // drawn the same whatever rows surround it, and the time is then linear in the rows.
  for (let from = -2; from < rows; from += ROWS_PER_DRAW) {
    const t = new Table({
      chars: BORDERLESS, style: {head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true},
      colWidths: sized.map((c) => c.width), colAligns: sized.map((c) => c.align ?? 'left'), wordWrap: false,
    })
    if (from === -2) t.push(sized.map((c) => c.head), sized.map((c) => '─'.repeat(c.width)))
    for (let i = Math.max(0, from); i < Math.min(rows, from + ROWS_PER_DRAW); i++) t.push(sized.map((c) => c.cells[i] ?? ''))
    // cli-table3 pads the last column too: trailing spaces serve nobody.
    for (const l of t.toString().split('\n')) lines.push(l.trimEnd())
  }
  return {text: lines.join('\n'), dropped}
}

/** Rows cli-table3 draws at a time (see fitTable). */
const ROWS_PER_DRAW = 16
