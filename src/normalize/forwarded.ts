import {BlockList, isIP} from 'node:net'
import type {AccessFields} from '../model/parse-outcome'

/**
 * X-Forwarded-For chains: `client, proxy1, proxy2`, each proxy appending the address it got the
 * request from. Anyone can send the header, so its hops are text: `unknown` (nginx's
 * `$proxy_add_x_forwarded_for` after a proxy that knew no address), `-`, an RFC 7239 obfuscated
 * node (`_hidden`), a name, garbage. Only hops that are IP addresses can be a client: the others are
 * skipped, else every request behind them would be one user.
 */

/** The IP address a hop names (`1.2.3.4`, `1.2.3.4:5678`, `[2001:db8::1]:443`, `2001:db8::1`, quoted or not), or undefined. */
export function hopAddress(hop: string): string | undefined {
  let h = hop.trim()
  if (h.length > 1 && h.charCodeAt(0) === 34 && h.charCodeAt(h.length - 1) === 34) h = h.slice(1, -1).trim()
  if (h.charCodeAt(0) === 91) {
    const close = h.indexOf(']')
    h = close > 0 ? h.slice(1, close) : h
  } else {
    const colon = h.indexOf(':')
    if (colon > 0 && colon === h.lastIndexOf(':')) h = h.slice(0, colon)
  }
  const zone = h.indexOf('%')
  const bare = zone > 0 ? h.slice(0, zone) : h
  return isIP(bare) === 0 ? undefined : h
}

/** A hop that stands for no node: `-`, `unknown`, an RFC 7239 obfuscated identifier (`_hidden`), nothing. */
export function isPlaceholderHop(hop: string): boolean {
  const h = hop.trim()
  return h === '' || h === '-' || h.charCodeAt(0) === 95 || h.toLowerCase() === 'unknown'
}

/** The hops of a chain (split at commas), in order. */
export function splitHops(list: string): string[] {
  return list.split(',').map((x) => x.trim()).filter((x) => x !== '')
}

/** The addresses among hops, in order. */
function hopAddresses(hops: readonly string[]): string[] {
  const out: string[] = []
  for (const h of hops) {
    const a = hopAddress(h)
    if (a !== undefined) out.push(a)
  }
  return out
}

/** Filebeat's isPrivate: IPv4 10/8, 192.168/16, 172.16/12, 127/8; anything else (IPv6) is not. */
function isPrivateIpv4(x: string): boolean {
  const m = /^(\d{1,3})\.(\d{1,3})\./.exec(x)
  if (!m) return false
  const a = Number(m[1])
  const b = Number(m[2])
  return a === 10 || a === 127 || (a === 192 && b === 168) || (a === 172 && b >= 16 && b <= 31)
}

/** The client of a chain as the header's writer said: its first address; with `publicFirst`, its first address that is not private, else its first. */
export function firstClient(hops: readonly string[], publicFirst = false): string | undefined {
  const addresses = hopAddresses(hops)
  return (publicFirst ? addresses.find((x) => !isPrivateIpv4(x)) : undefined) ?? addresses[0]
}

/** A compiled `--trusted-proxies` list. */
export interface TrustedProxies {
  has(address: string): boolean
}

/** `10.0.0.0/8,2001:db8::/32,192.0.2.7`: the CIDRs (or single addresses) of the proxies that append to the chain. Throws naming an entry that is none. */
export function compileTrusted(cidrs: readonly string[]): TrustedProxies {
  const list = new BlockList()
  for (const raw of cidrs) {
    const c = raw.trim()
    const slash = c.indexOf('/')
    const address = slash < 0 ? c : c.slice(0, slash)
    const family = isIP(address)
    const prefix = slash < 0 ? (family === 4 ? 32 : 128) : Number(c.slice(slash + 1))
    if (family === 0 || !/^\d{1,3}$/.test(slash < 0 ? String(prefix) : c.slice(slash + 1)) || prefix > (family === 4 ? 32 : 128)) {
      throw new Error(`not an address or CIDR: ${JSON.stringify(c)}`)
    }
    list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6')
  }
  return {
    has: (a: string): boolean => {
      const zone = a.indexOf('%')
      const bare = zone > 0 ? a.slice(0, zone) : a
      const family = isIP(bare)
      if (family === 0) return false
      if (list.check(bare, family === 4 ? 'ipv4' : 'ipv6')) return true
      // An IPv4 address written as IPv6 (`::ffff:10.0.0.1`) is the IPv4 address.
      const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)?.[1]
      return mapped !== undefined && list.check(mapped, 'ipv4')
    },
  }
}

/**
 * The client of a chain whose right-most hops were added by trusted proxies: the right-most
 * address that is not a trusted proxy (hops that are no address skipped); when every address is
 * trusted, the left-most. Undefined when the chain holds no address.
 */
export function trustedClient(hops: readonly string[], trusted: TrustedProxies): string | undefined {
  const addresses = hopAddresses(hops)
  for (let i = addresses.length - 1; i >= 0; i--) {
    const a = addresses[i] as string
    if (!trusted.has(a)) return a
  }
  return addresses[0]
}

/**
 * Chains of the events read, for `--trusted-proxies` (applied in applyMapping): readers record
 * the hops as logged (the header's, then the address the request came from) beside the event,
 * not in it, so events keep one shape whether or not a chain was logged.
 */
const CHAINS = new WeakMap<AccessFields, readonly string[]>()

/** Records the chain an event's client was chosen from. */
export function withChain<T extends AccessFields>(event: T, hops: readonly string[]): T {
  if (hops.length > 1) CHAINS.set(event, hops)
  return event
}

export function chainOf(event: AccessFields): readonly string[] | undefined {
  return CHAINS.get(event)
}
