/** What became of one asset request. */
export type AssetOutcome = 'ok' | 'html-for-asset' | 'missing' | 'error'

/** What the probe knows about a response once its body is read (or the request failed). */
export interface ResponseFacts {
  /** Absent when no response came back (network error, timeout). */
  status?: number
  /** Why no response came back: `timeout`, `ECONNREFUSED`, … */
  error?: string
  contentType?: string
  /** Body bytes received (after content decoding). */
  bytes: number
  /** The first bytes of the body. */
  head: Uint8Array
}

export interface Classified {
  outcome: AssetOutcome
  /** Why, for the barrage line: `text/html`, `starts with <`, `page length`, `HTTP 404`, `timeout`. */
  reason?: string
}

/**
 * Classifies an asset response. html-for-asset: a 2xx whose content type is text/html, whose body
 * starts with `<` (after a BOM and whitespace), or whose length is the page's own (the SPA fallback
 * served the shell). missing: any 4xx. error: no response, or 1xx/3xx/5xx (a redirect loop, a pod
 * that failed).
 */
export function classifyAsset(r: ResponseFacts, pageBytes: number | undefined): Classified {
  if (r.status === undefined) return {outcome: 'error', reason: r.error ?? 'no response'}
  if (r.status >= 400 && r.status < 500) return {outcome: 'missing', reason: `HTTP ${r.status}`}
  if (r.status < 200 || r.status >= 300) return {outcome: 'error', reason: `HTTP ${r.status}`}
  if (r.contentType !== undefined && /^\s*text\/html\b/i.test(r.contentType)) return {outcome: 'html-for-asset', reason: 'text/html'}
  if (startsWithMarkup(r.head)) return {outcome: 'html-for-asset', reason: 'starts with <'}
  if (pageBytes !== undefined && pageBytes > 0 && r.bytes === pageBytes) return {outcome: 'html-for-asset', reason: 'page length'}
  return {outcome: 'ok'}
}

/** True when the body's first character, after a UTF-8 BOM and ASCII whitespace, is `<`. */
export function startsWithMarkup(head: Uint8Array): boolean {
  let i = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0
  while (i < head.length && (head[i] === 0x20 || head[i] === 0x09 || head[i] === 0x0a || head[i] === 0x0d || head[i] === 0x0c)) i++
  return head[i] === 0x3c
}
