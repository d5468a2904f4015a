/**
 * The RUM events of the lab's simulated browsers (src/lab/rum.ts), from small hand-made page loads:
 * a view, a resource per request and an error where Chromium throws one, in the words
 * src/analysis/rum-errors.ts recognises; sessions sampled and browsers signed in from the seed
 * alone; events handed on oldest first while page loads overlap; and the file LabFiles writes: one
 * JSON document (every value through JSON.stringify) that analyze's RUM reader reads back whole.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {browserFailureOf, urlInError} from '../../../src/analysis/rum-errors'
import {LabFiles} from '../../../src/lab/files'
import {
  browserError, CHROMIUM, type RumContext, type RumItem, RumJournal, type RumPage, rumPageEvents, type RumRequest, rumVisitor, SIGNED_IN_SHARE,
} from '../../../src/lab/rum'
import {readRumFiles} from '../../../src/sources/rum/rum-file'
import {tempDir} from '../../helpers/temp'

const T0 = Date.parse('2026-11-30T10:00:00.000Z')
const BASE = 'http://127.0.0.1:40123'
const CTX: RumContext = {service: 'web', env: 'lab', application: '0a1b2c3d-0000-4000-8000-000000000001'}
const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
const dir = tempDir('skewscan-lab-rum-')

type Inner = Record<string, unknown> & {type: string; view: {id: string; url: string; url_path: string; loading_type?: string}; error?: Record<string, unknown>; resource?: Record<string, unknown>}
const inner = (i: RumItem): Inner => i.attributes.attributes as Inner

function request(path: string, load: RumRequest['load'], outcome: RumRequest['outcome'], time = T0 + 5, status = outcome === 'missing' ? 404 : 200): RumRequest {
  return {time, end: time + 3, url: `${BASE}${path}`, load, status, bytes: outcome === 'html-for-asset' ? 2107 : 4000, outcome}
}

function page(requests: RumRequest[], over: Partial<RumPage> = {}): RumPage {
  return {
    visitor: {ip: '192.0.2.7', userAgent: UA, session: '3b8f0c1e-1d2a-4c3b-9a8f-0123456789ab', user: 'acct-00aa11bb22cc'},
    view: '0123456789abcdef0123456789abcdef', time: T0, shell: {url: `${BASE}/products/12`, version: '2026.11.30-2'}, requests, ...over,
  }
}

describe('what Chromium throws for an asset the page could not use', () => {
  const url = `${BASE}/_build/app.1a2b3c4d.js`

  it('a classic script answered with HTML: a SyntaxError at the `<`, naming the script; the analysis reads it as a crash', () => {
    const e = browserError('script', 'html-for-asset', url)
    expect(e).toEqual({message: "Uncaught SyntaxError: Unexpected token '<'", type: 'SyntaxError', resource: url})
    expect(browserFailureOf(e?.message ?? '', e?.type)).toBe('crash')
  })

  it('a module script answered with HTML: refused for its MIME type, naming the script; a crash', () => {
    const e = browserError('module', 'html-for-asset', url)
    expect(e).toEqual({
      message: 'Failed to load module script: Expected a JavaScript module script but the server responded with a MIME type of "text/html". Strict MIME type checking is enforced for module scripts per HTML spec.',
      type: 'Error', resource: url,
    })
    expect(browserFailureOf(e?.message ?? '', e?.type)).toBe('crash')
  })

  it('a failed import(), whatever the answer: the TypeError with the full URL in its words and no resource; a failed lazy load', () => {
    for (const outcome of ['html-for-asset', 'missing', 'error'] as const) {
      const e = browserError('import', outcome, url)
      expect(e).toEqual({message: `TypeError: Failed to fetch dynamically imported module: ${url}`, type: 'TypeError'})
      expect(browserFailureOf(e?.message ?? '', e?.type)).toBe('lazy')
      expect(urlInError(e?.message ?? '')).toBe(url)
    }
  })

  it('nothing for a script answered 404 (only its element\'s error event), a stylesheet, a preload, or anything that loaded', () => {
    for (const load of ['script', 'module'] as const) expect(browserError(load, 'missing', url)).toBeUndefined()
    for (const outcome of ['html-for-asset', 'missing'] as const) {
      expect(browserError('stylesheet', outcome, `${BASE}/_build/app.1a2b3c4d.css`)).toBeUndefined()
      expect(browserError('preload', outcome, url)).toBeUndefined()
    }
    for (const load of ['script', 'module', 'import', 'stylesheet', 'preload'] as const) expect(browserError(load, 'ok', url)).toBeUndefined()
    expect(CHROMIUM.importFailed.endsWith(': ')).toBe(true)
  })
})

describe('a page load\'s events', () => {
  it('a view when the shell was asked for, a resource per request with what came back, an error where the page crashed or its import() failed, oldest first', () => {
    const items = rumPageEvents(page([
      request('/_build/app.aaaa1111.css', 'stylesheet', 'html-for-asset', T0 + 4),
      request('/_build/vendor.bbbb2222.js', 'module', 'ok', T0 + 4),
      request('/_build/app.cccc3333.js', 'module', 'html-for-asset', T0 + 4),
      request('/_build/runtime.dddd4444.js', 'script', 'missing', T0 + 4),
      request('/_build/chunk-cart.eeee5555.js', 'import', 'html-for-asset', T0 + 900),
    ]), CTX)
    expect(items.map((i) => [i.attributes.timestamp, inner(i).type, (inner(i).resource?.url ?? inner(i).error?.message ?? '') as string])).toEqual([
      ['2026-11-30T10:00:00.000Z', 'view', ''],
      ['2026-11-30T10:00:00.004Z', 'resource', `${BASE}/_build/app.aaaa1111.css`],
      ['2026-11-30T10:00:00.004Z', 'resource', `${BASE}/_build/vendor.bbbb2222.js`],
      ['2026-11-30T10:00:00.004Z', 'resource', `${BASE}/_build/app.cccc3333.js`],
      ['2026-11-30T10:00:00.004Z', 'resource', `${BASE}/_build/runtime.dddd4444.js`],
      ['2026-11-30T10:00:00.007Z', 'error', CHROMIUM.moduleHtml],
      ['2026-11-30T10:00:00.900Z', 'resource', `${BASE}/_build/chunk-cart.eeee5555.js`],
      ['2026-11-30T10:00:00.903Z', 'error', `TypeError: Failed to fetch dynamically imported module: ${BASE}/_build/chunk-cart.eeee5555.js`],
    ])
    const [view, css, , , runtime, crash, , lazy] = items as [RumItem, RumItem, RumItem, RumItem, RumItem, RumItem, RumItem, RumItem]
    expect(view).toEqual({
      id: expect.stringMatching(/^AQAAAZ[0-9a-f]{26}$/), type: 'rum',
      attributes: {
        timestamp: '2026-11-30T10:00:00.000Z', service: 'web', tags: ['service:web', 'version:2026.11.30-2', 'env:lab', 'source:browser'],
        attributes: {
          type: 'view', application: {id: CTX.application}, service: 'web', version: '2026.11.30-2', env: 'lab', source: 'browser',
          session: {id: '3b8f0c1e-1d2a-4c3b-9a8f-0123456789ab', type: 'user'},
          view: {id: '0123456789abcdef0123456789abcdef', url: `${BASE}/products/12`, url_path: '/products/12', loading_type: 'initial_load', error: {count: 2}, resource: {count: 5}},
          usr: {id: 'acct-00aa11bb22cc'}, network: {client: {ip: '192.0.2.7'}}, http: {useragent: UA},
        },
      },
    })
    expect(inner(css).resource).toEqual({url: `${BASE}/_build/app.aaaa1111.css`, type: 'css', method: 'GET', status_code: 200, size: 2107})
    expect(inner(runtime).resource).toEqual({url: `${BASE}/_build/runtime.dddd4444.js`, type: 'js', method: 'GET', status_code: 404, size: 4000})
    expect(inner(crash).error).toEqual({message: CHROMIUM.moduleHtml, source: 'source', type: 'Error', handling: 'unhandled', resource: {url: `${BASE}/_build/app.cccc3333.js`}})
    expect(inner(lazy).error).toEqual({message: `${CHROMIUM.importFailed}${BASE}/_build/chunk-cart.eeee5555.js`, source: 'source', type: 'TypeError', handling: 'unhandled'})
    // Every event of the page is of its view and session, and each has an id of its own.
    for (const i of items) expect([inner(i).view.id, inner(i).view.url_path, (inner(i).session as {id: string}).id]).toEqual(['0123456789abcdef0123456789abcdef', '/products/12', '3b8f0c1e-1d2a-4c3b-9a8f-0123456789ab'])
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length)
  })

  it('a classic script answered with HTML throws its SyntaxError; no usr for a visitor not signed in; no answer is status 0', () => {
    const items = rumPageEvents(page([request('/_build/runtime.dddd4444.js', 'script', 'html-for-asset'), {...request('/_build/app.aaaa1111.css', 'stylesheet', 'error'), status: undefined, bytes: 0}], {
      visitor: {ip: '192.0.2.8', userAgent: UA, session: 's'},
    }), CTX)
    expect(items.map((i) => inner(i).type)).toEqual(['view', 'resource', 'resource', 'error'])
    for (const i of items) expect(inner(i).usr).toBeUndefined()
    expect(inner(items[2] as RumItem).resource).toEqual({url: `${BASE}/_build/app.aaaa1111.css`, type: 'css', method: 'GET', status_code: 0})
    expect(inner(items[3] as RumItem).error).toMatchObject({message: "Uncaught SyntaxError: Unexpected token '<'", type: 'SyntaxError', resource: {url: `${BASE}/_build/runtime.dddd4444.js`}})
  })

  it('none for a page load whose shell never came', () => {
    expect(rumPageEvents(page([], {shell: undefined}), CTX)).toEqual([])
  })
})

describe('sessions sampled and browsers signed in, as RUM does it, from the seed alone', () => {
  const visitors = (seed: number, rate: number) => Array.from({length: 1000}, (_, n) => rumVisitor(seed, n % 8, Math.floor(n / 8), `192.0.2.${n % 250}`, UA, rate))
  const plain = (v: ReturnType<typeof rumVisitor>) => ({session: v.session, sampled: v.sampled, user: v.user})

  it('the same seed, slot and visit give the same session, sampling and account; another seed others', () => {
    expect(visitors(3, 50).map(plain)).toEqual(visitors(3, 50).map(plain))
    expect(visitors(4, 50).map(plain)).not.toEqual(visitors(3, 50).map(plain))
    // The visitor's view ids come from its own numbers: the same too.
    const [a, b] = [rumVisitor(3, 1, 2, 'ip', UA, 100), rumVisitor(3, 1, 2, 'ip', UA, 100)]
    expect(a.random.next()).toBe(b.random.next())
  })

  it('sample rate 100 keeps every session, 0 none, 50 about half; about 70% signed in with an acct- id; every session and account id distinct', () => {
    expect(visitors(3, 100).every((v) => v.sampled)).toBe(true)
    expect(visitors(3, 0).some((v) => v.sampled)).toBe(false)
    const half = visitors(3, 50).filter((v) => v.sampled).length
    expect(half).toBeGreaterThan(430)
    expect(half).toBeLessThan(570)
    const all = visitors(3, 100)
    const signedIn = all.filter((v) => v.user !== undefined)
    expect(Math.abs(signedIn.length / all.length - SIGNED_IN_SHARE)).toBeLessThan(0.05)
    for (const v of signedIn) expect(v.user).toMatch(/^acct-[0-9a-f]{12}$/)
    for (const v of all) expect(v.session).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(new Set(all.map((v) => v.session)).size).toBe(all.length)
    expect(new Set(signedIn.map((v) => v.user)).size).toBe(signedIn.length)
    // Sampling does not change who signs in.
    expect(visitors(3, 50).map((v) => v.user)).toEqual(all.map((v) => v.user))
  })
})

describe('the journal: page loads that overlap, handed on oldest first', () => {
  it('holds a page load\'s events while one that began before them is open; counts sessions and events; nothing for an unsampled session', () => {
    const written: RumItem[][] = []
    const j = new RumJournal({seed: 1, sampleRate: 100, context: CTX, write: (items) => written.push([...items])})
    const [a, b] = [j.visitor(0, 0, '192.0.2.1', UA), j.visitor(1, 0, '192.0.2.2', UA)]
    const early = j.start(a, T0) as RumPage
    const late = j.start(b, T0 + 100) as RumPage
    late.shell = {url: `${BASE}/`, version: 'v1'}
    late.requests.push(request('/_build/app.cccc3333.js', 'module', 'html-for-asset', T0 + 100))
    j.end(late)
    expect(written).toEqual([])
    early.shell = {url: `${BASE}/cart`, version: 'v1'}
    early.requests.push(request('/_build/app.aaaa1111.js', 'module', 'ok', T0 + 50), request('/_build/chunk-cart.ffff6666.js', 'import', 'missing', T0 + 400))
    const third = j.start(a, T0 + 300) as RumPage
    j.end(early)
    // The third page load is open from T0 + 300: what came before goes out, the rest waits.
    const times = (batch: RumItem[] | undefined) => (batch ?? []).map((i) => Date.parse(i.attributes.timestamp) - T0)
    expect(times(written[0])).toEqual([0, 50, 100, 100, 103])
    third.shell = {url: `${BASE}/`}
    j.end(third)
    j.flush()
    expect(times(written.flat())).toEqual([0, 50, 100, 100, 103, 300, 400, 403])
    expect(written.flat().map((i) => i.attributes.attributes.version)).toEqual(['v1', 'v1', 'v1', 'v1', 'v1', undefined, 'v1', 'v1'])
    expect(j.summary()).toEqual({sampleRate: 100, sessions: 2, sampledSessions: 2, signedIn: [a, b].filter((v) => v.user !== undefined).length, views: 3, resources: 3, errors: 2})
    // View ids: 32 hex digits, each its own.
    const views = new Set(written.flat().map((i) => inner(i).view.id))
    expect(views.size).toBe(3)
    for (const v of views) expect(v).toMatch(/^[0-9a-f]{32}$/)

    const none = new RumJournal({seed: 1, sampleRate: 0, context: CTX, write: () => written.push([])})
    const v = none.visitor(0, 0, '192.0.2.1', UA)
    expect(none.start(v, T0)).toBeUndefined()
    none.flush()
    expect(none.summary()).toMatchObject({sessions: 1, sampledSessions: 0, views: 0})
  })
})

describe('the RUM file', () => {
  const hostile = 'Mozilla/5.0 "quoted" \\ back\\slash \u2028 \u00e9t\u00e9 </script> \u0000'
  const write = async (file: string, batches: RumItem[][]): Promise<string> => {
    const files = await LabFiles.open({rum: file}, {service: 'web', host: 'h', env: 'lab', upstreamName: 'u'})
    for (const b of batches) files.rum(b)
    await files.close()
    return readFileSync(file, 'utf8')
  }
  const items = rumPageEvents(page([request('/_build/app.cccc3333.js', 'module', 'html-for-asset'), request('/_build/chunk-"x".js', 'import', 'missing', T0 + 700)], {
    visitor: {ip: '192.0.2.9', userAgent: hostile, session: 'se"ss\\ion', user: 'acct-"1"'},
  }), CTX)

  it('is one RUM events search API response, whatever the text in it; analyze\'s reader reads every event back as it was', async () => {
    const file = join(dir, 'rum.json')
    const text = await write(file, [items.slice(0, 2), items.slice(2)])
    expect(JSON.parse(text)).toEqual({data: items, meta: {page: {}, status: 'done'}})
    const read = await readRumFiles([file])
    expect(read.skipped.total).toBe(0)
    expect(read.events).toHaveLength(items.length)
    for (const e of read.events) expect([e.userAgent, e.session, e.user, e.clientIp]).toEqual([hostile, 'se"ss\\ion', 'acct-"1"', '192.0.2.9'])
    expect(read.events.map((e) => e.kind)).toEqual(['view', 'resource', 'error', 'resource', 'error'])
    expect(read.events[4]?.error?.message).toBe(`${CHROMIUM.importFailed}${BASE}/_build/chunk-"x".js`)
  })

  it('with one event, or none, is still read whole', async () => {
    for (const [name, batches] of [['one.json', [items.slice(0, 1)]], ['none.json', []]] as const) {
      const file = join(dir, name)
      const text = await write(file, batches.map((b) => [...b]))
      expect(JSON.parse(text)).toEqual({data: batches.flat(), meta: {page: {}, status: 'done'}})
      const read = await readRumFiles([file])
      expect([read.events.length, read.skipped.total]).toEqual([batches.flat().length, 0])
    }
  })
})
