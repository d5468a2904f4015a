import {DEFAULT_ASSET_PATTERNS} from '../../../../src/analysis/options'
import {assetPathTerms, escapeValue, lengthValues, QueryBuilder, userTerm} from '../../../../src/sources/datadog/query'
import {compileQuery, docOf} from '../../../helpers/fake-datadog-query'

const SPEC = {assetPatterns: DEFAULT_ASSET_PATTERNS, shellPaths: ['/', '/index.html'], lengthTolerance: 0}
const q = new QueryBuilder('service:web env:prod', SPEC)
const ASSETS = '@http.url_details.path:(\\/_build\\/* OR \\/assets\\/* OR \\/static\\/* OR \\/_next\\/static\\/* OR \\/_app\\/immutable\\/* OR *.js OR *.JS OR *.mjs OR *.MJS OR *.cjs OR *.CJS OR *.css OR *.CSS OR *.map OR *.MAP OR *.wasm OR *.WASM)'

describe('the queries sent to Datadog', () => {
  it('escapes search syntax so a path matches literally', () => {
    expect(escapeValue('/a b:c(d)*?"e"\\')).toBe('\\/a\\ b\\:c\\(d\\)\\*\\?\\"e\\"\\\\')
    expect(escapeValue('/index.html')).toBe('\\/index.html')
  })

  it('turns asset patterns into path wildcards: prefixes, extensions in both cases, substrings', () => {
    expect(assetPathTerms(['/cdn/', '.js', '.JS', 'chunk'])).toEqual(['\\/cdn\\/*', '*.js', '*.JS', '*chunk*'])
  })

  it('keeps the user query whole, in parentheses; * or nothing adds no term', () => {
    expect(userTerm('service:web OR service:api')).toBe('(service:web OR service:api)')
    expect(userTerm(' * ')).toBe('')
    expect(new QueryBuilder('*', SPEC).assetRequests()).toBe(`@http.method:(GET OR HEAD) ${ASSETS}`)
  })

  it('asset requests: GET or HEAD on asset paths, any status', () => {
    expect(q.assetRequests()).toBe(`(service:web env:prod) @http.method:(GET OR HEAD) ${ASSETS}`)
  })

  it('page requests: GET on a non-asset path that is a shell path or answered with a shell length', () => {
    expect(q.pageRequests([1832, 1851])).toBe(`(service:web env:prod) @http.method:GET -${ASSETS} (@http.url_details.path:(\\/ OR \\/index.html) OR @network.bytes_written:(1832 OR 1851))`)
    expect(q.pageRequests([])).toBe(`(service:web env:prod) @http.method:GET -${ASSETS} @http.url_details.path:(\\/ OR \\/index.html)`)
    expect(q.pageRequests()).toBe(`(service:web env:prod) @http.method:GET -${ASSETS} (@http.url_details.path:(\\/ OR \\/index.html) OR @http.status_code:[200 TO 299])`)
  })

  it('shell responses (for the fingerprints) and candidate failures (for the windows)', () => {
    expect(q.shellResponses()).toBe(`(service:web env:prod) @http.method:GET -${ASSETS} @http.url_details.path:(\\/ OR \\/index.html) @http.status_code:[200 TO 299]`)
    expect(q.candidates([1832])).toBe(`(service:web env:prod) @http.method:(GET OR HEAD) ${ASSETS} (@network.bytes_written:1832 OR @http.status_code:(404 OR 410) OR @http.content_type:text\\/html* OR @http.response.content_type:text\\/html*)`)
    expect(new QueryBuilder('*', {...SPEC, contentTypeAttributes: ['@resp.ct', 'tag:ct']}).candidates([])).toMatch(/OR @resp\.ct:text\\\/html\* OR ct:text\\\/html\*\)$/)
  })

  it('lengths within the tolerance are listed, unless there are too many', () => {
    expect(lengthValues([1832, 1851], 0)).toEqual([1832, 1851])
    expect(lengthValues([1832, 1834], 2)).toEqual([1830, 1831, 1832, 1833, 1834, 1835, 1836])
    expect(lengthValues([1000, 5000], 100)).toBeUndefined()
  })
})

describe('what those queries select (evaluated as Datadog search syntax)', () => {
  const log = (path: string, status = 200, bytes = 100, method = 'GET', service = 'web') => docOf({
    id: path, attributes: {service, tags: [`service:${service}`, 'env:prod'], message: '', timestamp: '2026-11-29T14:00:00.000Z',
      attributes: {http: {method, status_code: status, url_details: {path}}, network: {bytes_written: bytes}}},
  })
  const selects = (query: string) => {
    const m = compileQuery(query)
    return (doc: ReturnType<typeof log>) => m(doc)
  }

  it('page requests with the lengths known: shells, routes served a shell; not API calls, health checks, assets or other services', () => {
    const pages = selects(q.pageRequests([1832]))
    expect([log('/', 200, 1832), log('/', 304, 0), log('/index.html', 200, 1900), log('/products/42', 200, 1832)].map(pages)).toEqual([true, true, true, true])
    expect([log('/api/cart', 200, 512), log('/healthz', 200, 2), log('/_build/app.js', 200, 1832), log('/', 200, 1832, 'POST'), log('/', 200, 1832, 'GET', 'api')].map(pages)).toEqual([false, false, false, false, false])
  })

  it('asset requests and candidates', () => {
    const assets = selects(q.assetRequests())
    expect([log('/_build/a.js'), log('/x/Y.JS', 404), log('/_build/a.js', 200, 10, 'HEAD'), log('/favicon.ico'), log('/api/x.json')].map(assets)).toEqual([true, true, true, false, false])
    const candidates = selects(q.candidates([1832]))
    expect([log('/_build/a.js', 200, 1832), log('/_build/a.js', 404, 150), log('/_build/a.js', 410, 0), log('/_build/a.js', 200, 50000), log('/', 200, 1832)].map(candidates)).toEqual([true, true, true, false, false])
  })

  it('the narrowed query is pages or assets', () => {
    const narrowed = selects(q.narrowed([1832]))
    expect([log('/'), log('/_build/a.js'), log('/cart', 200, 1832), log('/api/cart', 200, 77), log('/healthz')].map(narrowed)).toEqual([true, true, true, false, false])
  })
})
