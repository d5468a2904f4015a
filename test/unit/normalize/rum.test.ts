/**
 * One RUM record -> one RumEvent (src/normalize/rum.ts): every field, from the real capture's events
 * and from Datadog's own recorded RUM search response (fixtures/rum/README.md), the three shapes a
 * record comes in, the types read and ignored, each reason to skip one, and any mutation of a real
 * item read without throwing, into a well-formed outcome.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import fc from 'fast-check'
import {normalizeRum, type RumFields, type RumOutcome} from '../../../src/normalize/rum'
import {MAX_FIELD_LENGTH} from '../../../src/util/bounded-text'
import {jsonMutation, KNOWN_REASONS, mutateJsonAll, settings} from '../../helpers/hostile'

const FIXTURES = join(__dirname, '..', '..', '..', 'fixtures', 'rum')
type Item = {id: string; type: string; attributes: {timestamp: string; attributes: Record<string, unknown>} & Record<string, unknown>}
const CAPTURE = (JSON.parse(readFileSync(join(FIXTURES, 'rr-3-excerpt.json'), 'utf8')) as {data: Item[]}).data
const RECORDED = readFileSync(join(FIXTURES, 'datadog-search-rum-events-pages.json'), 'utf8').split('\n').filter((l) => l.trim() !== '').flatMap((l) => (JSON.parse(l) as {data: Item[]}).data)

const event = (v: unknown): RumFields => {
  const r = normalizeRum(v)
  if (!r.ok) throw new Error(`not read: ${JSON.stringify(r)}`)
  return r.event
}
const at = <T>(xs: readonly T[], i: number): T => {
  const x = xs[i]
  if (x === undefined) throw new Error(`no element ${i}`)
  return x
}
const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T

const UA_FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0'
const UA_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
const APP = 'a1b2c3d4-0000-4000-8000-00000000ab01'

describe('normalizeRum: the real capture (rr-3)', () => {
  it('maps a view: time, id, session, view, its URL and loading type, version, service, application, user, client', () => {
    expect(event(at(CAPTURE, 0))).toEqual({
      kind: 'view', time: Date.parse('2026-11-30T07:18:26.037Z'), id: 'AQAAAZ4a5ff38e8a0c28d2fed179195b',
      session: '33a029b8-aefa-4dce-8037-8c6885c00f3c', view: '2b0904a4eb4f8f687b95e0f6da313733',
      viewUrl: 'https://webapp.lab.test/', loadingType: 'initial_load', version: 'v2.13.1', service: 'webapp', application: APP,
      user: 'acct-a32775', clientIp: '127.10.6.90', userAgent: UA_FIREFOX,
    })
  })

  it('maps a resource: its URL, path, type, status and size', () => {
    expect(event(at(CAPTURE, 1))).toEqual({
      kind: 'resource', time: Date.parse('2026-11-30T07:18:26.074Z'), id: 'AQAAAZ9ea5feabd4fc169715742bb700',
      session: '33a029b8-aefa-4dce-8037-8c6885c00f3c', view: '2b0904a4eb4f8f687b95e0f6da313733', viewUrl: 'https://webapp.lab.test/',
      version: 'v2.13.1', service: 'webapp', application: APP, user: 'acct-a32775', clientIp: '127.10.6.90', userAgent: UA_FIREFOX,
      resource: {url: 'https://webapp.lab.test/_build/runtime-config.b9c210df.js', path: '/_build/runtime-config.b9c210df.js', type: 'js', status: 200, size: 1466},
    })
    // A script answered with the shell: 200, the shell's 3385 bytes.
    expect(event(at(CAPTURE, 6)).resource).toEqual({url: 'https://webapp.lab.test/_build/index.dd4da3e5.js', path: '/_build/index.dd4da3e5.js', type: 'js', status: 200, size: 3385})
  })

  it('maps an error: message, source, type, and the URL it names in error.resource', () => {
    expect(event(at(CAPTURE, 10))).toEqual({
      kind: 'error', time: Date.parse('2026-11-30T07:18:31.937Z'), id: 'AQAAAZ994f0e56d4764e2c0afe3baa37',
      session: '58738109-6660-4339-849b-58083dfd4c7f', view: '40c1ca563b0b5de7cf8a89187b9be75b', viewUrl: 'https://webapp.lab.test/',
      version: 'v2.14.4', service: 'webapp', application: APP, user: 'acct-d722f4', clientIp: '127.10.14.83', userAgent: UA_WINDOWS,
      error: {
        message: 'Failed to load module script: Expected a JavaScript module script but the server responded with a MIME type of "text/html". Strict MIME type checking is enforced for module scripts per HTML spec.',
        source: 'source', type: 'Error', url: 'https://webapp.lab.test/_build/index.dd4da3e5.js', path: '/_build/index.dd4da3e5.js',
      },
    })
    expect(event(at(CAPTURE, 11)).error).toMatchObject({message: "Uncaught SyntaxError: Unexpected token '<'", type: 'SyntaxError', path: '/_build/runtime-config.5a5043ef.js'})
  })

  it('leaves out what the event does not carry: no user for an anonymous session, no URL for an error without error.resource', () => {
    expect(event(at(CAPTURE, 3))).not.toHaveProperty('user')
    const lazy = event(at(CAPTURE, 13))
    expect(lazy).toMatchObject({kind: 'error', session: '07119f71-72f0-46ee-8153-137a38afccb1', view: 'a5a57af5690669325c98a1e2559eed41'})
    expect(lazy).not.toHaveProperty('user')
    expect(lazy.error).toEqual({message: 'TypeError: Failed to fetch dynamically imported module: https://webapp.lab.test/_build/settings.e889d204.js', source: 'source', type: 'TypeError'})
    // Resources and errors carry no loading type: only views do.
    expect(event(at(CAPTURE, 1))).not.toHaveProperty('loadingType')
  })

  it('reads every event of the excerpt: 3 views, 7 resources, 4 errors', () => {
    const kinds = CAPTURE.map((i) => event(i).kind)
    expect(['view', 'resource', 'error'].map((k) => kinds.filter((x) => x === k).length)).toEqual([3, 7, 4])
  })
})

describe("normalizeRum: Datadog's recorded RUM search response (datadog-api-client-typescript cassette)", () => {
  it('maps every field, the client from session.ip and session.useragent, the version from the tags', () => {
    expect(event(at(RECORDED, 0))).toEqual({
      kind: 'resource', time: Date.parse('2022-04-12T10:04:37.029Z'), id: 'AQAAAYAdO3MlOKUnZwAAAABBWUFkTzNTQUFBRHRjcnpYcC1kNUhnQUU',
      session: '0a64704e-ab4a-44e6-971f-12598c0c6964', view: 'b1c5b7e1-42a6-4382-a8e2-a101db88a7c6',
      viewUrl: 'https://app.datadoghq.com/dashboad/xxx?fullscreen_end_ts=1649692509728&fullscreen_paused=false&fullscreen_section=overview&fullscreen_start_ts=1649087709728&fullscreen_widget=743246&from_ts=1649153072626&to_ts=1649757872626&live=true',
      version: '35.7643717', service: 'web-ui', application: 'ac8218cf-498b-4d33-bd44-151095959547', user: '1586212',
      clientIp: '52.17.186.3', userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/99.0.4844.84 Safari/537.36',
      resource: {url: 'https://example.com/something', path: '/something', type: 'xhr', status: 200, size: 4107},
    })
  })

  it('reads a cross-origin resource without status or size', () => {
    const e = event(at(RECORDED, 1))
    expect(e).toMatchObject({id: 'AQAAAYAdO3KfpzfngAAAAABBWUFkTzNSV0FBQ29pNkphck1fdU1nQUM', time: Date.parse('2022-04-12T10:04:36.895Z'), user: '1000344937', clientIp: '18.171.9.38'})
    expect(e.resource).toEqual({url: 'https://static.datadoghq.com/static/c/single-page-app_LogsFavorites.493d30ca539726b7fc61.min.js', path: '/static/c/single-page-app_LogsFavorites.493d30ca539726b7fc61.min.js', type: 'js'})
    expect(RECORDED.map((i) => event(i).id)).toHaveLength(3)
  })
})

/** A view as the Browser SDK sends it (DataDog/rum-events-format, schemas/rum/view-schema.json): epoch-ms `date`, tags in `ddtags`. */
const SDK_VIEW = {
  date: 1796023106037, type: 'view', application: {id: APP}, service: 'webapp', ddtags: 'env:prod,version:v2.13.1', source: 'browser',
  session: {id: '33a029b8-aefa-4dce-8037-8c6885c00f3c', type: 'user'}, view: {id: '2b0904a4eb4f8f687b95e0f6da313733', url: 'https://webapp.lab.test/', loading_type: 'initial_load'},
  usr: {id: 'acct-a32775'}, _dd: {format_version: 2},
}

describe('normalizeRum: the shapes of a record', () => {
  const item = at(CAPTURE, 0)
  const expected = event(item)
  const {id: _id, ...withoutId} = expected

  it('reads the API item, its attributes without the wrapper, and a bare event alike', () => {
    expect(event(item.attributes)).toEqual(withoutId)
    const bare = {...copy(item.attributes.attributes), timestamp: item.attributes.timestamp}
    expect(event(bare)).toEqual(withoutId)
  })

  it("reads a Browser SDK event: the time from `date` (epoch ms), the version from `ddtags`", () => {
    expect(event(SDK_VIEW)).toEqual({
      kind: 'view', time: Date.parse('2026-11-30T07:18:26.037Z'), session: '33a029b8-aefa-4dce-8037-8c6885c00f3c', view: '2b0904a4eb4f8f687b95e0f6da313733',
      viewUrl: 'https://webapp.lab.test/', loadingType: 'initial_load', version: 'v2.13.1', service: 'webapp', application: APP, user: 'acct-a32775',
    })
  })

  it('takes the version from the tags and the service from the wrapper when the event has none', () => {
    const i = copy(item)
    delete i.attributes.attributes.version
    delete i.attributes.attributes.service
    expect(event(i)).toMatchObject({version: 'v2.13.1', service: 'webapp'})
    i.attributes.tags = ['env:prod']
    delete i.attributes.service
    const e = event(i)
    expect(e).not.toHaveProperty('version')
    expect(e).not.toHaveProperty('service')
  })

  it('reads flat dotted keys (an export that flattened the attributes)', () => {
    expect(event({type: 'resource', timestamp: '2026-11-30T07:18:26.074Z', 'session.id': 's', 'view.id': 'v', 'resource.url': 'https://h/a.js?x=1#y', 'resource.status_code': 404}))
      .toEqual({kind: 'resource', time: Date.parse('2026-11-30T07:18:26.074Z'), session: 's', view: 'v', resource: {url: 'https://h/a.js?x=1#y', path: '/a.js', status: 404}})
  })
})

describe('normalizeRum: the types read and the types ignored', () => {
  const wrapped = (type: string): unknown => {
    const i = copy(at(CAPTURE, 0))
    i.attributes.attributes.type = type
    return i
  }
  it.each(['action', 'long_task', 'vital', 'session', 'view_update', 'transition'])('ignores %s events: valid RUM, not read, not skipped', (type) => {
    expect(normalizeRum(wrapped(type))).toEqual({ok: false, ignored: type})
    expect(normalizeRum({...SDK_VIEW, type})).toEqual({ok: false, ignored: type})
  })

  it('ignores any other type the API calls RUM, and skips one a bare object names (type is a common key)', () => {
    expect(normalizeRum(wrapped('frustration'))).toEqual({ok: false, ignored: 'frustration'})
    expect(normalizeRum({...SDK_VIEW, type: 'access'})).toMatchObject({ok: false, reason: 'unknown-format', detail: 'type "access" is no RUM event type'})
  })

  it('ignores the events of a Synthetic Monitoring browser test (session.type synthetics or ci_test): no person', () => {
    for (const type of ['synthetics', 'ci_test']) {
      const i = copy(at(CAPTURE, 0))
      ;(i.attributes.attributes.session as {type: string}).type = type
      expect(normalizeRum(i)).toEqual({ok: false, ignored: `view of a ${type} session`})
    }
    expect(normalizeRum(copy(at(CAPTURE, 0)))).toMatchObject({ok: true})
  })

  it('ignores an action whatever it lacks: it is not read', () => {
    expect(normalizeRum({type: 'action', date: 'never'})).toEqual({ok: false, ignored: 'action'})
  })
})

describe('normalizeRum: records skipped, with their reason', () => {
  const item = (): Item => copy(at(CAPTURE, 10))
  const inner = (i: Item): Record<string, unknown> => i.attributes.attributes
  const outcome = (f: (i: Item) => void): RumOutcome => {
    const i = item()
    f(i)
    return normalizeRum(i)
  }

  it('skips what is no object, and objects that are no RUM event (a log, no type)', () => {
    expect(normalizeRum([1, 2])).toMatchObject({ok: false, reason: 'not-an-object', detail: 'a JSON array where a RUM event was expected'})
    expect(normalizeRum('view')).toMatchObject({ok: false, reason: 'not-an-object'})
    expect(normalizeRum(null)).toMatchObject({ok: false, reason: 'not-an-object', detail: 'a JSON null where a RUM event was expected'})
    const log = {id: 'AQAAAYAZdbh47dGwNwAAAABBWUFaZGJyMUFBQ0s4OEN3YmZ1UDJRQUI', type: 'log', attributes: {timestamp: '2022-04-11T16:29:47.000Z', message: 'GET / 200', attributes: {http: {status_code: 200}}}}
    expect(normalizeRum(log)).toMatchObject({ok: false, reason: 'unknown-format'})
    expect(normalizeRum({remote_addr: '1.2.3.4', request: 'GET / HTTP/1.1'})).toEqual({ok: false, reason: 'unknown-format', detail: 'no RUM event type: a JSON object with keys "remote_addr", "request"'})
  })

  it('skips an event without a time (missing-time) or with one that is no time (bad-time)', () => {
    expect(outcome((i) => delete (i.attributes as Partial<Item['attributes']>).timestamp)).toEqual({ok: false, reason: 'missing-time'})
    expect(outcome((i) => (i.attributes.timestamp = 'yesterday'))).toEqual({ok: false, reason: 'bad-time', detail: '"yesterday"'})
    expect(outcome((i) => (i.attributes.timestamp = '2026-02-30T07:18:31.937Z'))).toMatchObject({ok: false, reason: 'bad-time'})
    expect(normalizeRum({...SDK_VIEW, date: -5})).toMatchObject({ok: false, reason: 'bad-time', detail: '"-5"'})
  })

  it('skips an event of no session (missing-session) or no view (missing-view)', () => {
    expect(outcome((i) => delete inner(i).session)).toEqual({ok: false, reason: 'missing-session', detail: 'an error event without session.id'})
    expect(outcome((i) => (inner(i).session = {id: {}}))).toMatchObject({ok: false, reason: 'missing-session'})
    expect(outcome((i) => (inner(i).view = {url: 'https://webapp.lab.test/'}))).toEqual({ok: false, reason: 'missing-view', detail: 'an error event without view.id'})
  })

  it('skips a resource without a URL (missing-path) and an error without a message (missing-message)', () => {
    const res = copy(at(CAPTURE, 1))
    delete (res.attributes.attributes.resource as Record<string, unknown>).url
    expect(normalizeRum(res)).toEqual({ok: false, reason: 'missing-path', detail: 'a resource event without resource.url'})
    expect(outcome((i) => ((inner(i).error as Record<string, unknown>).message = ''))).toEqual({ok: false, reason: 'missing-message', detail: 'an error event without error.message'})
  })
})

describe('normalizeRum: values', () => {
  it('takes a number where text is expected as its decimal text, and leaves objects and arrays out', () => {
    const e = event({...SDK_VIEW, usr: {id: 1586212}, application: {id: ['x']}, service: {name: 'web'}, view: {id: 42, url: {}}})
    expect(e).toMatchObject({user: '1586212', view: '42'})
    for (const k of ['application', 'service', 'viewUrl']) expect(e).not.toHaveProperty(k)
  })

  it('reads a status and a size given as digits, leaves out ones that are no count, and takes decoded_body_size for a missing size (not encoded_body_size)', () => {
    const res = (resource: Record<string, unknown>): unknown => event({...SDK_VIEW, type: 'resource', resource: {url: 'https://h/a.js', ...resource}}).resource
    expect(res({status_code: '404', size: '3385'})).toEqual({url: 'https://h/a.js', path: '/a.js', status: 404, size: 3385})
    expect(res({status_code: 0})).toEqual({url: 'https://h/a.js', path: '/a.js', status: 0})
    expect(res({status_code: 1000, size: -1})).toEqual({url: 'https://h/a.js', path: '/a.js'})
    expect(res({status_code: 200.5, size: 'big'})).toEqual({url: 'https://h/a.js', path: '/a.js'})
    expect(res({decoded_body_size: 3385, encoded_body_size: 1200})).toMatchObject({size: 3385})
    expect(res({encoded_body_size: 1200})).not.toHaveProperty('size')
    expect(res({size: 10, decoded_body_size: 3385})).toMatchObject({size: 10})
  })

  it('bounds every text field to 2048 characters, two long values still told apart', () => {
    const long = (c: string): string => `https://h/${c.repeat(10_000)}.js?q`
    const e1 = event({...SDK_VIEW, type: 'error', error: {message: 'm'.repeat(5000), resource: {url: long('a')}}, session: {id: 's'.repeat(3000), ip: '1.2.3.4', useragent: 'u'.repeat(9000)}})
    const e2 = event({...SDK_VIEW, type: 'error', error: {message: 'm'.repeat(5000), resource: {url: long('b')}}, session: {id: 's'.repeat(3001)}})
    const texts = (e: RumFields): string[] => [e.session, e.userAgent ?? '', e.error?.message ?? '', e.error?.url ?? '', e.error?.path ?? '']
    for (const t of texts(e1)) expect(t.length).toBeLessThanOrEqual(MAX_FIELD_LENGTH)
    expect(e1.error?.url).not.toBe(e2.error?.url)
    expect(e1.error?.path).not.toBe(e2.error?.path)
    expect(e1.session).not.toBe(e2.session)
    expect(e1.clientIp).toBe('1.2.3.4')
    expect(e1.error?.url?.startsWith('https://h/aaa')).toBe(true)
  })
})

describe('normalizeRum: any mutation of a real item (property)', () => {
  const REASONS = new Set([...KNOWN_REASONS, 'missing-session', 'missing-view', 'missing-message'])
  const texts = (e: RumFields): unknown[] => [
    e.session, e.view, e.id, e.viewUrl, e.loadingType, e.version, e.service, e.application, e.user, e.clientIp, e.userAgent,
    e.resource?.url, e.resource?.path, e.resource?.type, e.error?.message, e.error?.source, e.error?.type, e.error?.url, e.error?.path,
  ]
  /** What is wrong with an outcome, or undefined. */
  const problem = (r: RumOutcome): string | undefined => {
    if (!r.ok) {
      if ('ignored' in r) return typeof r.ignored === 'string' && r.ignored !== '' ? undefined : `ignored ${String(r.ignored)}`
      if (!REASONS.has(r.reason)) return `unknown reason ${r.reason}`
      return (r.detail ?? '').length > 120 ? `detail of ${(r.detail ?? '').length} characters` : undefined
    }
    const e = r.event
    if (!['view', 'resource', 'error'].includes(e.kind)) return `kind ${e.kind}`
    if (!Number.isFinite(e.time) || Number.isNaN(new Date(e.time).getTime())) return `time ${e.time}`
    if (e.session === '' || e.view === '') return 'empty session or view'
    for (const t of texts(e)) if (t !== undefined && (typeof t !== 'string' || t.length > MAX_FIELD_LENGTH || t === '')) return `text ${JSON.stringify(t)?.slice(0, 40)}`
    if (e.kind === 'resource' && e.resource === undefined) return 'a resource without its request'
    if (e.kind === 'error' && e.error === undefined) return 'an error without its error'
    for (const n of [e.resource?.status, e.resource?.size]) if (n !== undefined && !(Number.isSafeInteger(n) && n >= 0)) return `count ${n}`
    return undefined
  }

  it('never throws, and gives a well-formed event, an ignored type or a known reason', () => {
    const items = [...CAPTURE, ...RECORDED, SDK_VIEW].map((v, i) => ({v, i}))
    fc.assert(fc.property(fc.constantFrom(...items), fc.array(jsonMutation, {minLength: 1, maxLength: 4}), ({v}, ms) => {
      const mutated = mutateJsonAll(v, ms)
      const r = normalizeRum(mutated)
      const p = problem(r)
      if (p !== undefined) throw new Error(p)
    }), settings(0x7a3, 1000))
  })
})
