import {DATADOG_SITES, exportSettings, liveSettings, maskSecrets, pageCounting, scannerCheck, resolveBaseUrl, resolveKeys, resolveSite, wantsDatadog} from '../../../src/config/datadog'
import {ConfigError} from '../../../src/config/parse'
import {DEFAULT_OPTIONS} from '../../../src/analysis/options'
import {DEFAULT_NORMALIZE} from '../../../src/normalize/fields'

describe('resolveSite: --site, else DD_SITE / DATADOG_SITE, else datadoghq.com; checked against the list', () => {
  it.each([
    [undefined, {}, 'datadoghq.com'],
    [undefined, {DATADOG_SITE: 'us5.datadoghq.com'}, 'us5.datadoghq.com'],
    [undefined, {DD_SITE: 'datadoghq.eu', DATADOG_SITE: 'us5.datadoghq.com'}, 'datadoghq.eu'],
    ['ap1.datadoghq.com', {DD_SITE: 'datadoghq.eu'}, 'ap1.datadoghq.com'],
    ['https://app.datadoghq.eu/logs?x=1', {}, 'datadoghq.eu'],
    ['US3.DATADOGHQ.COM', {}, 'us3.datadoghq.com'],
    [undefined, {DD_SITE: '  '}, 'datadoghq.com'],
  ])('--site %s, env %j → %s', (flag, env, site) => {
    expect(resolveSite(flag, env)).toBe(site)
  })

  it('knows every current site, including US2-FED and UK1', () => {
    for (const s of ['datadoghq.com', 'us3.datadoghq.com', 'us5.datadoghq.com', 'datadoghq.eu', 'ap1.datadoghq.com', 'ap2.datadoghq.com', 'uk1.datadoghq.com', 'ddog-gov.com', 'us2.ddog-gov.com']) {
      expect(resolveSite(s, {})).toBe(s)
    }
    expect(DATADOG_SITES).toHaveLength(9)
  })

  it('names where a bad site came from and lists the good ones', () => {
    expect(() => resolveSite('datadoghq.org', {})).toThrow(/^--site: "datadoghq\.org" is not a Datadog site\. Use one of datadoghq\.com, us3/)
    expect(() => resolveSite(undefined, {DATADOG_SITE: 'eu'})).toThrow(/^DATADOG_SITE: "eu" is not a Datadog site/)
  })
})

describe('resolveBaseUrl: --api-url, else SKEWSCAN_API_URL, else https://api.<site>', () => {
  it('resolves and normalises', () => {
    expect(resolveBaseUrl(undefined, {}, 'datadoghq.eu')).toBe('https://api.datadoghq.eu')
    expect(resolveBaseUrl(undefined, {SKEWSCAN_API_URL: 'http://127.0.0.1:8126/'}, 'datadoghq.com')).toBe('http://127.0.0.1:8126')
    expect(resolveBaseUrl('https://proxy.internal/dd/', {SKEWSCAN_API_URL: 'http://x'}, 'datadoghq.com')).toBe('https://proxy.internal/dd')
  })
  it.each([['ftp://x', /must be an http or https URL/], ['not a url', /is not a URL/], ['https://u:p@x', /no credentials in the URL/], ['https://x/?a=1', /query string/]])('%s is refused', (url, message) => {
    expect(() => resolveBaseUrl(url, {}, 'datadoghq.com')).toThrow(message)
  })
})

describe('resolveKeys: from the environment only', () => {
  it('takes DD_* before DATADOG_*', () => {
    expect(resolveKeys({DD_API_KEY: 'a', DATADOG_API_KEY: 'b', DATADOG_APP_KEY: 'c'})).toEqual({apiKey: 'a', appKey: 'c'})
  })
  it('a missing key names the variables (and the permission the application key needs)', () => {
    expect(() => resolveKeys({})).toThrow(ConfigError)
    expect(() => resolveKeys({DD_API_KEY: 'a'})).toThrow('Reading from Datadog needs an application key with the logs_read_data permission (DD_APP_KEY or DATADOG_APP_KEY) in the environment. Keys are read only from the environment, never from flags.')
    expect(() => resolveKeys({DD_APP_KEY: 'a', DD_API_KEY: ''})).toThrow(/needs an API key \(DD_API_KEY or DATADOG_API_KEY\)/)
  })
})

describe('maskSecrets', () => {
  it('masks every occurrence, URL-encoded ones too; real keys keep their last four characters', () => {
    const key = 'abcdef0123456789abcdef0123456789'
    expect(maskSecrets(`key=${key} again ${key}`, [key])).toBe('key=****6789 again ****6789')
    expect(maskSecrets('k=a%2Bb%2Fc%3D', ['a+b/c='])).toBe('k=****')
    expect(maskSecrets('nothing here', ['abc'])).toBe('nothing here')
  })
})

describe('liveSettings / exportSettings', () => {
  const flags = {pull: 'windows', concurrency: 3, timeout: '30s', 'retry-base': '1s', 'max-attempts': 6, 'max-wait': '5m', 'slice-events': 20_000}
  const env = {DD_API_KEY: 'k'.repeat(32), DD_APP_KEY: 'a'.repeat(40)}
  const narrowing = {assetPatterns: ['.js'], shellPaths: ['/'], lengthTolerance: 0, horizonMs: 1_800_000, lookaheadMs: 60_000}
  const NOW = Date.parse('2026-11-29T16:00:00Z')

  it('one range for everything, resolved against the clock; the window pad defaults to the horizon', () => {
    const s = liveSettings({...flags, since: '2h', index: ['main,web', 'extra'], 'storage-tier': 'flex', query: ' ', 'deploy-query': 'source:kubernetes'}, env, NOW, narrowing)
    expect(s.spec).toMatchObject({query: '*', range: {from: NOW - 7_200_000, to: NOW}, scope: {indexes: ['main', 'web', 'extra'], storageTier: 'flex'}, windowPadMs: 1_800_000, windowTailMs: 60_000})
    expect(s.deployRange).toEqual({from: NOW - 7_200_000 - 1_800_000, to: NOW})
    expect(s.connection).toMatchObject({site: 'datadoghq.com', baseUrl: 'https://api.datadoghq.com'})
    expect(s.tuning.retry).toEqual({maxAttempts: 6, baseDelayMs: 1000, maxDelayMs: 30_000, maxElapsedMs: 300_000})
  })

  it.each([
    [{concurrency: 20}, /--concurrency: 20 must be between 1 and 8/],
    [{'storage-tier': 'cold'}, /--storage-tier: "cold" must be one of indexes, online-archives, flex/],
    [{timeout: 'soon'}, /--timeout: "soon" is not a duration/],
  ])('%j is refused', (extra, message) => {
    expect(() => liveSettings({...flags, since: '1h', ...extra}, env, NOW, narrowing)).toThrow(message)
  })

  it('export --resume takes the query and range from the state file, so giving them is an error', () => {
    const base = {...flags, output: 'x.ndjson', resume: true, force: false, 'default-asset-patterns': true, 'length-tolerance': 0, horizon: '30m', lookahead: '60s'}
    expect(exportSettings(base, env, NOW).spec).toBeUndefined()
    expect(() => exportSettings({...base, since: '2h', query: 'service:web'}, env, NOW)).toThrow('--resume continues with the query, range and plan of the interrupted export; leave out --since, --query')
    const fresh = exportSettings({...base, resume: false, from: 'now-1h', 'asset-pattern': ['/cdn/'], 'shell-path': ['/app']}, env, NOW)
    expect(fresh.spec?.narrowing.assetPatterns).toContain('/cdn/')
    expect(fresh.spec?.narrowing.shellPaths).toEqual(['/', '/index.html', '/app'])
  })
})

describe('wantsDatadog', () => {
  it('a range reads from Datadog; Datadog flags without one are an error, not ignored', () => {
    expect(wantsDatadog({})).toBe(false)
    expect(wantsDatadog({since: '2h'})).toBe(true)
    expect(wantsDatadog({from: 'now-1h', query: 'service:web'})).toBe(true)
    expect(() => wantsDatadog({query: 'service:web', 'deploy-query': 'source:kubernetes'})).toThrow('--query, --deploy-query read from Datadog: give --from or --since too')
  })
})

describe('pageCounting: when a live pull counts page requests on Datadog\'s side', () => {
  const base = {...DEFAULT_OPTIONS}
  // Routes are counted where the analysis would take them for shells: by its horizon and look-ahead.
  const routes = {horizonMs: base.horizonMs, lookaheadMs: base.lookaheadMs}
  it('by the facets that name apps as the analysis does, in its order', () => {
    expect(pageCounting(base, DEFAULT_NORMALIZE)).toEqual({appFacets: ['@proxy.name', '@proxy_upstream_name', '@http.url_details.host', 'service'], routes})
    expect(pageCounting({...base, appSource: 'host', horizonMs: 5 * 60_000}, DEFAULT_NORMALIZE)).toEqual({appFacets: ['@http.url_details.host'], routes: {...routes, horizonMs: 5 * 60_000}})
  })
  it('not for an HTML report (its timeline keeps every page load), an app named by --app-key, or a --field mapping of what is grouped by', () => {
    expect(pageCounting({...base, detail: true}, DEFAULT_NORMALIZE)).toBeUndefined()
    expect(pageCounting({...base, appSource: 'key'}, DEFAULT_NORMALIZE)).toBeUndefined()
    expect(pageCounting(base, {...DEFAULT_NORMALIZE, fields: {userAgent: 'usr.agent'}})).toBeUndefined()
    expect(pageCounting(base, {...DEFAULT_NORMALIZE, fields: {session: 'cookie_session'}})).toEqual({appFacets: expect.any(Array), routes})
  })
})

describe('scannerCheck: when a live pull tells scanners apart before opening asset windows (issue 27 item 1)', () => {
  const base = {...DEFAULT_OPTIONS}
  it('where page loads are keyed by the logged address and agent, or by a session attribute the check looks for', () => {
    expect(scannerCheck(base, DEFAULT_NORMALIZE)).toEqual({sessionAttributes: ['session.id', 'session_id', 'http.session_id', 'sessionId', 'usr.id', 'user_id', 'userId'], horizonMs: base.horizonMs, lookaheadMs: base.lookaheadMs})
    expect(scannerCheck({...base, horizonMs: 600_000}, {...DEFAULT_NORMALIZE, sessionKey: {kind: 'ip-ua'}})).toEqual({sessionAttributes: [], horizonMs: 600_000, lookaheadMs: base.lookaheadMs})
  })
  it('not where a session comes from a cookie or an attribute, or the client, agent or session is mapped or taken from X-Forwarded-For', () => {
    expect(scannerCheck(base, {...DEFAULT_NORMALIZE, sessionKey: {kind: 'cookie', name: 'INGRESSCOOKIE'}})).toBeUndefined()
    expect(scannerCheck(base, {...DEFAULT_NORMALIZE, sessionKey: {kind: 'attr', path: 'cookie_session'}})).toBeUndefined()
    for (const k of ['clientIp', 'userAgent', 'session', 'userId'] as const) expect(scannerCheck(base, {...DEFAULT_NORMALIZE, fields: {[k]: 'x.y'}})).toBeUndefined()
    expect(scannerCheck(base, {...DEFAULT_NORMALIZE, trustedProxies: ['10.0.0.0/8']})).toBeUndefined()
  })
})
