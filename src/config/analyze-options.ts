import {DEFAULT_ASSET_PATTERNS, type AnalysisOptions} from '../analysis/options'
import type {NormalizeOptions} from '../normalize/fields'
import {ConfigError, parseAssetPatterns, parseDuration, parseFields, parseSessionKey} from './parse'

/** The analyze flags as oclif parsed them. */
export interface AnalyzeFlags {
  'asset-pattern'?: string[]
  'default-asset-patterns': boolean
  'shell-path'?: string[]
  'length-tolerance': number
  'incident-gap': string
  horizon: string
  'deploy-margin': string
  lookahead: string
  'reorder-window': string
  field?: string[]
  'session-key': string
}

export interface AnalyzeSettings {
  analysis: AnalysisOptions
  normalize: NormalizeOptions
  reorderWindowMs: number
}

/** Turns flags into validated options; throws ConfigError naming the flag at fault. */
export function analyzeSettings(f: AnalyzeFlags): AnalyzeSettings {
  const extra = parseAssetPatterns(f['asset-pattern'] ?? [])
  const assetPatterns = f['default-asset-patterns'] ? [...DEFAULT_ASSET_PATTERNS, ...extra] : extra
  if (assetPatterns.length === 0) throw new ConfigError('--no-default-asset-patterns needs at least one --asset-pattern')
  return {
    analysis: {
      assetPatterns,
      shellPaths: ['/', '/index.html', ...(f['shell-path'] ?? [])],
      lengthTolerance: f['length-tolerance'],
      horizonMs: parseDuration('horizon', f.horizon),
      incidentGapMs: parseDuration('incident-gap', f['incident-gap']),
      deployMarginMs: parseDuration('deploy-margin', f['deploy-margin']),
      lookaheadMs: parseDuration('lookahead', f.lookahead),
    },
    normalize: {fields: parseFields(f.field ?? []), sessionKey: parseSessionKey(f['session-key'])},
    reorderWindowMs: parseDuration('reorder-window', f['reorder-window']),
  }
}
