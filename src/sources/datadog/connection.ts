/** Where and as whom the Datadog API is reached; keys never leave this and the client except masked. */
export interface DatadogConnection {
  site: string
  /** `https://api.<site>`, or the `--api-url` override (a proxy, a test server). */
  baseUrl: string
  apiKey: string
  appKey: string
}

/**
 * Replaces every occurrence of a secret (and of its URL-encoded form) by a mask. Real keys (32 and
 * 40 characters) keep their last four characters, as Datadog's own UI shows them, so a user can tell
 * which key was meant; short ones are masked whole.
 */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let out = text
  for (const s of secrets) {
    if (s.length < 4) continue
    const mask = s.length >= 16 ? `****${s.slice(-4)}` : '****'
    for (const form of new Set([s, encodeURIComponent(s)])) out = out.split(form).join(mask)
  }
  return out
}
