import {extractAssets} from './assets'
import {classifyAsset} from './classify'
import type {Clock} from './clock'
import {mapBounded} from '../util/map-bounded'
import {buildFingerprint} from './fingerprint'
import type {HttpClient, HttpResult} from './http-client'
import {verdictOf} from './tally'
import type {AssetResult, BarrageResult} from './types'

const PAGE_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

/**
 * One barrage, as the write-up's script did it and a browser would: fetch the page, find every
 * script and stylesheet it names, fetch them all at once (at most `concurrency` in flight), and
 * classify each answer.
 */
export async function runBarrage(client: HttpClient, pageUrl: string, seq: number, concurrency: number, clock: Clock, startedAt = clock.now()): Promise<BarrageResult> {
  const now = (): number => clock.now()
  const page = await client.get(pageUrl, {keepBody: true, accept: PAGE_ACCEPT})
  const pageInfo = {
    url: page.url, status: page.status ?? null, bytes: page.bytes, contentType: page.contentType ?? null,
    error: page.error ?? pageStatusError(page), ms: page.ms,
  }
  if (pageInfo.error !== null) return {seq, startedAt, endedAt: now(), page: pageInfo, build: null, assets: [], verdict: 'page-error'}
  const found = extractAssets((page.body ?? Buffer.alloc(0)).toString('utf8'), page.url)
  const assets = await mapBounded(found, concurrency, async (a): Promise<AssetResult> => {
    const r = await client.get(a.url, {referer: page.url})
    const c = classifyAsset(r, page.bytes)
    return {
      url: a.url, kind: a.kind, status: r.status ?? null, bytes: r.bytes, contentType: r.contentType ?? null,
      outcome: c.outcome, reason: c.reason ?? null, ms: r.ms,
    }
  })
  return {
    seq, startedAt, endedAt: now(), page: pageInfo,
    build: buildFingerprint(page.bytes, found.map((a) => a.url)),
    assets, verdict: verdictOf(assets.map((a) => a.outcome)),
  }
}

function pageStatusError(page: HttpResult): string | null {
  if (page.status === undefined || (page.status >= 200 && page.status < 300)) return null
  return `HTTP ${page.status}`
}
