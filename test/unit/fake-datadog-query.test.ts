import {compileQuery, docOf, type SearchDoc} from '../helpers/fake-datadog-query'
import {aggregateBuckets, type Indexed, parseAggregate} from '../helpers/fake-datadog'

// The test server's query language held to Datadog's log search syntax
// (docs.datadoghq.com/logs/explorer/search_syntax): `-` excludes the term or group that follows,
// parentheses group, AND is implied, and a value list `key:(a OR b)` is one term.

const log = (path: string, status = 200, method = 'GET', extra: Record<string, unknown> = {}): SearchDoc => docOf({
  id: path, attributes: {service: 'web', message: `${method} ${path} ${status}`, tags: ['env:prod'], attributes: {http: {method, status_code: status, url_details: {path}}, ...extra}},
})

const DOCS = {
  page: log('/'),
  script: log('/_build/app.js'),
  head: log('/js/app.js', 200, 'HEAD'),
  missing: log('/_build/old.js', 404),
  api: log('/api/cart', 500, 'POST'),
  bare: docOf({id: 'bare', attributes: {service: 'web', message: 'no http at all', attributes: {}}}),
}
type Name = keyof typeof DOCS

function selects(query: string): Name[] {
  const m = compileQuery(query)
  return (Object.keys(DOCS) as Name[]).filter((k) => m(DOCS[k]))
}

describe('the test server\'s query language: negation', () => {
  it.each<[string, Name[]]>([
    ['-(@http.method:HEAD OR @http.status_code:404)', ['page', 'script', 'api', 'bare']],
    ['-(@http.method:GET @http.status_code:200)', ['head', 'missing', 'api', 'bare']],
    ['-@http.method:(GET OR HEAD)', ['api', 'bare']],
    ['-@http.url_details.path:(\\/ OR *.js)', ['api', 'bare']],
    ['@http.method:GET -(@http.url_details.path:\\/_build\\/* -@http.status_code:404)', ['page', 'missing']],
    ['-(-@http.method:GET)', ['page', 'script', 'missing']],
    ['-(@http.method:GET -(@http.status_code:404 OR @http.url_details.path:\\/))', ['page', 'head', 'missing', 'api', 'bare']],
    ['service:web -(@http.status_code:[400 TO 599])', ['page', 'script', 'head', 'bare']],
    ['NOT (@http.method:GET OR @http.method:HEAD)', ['api', 'bare']],
    ['@http.method:GET AND -(@http.status_code:404)', ['page', 'script']],
    ['(@http.method:HEAD) OR -(@http.method:(GET OR HEAD OR POST))', ['head', 'bare']],
  ])('%s', (query, expected) => {
    expect(selects(query)).toEqual(expected)
  })

  it('binds - to the term or group right after it, not to what follows: -(a) b is (NOT a) AND b', () => {
    expect(selects('-(@http.method:HEAD) @http.url_details.path:*.js')).toEqual(['script', 'missing'])
    expect(selects('-(@http.method:HEAD) OR @http.url_details.path:*.js')).toEqual(['page', 'script', 'head', 'missing', 'api', 'bare'])
  })

  it('reads a - inside a value or a word as part of it, and an unclosed negated group as an error', () => {
    const dash = log('/a-b.js')
    expect(compileQuery('@http.url_details.path:\\/a-b.js')(dash)).toBe(true)
    expect(compileQuery('-@http.url_details.path:\\/a-b.js')(dash)).toBe(false)
    expect(() => compileQuery('-(@http.method:GET')).toThrow(/missing \)/)
    expect(() => compileQuery('-()')).toThrow()
  })
})

describe('the test server\'s aggregate: nested group-bys', () => {
  const range = {from: 0, to: 60_000}
  // Shells per pod and length: pod a serves 1832 (5) and 1851 (1); b 1851 (3) and 1869 (2); c 1869 (1); one log names no pod.
  const served: [string | undefined, number, number][] = [['a', 1832, 5], ['a', 1851, 1], ['b', 1851, 3], ['b', 1869, 2], ['c', 1869, 1], [undefined, 1832, 1]]
  const hits: Indexed[] = served.flatMap(([pod, bytes, n]) => Array.from({length: n}, (_, k) => {
    const item = {id: `${pod}-${bytes}-${k}`, attributes: {service: 'web', message: '', attributes: {network: {bytes_written: bytes}, ...(pod === undefined ? {} : {pod})}}}
    return {item, time: k * 1000, doc: docOf(item)}
  }))

  function buckets(groupBy: unknown[], maxOuter?: number, offset = 0) {
    const req = parseAggregate({compute: [{aggregation: 'count', type: 'total'}], group_by: groupBy}, range, new Set())
    if ('error' in req) throw new Error(req.error)
    const r = aggregateBuckets(hits, req, {offset, zeros: false, range, ...(maxOuter === undefined ? {} : {maxOuter})})
    return {rows: r.buckets.map((b) => [b.by['@pod'], b.by['@network.bytes_written'], b.computes.c0]), next: r.next}
  }

  it('applies an inner limit to the values under each parent, each parent\'s own top values', () => {
    expect(buckets([{facet: '@pod', limit: 3}, {facet: '@network.bytes_written', limit: 1}]).rows).toEqual([['a', 1832, 5], ['b', 1851, 3], ['c', 1869, 1]])
    expect(buckets([{facet: '@pod', limit: 2}, {facet: '@network.bytes_written', limit: 2}]).rows).toEqual([['a', 1832, 5], ['a', 1851, 1], ['b', 1851, 3], ['b', 1869, 2]])
  })

  it('the outer limit counts parents, not buckets: a parent keeps all its inner values within their limit', () => {
    // Two parents of two values each is four buckets, more than the outer limit of two.
    expect(buckets([{facet: '@pod', limit: 2}, {facet: '@network.bytes_written', limit: 5}]).rows).toHaveLength(4)
  })

  it('each level sorts its own values under each parent (alphabetical inner, by count outer)', () => {
    expect(buckets([{facet: '@pod', limit: 2}, {facet: '@network.bytes_written', limit: 1, sort: {type: 'alphabetical', order: 'desc'}}]).rows)
      .toEqual([['a', 1851, 1], ['b', 1869, 2]])
  })

  it('pages the outer level; inner values come whole with each parent', () => {
    const first = buckets([{facet: '@pod', limit: 3}, {facet: '@network.bytes_written', limit: 2}], 2)
    expect(first).toEqual({rows: [['a', 1832, 5], ['a', 1851, 1], ['b', 1851, 3], ['b', 1869, 2]], next: 2})
    expect(buckets([{facet: '@pod', limit: 3}, {facet: '@network.bytes_written', limit: 2}], 2, 2)).toEqual({rows: [['c', 1869, 1]], next: undefined})
  })

  it('a missing value is a parent of its own when named, and left out otherwise', () => {
    expect(buckets([{facet: '@pod', limit: 10, missing: 'none'}, {facet: '@network.bytes_written', limit: 1}]).rows).toContainEqual(['none', 1832, 1])
    expect(buckets([{facet: '@pod', limit: 10}, {facet: '@network.bytes_written', limit: 1}]).rows.map((r) => r[0])).toEqual(['a', 'b', 'c'])
  })

  it('refuses limits whose product is over 10000, as Datadog does', () => {
    expect(parseAggregate({group_by: [{facet: '@pod', limit: 200}, {facet: '@network.bytes_written', limit: 51}]}, range, new Set())).toEqual({error: expect.stringMatching(/product/)})
  })
})
