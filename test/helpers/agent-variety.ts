/**
 * A day of test/helpers/datadog-day.ts with its people's user agents as varied as real traffic's
 * (issue 27 item 2): each person's agent (per address and original agent) rewritten to a realistic
 * browser string (browser, version, operating system, device model, in-app browsers' build
 * numbers), seeded by the address, so a day holds thousands of distinct agents. Crawlers', scanners'
 * and the probe's agents (as src/util/agent-kind.ts tells them) are kept.
 */
import {hash32, mulberry32} from '../../scripts/fixture-generator/rng'
import {AgentClassifier} from '../../src/util/agent-kind'
import type {Day, DayItem} from './datadog-day'

type Random = () => number
const pick = <T>(r: Random, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T
const int = (r: Random, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1))

const ANDROID_MODELS = ['SM-S928B', 'SM-S918B', 'SM-A546B', 'SM-A256B', 'SM-G991B', 'Pixel 8', 'Pixel 7a', 'Pixel 6', '23129RAA4G', 'CPH2581', 'RMX3710', 'moto g54 5G', 'NE2213', 'XQ-DQ54', 'A142']
const IOS = ['18_1_1', '18_0', '17_6_1', '17_5_1', '17_4_1', '17_2_1', '16_7_10', '16_6_1', '15_8_3']
const MAC = ['10_15_7', '14_6_1', '13_6_9']

/** A browser's user agent as real logs show them: the long tail of versions, systems and devices makes thousands. */
export function browserAgent(r: Random): string {
  const chrome = `${int(r, 109, 131)}.0.${int(r, 5414, 6778)}.${int(r, 0, 204)}`
  const k = r()
  if (k < 0.3) return `Mozilla/5.0 (${pick(r, ['Windows NT 10.0; Win64; x64', `Macintosh; Intel Mac OS X ${pick(r, MAC)}`, 'X11; Linux x86_64', 'X11; CrOS x86_64 15917.71.0'])}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${chrome} Safari/537.36`
  if (k < 0.4) return `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${chrome} Safari/537.36 Edg/${chrome.split('.')[0]}.0.${int(r, 2365, 2903)}.${int(r, 0, 120)}`
  if (k < 0.6) return `Mozilla/5.0 (Linux; Android ${int(r, 10, 15)}; ${pick(r, ANDROID_MODELS)}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${chrome} Mobile Safari/537.36`
  if (k < 0.65) return `Mozilla/5.0 (Linux; Android ${int(r, 11, 14)}; ${pick(r, ANDROID_MODELS)}) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/${int(r, 20, 26)}.0 Chrome/${chrome} Mobile Safari/537.36`
  const ios = pick(r, IOS)
  const safari = ios.split('_').slice(0, 2).join('.')
  if (k < 0.8) return `Mozilla/5.0 (${pick(r, ['iPhone; CPU iPhone OS', 'iPad; CPU OS'])} ${ios} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${safari} Mobile/15E148 Safari/604.1`
  if (k < 0.85) return `Mozilla/5.0 (iPhone; CPU iPhone OS ${ios} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/${int(r, 480, 491)}.0.0.${int(r, 30, 66)}.${int(r, 80, 110)};FBBV/${int(r, 600_000_000, 699_999_999)};FBDV/iPhone${int(r, 12, 17)},${int(r, 1, 8)};FBMD/iPhone;FBSN/iOS;FBSV/${ios.replace(/_/g, '.')};FBSS/3;FBCR/;FBID/phone;FBLC/en_US;FBOP/5]`
  if (k < 0.92) {
    const v = int(r, 115, 133)
    return `Mozilla/5.0 (${pick(r, ['Windows NT 10.0; Win64; x64', 'Macintosh; Intel Mac OS X 10.15', 'X11; Ubuntu; Linux x86_64'])}; rv:${v}.0) Gecko/20100101 Firefox/${v}.0`
  }
  return `Mozilla/5.0 (Macintosh; Intel Mac OS X ${pick(r, MAC)}) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${int(r, 15, 18)}.${int(r, 0, 6)} Safari/605.1.15`
}

/** The day with each person's agent (per address and agent) a browser string of its own; others' agents kept. */
export function withAgentVariety(day: Day): Day {
  const agents = new AgentClassifier()
  const given = new Map<string, string>()
  const items = day.items.map((item): DayItem => {
    const outer = item.attributes as {message?: string; attributes: {http?: Record<string, unknown>; network?: {client?: {ip?: string}}}}
    const inner = outer.attributes
    const old = inner.http?.useragent
    if (typeof old !== 'string' || agents.kind(old) !== undefined) return item
    const key = `${inner.network?.client?.ip ?? ''}\u0000${old}`
    let agent = given.get(key)
    if (agent === undefined) given.set(key, (agent = browserAgent(mulberry32(hash32(key)))))
    // The raw access line names the agent too, last of its quoted fields but the upstream part.
    const message = typeof outer.message === 'string' ? replaceLast(outer.message, `"${old}"`, `"${agent}"`) : outer.message
    return {...item, attributes: {...outer, message, attributes: {...inner, http: {...inner.http, useragent: agent}}}}
  })
  return {...day, items}
}

function replaceLast(text: string, find: string, put: string): string {
  const at = text.lastIndexOf(find)
  return at === -1 ? text : `${text.slice(0, at)}${put}${text.slice(at + find.length)}`
}
