/**
 * Who sent a request, by its user agent: read by the analysis (people apart from crawlers and the
 * probe) and by a Datadog pull that counts page requests on Datadog's side, so both judge alike.
 */
import {isbot} from 'isbot'
import {boundText} from './bounded-text'
import {detach} from './detach'

/** skewscan's own probe announces itself with this user agent (`skewscan-probe/<version>`). */
export const PROBE_AGENT = 'skewscan-probe/'

/** Who sent a request, by its user agent: a person (undefined), a crawler or bot, or our probe. */
export type AgentKind = 'crawler' | 'probe' | undefined

/**
 * Classifies user agents with the isbot list (maintained, used by many frameworks), once per
 * distinct agent: a log holds few, and the list is one large regular expression.
 */
export class AgentClassifier {
  private readonly cache = new Map<string, AgentKind>()

  kind(agent: string): AgentKind {
    // An agent longer than any real one is judged by its start and end (boundText): the list's
    // patterns are product tokens, and a regular expression over megabytes costs a second a time.
    const userAgent = boundText(agent)
    const cached = this.cache.get(userAgent)
    if (cached !== undefined || this.cache.has(userAgent)) return cached
    const kind: AgentKind = userAgent.startsWith(PROBE_AGENT) ? 'probe' : userAgent !== '' && isbot(userAgent) ? 'crawler' : undefined
    // Bounded: a log of forged agents cannot grow it without end.
    if (this.cache.size >= 50_000) this.cache.clear()
    // Its own copy: a key cut from a log line would keep the line alive as long as the cache.
    this.cache.set(detach(userAgent), kind)
    return kind
  }
}
