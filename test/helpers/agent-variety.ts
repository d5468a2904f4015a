/**
 * A day of test/helpers/datadog-day.ts with its people's user agents as varied as real traffic's
 * (issue 27 item 2): each person's agent (per address and original agent) rewritten to a realistic
 * browser string (./browser-agents.ts, as the realistic day draws them), seeded by the address, so
 * a day of the captures' visitors holds thousands of distinct agents. Crawlers', scanners' and the
 * probe's agents (as src/util/agent-kind.ts tells them) are kept.
 */
import {hash32, mulberry32} from '../../scripts/fixture-generator/rng'
import {AgentClassifier} from '../../src/util/agent-kind'
import {browserAgent} from './browser-agents'
import type {Day, DayItem} from './datadog-day'


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
    if (agent === undefined) given.set(key, (agent = browserAgent(mulberry32(hash32(key))).agent))
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
