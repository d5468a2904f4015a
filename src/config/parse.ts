import {ConfigError} from '../errors/config-error'
import {CORE_FIELDS, type CoreField, MAPPABLE_FIELDS, type MappableField, type SessionKeySpec, validPath} from '../normalize/fields'

// Settings parsing throws these; the class and the duration parser live lower down, where the
// sources, the probe and the lab read them too.
export {ConfigError} from '../errors/config-error'
export {parseDuration} from '../util/parse-duration'

/** `--field NAME=PATH` entries into a field map. */
export function parseFields(entries: readonly string[]): Partial<Record<MappableField | CoreField, string>> {
  const out: Partial<Record<MappableField | CoreField, string>> = {}
  const names: readonly string[] = [...CORE_FIELDS, ...MAPPABLE_FIELDS]
  for (const e of entries) {
    const eq = e.indexOf('=')
    const name = eq === -1 ? e : e.slice(0, eq)
    const path = eq === -1 ? '' : e.slice(eq + 1).trim()
    if (!names.includes(name) || path === '') {
      throw new ConfigError(`--field: "${e}" must be NAME=PATH with NAME one of ${names.join(', ')} (e.g. path=req.uri, status=res.code, session=@http.cookies.INGRESSCOOKIE, version=tag:version)`)
    }
    if (!validPath(path)) throw new ConfigError(`--field ${e}: "${path}" is no path: keys joined by dots, a key that holds dots in double quotes (req."x.y")`)
    out[name as MappableField | CoreField] = path
  }
  const core = CORE_FIELDS.filter((f) => out[f] !== undefined)
  if (core.length > 0) {
    if (out.bytes !== undefined && out.responseBytes !== undefined) {
      throw new ConfigError('--field: map bytes (the body length) or responseBytes (headers counted), not both: a log counts its bytes one way')
    }
    const missing: string[] = (['path', 'status', 'time'] as const).filter((f) => out[f] === undefined)
    if (out.bytes === undefined && out.responseBytes === undefined) missing.push('bytes')
    if (missing.length > 0) {
      throw new ConfigError(`--field: a JSON log read by mapping needs path, status, time and bytes (or responseBytes); ${missing.join(', ')} not mapped (given: ${core.join(', ')})`)
    }
  }
  return out
}

/** `auto`, `ip-ua`, `cookie:NAME` or `attr:PATH`. */
export function parseSessionKey(value: string): SessionKeySpec {
  if (value === 'auto' || value === 'ip-ua') return {kind: value}
  const colon = value.indexOf(':')
  const kind = value.slice(0, colon)
  const arg = value.slice(colon + 1).trim()
  if (colon !== -1 && arg !== '' && kind === 'cookie') return {kind: 'cookie', name: arg}
  if (colon !== -1 && arg !== '' && kind === 'attr') return {kind: 'attr', path: arg}
  throw new ConfigError(`--session-key: "${value}" must be auto, ip-ua, cookie:NAME or attr:PATH`)
}

/** Asset patterns: `/prefix/` or `.ext`; anything else is matched as a substring. */
export function parseAssetPatterns(values: readonly string[]): string[] {
  for (const v of values) if (v.trim() === '') throw new ConfigError('--asset-pattern: an empty pattern would match every path')
  return values.map((v) => v.trim())
}

/** `--format a,b` (repeatable) into a list of known formats, in the order given, without repeats. */
export function parseFormats<F extends string>(values: readonly string[], known: readonly F[]): F[] {
  const out: F[] = []
  for (const v of values.flatMap((x) => x.split(',')).map((x) => x.trim()).filter((x) => x !== '')) {
    if (!(known as readonly string[]).includes(v)) throw new ConfigError(`--format: "${v}" is not one of ${known.join(', ')}`)
    if (!out.includes(v as F)) out.push(v as F)
  }
  return out
}

/** An instant given on the command line: ISO-8601 with a zone (or a date, taken as UTC midnight), or epoch milliseconds. */
export function parseInstant(flag: string, value: string): number {
  const v = value.trim()
  const ms = /^\d{11,}$/.test(v) ? Number(v) : /^\d{4}-\d{2}-\d{2}$/.test(v) ? Date.parse(`${v}T00:00:00Z`)
    : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(v) ? Date.parse(v) : Number.NaN
  if (Number.isNaN(ms)) throw new ConfigError(`--${flag}: "${value}" is not a time (use ISO-8601 with a zone, e.g. 2026-11-29T14:00:00Z, a date, or epoch milliseconds)`)
  return ms
}
