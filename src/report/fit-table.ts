import Table from 'cli-table3'

const plain = {head: [] as string[], border: [] as string[]}

/** Columns below this width are not shortened further. */
const MIN_WIDTH = 6

/** The width a cell takes on a terminal (the text is made terminal-safe before it gets here). */
function visible(s: string): number {
  let n = 0
  for (const _ of s) n++
  return n
}

/**
 * A table that fits `width` columns: when the natural table is wider, the columns listed in
 * `shrinkable` (widest first) are cut to fit, their cells ending in `…`; the others keep their width.
 * Without a width (or when it fits) the table has its natural width.
 */
export function fitTable(head: readonly string[], rows: readonly (string | number)[][], opts: {width?: number; shrinkable?: readonly number[]} = {}): string {
  const cells = rows.map((r) => r.map((c) => String(c)))
  const widths = head.map((h, i) => Math.max(visible(h), ...cells.map((r) => visible(r[i] ?? ''))))
  // Borders: one at each side and between columns, one space of padding on each side of a cell.
  const total = (): number => widths.reduce((n, w) => n + w + 3, 1)
  const limit = opts.width
  if (limit !== undefined && Number.isFinite(limit)) {
    const shrinkable = [...(opts.shrinkable ?? [])]
    while (total() > limit) {
      const widest = shrinkable.filter((i) => (widths[i] ?? 0) > MIN_WIDTH).sort((a, b) => (widths[b] ?? 0) - (widths[a] ?? 0))[0]
      if (widest === undefined) break
      widths[widest] = Math.max(MIN_WIDTH, (widths[widest] ?? 0) - Math.max(1, Math.min(total() - limit, (widths[widest] ?? 0) - MIN_WIDTH)))
    }
  }
  const t = new Table({head: [...head], style: plain, colWidths: widths.map((w) => w + 2), wordWrap: false})
  for (const r of cells) t.push(r)
  return t.toString()
}
