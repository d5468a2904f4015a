import {parse, type DefaultTreeAdapterMap} from 'parse5'

/*
 * parse5 (7.3.0, pinned): the WHATWG HTML parsing algorithm, the same one browsers run, so the
 * probe finds what a browser would fetch and nothing it would not (markup inside <script>,
 * <template> or a comment, unclosed tags, attributes without quotes). It has one dependency and
 * the 7.x line still ships CommonJS; 8.x is ESM-only, which this CommonJS CLI cannot require under
 * jest. htmlparser2 was the other candidate: faster, but not spec-compliant tree building.
 */

type Node = DefaultTreeAdapterMap['node']
type Element = DefaultTreeAdapterMap['element']

/** How a page names a script or stylesheet. */
export type AssetKind = 'script' | 'module' | 'modulepreload' | 'preload' | 'stylesheet'

export interface PageAsset {
  /** Absolute URL, resolved against `<base href>` or the page URL. */
  url: string
  kind: AssetKind
}

const HTML_NS = 'http://www.w3.org/1999/xhtml'
/** Script `type` values a browser runs as a classic script (the HTML spec's JavaScript MIME type essences). */
const CLASSIC_TYPES = new Set(['', 'text/javascript', 'application/javascript', 'application/ecmascript', 'application/x-ecmascript',
  'application/x-javascript', 'text/ecmascript', 'text/javascript1.0', 'text/javascript1.1', 'text/javascript1.2',
  'text/javascript1.3', 'text/javascript1.4', 'text/javascript1.5', 'text/jscript', 'text/livescript', 'text/x-ecmascript',
  'text/x-javascript'])

/**
 * Every script and stylesheet a page depends on: `<script src>` (classic and `type="module"`),
 * `<link rel="modulepreload">`, `<link rel="preload" as="script|style">` and `<link rel="stylesheet">`,
 * in document order, without duplicates. URLs resolve against the first `<base href>` (for the
 * elements after it), else the page URL; anything that is not http(s) after resolution (data:,
 * javascript:) is left out.
 */
export function extractAssets(html: string, pageUrl: string): PageAsset[] {
  const elements: Element[] = []
  collect(parse(html), elements)
  let baseUrl = pageUrl
  let baseSet = false
  const seen = new Set<string>()
  const out: PageAsset[] = []
  for (const el of elements) {
    // The first <base href> sets the base URL for what follows it; a browser has already
    // requested what came before it against the page URL.
    const href = el.tagName === 'base' && !baseSet ? attr(el, 'href') : undefined
    if (href !== undefined) {
      baseSet = true
      baseUrl = resolve(href, pageUrl, true) ?? pageUrl
      continue
    }
    const found = assetOf(el)
    if (!found) continue
    const url = resolve(found.ref, baseUrl)
    if (url === undefined || seen.has(url)) continue
    seen.add(url)
    out.push({url, kind: found.kind})
  }
  return out
}

/** HTML elements in document order; template contents are inert (never fetched), foreign content (SVG, MathML) is skipped. */
function collect(node: Node, out: Element[]): void {
  if (!('childNodes' in node)) return
  for (const child of node.childNodes) {
    if (!('tagName' in child)) continue
    if (child.namespaceURI !== HTML_NS) continue
    out.push(child)
    collect(child, out)
  }
}

function attr(el: Element, name: string): string | undefined {
  return el.attrs.find((a) => a.name === name)?.value
}

function assetOf(el: Element): {ref: string; kind: AssetKind} | undefined {
  if (el.tagName === 'script') {
    const src = attr(el, 'src')
    if (src === undefined || src.trim() === '') return undefined
    const type = (attr(el, 'type') ?? '').trim().toLowerCase()
    if (type === 'module') return {ref: src, kind: 'module'}
    return CLASSIC_TYPES.has(type) ? {ref: src, kind: 'script'} : undefined
  }
  if (el.tagName !== 'link') return undefined
  const href = attr(el, 'href')
  if (href === undefined || href.trim() === '') return undefined
  const rel = new Set((attr(el, 'rel') ?? '').toLowerCase().split(/[\t\n\f\r ]+/).filter(Boolean))
  if (rel.has('modulepreload')) return {ref: href, kind: 'modulepreload'}
  if (rel.has('stylesheet')) return {ref: href, kind: 'stylesheet'}
  const as = (attr(el, 'as') ?? '').trim().toLowerCase()
  if (rel.has('preload') && (as === 'script' || as === 'style')) return {ref: href, kind: 'preload'}
  return undefined
}

/** An absolute http(s) URL, or undefined when the reference does not resolve to one. */
function resolve(ref: string, base: string, anyScheme = false): string | undefined {
  try {
    const url = new URL(ref.trim(), base)
    if (!anyScheme && url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
    url.hash = ''
    return url.href
  } catch {
    return undefined
  }
}
