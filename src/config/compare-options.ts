import {ConfigError, parseFormats, parseInstant} from './parse'

export const COMPARE_FORMATS = ['table', 'json', 'markdown', 'html'] as const
export type CompareFormat = (typeof COMPARE_FORMATS)[number]

export interface CompareSettings {
  inputs?: string[]
  fixDate?: number
  sets?: {name: string; inputs: string[]}[]
  format: CompareFormat
}

/** Either FILE... with --fix-date, or --set NAME=FILE[,FILE] at least twice. */
export function compareSettings(argv: string[], f: {'fix-date'?: string; set?: string[]; format?: string}): CompareSettings {
  const [format] = parseFormats([f.format ?? 'table'], COMPARE_FORMATS)
  if (!format) throw new ConfigError('--format: name one format')
  if (f.set && f.set.length > 0) {
    if (argv.length > 0 || f['fix-date']) throw new ConfigError('--set takes its files itself: give either FILE... --fix-date DATE, or --set NAME=FILE[,FILE] twice or more')
    const sets = f.set.map((s) => {
      const eq = s.indexOf('=')
      const inputs = s.slice(eq + 1).split(',').map((x) => x.trim()).filter((x) => x !== '')
      if (eq <= 0 || inputs.length === 0) throw new ConfigError(`--set: "${s}" must be NAME=FILE[,FILE...]`)
      return {name: s.slice(0, eq), inputs}
    })
    if (sets.length < 2) throw new ConfigError('--set: give at least two sets to compare (e.g. --set before=old.ndjson --set after=new.ndjson)')
    return {sets, format}
  }
  if (argv.length === 0) throw new ConfigError('compare needs log files and --fix-date, or --set NAME=FILE twice or more')
  if (!f['fix-date']) throw new ConfigError('--fix-date: when the fix went live (ISO-8601 or epoch ms), to split the deploys into before and after')
  return {inputs: argv, fixDate: parseInstant('fix-date', f['fix-date']), format}
}
