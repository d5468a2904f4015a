import type {OutputPlan} from '../report/format-names'
import {FORMATS} from '../report/format-names'
import {type FailRule, parseFailOn} from './fail-on'
import {ConfigError, parseFormats} from './parse'

export interface OutputFlags {
  format?: string[]
  output?: string
  'out-dir'?: string
  'fail-on'?: string
  force?: boolean
  wide?: boolean
  columns?: number
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
  return {plan: {formats, output: f.output, outDir: f['out-dir'], force: f.force === true}, failOn: parseFailOn(f['fail-on'] ?? '')}
}

/**
 * The width tables are fitted to: `--columns`, none with `--wide`, else the terminal's (when stdout
 * is one and the report goes there), else none: a pipe or a file gets every column.
 */
export function tableWidth(f: Pick<OutputFlags, 'wide' | 'columns' | 'output' | 'out-dir'>, stdout: {isTTY?: boolean; columns?: number}): number | undefined {
  if (f.wide) return undefined
  if (f.columns !== undefined) return f.columns
  if (f.output || f['out-dir'] || !stdout.isTTY) return undefined
  return stdout.columns && stdout.columns >= 40 ? stdout.columns : 80
}
