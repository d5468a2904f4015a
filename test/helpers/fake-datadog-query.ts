/**
 * A small evaluator of Datadog's log/event search syntax, written independently of the query
 * builder in src: terms `key:value` (tags, reserved attributes service/host/source/status),
 * `@attr.path:value` (pipeline attributes), `*` wildcards and `\` escapes in values, `key:(a OR b)`,
 * numeric ranges `key:[a TO b]`, `-` and NOT, AND/OR (implicit AND, AND binds tighter), parentheses,
 * and free text (searched in the message). Enough to prove which events a query selects.
 */

export type Matcher = (doc: SearchDoc) => boolean

/** What a query can look at in one log or event. */
export interface SearchDoc {
  /** Pipeline attributes (`attributes.attributes` of an API item). */
  attributes: Record<string, unknown>
  /** Reserved top-level attributes: service, host, status, source. */
  reserved: Record<string, unknown>
  tags: string[]
  message: string
}

type Token = {t: 'word'; v: string} | {t: '('} | {t: ')'} | {t: '-'}

export function compileQuery(query: string): Matcher {
  const tokens = tokenize(query)
  let i = 0
  const peek = (): Token | undefined => tokens[i]
  const isWord = (tok: Token | undefined, v: string): boolean => tok?.t === 'word' && tok.v === v

  function orExpr(): Matcher {
    const parts = [andExpr()]
    while (isWord(peek(), 'OR')) {
      i++
      parts.push(andExpr())
    }
    return parts.length === 1 ? (parts[0] as Matcher) : (d) => parts.some((p) => p(d))
  }

  function andExpr(): Matcher {
    const parts: Matcher[] = []
    for (;;) {
      const tok = peek()
      if (tok === undefined || tok.t === ')' || isWord(tok, 'OR')) break
      if (isWord(tok, 'AND')) {
        i++
        continue
      }
      parts.push(unary())
    }
    if (parts.length === 0) throw new Error(`empty expression in query: ${query}`)
    return (d) => parts.every((p) => p(d))
  }

  function unary(): Matcher {
    const tok = peek()
    if (tok?.t === '-' || isWord(tok, 'NOT')) {
      i++
      const inner = unary()
      return (d) => !inner(d)
    }
    return primary()
  }

  function primary(): Matcher {
    const tok = tokens[i++]
    if (tok === undefined) throw new Error(`query ends early: ${query}`)
    if (tok.t === '(') {
      const inner = orExpr()
      if (tokens[i++]?.t !== ')') throw new Error(`missing ) in query: ${query}`)
      return inner
    }
    if (tok.t !== 'word') throw new Error(`unexpected ${tok.t} in query: ${query}`)
    const colon = unescapedColon(tok.v)
    if (colon === -1) {
      if (tok.v === '*') return () => true
      const text = unescape(tok.v).replace(/^"|"$/g, '').toLowerCase()
      return (d) => d.message.toLowerCase().includes(text)
    }
    const key = tok.v.slice(0, colon)
    const rest = tok.v.slice(colon + 1)
    let values: ValueTest[]
    if (rest === '' && peek()?.t === '(') {
      i++
      values = []
      for (;;) {
        const v = tokens[i++]
        if (v === undefined) throw new Error(`missing ) in value list: ${query}`)
        if (v.t === ')') break
        if (v.t === 'word' && (v.v === 'OR')) continue
        if (v.t !== 'word') throw new Error(`unexpected ${v.t} in value list: ${query}`)
        values.push(valueTest(v.v))
      }
    } else if (rest.startsWith('[')) {
      // A range may have been split on its spaces: [200 TO 299]
      let text = rest
      while (!text.endsWith(']')) {
        const v = tokens[i++]
        if (v?.t !== 'word') throw new Error(`unclosed range: ${query}`)
        text += ` ${v.v}`
      }
      const m = /^\[(\S+) TO (\S+)\]$/.exec(text)
      if (!m) throw new Error(`bad range ${text}`)
      const lo = Number(m[1])
      const hi = Number(m[2])
      values = [(x) => typeof x === 'number' || (typeof x === 'string' && x.trim() !== '') ? Number(x) >= lo && Number(x) <= hi : false]
    } else {
      values = [valueTest(rest)]
    }
    return fieldMatcher(key, values)
  }

  const m = orExpr()
  if (i !== tokens.length) throw new Error(`unparsed rest of query at token ${i}: ${query}`)
  return m
}

type ValueTest = (value: unknown) => boolean

function valueTest(raw: string): ValueTest {
  const quoted = raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2
  const pattern = quoted ? raw.slice(1, -1) : raw
  // Unescaped `*` is a wildcard; everything else (escaped or not) is literal.
  let re = '^'
  for (let k = 0; k < pattern.length; k++) {
    const c = pattern[k] as string
    if (c === '\\' && k + 1 < pattern.length) re += escapeRe(pattern[++k] as string)
    else if (c === '*' && !quoted) re += '.*'
    else re += escapeRe(c)
  }
  const regex = new RegExp(`${re}$`)
  return (value) => (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') && regex.test(String(value))
}

const RESERVED = new Set(['service', 'host', 'status'])

function fieldMatcher(key: string, values: ValueTest[]): Matcher {
  const any = (v: unknown): boolean => values.some((t) => t(v))
  if (key.startsWith('@')) {
    const path = key.slice(1).split('.')
    return (d) => {
      let cur: unknown = d.attributes
      for (const p of path) cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[p] : undefined
      return Array.isArray(cur) ? cur.some(any) : any(cur)
    }
  }
  if (RESERVED.has(key)) return (d) => any(d.reserved[key])
  // Tags (and `source:`) match case-insensitively, as Datadog lowercases tags.
  const prefix = `${key.toLowerCase()}:`
  return (d) => d.tags.some((t) => t.toLowerCase().startsWith(prefix) && any(t.slice(prefix.length))) || (key === 'source' && any(d.reserved.source))
}

function tokenize(q: string): Token[] {
  const out: Token[] = []
  let k = 0
  while (k < q.length) {
    const c = q[k] as string
    if (/\s/.test(c)) {
      k++
      continue
    }
    if (c === '(' || c === ')') {
      out.push({t: c})
      k++
      continue
    }
    if (c === '-' && k + 1 < q.length && !/\s/.test(q[k + 1] as string)) {
      out.push({t: '-'})
      k++
      continue
    }
    let w = ''
    let inQuotes = false
    while (k < q.length) {
      const ch = q[k] as string
      if (ch === '\\' && k + 1 < q.length) {
        w += ch + (q[k + 1] as string)
        k += 2
        continue
      }
      if (ch === '"') inQuotes = !inQuotes
      if (!inQuotes && (/\s/.test(ch) || ch === ')' || (ch === '(' && w !== '' && !w.endsWith(':')))) break
      if (!inQuotes && ch === '(' && w.endsWith(':')) break
      w += ch
      k++
    }
    out.push({t: 'word', v: w})
  }
  return out
}

function unescapedColon(s: string): number {
  for (let k = 0; k < s.length; k++) {
    if (s[k] === '\\') k++
    else if (s[k] === '"') return -1
    else if (s[k] === ':') return k
  }
  return -1
}

function unescape(s: string): string {
  return s.replace(/\\(.)/g, '$1')
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}

/** A Datadog API log item or v2 event item as a search document. */
export function docOf(item: Record<string, unknown>): SearchDoc {
  const outer = (item.attributes ?? {}) as Record<string, unknown>
  const attributes = (outer.attributes ?? {}) as Record<string, unknown>
  const tags = Array.isArray(outer.tags) ? outer.tags.filter((t): t is string => typeof t === 'string') : []
  const source = tags.find((t) => t.startsWith('source:'))?.slice(7)
  return {
    attributes, tags, message: typeof outer.message === 'string' ? outer.message : '',
    reserved: {service: outer.service, host: outer.host, status: outer.status, source},
  }
}
