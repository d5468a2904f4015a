/**
 * The JSON record splitter (src/sources/file/json-documents.ts) reads saved Datadog pages a chunk at
 * a time and skips through strings at once. Whatever the cuts, it must give what one pass over the
 * whole text gives: the same records (text and line) and the same problems (kind and line), on
 * random documents whose strings hold quotes, backslashes, braces, escaped and raw newlines (a broken
 * document may have those), pretty-printed or not, with garbage between documents and a last
 * document cut off.
 */
import fc from 'fast-check'
import {JsonItemSplitter} from '../../src/sources/file/json-documents'

interface Split {
  items: string[]
  problems: string[]
}

function split(chunks: readonly string[]): Split {
  const out: Split = {items: [], problems: []}
  const s = new JsonItemSplitter((i) => out.items.push(`${i.line}:${i.text}`), (p) => out.problems.push(`${p.kind}@${p.line}`), 400)
  for (const c of chunks) s.write(c)
  s.end()
  return out
}

/** Strings made of the characters that matter to the splitter, and plain text. */
const tricky = fc.array(fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', ':', '\n', 'a', 'b', ' ', 'data', '\\"', '\\\\', 'é', '\u2028'), {maxLength: 12}).map((p) => p.join(''))
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof({depthSize: 'small'}, tricky, fc.integer(), fc.constant(null), fc.array(tie('v'), {maxLength: 3}), fc.dictionary(fc.constantFrom('a', 'data', 'logs', 'message', '"q"', 'x\\y'), tie('v'), {maxKeys: 3})),
})).v
const record = fc.dictionary(fc.constantFrom('id', 'message', 'attributes', 'data', 'k"e\\y'), value, {minKeys: 1, maxKeys: 4})
const document = fc.record({
  records: fc.array(record, {maxLength: 5}),
  key: fc.constantFrom('data', 'logs', 'items', 'other'),
  pretty: fc.boolean(),
  garbage: fc.constantFrom('', 'not json\n', '  \n'),
})
/** A text of documents, its last one possibly cut, and where to cut it into chunks. */
const input = fc.record({
  docs: fc.array(document, {minLength: 1, maxLength: 3}),
  cutLast: fc.nat(),
  cuts: fc.array(fc.nat(), {maxLength: 8}),
  rawNewlines: fc.boolean(),
})

type Input = {docs: {records: object[]; key: string; pretty: boolean; garbage: string}[]; cutLast: number; rawNewlines: boolean}

function render({docs, cutLast, rawNewlines}: Input): string {
  let text = docs.map((d) => `${d.garbage}${JSON.stringify({meta: {n: d.records.length}, [d.key]: d.records}, null, d.pretty ? 2 : undefined)}\n`).join('')
  // A broken document: escaped newlines written raw inside strings.
  if (rawNewlines) text = text.replace(/\\n/g, '\n')
  return cutLast % 3 === 0 ? text.slice(0, text.length - (cutLast % Math.max(1, text.length))) : text
}

describe('JsonItemSplitter, cut anywhere', () => {
  it('gives the records and problems of one pass over the whole text', () => {
    fc.assert(fc.property(input, (inp) => {
      const text = render(inp)
      const whole = split([text])
      const points = [...new Set(inp.cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)
      const chunks = [0, ...points].map((from, k) => text.slice(from, [...points, text.length][k])).filter((c) => c !== '')
      expect(split(chunks)).toEqual(whole)
      // Each record is the document's own text, at the line it starts on (its text is found in
      // order: an object's text cannot occur inside a string, where its quotes would be escaped).
      let cursor = 0
      for (const item of whole.items) {
        const colon = item.indexOf(':')
        const body = item.slice(colon + 1)
        const at = text.indexOf(body, cursor)
        expect(at).toBeGreaterThanOrEqual(0)
        expect(Number(item.slice(0, colon))).toBe(text.slice(0, at).split('\n').length)
        cursor = at + body.length
      }
    }), {numRuns: 400, seed: 20261205})
  })

  it('one character at a time, as from the slowest pipe', () => {
    fc.assert(fc.property(input, (inp) => {
      const text = render(inp)
      expect(split([...text])).toEqual(split([text]))
    }), {numRuns: 100, seed: 7})
  })

  it('finds every record of an intact document, parsed as JSON.parse parses it', () => {
    fc.assert(fc.property(fc.array(record, {maxLength: 6}), fc.boolean(), (records, pretty) => {
      const text = JSON.stringify({data: records}, null, pretty ? 2 : undefined)
      const got: unknown[] = []
      const t = new JsonItemSplitter((i) => got.push(JSON.parse(i.text)), (p) => got.push(p))
      t.write(text)
      t.end()
      expect(got).toEqual(records)
    }), {numRuns: 200, seed: 11})
  })
})
