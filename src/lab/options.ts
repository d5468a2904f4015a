import {ConfigError} from '../errors/config-error'
import {parseDuration} from '../util/parse-duration'
import type {CompareRequest, LabSettings} from './settings'
import type {MissingMode} from './pod'
import type {Affinity} from './routing'
import type {DeployStrategy} from './schedule'

/** The lab's flags as oclif parsed them. Time flags have no oclif default: the lab and --compare want different ones. */
export interface LabFlags {
  replicas: number
  step?: string
  deploys: number
  every?: string
  tail?: string
  strategy: string
  affinity: string
  'keep-old-assets': boolean
  missing: string
  port: number
  once: boolean
  duration: string
  browsers?: number
  seed: number
  latency: string
  service: string
  'distinct-shell-lengths'?: boolean
  'rum-sample-rate'?: number
}

/** Real-time defaults for watching a deploy (`lab`), compressed ones for `lab --compare`. */
const DEFAULTS = {
  lab: {step: '10s', every: '20s', tail: '5s', browsers: 8},
  compare: {step: '2s', every: '2s', tail: '3s', browsers: 24},
}

function common(f: LabFlags, d: (typeof DEFAULTS)['lab']): {stepMs: number; everyMs: number; tailMs: number; browsers: number; latencyMs: number} {
  const stepMs = parseDuration('step', f.step ?? d.step)
  if (stepMs < 100) throw new ConfigError('--step must be at least 100ms (a pod needs time to start)')
  const latencyMs = parseDuration('latency', f.latency)
  if (latencyMs > 10_000) throw new ConfigError('--latency must be at most 10s')
  return {stepMs, everyMs: parseDuration('every', f.every ?? d.every), tailMs: parseDuration('tail', f.tail ?? d.tail), browsers: f.browsers ?? d.browsers, latencyMs}
}

export function labSettings(f: LabFlags): LabSettings {
  const durationMs = parseDuration('duration', f.duration)
  if (durationMs <= 0) throw new ConfigError('--duration must be longer than 0')
  const rate = f['rum-sample-rate']
  if (rate !== undefined && !(rate >= 0 && rate <= 100)) throw new ConfigError('--rum-sample-rate must be a percentage, 0 to 100')
  return {
    ...common(f, DEFAULTS.lab), replicas: f.replicas, deploys: f.deploys, strategy: f.strategy as DeployStrategy,
    affinity: f.affinity as Affinity, keepOldAssets: f['keep-old-assets'], missing: f.missing as MissingMode,
    port: f.port, once: f.once, durationMs, seed: f.seed, service: f.service,
    ...(f['distinct-shell-lengths'] ? {distinctShellLengths: true} : {}),
    ...(f['rum-sample-rate'] === undefined ? {} : {rumSampleRate: f['rum-sample-rate']}),
  }
}

export function compareSettings(f: LabFlags): CompareRequest {
  const c = common(f, DEFAULTS.compare)
  return {replicas: f.replicas, stepMs: c.stepMs, everyMs: c.everyMs, tailMs: c.tailMs, browsers: c.browsers, seed: f.seed, latencyMs: c.latencyMs}
}
