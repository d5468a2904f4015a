/**
 * `JSON.stringify(value, null, 2)`, as a sequence of pieces whose concatenation is exactly that text.
 * A large report (tens of thousands of affected users) is then written a piece at a time: one string
 * of the whole report, and the buffer it is copied into for writing, each cost as much memory as the
 * rest of the run's peak had grown by. Containers down to `depth` levels are split; below that, each
 * value is one piece.
 */
export function* jsonPieces(value: unknown, depth = 2): Generator<string> {
  yield* pieces(value, '', depth)
}

function* pieces(value: unknown, indent: string, depth: number): Generator<string> {
  if (depth <= 0 || value === null || typeof value !== 'object' || hasToJson(value)) {
    yield whole(value, indent)
    return
  }
  const inner = `${indent}  `
  if (Array.isArray(value)) {
    if (value.length === 0) {
      yield '[]'
      return
    }
    yield '['
    if (depth === 1) yield* wholeItems(value, indent)
    else {
      for (let i = 0; i < value.length; i++) {
        yield `${i === 0 ? '' : ','}\n${inner}`
        // As JSON.stringify does: what has no JSON form is null in an array.
        const item: unknown = value[i]
        if (isOmitted(item)) yield 'null'
        else yield* pieces(item, inner, depth - 1)
      }
    }
    yield `\n${indent}]`
    return
  }
  // As JSON.stringify does: a property with no JSON form is left out of an object.
  const keys = Object.keys(value).filter((k) => !isOmitted((value as Record<string, unknown>)[k]))
  if (keys.length === 0) {
    yield '{}'
    return
  }
  yield '{'
  for (const [i, k] of keys.entries()) {
    yield `${i === 0 ? '' : ','}\n${inner}${JSON.stringify(k)}: `
    yield* pieces((value as Record<string, unknown>)[k], inner, depth - 1)
  }
  yield `\n${indent}}`
}

/**
 * Items of an array put whole, a piece per ITEMS_PER_PIECE of them (one JSON.stringify each, not one
 * per item: there may be a hundred thousand users). Each slice is stringified nested in as many
 * arrays as `indent` has levels, so its items come out indented as they sit in the whole text, and
 * the brackets around them are cut off.
 */
function* wholeItems(items: readonly unknown[], indent: string): Generator<string> {
  const levels = indent.length / 2
  let open = ''
  let close = ''
  for (let k = 0; k <= levels; k++) {
    open += `${'  '.repeat(k)}[\n`
    close = `\n${'  '.repeat(k)}]${close}`
  }
  for (let i = 0; i < items.length; i += ITEMS_PER_PIECE) {
    let nested: unknown = items.slice(i, i + ITEMS_PER_PIECE)
    for (let k = 0; k < levels; k++) nested = [nested]
    const text = JSON.stringify(nested, null, 2)
    yield `${i === 0 ? '' : ','}\n${text.slice(open.length, text.length - close.length)}`
  }
}

const ITEMS_PER_PIECE = 256

/** A value in one piece, indented to sit at `indent` (JSON text has no raw newline inside a string). */
function whole(value: unknown, indent: string): string {
  const text = JSON.stringify(value, null, 2)
  return indent === '' ? text : text.replaceAll('\n', `\n${indent}`)
}

function isOmitted(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol'
}

function hasToJson(v: object): boolean {
  return typeof (v as {toJSON?: unknown}).toJSON === 'function'
}

/** Pieces joined into strings of at least `bytes` characters (the last may be shorter): fewer, larger writes. */
export function* gathered(source: Iterable<string>, bytes = 64 * 1024): Generator<string> {
  let parts: string[] = []
  let size = 0
  for (const p of source) {
    parts.push(p)
    size += p.length
    if (size >= bytes) {
      yield parts.join('')
      parts = []
      size = 0
    }
  }
  if (parts.length > 0) yield parts.join('')
}
