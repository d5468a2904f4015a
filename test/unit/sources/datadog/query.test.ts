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

  describe('the scanner check (issue 27 item 1)', () => {
    const item = (path: string, a: {status?: number; bytes?: number; method?: string; ip?: string; ct?: string; session?: string}) => docOf({
      id: path, attributes: {service: 'web', tags: ['service:web', 'env:prod'], message: '', timestamp: '2026-11-29T14:00:00.000Z',
        attributes: {
          http: {method: a.method ?? 'GET', status_code: a.status ?? 200, url_details: {path}, ...(a.ct ? {content_type: a.ct} : {})},
          network: {client: {ip: a.ip ?? '10.0.0.1'}, ...(a.bytes === undefined ? {} : {bytes_written: a.bytes})},
          ...(a.session ? {session_id: a.session} : {}),
        }},
    })

    it('served: what the analysis may take for real content (a GET answered 2xx with a body or no byte count logged, or 304), but a shell\'s length or HTML', () => {
      const served = selects(q.servedAt(['/js/app.js', '/static/js/main.js'], [1832]))
      // detect.ts isContent: GET and (2xx with bytes > 0, or 304); a record without network.bytes_written keeps its 2xx (bytesNotLogged).
      expect([item('/js/app.js', {bytes: 5000}), item('/js/app.js', {}), item('/static/js/main.js', {status: 304, bytes: 0}), item('/js/app.js', {status: 206, bytes: 10})].map(served)).toEqual([true, true, true, true])
      expect([
        item('/js/app.js', {bytes: 0}), item('/js/app.js', {method: 'HEAD', bytes: 5000}), item('/js/app.js', {status: 404, bytes: 150}), item('/js/app.js', {status: 301, bytes: 0}),
        item('/js/app.js', {bytes: 1832}), item('/js/app.js', {bytes: 900, ct: 'text/html; charset=utf-8'}), item('/js/other.js', {bytes: 5000}),
      ].map(served)).toEqual([false, false, false, false, false, false, false])
    })

    it('shell-length answers at those paths, for the check of when a shell of that length was served', () => {
      const shellLike = selects(q.shellLengthAt(['/js/app.js'], [1832]))
      expect([item('/js/app.js', {bytes: 1832}), item('/js/app.js', {bytes: 1832, method: 'HEAD'}), item('/js/app.js', {bytes: 1832, ct: 'text/html'}), item('/js/app.js', {bytes: 1833}), item('/x.js', {bytes: 1832})].map(shellLike)).toEqual([true, false, false, false, false])
    })

    it('not scanners: the clients an asset answered with content anywhere but the junk paths, or whose failure-looking request names its own session', () => {
      const cleared = selects(q.notScanners(['10.0.0.1', '10.0.0.2'], ['/js/app.js'], ['session_id', 'usr.id'], [1832]))
      expect([
        item('/_build/a1b2c3d4e5.js', {bytes: 5000}), item('/_build/a1b2c3d4e5.js', {}), item('/_build/a1b2c3d4e5.js', {bytes: 1832}),
        item('/js/app.js', {bytes: 1832, ip: '10.0.0.2', session: 's1'}),
      ].map(cleared)).toEqual([true, true, true, true])
      expect([
        item('/js/app.js', {bytes: 1832}), item('/js/app.js', {bytes: 5000}), item('/_build/a1b2c3d4e5.js', {bytes: 5000, ip: '10.0.0.3'}),
        item('/_build/a1b2c3d4e5.js', {method: 'HEAD', bytes: 5000}), item('/_build/a1b2c3d4e5.js', {bytes: 0}), item('/_build/a1b2c3d4e5.js', {status: 404}), item('/', {bytes: 5000}),
      ].map(cleared)).toEqual([false, false, false, false, false, false, false])
      expect(q.notScanners(['10.0.0.1'], ['/js/app.js'], [], [1832])).not.toMatch(/:\*/)
    })
  })
})

