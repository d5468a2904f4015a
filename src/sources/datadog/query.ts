/**
 * The Datadog log queries skewscan sends: the user's query narrowed to the requests the analysis
 * reads. The terms come from the same asset patterns and shell paths the analysis uses, so what is
 * left out can never change the report:
 *
 * - asset requests (GET or HEAD on an asset path, any status): failures, and the requests that keep
 *   a page load alive;
 * - page requests (GET on a non-asset path): shell paths (fingerprints, page loads, revalidated
 *   shells) and other routes answered with a shell (deep links). Once the shell lengths are known
 *   (aggregate API), only routes whose length is one of them; before that, every 2xx.
 *
 * Everything else (API calls, health checks) is pulled only where it shows a pod answering at the
 * edges of its life (its first response, its last few): the analysis takes any response of a pod
 * as its build being served. POSTs and other methods are never pulled.
 */

export interface NarrowingSpec {
  /** As the analysis takes them: `/prefix/`, `.ext`, or a substring. */
  assetPatterns: readonly string[]
  shellPaths: readonly string[]
  /** Shell lengths within this many bytes are one build. */
  lengthTolerance: number
  /** Extra attributes that carry the response content type (from `--field contentType=...`). */
  contentTypeAttributes?: readonly string[]
}

/** The longest list of terms (user agents, paths, addresses) one query names (Datadog's queries have a length limit). */
export const MAX_TERMS_LENGTH = 4000

/** Above this many lengths to match, the query would be unwieldy: fall back to the 2xx form. */
export const MAX_LENGTH_TERMS = 200

const PATH = '@http.url_details.path'

/** Real content (detect.ts isContent): a GET answered 2xx with a body (or no byte count logged), or 304. */
const CONTENT = '@http.method:GET ((@http.status_code:[200 TO 299] -@network.bytes_written:0) OR @http.status_code:304)'

/** Escapes Datadog search syntax specials (and spaces) so a value matches literally. */
export function escapeValue(value: string): string {
  return value.replace(/[+\-=&|><!(){}[\]^"“”~*?:\\/\s]/g, (c) => `\\${c}`)
}

/** Values cut into lists each short enough for one query's `(a OR b …)` (their escaped terms within `chars` characters), of at most `most` values. */
export function termBatches(values: Iterable<string>, most: number, chars = MAX_TERMS_LENGTH): string[][] {
  const out: string[][] = []
  let cur: string[] = []
  let length = 0
  for (const v of values) {
    // The escaped value and its separator ` OR `.
    const n = escapeValue(v).length + 4
    if (cur.length > 0 && (length + n > chars || cur.length >= most)) {
      out.push(cur)
      cur = []
      length = 0
    }
    cur.push(v)
    length += n
  }
  if (cur.length > 0) out.push(cur)
  return out
}

/** A path pattern as a wildcard term: `/_build/` → `\/_build\/*`, `.js` → `*.js` (and `*.JS`). */
export function assetPathTerms(patterns: readonly string[]): string[] {
  const terms: string[] = []
  for (const p of patterns) {
    if (p.startsWith('/')) terms.push(`${escapeValue(p)}*`)
    else if (p.startsWith('.')) {
      // The analysis compares extensions case-insensitively; Datadog wildcards do not.
      for (const form of new Set([p.toLowerCase(), p.toUpperCase()])) terms.push(`*${escapeValue(form)}`)
    } else terms.push(`*${escapeValue(p)}*`)
  }
  return [...new Set(terms)]
}

export function anyOf(attribute: string, terms: readonly string[]): string {
  return terms.length === 1 ? `${attribute}:${terms[0]}` : `${attribute}:(${terms.join(' OR ')})`
}

/** The user's query as one term: parenthesised unless it is empty or `*`. */
export function userTerm(query: string): string {
  const q = query.trim()
  return q === '' || q === '*' ? '' : `(${q})`
}

function and(...terms: string[]): string {
  const t = terms.filter((x) => x !== '')
  return t.length === 0 ? '*' : t.join(' ')
}

/**
 * Response lengths that make an asset a fallback hit, or a route a shell: each fingerprint within
 * the tolerance. Undefined when there are too many to list.
 */
export function lengthValues(fingerprints: readonly number[], tolerance: number): number[] | undefined {
  const values = new Set<number>()
  for (const f of fingerprints) for (let v = Math.max(1, f - tolerance); v <= f + tolerance; v++) values.add(v)
  return values.size > MAX_LENGTH_TERMS ? undefined : [...values].sort((a, b) => a - b)
}

export class QueryBuilder {
  private readonly user: string
  private readonly assets: string
  private readonly shells: string

  constructor(userQuery: string, private readonly spec: NarrowingSpec) {
    this.user = userTerm(userQuery)
    this.assets = anyOf(PATH, assetPathTerms(spec.assetPatterns))
    this.shells = anyOf(PATH, [...new Set(spec.shellPaths)].map(escapeValue))
  }

  /** GET or HEAD on an asset path, any status. */
  assetRequests(): string {
    return and(this.user, ...this.assetTerms())
  }

  /** GET on a non-asset path that may start a page load: a shell path, or a route served a shell. */
  pageRequests(lengths?: readonly number[]): string {
    return and(this.user, ...this.pageTerms(lengths))
  }

  /** One query for everything the analysis reads: page requests (by the shell lengths when known) and asset requests. */
  narrowed(lengths?: readonly number[]): string {
    return and(this.user, `((${this.pageTerms(lengths).join(' ')}) OR (${this.assetTerms().join(' ')}))`)
  }

  private assetTerms(): string[] {
    return ['@http.method:(GET OR HEAD)', this.assets]
  }

  private pageTerms(lengths?: readonly number[]): string[] {
    const shellLike = lengths === undefined
      ? `(${this.shells} OR @http.status_code:[200 TO 299])`
      : lengths.length === 0 ? this.shells : `(${this.shells} OR ${anyOf('@network.bytes_written', lengths.map(String))})`
    return ['@http.method:GET', `-${this.assets}`, shellLike]
  }

  /** Every GET or HEAD: what a pod's activity is counted on (any response of it shows its build served). */
  readable(): string {
    return and(this.user, '@http.method:(GET OR HEAD)')
  }

  /**
   * The requests of these pods the page stream leaves out (and the asset stream, unless
   * `withAssets`): API calls, health checks, other routes. All of a pod's facet values when there
   * are too many to list.
   */
  podRequests(facet: string, pods: readonly string[], lengths: readonly number[], withAssets: boolean): string {
    const podTerm = pods.length === 0 || pods.length > MAX_LENGTH_TERMS ? '' : anyOf(facet, pods.map(escapeValue))
    return and(this.user, '@http.method:(GET OR HEAD)', podTerm, `-(${this.pageTerms(lengths).join(' ')})`, withAssets ? '' : `-${this.assets}`)
  }

  /** GET on a shell path, any status: what a pull reads of page loads where it reads them all. */
  shellPageRequests(): string {
    return and(this.user, '@http.method:GET', `-${this.assets}`, this.shells)
  }

  /** The shell-path requests that start a page load: a shell with a body, or a revalidated one (304). */
  shellPageLoads(): string {
    return and(this.user, '@http.method:GET', `-${this.assets}`, this.shells, '((@http.status_code:[200 TO 299] @network.bytes_written:[1 TO *]) OR @http.status_code:304)')
  }

  /** GET on another non-asset path answered with a shell's length: deep links, read in full. */
  routeRequests(lengths: readonly number[]): string {
    return and(this.user, '@http.method:GET', `-${this.assets}`, `-${this.shells}`, anyOf('@network.bytes_written', lengths.map(String)))
  }

  /**
   * GET answered 2xx on another non-asset path holding no dot (so surely a document route, as the
   * analysis's isDocumentPath tells them) with a shell's length: deep links, counted where the
   * length's shell was served near them.
   */
  plainRoutes(lengths: readonly number[]): string {
    return and(this.user, '@http.method:GET', `-${this.assets}`, `-${this.shells}`, `-${PATH}:*.*`, '@http.status_code:[200 TO 299]', anyOf('@network.bytes_written', lengths.map(String)))
  }

  /** Successful responses on shell paths and plain routes answered with a shell's length: a pod's shells where routes are counted. */
  shellsAndPlainRoutes(lengths: readonly number[]): string {
    return and(this.user, '@http.method:GET', `-${this.assets}`, '@http.status_code:[200 TO 299]', `(${this.shells} OR (-${PATH}:*.* ${anyOf('@network.bytes_written', lengths.map(String))}))`)
  }

  /**
   * GET on another non-asset path with a dot that may still be a document route (a dot before its
   * last segment, or an `.html`/`.htm` page in any case) answered with a shell's length: read in
   * full where plain routes are counted. `/sitemap.xml`, `/robots.txt` or `/wp-login.php` are no
   * page loads (isDocumentPath): only where their pods' edges are (the pages stream reads those).
   */
  dottedRoutes(lengths: readonly number[]): string {
    const documents = ['*.*\\/*', ...['htm', 'html'].flatMap(caseForms).map((ext) => `*.${ext}`)]
    return and(this.user, '@http.method:GET', `-${this.assets}`, `-${this.shells}`, anyOf(PATH, documents), anyOf('@network.bytes_written', lengths.map(String)))
  }

  /** Successful responses on shell paths: grouped by length, they are the fingerprints. */
  shellResponses(): string {
    return and(this.user, '@http.method:GET', `-${this.assets}`, this.shells, '@http.status_code:[200 TO 299]')
  }

  /** Asset requests that may be failures: a shell's length, 404/410, or an HTML content type. */
  candidates(lengths: readonly number[]): string {
    return and(this.assetRequests(), this.signals(lengths))
  }

  /**
   * The page and asset requests of these client addresses (the people whose requests look like
   * failures), but the candidates: the candidates stream has those.
   */
  clientRequests(clients: readonly string[], lengths: readonly number[]): string {
    return and(this.user, anyOf('@network.client.ip', clients.map(escapeValue)), `((${this.pageTerms(lengths).join(' ')}) OR (${this.assetTerms().join(' ')} -${this.signals(lengths)}))`)
  }

  private signals(lengths: readonly number[]): string {
    const signals = [...(lengths.length > 0 ? [anyOf('@network.bytes_written', lengths.map(String))] : []), '@http.status_code:(404 OR 410)', ...this.htmlTerms()]
    return `(${signals.join(' OR ')})`
  }

  /** An HTML content type, in any attribute that carries it. */
  private htmlTerms(): string[] {
    const html = ['http.content_type', 'http.response.content_type', ...(this.spec.contentTypeAttributes ?? [])]
      .map((a) => `${a.startsWith('tag:') ? a.slice(4) : `@${a.replace(/^@/, '')}`}:text\\/html*`)
    return [...new Set(html)]
  }

  /**
   * A query without the requests of these user agents (crawlers'), or undefined when listing them
   * would make a query too long to send.
   */
  withoutAgents(query: string, agents: readonly string[]): string | undefined {
    if (agents.length === 0) return query
    const term = `-${anyOf('@http.useragent', agents.map((a) => `"${a.replace(/["\\]/g, (c) => `\\${c}`)}"`))}`
    return term.length > MAX_TERMS_LENGTH ? undefined : and(query, term)
  }

  /**
   * GET answered at these paths with what the analysis may take for real content (detect.ts
   * isContent: 2xx with a body, or 304), but a shell's length or an HTML content type: those are
   * failures where a shell of that length was served near that time (see shellLengthAt). A record
   * without a byte count (bytesNotLogged) keeps its 2xx as content, and a range on a missing
   * attribute matches nothing: hence "not 0 bytes" rather than `[1 TO *]`.
   */
  servedAt(paths: readonly string[], lengths: readonly number[]): string {
    return and(this.user, anyOf(PATH, paths.map(escapeValue)), CONTENT, ...this.notShellLike(lengths))
  }

  /** GET answered 2xx at these paths with a shell's length (no HTML content type): a failure only near that shell's serving. */
  shellLengthAt(paths: readonly string[], lengths: readonly number[]): string {
    return and(this.user, anyOf(PATH, paths.map(escapeValue)), '@http.method:GET @http.status_code:[200 TO 299]', anyOf('@network.bytes_written', lengths.map(String)), ...this.notShellLike([]))
  }

  /**
   * What shows these clients are no scanners to the analysis: an asset answered them with what may
   * be real content anywhere but the junk paths (which have none), or a failure-looking request of
   * theirs names a session of its own (`sessionAttributes`, where the analysis finds one: its page
   * load is keyed by it, not by address and agent).
   */
  notScanners(clients: readonly string[], junk: readonly string[], sessionAttributes: readonly string[], lengths: readonly number[]): string {
    const content = `(${this.assetTerms().join(' ')} ${CONTENT} -${anyOf(PATH, junk.map(escapeValue))})`
    const sessions = sessionAttributes.length === 0 ? '' : ` OR (${this.assetTerms().join(' ')} ${this.signals(lengths)} (${sessionAttributes.map((a) => `@${a}:*`).join(' OR ')}))`
    return and(this.user, anyOf('@network.client.ip', clients.map(escapeValue)), `(${content}${sessions})`)
  }

  private notShellLike(lengths: readonly number[]): string[] {
    return [...(lengths.length > 0 ? [`-${anyOf('@network.bytes_written', lengths.map(String))}`] : []), ...this.htmlTerms().map((t) => `-${t}`)]
  }

  /** The user's query alone (`--pull all`). */
  all(): string {
    return and(this.user)
  }
}

/** Every upper and lower case spelling of a word (Datadog's wildcards match case-sensitively; the analysis does not). */
function caseForms(word: string): string[] {
  let forms = ['']
  for (const c of word) forms = forms.flatMap((f) => [...new Set([f + c.toLowerCase(), f + c.toUpperCase()])])
  return forms
}
