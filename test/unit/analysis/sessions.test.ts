/**
 * Which page load an asset request belongs to (SessionTracker.pageLoadFor): the referer's page, the
 * asset's build, the newest; only live page loads; only those the asset fits when any live one does;
 * and `fits` asked only where it can change the answer (a session may hold 64 live page loads).
 */
import type {Build} from '../../../src/analysis/builds'
import {type AssetFit, type PageLoad, SessionTracker} from '../../../src/analysis/sessions'

const HORIZON = 30 * 60_000
const A = {id: 'A'} as unknown as Build
const B = {id: 'B'} as unknown as Build

/** A tracker with one session `s` whose page loads start at the given times, on the given paths and builds. */
function session(loads: {at: number; path?: string; build?: Build}[]): {t: SessionTracker; pls: PageLoad[]} {
  const t = new SessionTracker(HORIZON)
  const pls = loads.map((l) => t.startPageLoad('s', l.at, l.path ?? '/', l.build))
  return {t, pls}
}

/** The asset's path every case below asks about, passed beside the fit (pageLoadFor's last argument). */
const PATH = '/assets/chunk-1a2b3c4d.js'

/** `fits` as the analysis's build evidence is asked it: of the asset's path, which must be the one asked about. */
const fit = (fits: (pl: PageLoad) => boolean): AssetFit => ({
  fits: (path, pl) => {
    if (path !== PATH) throw new Error(`asked about ${path}, not the asset's path`)
    return fits(pl)
  },
})

describe('the page load of an asset request', () => {
  it('is the newest live one, else the one the referer names, else one of the asset\'s build', () => {
    const {t, pls} = session([{at: 0, path: '/a', build: A}, {at: 1000, path: '/b', build: B}, {at: 2000, path: '/c', build: B}])
    expect(t.pageLoadFor('s', 3000, undefined)).toBe(pls[2])
    expect(t.pageLoadFor('s', 3000, '/b')).toBe(pls[1])
    expect(t.pageLoadFor('s', 3000, undefined, A)).toBe(pls[0])
    expect(t.pageLoadFor('s', 3000, '/b', A)).toBe(pls[0])
    expect(t.pageLoadFor('other', 3000, undefined)).toBeUndefined()
  })

  it('never one that started later or went idle past the horizon', () => {
    const {t, pls} = session([{at: 0}, {at: 5000}])
    expect(t.pageLoadFor('s', 4000, undefined)).toBe(pls[0])
    expect(t.pageLoadFor('s', HORIZON + 1000, undefined)).toBe(pls[1])
    expect(t.pageLoadFor('s', HORIZON + 6000, undefined)).toBeUndefined()
  })

  it('only among the live ones the asset fits, when it fits any; among all of them when it fits none', () => {
    const {t, pls} = session([{at: 0, path: '/a'}, {at: 1000, path: '/b'}, {at: 2000, path: '/c'}])
    expect(t.pageLoadFor('s', 3000, undefined, undefined, fit((pl) => pl === pls[0]), PATH)).toBe(pls[0])
    expect(t.pageLoadFor('s', 3000, '/c', undefined, fit((pl) => pl !== pls[2]), PATH)).toBe(pls[1])
    expect(t.pageLoadFor('s', 3000, '/b', undefined, fit(() => false), PATH)).toBe(pls[1])
    expect(t.pageLoadFor('s', 3000, undefined, undefined, fit(() => false), PATH)).toBe(pls[2])
  })

  it('a page load gone idle that the asset fits keeps no live one from taking it', () => {
    const {t, pls} = session([{at: 0}, {at: HORIZON}, {at: HORIZON + 1000}])
    const live = HORIZON + 2000
    expect(t.pageLoadFor('s', live, undefined, undefined, fit((pl) => pl === pls[0]), PATH)).toBe(pls[2])
  })

  it('a single page load is taken without asking whether the asset fits it', () => {
    const {t, pls} = session([{at: 0}])
    let asked = 0
    expect(t.pageLoadFor('s', 1000, undefined, undefined, fit(() => ++asked < 0), PATH)).toBe(pls[0])
    expect(asked).toBe(0)
  })

  it('asks whether it fits only of page loads that can change the answer: of 64 live ones, the newest when it fits', () => {
    const {t, pls} = session(Array.from({length: 64}, (_x, k) => ({at: k * 1000, path: `/p${k % 4}`, build: k % 2 === 0 ? A : B})))
    const asked: PageLoad[] = []
    const fits = (pl: PageLoad): boolean => asked.push(pl) > 0
    expect(t.pageLoadFor('s', 70_000, undefined, undefined, fit(fits), PATH)).toBe(pls[63])
    expect(asked).toEqual([pls[63]])
    // With a referer and an owner: the newest, then the newest of the referer's path and of the
    // owner's build, then the newest of both (taken at once).
    asked.length = 0
    expect(t.pageLoadFor('s', 70_000, '/p2', A, fit(fits), PATH)).toBe(pls[62])
    expect(asked).toEqual([pls[63], pls[62]])
    // The asset fits only the oldest: every live page load is asked, once.
    asked.length = 0
    expect(t.pageLoadFor('s', 70_000, undefined, undefined, fit((pl) => asked.push(pl) > 0 && pl === pls[0]), PATH)).toBe(pls[0])
    expect(asked).toHaveLength(64)
    expect(new Set(asked).size).toBe(64)
  })

  it('a session keeps its 64 newest page loads: the 65th forgets the oldest', () => {
    const {t, pls} = session(Array.from({length: 70}, (_x, k) => ({at: k * 1000})))
    const asked: PageLoad[] = []
    expect(t.pageLoadFor('s', 80_000, undefined, undefined, fit((pl) => asked.push(pl) > 0 && pl === pls[0]), PATH)).toBe(pls[69])
    expect(asked).toEqual(pls.slice(6).reverse())
    expect(t.pageLoadFor('s', 80_000, undefined, undefined, fit((pl) => pl === pls[6]), PATH)).toBe(pls[6])
  })
})

describe('the sweep of sessions (expire)', () => {
  /** The page loads the tracker holds for a session (its own list, read as it is). */
  const held = (t: SessionTracker, key: string): PageLoad[] | undefined =>
    (t as unknown as {sessions: Map<string, {pageLoads: PageLoad[]}>}).sessions.get(key)?.pageLoads

  it('lets go of a live session\'s page loads idle past the horizon, and of sessions idle past it, keeping the rest in order', () => {
    const t = new SessionTracker(HORIZON)
    const old = t.startPageLoad('s', 0, '/old', undefined)
    const mid = t.startPageLoad('s', 1000, '/mid', undefined)
    const late = t.startPageLoad('s', HORIZON, '/late', undefined)
    t.touch('s', mid, HORIZON / 2)
    const gone = t.startPageLoad('idle', 500, '/', undefined)
    const list = held(t, 's')
    // At HORIZON + 1000: `old` idle since 0, `mid` since HORIZON / 2, `late` since HORIZON.
    t.expire(HORIZON + 1000)
    expect(held(t, 's')).toEqual([mid, late])
    // The session's own list, not a new one each sweep.
    expect(held(t, 's')).toBe(list)
    expect(held(t, 'idle')).toBeUndefined()
    expect(t.size).toBe(1)
    // Idle exactly the horizon, a page load is still live (sweeps come at most every eighth of it).
    t.expire(HORIZON / 2 + HORIZON)
    expect(held(t, 's')).toEqual([mid, late])
    t.expire(HORIZON / 2 + HORIZON + HORIZON / 8)
    expect(held(t, 's')).toEqual([late])
    // What was let go of is as it was: a failure's page load stays with the failure.
    expect([old.path, gone.path]).toEqual(['/old', '/'])
  })
})
