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

export function isHex(c: number): boolean {
  return hexVal(c) >= 0
}

/** Largest byte count read: beyond it a number is not exact in a double. */
const MAX_COUNT_DIGITS = 15

/** A three-digit HTTP status 100-999 at s[a, b), or -1. */
export function statusAt(s: string, a: number, b: number): number {
  if (b - a !== 3) return -1
  const x = s.charCodeAt(a)
  const y = s.charCodeAt(a + 1)
  const z = s.charCodeAt(a + 2)
  if (!isDigit(x) || !isDigit(y) || !isDigit(z) || x === 48) return -1
  return (x - 48) * 100 + (y - 48) * 10 + (z - 48)
}

/** A non-negative integer (a byte count) at s[a, b), or -1. */
export function countAt(s: string, a: number, b: number): number {
  if (b <= a || b - a > MAX_COUNT_DIGITS) return -1
  let n = 0
  for (let i = a; i < b; i++) {
    const c = s.charCodeAt(i)
    if (!isDigit(c)) return -1
    n = n * 10 + (c - 48)
  }
  return n
}

/** An IPv4 address, or an IPv6 one (hex and colons, a `%zone` after it allowed), at s[a, b): no port, no brackets. */
export function isAddressAt(s: string, a: number, b: number): boolean {
  if (b - a < 2 || b - a > 64) return false
  let v6 = false
  for (let i = a; i < b && !v6; i++) v6 = s.charCodeAt(i) === 58
  if (v6) {
    let colons = 0
    for (let i = a; i < b; i++) {
      const c = s.charCodeAt(i)
      if (c === 37) return colons >= 2 && i + 1 < b // %zone
      if (c === 58) colons++
      else if (c !== 46 && !isHex(c)) return false
    }
    return colons >= 2
  }
  let dots = 0
  let digits = 0
  for (let i = a; i < b; i++) {
    const c = s.charCodeAt(i)
    if (c === 46) {
      if (digits === 0 || digits > 3) return false
      dots++
      digits = 0
    } else if (isDigit(c)) digits++
    else return false
  }
  return dots === 3 && digits > 0 && digits <= 3
}

/** An HTTP method is a token of at most this many characters. */
const MAX_METHOD = 32

/** An HTTP method token (`GET`, `PROPFIND`, `RPC_IN_DATA`, `M-SEARCH`) at s[a, b). */
export function isMethodAt(s: string, a = 0, b = s.length): boolean {
  if (b <= a || b - a > MAX_METHOD) return false
  for (let i = a; i < b; i++) {
    const c = s.charCodeAt(i)
    const l = c | 32
    if (!((l >= 97 && l <= 122) || c === 45 || c === 95)) return false
  }
  return true
}

/**
 * Splits s[from, end) into at most `max` space-separated fields into starts/ends. A field opening
 * with `"` runs to the next `"` followed by a space or the end (AWS does not escape quotes inside),
 * and its bounds exclude the quotes. Returns the number of fields found, -1 when a quoted field is
 * not closed (a truncated line). The rest of the line is never scanned.
 */
export function splitQuotedFields(s: string, from: number, end: number, max: number, starts: number[], ends: number[]): number {
  let i = from
  let n = 0
  while (n < max && i < end) {
    if (s.charCodeAt(i) === 34) {
      let q = s.indexOf('"', i + 1)
      while (q !== -1 && q < end && q + 1 < end && s.charCodeAt(q + 1) !== 32) q = s.indexOf('"', q + 1)
      if (q === -1 || q >= end) return -1
      starts[n] = i + 1
      ends[n] = q
      n++
      i = q + 2
    } else {
      let e = s.indexOf(' ', i)
      if (e === -1 || e > end) e = end
      starts[n] = i
      ends[n] = e
      n++
      i = e + 1
    }
  }
  return n
}
