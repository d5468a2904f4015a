import {ConfigError} from '../errors/config-error'

const UNITS: Record<string, number> = {ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000}

/** `90s`, `5m`, `1h30m`, `250ms`, or a bare number of seconds; a ConfigError naming `--flag` otherwise. */
export function parseDuration(flag: string, value: string): number {
  const v = value.trim()
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000)
  const re = /(\d+(?:\.\d+)?)(ms|s|min|m|h|d)/gy
  let total = 0
  let matched = 0
  for (let m = re.exec(v); m; m = re.exec(v)) {
    total += Number(m[1]) * (UNITS[m[2] ?? ''] ?? 0)
    matched = re.lastIndex
  }
  if (matched !== v.length || v === '') throw new ConfigError(`--${flag}: "${value}" is not a duration (use forms like 90s, 5m, 1h30m, 250ms)`)
  return Math.round(total)
}
