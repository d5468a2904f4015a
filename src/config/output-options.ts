import type {OutputPlan} from '../app/deliver'
import {FORMATS} from '../report/format-names'
import {type FailRule, parseFailOn} from './fail-on'
import {ConfigError, parseFormats} from './parse'

export interface OutputFlags {
  format?: string[]
  output?: string
  'out-dir'?: string
  'fail-on'?: string
}

export interface OutputSettings {
  plan: OutputPlan
  failOn: FailRule[]
}

/** Where the report goes and in which formats; a bad combination is a usage error. */
export function outputSettings(f: OutputFlags): OutputSettings {
  const formats = parseFormats(f.format ?? ['table'], FORMATS)
  if (formats.length === 0) throw new ConfigError('--format: name at least one format')
  if (f.output && f['out-dir']) throw new ConfigError('--output and --out-dir do not go together: --output writes one format to one file, --out-dir every format to dated files')
  if (formats.length > 1 && !f['out-dir']) throw new ConfigError(`--format ${formats.join(',')}: several formats need --out-dir DIR (one dated file each)`)
  return {plan: {formats, output: f.output, outDir: f['out-dir']}, failOn: parseFailOn(f['fail-on'] ?? '')}
}
