/**
 * Reads a file that holds one JSON document, several concatenated ones (paged API responses saved
 * one after another, `kubectl get events -w -o json`), or NDJSON.
 */

export type JsonDocument = {ok: true; value: unknown} | {ok: false; error: string}

/** Undefined when the text does not start like JSON, so other formats can be tried. */
export function readJsonDocuments(text: string): JsonDocument[] | undefined {
  if (!/^\s*[[{]/.test(text)) return undefined
  const whole = parseJson(text)
  if (whole.ok) return [whole]
  const concatenated = splitTopLevel(text).map(parseJson)
  const lines = splitLines(text)
  // A value that never closes swallows the rest of the text in the top-level split; in NDJSON
  // (first line a whole document) reading line by line loses only the broken line.
  const ndjson = lines.length > 1 && parseJson(lines[0] ?? '').ok ? lines.map(parseJson) : []
  const best = countOk(ndjson) > countOk(concatenated) ? ndjson : concatenated
  return best.length > 1 ? best : [whole]
}

function countOk(documents: readonly JsonDocument[]): number {
  return documents.filter((document) => document.ok).length
}

function splitLines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '')
}

function parseJson(text: string): JsonDocument {
  try {
    return {ok: true, value: JSON.parse(text) as unknown}
  } catch (error) {
    return {ok: false, error: error instanceof Error ? error.message : String(error)}
  }
}

/**
 * Cuts the text at the end of each top-level object or array, tracking strings so braces inside
 * them do not count. Text between values that is not whitespace becomes a piece of its own, up to
 * the end of its line, so one broken NDJSON line spoils only itself.
 */
export function splitTopLevel(text: string): string[] {
  const pieces: string[] = []
  let position = 0
  while (position < text.length) {
    position = skipWhitespace(text, position)
    if (position >= text.length) break
    const end = /[[{]/.test(text.charAt(position)) ? valueEnd(text, position) : lineEnd(text, position)
    pieces.push(text.slice(position, end))
    position = end
  }
  return pieces
}

function skipWhitespace(text: string, from: number): number {
  let position = from
  while (position < text.length && /\s/.test(text.charAt(position))) position++
  return position
}

function lineEnd(text: string, from: number): number {
  const newline = text.indexOf('\n', from)
  return newline === -1 ? text.length : newline + 1
}

/** The index just past the value that opens at `from`, or the end of the text when it never closes. */
function valueEnd(text: string, from: number): number {
  let depth = 0
  let inString = false
  for (let i = from; i < text.length; i++) {
    const char = text.charAt(i)
    if (inString) {
      if (char === '\\') i++
      else if (char === '"') inString = false
    } else if (char === '"') inString = true
    else if (char === '{' || char === '[') depth++
    else if ((char === '}' || char === ']') && --depth === 0) return i + 1
  }
  return text.length
}
