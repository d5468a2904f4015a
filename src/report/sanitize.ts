/**
 * Log text is attacker-controlled: control characters (ANSI escapes, CR, BEL, ...) never reach a
 * terminal, nor do Unicode's bidirectional controls (embeddings, overrides and isolates, and the
 * ALM, LRM and RLM marks, which reorder the text around them too).
 */
// eslint-disable-next-line no-control-regex
export const TERMINAL_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

export function terminalSafe(s: string): string {
  return s.replace(TERMINAL_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/**
 * JSON bound for a terminal: JSON.stringify escapes C0 controls but leaves C1 controls (U+009B is
 * a CSI), bidirectional controls and line separators raw; written as `\uXXXX` escapes, the JSON
 * means the same and does nothing to a terminal.
 */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

export function inertJson(text: string): string {
  return text.replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** Each line of a message made terminal-safe (file names and log text in errors), its line breaks kept. */
export function terminalSafeLines(text: string): string {
  return text.split('\n').map(terminalSafe).join('\n')
}

export function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, Math.max(0, max - 1))}…`
}
