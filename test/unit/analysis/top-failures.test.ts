import {browserName} from '../../../src/analysis/browser-name'
import {topFailures} from '../../../src/analysis/top-failures'

describe('browserName', () => {
  // Real agents: each borrows the tokens of the ones before it, so the order of the checks decides.
  it.each([
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36', 'Chrome'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 Edg/130.0', 'Edge'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0', 'Opera'],
    ['Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36', 'Samsung Internet'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0', 'Firefox'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/132.0 Mobile/15E148 Safari/605.1.15', 'Firefox'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1', 'Chrome'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Safari/605.1.15', 'Safari'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1', 'Safari'],
    ['Mozilla/5.0 (Windows NT 10.0; WOW64; Trident/7.0; rv:11.0) like Gecko', 'Internet Explorer'],
    ['curl/8.5.0', 'Other'],
    ['<script>alert("x")</script> Firefox', 'Other'],
    ['', '(none)'],
    ['-', '(none)'],
  ])('%s -> %s', (ua, name) => {
    expect(browserName(ua)).toBe(name)
  })
})

describe('topFailures', () => {
  const chrome = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36'
  const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0'
  const f = (path: string, status: number, session: string, userAgent: string) => ({path, status, session, userAgent})

  it('counts paths, statuses and browsers (with their users), the most first, ties by name, whatever the input order', () => {
    const list = [
      f('/b.js', 200, 's1', chrome), f('/a.js', 404, 's2', firefox), f('/b.js', 200, 's1', chrome),
      f('/c.css', 200, 's3', chrome), f('/a.js', 200, 's2', firefox), f('/b.js', 410, 's4', firefox),
    ]
    const want = {
      paths: [{path: '/b.js', failedRequests: 3}, {path: '/a.js', failedRequests: 2}, {path: '/c.css', failedRequests: 1}],
      statuses: [{status: 200, failedRequests: 4}, {status: 404, failedRequests: 1}, {status: 410, failedRequests: 1}],
      // Three requests each: Chrome's of 2 sessions, Firefox's of 2; a tie goes by name.
      browsers: [{browser: 'Chrome', failedRequests: 3, users: 2}, {browser: 'Firefox', failedRequests: 3, users: 2}],
    }
    expect(topFailures(list)).toEqual(want)
    expect(topFailures([...list].reverse())).toEqual(want)
  })

  it('keeps at most five of each (the bound holds for any number of distinct paths)', () => {
    const many = Array.from({length: 1000}, (_, i) => f(`/p${String(i).padStart(4, '0')}.js`, 200 + (i % 7), `s${i}`, i % 2 === 0 ? chrome : `agent ${i}`))
    const top = topFailures([...many, f('/p0999.js', 200, 's0', chrome)])
    expect(top.paths).toHaveLength(5)
    expect(top.paths[0]).toEqual({path: '/p0999.js', failedRequests: 2})
    expect(top.paths.slice(1).map((p) => p.path)).toEqual(['/p0000.js', '/p0001.js', '/p0002.js', '/p0003.js'])
    expect(top.statuses).toHaveLength(5)
    expect(top.browsers).toEqual([{browser: 'Chrome', failedRequests: 501, users: 500}, {browser: 'Other', failedRequests: 500, users: 500}])
  })

  it('is empty for no failures', () => {
    expect(topFailures([])).toEqual({paths: [], statuses: [], browsers: []})
  })
})
