/**
 * Deploy windows from Datadog events (`--deploy-query`): Events API v2 search, paged; on failure,
 * the v1 list. The wire JSON is collected and read by the same parser as a deploy file, so a live
 * run and `--deploys events.json` of the same events agree.
 */
import type {TimeRange} from '../../model/time-range'
import type {DeclaredDeploy} from '../../model/deploy'
import {DeployFileError, parseDeploys} from '../deploys/parse-deploys'
import {SourceError} from '../errors'
import type {DatadogClient} from './client'
import {endsTheRun, PullAborted} from './errors'
import {plural} from '../../util/plural'

const PAGE_LIMIT = 1000
const MAX_PAGES = 100

export interface DeployEventsResult {
  deploys: DeclaredDeploy[]
  api: 'v2' | 'v1'
  events: number
  fallbackReason?: string
}

export async function pullDeployEvents(client: DatadogClient, query: string, range: TimeRange, notice?: (m: string) => void): Promise<DeployEventsResult> {
  let items: unknown[]
  let api: 'v2' | 'v1' = 'v2'
  let fallbackReason: string | undefined
  try {
    items = await searchV2(client, query, range)
  } catch (error: unknown) {
    if (error instanceof PullAborted || !(error instanceof SourceError) || endsTheRun(error)) throw error
    fallbackReason = error.message.split('\n')[0] ?? error.message
    notice?.(`Datadog Events API v2 search failed (${fallbackReason}): trying the v1 events list`)
    api = 'v1'
    items = await listV1(client, query, range, notice)
  }
  if (items.length === 0) {
    notice?.(`No Datadog events matched --deploy-query "${query}" in the range: deploys are inferred from the logs`)
    return {deploys: [], api, events: 0, ...(fallbackReason ? {fallbackReason} : {})}
  }
  const name = `Datadog events (${api})`
  try {
    const {deploys, rejected} = parseDeploys(JSON.stringify(api === 'v2' ? {data: items} : {events: items}), name)
    const kept = rejected.filter((r) => r.reason !== 'not-a-deploy' && r.reason !== 'ignored')
    if (kept.length > 0) notice?.(`${name}: ${kept.length} of ${plural(items.length, 'event')} could not be read as deploys (${[...new Set(kept.map((r) => r.reason))].join(', ')})`)
    return {deploys, api, events: items.length, ...(fallbackReason ? {fallbackReason} : {})}
  } catch (error: unknown) {
    if (error instanceof DeployFileError) throw new SourceError(error.message, 'datadog')
    throw error
  }
}

async function searchV2(client: DatadogClient, query: string, range: TimeRange): Promise<unknown[]> {
  const items: unknown[] = []
  const seen = new Set<string>()
  let cursor: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const pageCursor = cursor
    const json = await client.call('events-search', (apis) => apis.events.searchEvents({
      body: {
        filter: {query, from: new Date(range.from).toISOString(), to: new Date(range.to).toISOString()},
        page: {limit: PAGE_LIMIT, ...(pageCursor === undefined ? {} : {cursor: pageCursor})},
        sort: 'timestamp',
      },
    }))
    const data = (json as {data?: unknown} | null)?.data
    if (!Array.isArray(data) || data.length === 0) return items
    for (const item of data) {
      const id = (item as {id?: unknown} | null)?.id
      if (typeof id === 'string' && seen.has(id)) continue
      if (typeof id === 'string') seen.add(id)
      items.push(item)
    }
    const after = (json as {meta?: {page?: {after?: unknown}}}).meta?.page?.after
    if (typeof after !== 'string' || after === '') return items
    cursor = after
  }
  return items
}

/**
 * The v1 list has no query language: `source:X` terms (or `source:(X OR Y)`) become `sources`,
 * `key:value` terms (or `key:(a OR b)`) become `tags`. v1 matches events with any of the tags, so
 * each event is checked again: it must carry one tag of every term (`groups`). Other terms cannot
 * be expressed and are reported.
 */
export function v1Filter(query: string): {sources: string[]; tags: string[]; groups: string[][]; ignored: string[]} {
  const out = {sources: [] as string[], tags: [] as string[], groups: [] as string[][], ignored: [] as string[]}
  for (const term of query.match(/"[^"]*"|[^\s(]*\([^)]*\)|\S+/g) ?? []) {
    if (term === 'AND') continue
    const m = /^([A-Za-z0-9_][A-Za-z0-9_.\-/]*):(?:([^\s"()]+)|\(\s*([^\s"()]+(?:\s+OR\s+[^\s"()]+)*)\s*\))$/.exec(term)
    if (!m) {
      out.ignored.push(term)
      continue
    }
    const key = m[1] as string
    const values = m[2] !== undefined ? [m[2]] : (m[3] as string).split(/\s+OR\s+/)
    if (key === 'source' || key === 'sources') out.sources.push(...values)
    else {
      const group = values.map((v) => `${key}:${v}`)
      out.tags.push(...group)
      out.groups.push(group)
    }
  }
  return out
}

async function listV1(client: DatadogClient, query: string, range: TimeRange, notice?: (m: string) => void): Promise<unknown[]> {
  const f = v1Filter(query)
  if (f.ignored.length > 0) notice?.(`The v1 events list cannot express ${f.ignored.map((t) => `"${t}"`).join(', ')} of --deploy-query: ignored`)
  const items: unknown[] = []
  for (let page = 0; page < MAX_PAGES; page++) {
    const json = await client.call('events-v1', async (apis) => (await apis.eventsV1()).listEvents({
      // v1 takes POSIX seconds: widen to whole seconds so nothing at the edges is lost.
      start: Math.floor(range.from / 1000), end: Math.ceil(range.to / 1000),
      ...(f.sources.length > 0 ? {sources: f.sources.join(',')} : {}),
      ...(f.tags.length > 0 ? {tags: f.tags.join(',')} : {}),
      unaggregated: true, page,
    }))
    const events = (json as {events?: unknown} | null)?.events
    if (!Array.isArray(events)) return items
    items.push(...events.filter((e) => hasTags(e, f.groups)))
    if (events.length < PAGE_LIMIT) return items
  }
  return items
}

function hasTags(event: unknown, groups: readonly (readonly string[])[]): boolean {
  const have = (event as {tags?: unknown} | null)?.tags
  return Array.isArray(have) && groups.every((g) => g.some((t) => have.includes(t)))
}
