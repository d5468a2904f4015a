import {affinitySetCookie, cookieValue, type Endpoint, endpointKey, route, type RouteInput} from '../../../src/lab/routing'

const ep = (name: string): Endpoint => ({name, address: `127.0.0.1:${name.length * 1000}`, key: `key-${name}`})
const [a1, a2, a3, b1, b2] = ['a1', 'a2', 'a3', 'b1', 'b2'].map(ep) as [Endpoint, Endpoint, Endpoint, Endpoint, Endpoint]
/** A "random" source that returns the given numbers in turn. */
const seq = (...xs: number[]) => () => xs.shift() ?? 0
const input = (over: Partial<RouteInput>): RouteInput => ({
  affinity: 'none', targets: [a1, a2, a3], reachable: [a1, a2, a3], cookie: undefined, document: false, excluded: new Set(), rr: 0, random: seq(0), ...over,
})

describe('the balancer\'s routing decision', () => {
  it('round-robin walks the pods taking traffic in turn, skipping pods already tried', () => {
    let rr = 0
    const picks: string[] = []
    for (let i = 0; i < 5; i++) {
      const d = route(input({rr}))
      picks.push(d?.endpoint.name ?? '-')
      rr = d?.rr ?? rr
    }
    expect(picks).toEqual(['a1', 'a2', 'a3', 'a1', 'a2'])
    expect(route(input({rr: 0, excluded: new Set(['a1'])}))?.endpoint.name).toBe('a2')
    expect(route(input({cookie: 'key-a3'}))?.setCookie).toBeUndefined()
    expect(route(input({targets: [], reachable: []}))).toBeUndefined()
  })

  it('cookie: a new session gets a random pod taking traffic, and the cookie is set', () => {
    expect(route(input({affinity: 'cookie', random: seq(0.5)}))).toEqual({endpoint: a2, setCookie: 'key-a2', rr: 0})
    expect(route(input({affinity: 'cookie', random: seq(0.99)}))?.endpoint).toBe(a3)
  })

  it('cookie: a pod keeps its sessions while it lives, for pages and assets alike', () => {
    for (const document of [true, false]) {
      expect(route(input({affinity: 'cookie', cookie: 'key-a3', document, random: seq(0)}))).toEqual({endpoint: a3, rr: 0})
    }
  })

  it('cookie: when the pod is gone the session moves to a random live pod, whatever its build, and the cookie is set again', () => {
    const live = [a3, b1, b2]
    expect(route(input({affinity: 'cookie', cookie: 'key-a1', targets: live, reachable: live, random: seq(0.4)}))).toEqual({endpoint: b1, setCookie: 'key-b1', rr: 0})
    expect(route(input({affinity: 'cookie', cookie: 'garbage', targets: live, reachable: live, random: seq(0)}))?.endpoint).toBe(a3)
  })

  it('cookie: a pod that refused the connection is not picked again for that request', () => {
    const d = route(input({affinity: 'cookie', cookie: 'key-a1', excluded: new Set(['a1']), random: seq(0)}))
    expect(d).toEqual({endpoint: a2, setCookie: 'key-a2', rr: 0})
  })

  it('cookie after a blue/green switch: a draining pod keeps its sessions\' assets but not their next page', () => {
    const after = {affinity: 'cookie' as const, targets: [b1, b2], reachable: [b1, b2, a1, a2], cookie: 'key-a1'}
    expect(route(input({...after, document: false}))).toEqual({endpoint: a1, rr: 0})
    expect(route(input({...after, document: true, random: seq(0.7)}))).toEqual({endpoint: b2, setCookie: 'key-b2', rr: 0})
    // Round-robin has no sessions: after the switch only the new pods get traffic.
    expect(route(input({...after, affinity: 'none'}))?.endpoint).toBe(b1)
  })

  it('reads and writes the INGRESSCOOKIE', () => {
    expect(cookieValue('a=1; INGRESSCOOKIE=abc|def ; b=2', 'INGRESSCOOKIE')).toBe('abc|def')
    expect(cookieValue(undefined, 'INGRESSCOOKIE')).toBeUndefined()
    expect(affinitySetCookie('abc')).toBe('INGRESSCOOKIE=abc; Path=/; HttpOnly')
    expect(endpointKey('127.0.0.1:1', 's')).toMatch(/^[0-9a-f]{40}$/)
    expect(endpointKey('127.0.0.1:1', 's')).not.toBe(endpointKey('127.0.0.1:2', 's'))
  })
})
