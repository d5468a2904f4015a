import {createHash} from 'node:crypto'
import {detach} from './detach'

/**
 * The longest log field kept as logged (a user agent, path, referer, cookie). Real ones are far
 * shorter; a longer one is hostile or broken, and kept whole it would cost memory in every place
 * the analysis keeps it (a session key, an affected user, a failure) and pin the line it came from.
 */
export const MAX_FIELD_LENGTH = 2048

/** Characters of a cut field's end kept: a path's file name and extension, a user agent's last token. */
const TAIL = 64

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff

/**
 * A field of at most `max` characters. A longer one keeps its start and its end around a digest of
 * the whole (`…[5000000 chars #1f2e3d4c5b6a7980]…`), so two values that differ anywhere stay two
 * (distinct sessions stay distinct), and it is a copy of its own, holding nothing it was cut from.
 * A string that is short enough comes back as it is, so bounding twice changes nothing.
 */
export function boundText(s: string, max = MAX_FIELD_LENGTH): string {
  if (s.length <= max) return s
  // UTF-16 code units hashed as they are: lone surrogates included, every string has its own digest.
  const mark = `…[${s.length} chars #${createHash('sha256').update(s, 'utf16le').digest('hex').slice(0, 16)}]…`
  const tail = Math.min(TAIL, Math.floor(max / 8))
  let headEnd = Math.max(0, max - tail - mark.length)
  let tailStart = s.length - tail
  // Never split a surrogate pair: the cut string stays valid UTF-16 where the field was.
  if (headEnd > 0 && isHigh(s.charCodeAt(headEnd - 1))) headEnd--
  if (isLow(s.charCodeAt(tailStart))) tailStart++
  return detach(s.slice(0, headEnd) + mark + s.slice(tailStart))
}
