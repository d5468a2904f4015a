import {assetKind, isDocumentPath, isSourceMap, looksHashed} from '../../../src/analysis/request-kinds'
import {AgentClassifier} from '../../../src/util/agent-kind'

describe('who sent a request', () => {
  const agents = new AgentClassifier()
  it.each<[string, string | undefined]>([
    // The user agents of the real captures' noise (fixtures/captures/*/nginx.jsonl), and our own probe.
    ['Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.69 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'crawler'],
    ['Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36', 'crawler'],
    ['Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)', 'crawler'],
    ['Mozilla/5.0 zgrab/0.x', 'crawler'],
    ['curl/8.5.0', 'crawler'],
    ['skewscan-probe/0.1.0', 'probe'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1', undefined],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/78.0.3904.108 Safari/537.36', undefined],
    ['', undefined],
  ])('%s -> %s', (ua, kind) => {
    expect(agents.kind(ua)).toBe(kind)
    // Asked again: from the cache, the same answer.
    expect(agents.kind(ua)).toBe(kind)
  })
})

describe('what a path is', () => {
  it.each<[string, string]>([['/_build/index.7ec969b8.js', 'script'], ['/a.mjs', 'script'], ['/w.wasm', 'script'], ['/_build/index.0641f51b.css', 'stylesheet'],
    ['/assets/logo.png', 'other'], ['/_build/chunk', 'other']])('%s is a %s', (path, kind) => {
    expect(assetKind(path)).toBe(kind)
  })

  it('source maps and documents', () => {
    expect(isSourceMap('/_build/index.7ec969b8.js.map')).toBe(true)
    expect(['/', '/account', '/products/12', '/about.html'].every(isDocumentPath)).toBe(true)
    expect(['/favicon.ico', '/robots.txt', '/sitemap.xml', '/wp-login.php', '/.env'].some(isDocumentPath)).toBe(false)
  })

  it('tells content-hashed file names from a scanner\'s guesses', () => {
    expect(['/_build/settings.e889d204.js', '/assets/index-BfK3x9aZ.js', '/_next/static/chunks/4bd1b696-a1b2c3d4e5f6.js'].every(looksHashed)).toBe(true)
    expect(['/static/js/main.js', '/js/app.js', '/_next/static/chunks/main.js', '/assets/index.css'].some(looksHashed)).toBe(false)
  })
})
