import {DEFAULT_ASSET_PATTERNS, type AnalysisOptions, type AppSource} from '../analysis/options'
import type {NormalizeOptions} from '../normalize/fields'
import {compileTrusted} from '../normalize/forwarded'
import {LogFormatError, logFormatOf} from '../normalize/log-format'
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
  'log-format'?: string
  'trusted-proxies'?: string
  'session-key': string
  'lazy-gap': string
  'app-key': string
  app?: string
  'deploy-app'?: string[]
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
      lazyGapMs: parseDuration('lazy-gap', f['lazy-gap']),
      ...(f['app-key'] === 'auto' ? {} : {appSource: appSourceOf(f['app-key'])}),
      ...(f.app === undefined ? {} : {app: f.app}),
      ...(f['deploy-app'] === undefined ? {} : {deployApps: parseDeployApps(f['deploy-app'])}),
    },
    normalize: normalizeSettings(f),
    reorderWindowMs: parseDuration('reorder-window', f['reorder-window']),
  }
}

/** How records are read (`--field`, `--app-key`, `--session-key`): shared by analyze and parse. */
export function normalizeSettings(f: Pick<AnalyzeFlags, 'field' | 'app-key' | 'session-key' | 'log-format' | 'trusted-proxies'>): NormalizeOptions {
  const out: NormalizeOptions = {fields: {...parseFields(f.field ?? []), ...appField(f['app-key'])}, sessionKey: parseSessionKey(f['session-key'])}
  const trusted = f['trusted-proxies']
  if (trusted !== undefined) {
    const cidrs = trusted.split(',').map((c) => c.trim()).filter((c) => c !== '')
    if (cidrs.length === 0) throw new ConfigError('--trusted-proxies: give the proxies\' addresses or CIDRs, comma-separated (10.0.0.0/8,192.0.2.7)')
    try {
      compileTrusted(cidrs)
    } catch (error: unknown) {
      throw new ConfigError(`--trusted-proxies: ${(error as Error).message}; give addresses or CIDRs, comma-separated (10.0.0.0/8,2001:db8::/32)`)
    }
    out.trustedProxies = cidrs
  }
  const logFormat = f['log-format']
  if (logFormat !== undefined) {
    try {
      logFormatOf(logFormat)
    } catch (error: unknown) {
      if (error instanceof LogFormatError) throw new ConfigError(`--log-format: ${error.message} (paste the log_format directive from nginx.conf, its quoted pieces, or the bare format)`)
      throw error
    }
    out.logFormat = logFormat
  }
  return out
}

/** What `--app-key` names other than an attribute. */
const NAMED_SOURCES: readonly string[] = ['auto', 'upstream', 'host', 'service'] satisfies AppSource[]

/** `--app-key`: auto, upstream, host, service, or an attribute path (`@kube.app`, `tag:app`) read into the app field. */
export function appSourceOf(key: string): AppSource {
  return NAMED_SOURCES.includes(key) ? (key as AppSource) : 'key'
}

function appField(key: string): {app?: string} {
  if (NAMED_SOURCES.includes(key)) return {}
  if (!/^(@?[\w.-]+|tag:[\w.-]+)$/.test(key)) {
    throw new ConfigError(`--app-key ${key}: expected auto, upstream, host, service, an attribute path (@kube.app) or a tag (tag:app)`)
  }
  return {app: key}
}

/** `--deploy-app SERVICE=APP`: deploy records of that service or Deployment belong to that app. */
function parseDeployApps(specs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const spec of specs) {
    const eq = spec.indexOf('=')
    if (eq <= 0 || eq === spec.length - 1) throw new ConfigError(`--deploy-app ${spec}: expected SERVICE=APP (e.g. webapp=default-webapp-80)`)
    out[spec.slice(0, eq)] = spec.slice(eq + 1)
  }
  return out
}
