/**
 * A browser's short name from its user agent, for the report's top browsers: the family alone
 * (versions would split one browser into many rows). Tokens are checked in an order that undoes
 * the agents' borrowing: Edge, Opera and Samsung say "Chrome" too, Chrome says "Safari", and every
 * one says "Mozilla". Log text is untrusted: only fixed names come out, never the agent itself.
 */
const FAMILIES: readonly [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOpera\b/, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bYaBrowser\//, 'Yandex'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\bCriOS\/|\bChrom(?:e|ium)\//, 'Chrome'],
  [/\bMSIE |\bTrident\//, 'Internet Explorer'],
  [/\bVersion\/[\d.]+.*\bSafari\/|\b(?:iPhone|iPad|Macintosh)\b.*\bAppleWebKit\//, 'Safari'],
]

/** The agent's browser family (`Chrome`, `Firefox`, `Safari`, `Edge`, …), `Other` when none is known, `(none)` for an empty agent. */
export function browserName(userAgent: string): string {
  if (userAgent === '' || userAgent === '-') return '(none)'
  for (const [re, name] of FAMILIES) if (re.test(userAgent)) return name
  return 'Other'
}
