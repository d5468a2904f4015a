import {createHash} from 'node:crypto'

/** ingress-nginx's default session-affinity cookie. */
export const AFFINITY_COOKIE = 'INGRESSCOOKIE'

export type Affinity = 'none' | 'cookie'

/** A pod as the balancer sees it. */
export interface Endpoint {
  name: string
  /** `127.0.0.1:port` */
  address: string
  /** What the affinity cookie holds for this pod: a salted hash of its address. */
  key: string
}

export interface RouteInput {
  affinity: Affinity
  /** Pods that take new traffic, oldest first. */
  targets: readonly Endpoint[]
  /** Pods an affinity cookie may still reach: the targets plus pods draining after a blue/green switch. */
  reachable: readonly Endpoint[]
  /** The affinity cookie's value as the request carried it. */
  cookie: string | undefined
  /** A page load (not an asset): a draining pod keeps its sessions' assets, never their new pages. */
  document: boolean
  /** Pods already tried for this request (a connection failed). */
  excluded: ReadonlySet<string>
  /** The round-robin position. */
  rr: number
  random: () => number
}

export interface RouteDecision {
  endpoint: Endpoint
  /** The value to set in the affinity cookie (only when the pick is new). */
  setCookie?: string
  /** The next round-robin position. */
  rr: number
}

/**
 * The balancer's choice for one request. Round-robin: the next pod in the rotation. Cookie affinity
 * behaves like ingress-nginx's `persistent` mode: a cookie naming a pod that is still there keeps
 * the request on it; no cookie, or a pod that is gone, means a uniformly random pick among the pods
 * taking traffic, and the cookie is set again. Nothing here knows about builds, which is the point.
 * A pod left draining by a blue/green switch still answers its sessions' asset requests, but their
 * next page load is pinned to a pod taking traffic: the balancer knows the old pods are about to go.
 */
export function route(input: RouteInput): RouteDecision | undefined {
  const usable = (e: Endpoint): boolean => !input.excluded.has(e.name)
  if (input.affinity === 'cookie') {
    const pinned = input.cookie === undefined ? undefined : input.reachable.find((e) => e.key === input.cookie && usable(e))
    if (pinned && (!input.document || input.targets.includes(pinned))) return {endpoint: pinned, rr: input.rr}
    const candidates = input.targets.filter(usable)
    const pick = candidates[Math.floor(input.random() * candidates.length)]
    return pick ? {endpoint: pick, setCookie: pick.key, rr: input.rr} : undefined
  }
  const candidates = input.targets.filter(usable)
  if (candidates.length === 0) return undefined
  const endpoint = candidates[input.rr % candidates.length] as Endpoint
  return {endpoint, rr: input.rr + 1}
}

/** The cookie key of a pod: stable for its address, opaque to the browser. */
export function endpointKey(address: string, salt: string): string {
  return createHash('sha1').update(`${salt}|${address}`).digest('hex')
}

/** A cookie's value from a Cookie header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

/** The Set-Cookie header for an affinity pick, as ingress-nginx sends it by default (session cookie, path /). */
export function affinitySetCookie(value: string): string {
  return `${AFFINITY_COOKIE}=${value}; Path=/; HttpOnly`
}
