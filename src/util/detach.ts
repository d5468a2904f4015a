/**
 * A copy of a string that shares no memory with the text it was cut from. A field cut from a log
 * line is a slice of the line: kept for the whole run (an affected user, a broken page load) it
 * keeps the line alive too. Only strings kept past the horizon need this.
 */
export function detach(s: string): string {
  // Concatenating flattens into a new string; slicing that keeps only the new, short one alive.
  return s.length === 0 ? '' : (' ' + s).slice(1)
}
