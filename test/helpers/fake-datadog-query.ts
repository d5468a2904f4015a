/**
 * A small evaluator of Datadog's log/event search syntax, written independently of the query
 * builder in src: terms `key:value` (tags, reserved attributes service/host/source/status),
 * `@attr.path:value` (pipeline attributes), `*` and `?` wildcards and `\` escapes in values,
 * quoted values and phrases, `key:(a OR b ...)` lists (any length), numeric ranges
 * `key:[a TO b]` / `{a TO b}` (open ends `*`) and comparisons `key:>=n`, `-` and NOT, AND/OR
 * (implicit AND, AND binds tighter), nested parentheses, and free text (searched in the message,
 * case-insensitively). Enough to prove which events a query selects; anything else is an error,
 * so a query the tool sends that this does not understand fails the test instead of matching
 * something by accident.
 */

export type Matcher = (doc: SearchDoc) => boolean

/** What a query can look at in one log or event. */
export interface SearchDoc {
  /** Pipeline attributes (`attributes.attributes` of an API item). */
  attributes: Record<string, unknown>
  /** Reserved top-level attributes: service, host, status, source. */
  reserved: Record<string, unknown>
  tags: string[]
  /**
   * The tags by their lowercased key: each `key:value` under every lowercased prefix before one of
   * its colons (`a:b:c` under `a` as `b:c`, and under `a:b` as `c`), as a term `key:value` reads them.
   */
  tagValues: Map<string, string[]>
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
    return parts.length === 1 ? (parts[0] as Matcher) : (d) => parts.every((p) => p(d))
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
    if (colon === -1) return freeText(tok.v)
    const key = tok.v.slice(0, colon)
    const rest = tok.v.slice(colon + 1)
    if (rest === '' && peek()?.t === '(') {
      i++
      const values: string[] = []
      for (;;) {
        const v = tokens[i++]
        if (v === undefined) throw new Error(`missing ) in value list: ${query}`)
        if (v.t === ')') break
        if (v.t === 'word' && v.v === 'OR') continue
        if (v.t !== 'word' || v.v === 'AND' || v.v === 'NOT') throw new Error(`only OR lists of values are supported, got ${v.t === 'word' ? v.v : v.t}: ${query}`)
        values.push(v.v)
      }
      if (values.length === 0) throw new Error(`empty value list: ${query}`)
      return fieldMatcher(key, valueSet(values))
    }
    if (rest.startsWith('[') || rest.startsWith('{')) {
      // A range is split on its spaces by the tokenizer: [200 TO 299]
      let text = rest
      while (!text.endsWith(']') && !text.endsWith('}')) {
        const v = tokens[i++]
        if (v?.t !== 'word') throw new Error(`unclosed range: ${query}`)
        text += ` ${v.v}`
      }
      return fieldMatcher(key, {exact: new Set(), tests: [rangeTest(text)]})
    }
    const cmp = /^(>=|<=|>|<)(.+)$/.exec(rest)
    if (cmp) return fieldMatcher(key, {exact: new Set(), tests: [comparison(cmp[1] as string, cmp[2] as string)]})
    if (rest === '') throw new Error(`no value after ${key}: in query: ${query}`)
    return fieldMatcher(key, valueSet([rest]))
  }

  const m = orExpr()
  if (i !== tokens.length) throw new Error(`unparsed rest of query at token ${i}: ${query}`)
  return m
}

type ValueTest = (value: unknown) => boolean

/** Literal values (a set lookup, so lists of thousands stay cheap) and patterns. */
interface ValueSet {
  exact: Set<string>
  tests: ValueTest[]
}

function valueSet(raws: readonly string[]): ValueSet {
  const out: ValueSet = {exact: new Set(), tests: []}
  const patterns: string[] = []
  const within: string[] = []
  for (const raw of raws) {
    const v = parseValue(raw)
    if (v.regex === undefined) out.exact.add(v.literal)
    else if (/^\*[^*?\\"]+\*$/.test(raw)) within.push(raw.slice(1, -1))
    else patterns.push(v.regex.source.slice(1, -1))
  }
  // `*word*` (no other wildcard, escape or quote) is a plain search within the value: the lists of
  // bot words are made of them, and an alternation of `.*word.*` backtracks over every value.
  if (within.length > 0) out.tests.push((value) => isScalar(value) && within.some((w) => String(value).includes(w)))
  // The other patterns of a list as one anchored alternation: one pass of the regex engine per
  // value instead of one per pattern.
  if (patterns.length > 0) {
    const re = new RegExp(`^(?:${patterns.join('|')})$`, 's')
    out.tests.push((value) => isScalar(value) && re.test(String(value)))
  }
  return out
}

/**
 * A value as Datadog reads it: `"..."` is literal (no wildcards); otherwise an unescaped `*` is any
 * run of characters and `?` one character, and `\x` is x.
 */
function parseValue(raw: string, star = '.*', one = '.'): {literal: string; regex?: RegExp} {
  const quoted = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')
  const pattern = quoted ? raw.slice(1, -1) : raw
  let re = '^'
  let literal = ''
  let wild = false
  for (let k = 0; k < pattern.length; k++) {
    const c = pattern[k] as string
    if (c === '\\' && k + 1 < pattern.length) {
      const next = pattern[++k] as string
      re += escapeRe(next)
      literal += next
    } else if (c === '*' && !quoted) {
      re += star
      wild = true
    } else if (c === '?' && !quoted) {
      re += one
      wild = true
    } else {
      re += escapeRe(c)
      literal += c
    }
  }
  return wild ? {literal, regex: new RegExp(`${re}$`, 's')} : {literal}
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
}

/** `[a TO b]` inclusive, `{a TO b}` exclusive, mixed brackets, `*` for an open end; numbers, else text. */
function rangeTest(text: string): ValueTest {
  const m = /^([[{])(\S+) TO (\S+)([\]}])$/.exec(text)
  if (!m) throw new Error(`bad range ${text}`)
  const [, open, loRaw, hiRaw, close] = m as unknown as [string, string, string, string, string]
  const numeric = (loRaw === '*' || isNumber(loRaw)) && (hiRaw === '*' || isNumber(hiRaw))
  const lo = loRaw === '*' ? undefined : loRaw
  const hi = hiRaw === '*' ? undefined : hiRaw
  return (x) => {
    if (!isScalar(x) || typeof x === 'boolean') return false
    const inRange = <T extends number | string>(v: T, l: T | undefined, h: T | undefined): boolean =>
      (l === undefined || (open === '[' ? v >= l : v > l)) && (h === undefined || (close === ']' ? v <= h : v < h))
    if (numeric) return isNumber(String(x)) && inRange(Number(x), lo === undefined ? undefined : Number(lo), hi === undefined ? undefined : Number(hi))
    return inRange(String(x), lo, hi)
  }
}

function comparison(op: string, raw: string): ValueTest {
  if (!isNumber(raw)) throw new Error(`a comparison needs a number: ${op}${raw}`)
  const n = Number(raw)
  return (x) => {
    if ((typeof x !== 'number' && typeof x !== 'string') || !isNumber(String(x))) return false
    const v = Number(x)
    return op === '>=' ? v >= n : op === '<=' ? v <= n : op === '>' ? v > n : v < n
  }
}

function isNumber(s: string): boolean {
  return s.trim() !== '' && Number.isFinite(Number(s))
}

/** Free text: a word or a quoted phrase, found anywhere in the message, case-insensitively; `*` and `?` are wildcards in a bare word. */
function freeText(raw: string): Matcher {
  if (raw === '*') return () => true
  const v = parseValue(raw, '\\S*', '\\S')
  if (v.regex === undefined) {
    const text = v.literal.toLowerCase()
    return (d) => d.message.toLowerCase().includes(text)
  }
  // Within the message, not anchored to the whole of it.
  const re = new RegExp(v.regex.source.slice(1, -1), 'i')
  return (d) => re.test(d.message)
}

const RESERVED = new Set(['service', 'host', 'status'])

function fieldMatcher(key: string, values: ValueSet): Matcher {
  // A number is among the literals when its decimal text is (200 for `200`): looked up as a number,
  // without making its text, for the literals that are a number's own text.
  const numbers = new Set([...values.exact].filter((l) => String(Number(l)) === l).map(Number))
  const {exact, tests} = values
  const any = (v: unknown): boolean =>
    (typeof v === 'number' ? numbers.has(v) : (typeof v === 'string' && exact.has(v)) || (typeof v === 'boolean' && exact.has(String(v)))) ||
    (tests.length > 0 && tests.some((t) => t(v)))
  if (key.startsWith('@')) {
    const path = unescape(key.slice(1)).split('.')
    return (d) => {
      let cur: unknown = d.attributes
      for (const p of path) cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[p] : undefined
      return Array.isArray(cur) ? cur.some(any) : any(cur)
    }
  }
  if (RESERVED.has(key)) return (d) => any(d.reserved[key])
  // Tags (and `source:`) match case-insensitively, as Datadog lowercases tags.
  const lower = key.toLowerCase()
  return (d) => d.tagValues.get(lower)?.some(any) === true || (key === 'source' && any(d.reserved.source))
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
    if (inQuotes) throw new Error(`unclosed quote in query: ${q}`)
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

/** A Datadog API log item, v2 event item or RUM event item (`attributes.attributes`: type, session, view, …) as a search document. */
export function docOf(item: Record<string, unknown>): SearchDoc {
  const outer = (item.attributes ?? {}) as Record<string, unknown>
  const attributes = (outer.attributes ?? {}) as Record<string, unknown>
  const tags = Array.isArray(outer.tags) ? outer.tags.filter((t): t is string => typeof t === 'string') : []
  const source = tags.find((t) => t.startsWith('source:'))?.slice(7)
  const tagValues = new Map<string, string[]>()
  for (const t of tags) {
    for (let colon = t.indexOf(':'); colon !== -1; colon = t.indexOf(':', colon + 1)) {
      const k = t.slice(0, colon).toLowerCase()
      const values = tagValues.get(k)
      if (values) values.push(t.slice(colon + 1))
      else tagValues.set(k, [t.slice(colon + 1)])
    }
  }
  return {
    attributes, tags, tagValues, message: typeof outer.message === 'string' ? outer.message : '',
    reserved: {service: outer.service, host: outer.host, status: outer.status, source},
  }
}
