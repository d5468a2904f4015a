/**
 * A copy of a string that shares no memory with the text it was cut from. A field cut from a log
 * line is a slice of the line: kept for the whole run (an affected user, a broken page load) it
 * keeps the line alive too. Only strings kept past the horizon need this.
 */
export function detach(s: string): string {
  // A short slice (under 13 characters) is a copy; a longer one would be a view of the string it
  // was cut from, which JSON.parse's fresh string is not.
  return s.length < 13 ? (' ' + s).slice(1) : (JSON.parse(JSON.stringify(s)) as string)
}
