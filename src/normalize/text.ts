import type {ParseOutcome} from '../model/parse-outcome'
import type {RejectReason} from '../model/rejection'

/*
 * What every access-log parser shares: character classes, the rejection outcome, the short
 * printable excerpts rejection details quote, and bytes decoded as text.
 */

/** Rejection details quote at most this many characters of the record. */
const MAX_SNIPPET = 40

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57
}

export function isAlpha(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
}

/** The value of a hex digit's char code, or -1. */
export function hexVal(c: number): number {
  if (c >= 48 && c <= 57) return c - 48
  const l = c | 32
  return l >= 97 && l <= 102 ? l - 87 : -1
}

export function reject(reason: RejectReason, detail: string): ParseOutcome {
  return {ok: false, reason, detail}
}

/** A short, printable excerpt of s[a, b) in quotes for rejection details (never the whole record). */
export function snippet(s: string, a = 0, b = s.length): string {
  const n = Math.min(b - a, MAX_SNIPPET)
  let out = ''
  for (let i = a; i < a + n; i++) {
    const c = s.charCodeAt(i)
    out += c >= 32 && c < 127 ? s[i] : '?'
  }
  return b - a > n ? `"${out}…"` : `"${out}"`
}

/** A short, printable rendering of a JSON value for rejection details. */
export function show(v: unknown): string {
  const s = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : v === null ? 'null' : typeof v
  return snippet(s)
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

const utf8 = new TextDecoder('utf-8', {fatal: true})

/** Bytes as text: UTF-8 when they are valid UTF-8, else one char per byte (Latin-1) rather than replacement chars. */
export function bytesToString(bytes: readonly number[]): string {
  let ascii = true
  for (const b of bytes) if (b > 127) ascii = false
  if (!ascii) {
    try {
      return utf8.decode(Uint8Array.from(bytes))
    } catch {
      // Not UTF-8: fall through.
    }
  }
  // In chunks: spreading a huge array into one call would overflow the stack.
  let out = ''
  for (let k = 0; k < bytes.length; k += 4096) out += String.fromCharCode(...bytes.slice(k, k + 4096))
  return out
}
