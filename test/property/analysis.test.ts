/**
 * Issue 14 (hardening): the analysis the renderers' reports come from, given the scenario's
 * requests spread over several apps, some of them read twice (the same request id, path, status,
 * bytes and client: a copy, dropped as a duplicate), in any order within a second, never throws,
 * and every time in its report has an ISO form.
 */
import fc from 'fast-check'
import {Analyzer} from '../../src/analysis/analyzer'
import {DEFAULT_OPTIONS} from '../../src/analysis/options'
import type {AccessEvent} from '../../src/model/access-event'
import {SCENARIO} from '../helpers/bad-input-corpus'
import {settings} from '../helpers/hostile'

const APPS = ['default-web-8080', 'default-shop-8080', 'default-blog-8080']

/** One request of the scenario (by index), under an app, with its request id logged or not. */
const request = fc.record({k: fc.nat({max: SCENARIO.length - 1}), app: fc.nat({max: APPS.length - 1}), id: fc.boolean()})

function eventOf({k, app, id}: {k: number; app: number; id: boolean}, line: number): AccessEvent {
  const e = SCENARIO[k] as (typeof SCENARIO)[number]
  return {
    time: e.t * 1000, resolutionMs: 1000, method: e.method, path: e.path, status: e.status, bytes: e.bytes, clientIp: e.ip, userAgent: e.ua,
    ...(e.upstream ? {upstream: e.upstream} : {}), upstreamName: APPS[app] as string, ...(id ? {requestId: e.id} : {}), location: {file: 'ingress.log', line},
  }
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const TIME_KEYS = new Set(['start', 'end', 'firstSeen', 'lastSeen', 'firstServed', 'lastServed', 'firstFailure', 'lastFailure', 'time'])

function times(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) times(x, out)
  else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (TIME_KEYS.has(k) && typeof x === 'string') out.push(x)
      else times(x, out)
    }
  }
  return out
}

describe('the analysis of the scenario over several apps, with copies', () => {
  it('the scenario read once under each app gives each app its two builds', () => {
    const a = new Analyzer(DEFAULT_OPTIONS)
    const events = APPS.flatMap((_, app) => SCENARIO.map((_, k) => eventOf({k, app, id: true}, k + 1))).sort((x, y) => x.time - y.time)
    // The same request ids under three apps, but each app's requests differ from the others' only by app: copies.
    for (const e of events) a.push({...e, requestId: `${e.upstreamName}:${e.requestId}`})
    const out = a.finish([])
    expect(out.builds).toHaveLength(2 * APPS.length)
  })

  it('never throws, and every time it reports is an ISO time', () => {
    // The scenario under the first app, more of its requests under any app, and copies of some of them under another app.
    const copy = fc.record({of: fc.nat(), app: fc.nat({max: APPS.length - 1})})
    fc.assert(fc.property(fc.array(request, {maxLength: 20}), fc.array(copy, {maxLength: 12}), fc.boolean(), (more, copies, detail) => {
      const requests = [...SCENARIO.map((_, k) => ({k, app: 0, id: true})), ...more]
      const copied = copies.map(({of, app}) => ({...(requests[of % requests.length] as (typeof requests)[number]), app}))
      const a = new Analyzer({...DEFAULT_OPTIONS, detail}, () => {})
      const events = [...requests, ...copied].map((r, i) => eventOf(r, i + 1)).sort((x, y) => x.time - y.time)
      for (const e of events) a.push(e)
      const out = a.finish([])
      for (const t of times(out)) expect(t).toMatch(ISO)
    }), settings(0xa7a, 200))
  })
})
