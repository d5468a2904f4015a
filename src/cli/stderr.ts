import {terminalSafeLines} from '../report/sanitize'

/**
 * The one writer of standard error. Notices quote file names, log text and servers' answers:
 * every line is made terminal-safe here, so no caller can forget to. The only control sequences
 * skewscan writes itself are the progress line's cursor moves, asked for by name, never in text.
 */
export type Cursor = 'replace' | 'clear'

const CURSOR: Record<Cursor, string> = {
  /** Up one line and clear it: the progress line is rewritten in place. */
  replace: '\u001b[1A\u001b[2K',
  /** The progress line goes, and the next line starts where it was. */
  clear: '\u001b[1A\u001b[2K\u001b[1A',
}

/** Writes `text` (one or more lines) and a line break to stderr, terminal-safe, after `cursor`'s moves. */
export function writeStderr(text: string, cursor?: Cursor): void {
  process.stderr.write(`${stderrText(text, cursor)}\n`)
}

/** What `writeStderr` writes (without its line break), for tests of callers that collect their lines. */
export function stderrText(text: string, cursor?: Cursor): string {
  return `${cursor ? CURSOR[cursor] : ''}${terminalSafeLines(text)}`
}
