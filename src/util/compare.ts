/** Strings in a fixed order, by UTF-16 code units (as the default sort), never by locale. */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
