import {ConfigError} from '../errors/config-error'
import {parseDuration} from '../util/parse-duration'

/**
 * The probe's bounds (issue 14): how often it may hit a site, when it gives up on one that does not
 * answer, and how long it runs when told neither --count nor --duration.
 */
/** The shortest --interval: at most 10 barrages a second (`--interval 0` made 187,379 requests in 30 s). */
export const MIN_INTERVAL_MS = 100
/** --give-up-after's default: barrages in a row whose page got no answer at all before the probe stops (exit 3). */
export const DEFAULT_GIVE_UP_AFTER = 10
/** How long a probe runs without --count or --duration. */
export const DEFAULT_DURATION_MS = 60 * 60_000

/** The probe's flags as oclif parsed them. */
export interface ProbeFlags {
  interval: string
  duration?: string
  count?: number
  timeout: string
  header?: string[]
  cookie?: string[]
  sticky: boolean
  concurrency: number
  'give-up-after': number
}

export interface ProbeSettings {
  url: string
  intervalMs: number
  durationMs?: number
  count?: number
  timeoutMs: number
  headers: Record<string, string>
  cookies: string[]
  sticky: boolean
  concurrency: number
  /** Barrages in a row with no answer from the page before giving up; 0: never. */
  giveUpAfter: number
}

/** Validates the URL and turns flags into settings; throws ConfigError naming the flag at fault. */
export function probeSettings(url: string, f: ProbeFlags): ProbeSettings {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new ConfigError(`URL: "${url}" is not a URL (give the page to probe, e.g. https://shop.example.com/)`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(`URL: "${url}" must be http:// or https://`)
  const intervalMs = parseDuration('interval', f.interval)
  if (intervalMs < MIN_INTERVAL_MS) throw new ConfigError(`--interval must be at least ${MIN_INTERVAL_MS}ms (got "${f.interval}"): a shorter one floods the site`)
  const timeoutMs = parseDuration('timeout', f.timeout)
  if (timeoutMs <= 0) throw new ConfigError('--timeout must be longer than 0')
  const durationMs = f.duration === undefined ? undefined : parseDuration('duration', f.duration)
  return {
    url: parsed.href, intervalMs, timeoutMs, sticky: f.sticky, concurrency: f.concurrency, giveUpAfter: f['give-up-after'],
    ...(durationMs === undefined ? {} : {durationMs}), ...(f.count === undefined ? {} : {count: f.count}),
    headers: parseHeaders(f.header ?? []), cookies: parseCookies(f.cookie ?? []),
  }
}

/** `Name: value` entries; a header named twice keeps the last value. */
export function parseHeaders(entries: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const e of entries) {
    const colon = e.indexOf(':')
    const name = colon === -1 ? '' : e.slice(0, colon).trim()
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new ConfigError(`--header: "${e}" must be "Name: value" (e.g. "Authorization: Bearer x")`)
    const value = e.slice(colon + 1).trim()
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) throw new ConfigError(`--header: the value of ${name} holds control characters`)
    out[name.toLowerCase()] = value
  }
  return out
}

/** `name=value` pairs; one flag may carry several, separated by `;` as in a Cookie header. */
export function parseCookies(entries: readonly string[]): string[] {
  const out: string[] = []
  for (const e of entries) {
    for (const part of e.split(';')) {
      const p = part.trim()
      if (p === '') continue
      const eq = p.indexOf('=')
      // eslint-disable-next-line no-control-regex
      if (eq <= 0 || /[\u0000-\u001f\u007f]/.test(p)) throw new ConfigError(`--cookie: "${part.trim()}" must be name=value (e.g. INGRESSCOOKIE=abc)`)
      out.push(`${p.slice(0, eq).trim()}=${p.slice(eq + 1).trim()}`)
    }
  }
  return out
}
