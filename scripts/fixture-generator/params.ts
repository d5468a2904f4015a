import type {AppConfig, SimParams} from './types'

/** Defaults for every simulation parameter; scenarios override some of them. */
export const DEFAULT_PARAMS: SimParams = {
  seed: 1,
  start: '2026-11-29T14:00:00.000Z',
  durationSeconds: 40 * 60,
  service: 'web',
  origin: 'https://shop.example.com',
  replicas: 3,
  step: 30,
  routing: 'round-robin',
  missing: 'fallback',
  deploys: 1,
  firstDeployAtSeconds: 10 * 60,
  every: 15 * 60,
  shellBytes: [1832],
  dynamicShell: false,
  homeShare: 0.7,
  browsersPerMinute: 3,
  surge: {factor: 1, beforeSeconds: 180, afterSeconds: 30},
  staleShare: 0.12,
  staleMinAfterEndSeconds: 510,
  lazyShare: 0.4,
  apiShare: 0.35,
  fontShare: 0,
  devtoolsShare: 0,
  resolution: 's',
  incidentGapSeconds: 300,
  deployMarginSeconds: 60,
  uptimeEverySeconds: 0,
  watchEverySeconds: 0,
  healthzEverySeconds: 60,
  crawler: true,
  crawlerPagesEverySeconds: 0,
  scanners: 2,
  probeEverySeconds: 0,
  preexistingTabs: 0,
  retryShare: 0.004,
  ddPageSize: 1000,
  otherApps: [],
}

/** Kubernetes namespace of every app (upstream names are `<namespace>-<service>-80`). */
export const NAMESPACE = 'default'

/** Fills in defaults, normalises `start` and checks the values that would make the simulation meaningless. */
export function resolveParams(input: Partial<SimParams> = {}): SimParams {
  const p: SimParams = {
    ...DEFAULT_PARAMS,
    ...input,
    surge: {...DEFAULT_PARAMS.surge, ...input.surge},
    shellBytes: [...(input.shellBytes ?? DEFAULT_PARAMS.shellBytes)],
    otherApps: (input.otherApps ?? []).map((a) => ({...a, shellBytes: [...a.shellBytes]})),
  }
  const startMs = Date.parse(p.start)
  if (Number.isNaN(startMs)) throw new Error(`start is not a date: ${p.start}`)
  if (startMs % 1000 !== 0) throw new Error('start must be on a whole second')
  p.start = new Date(startMs).toISOString()
  const positive: (keyof SimParams)[] = ['durationSeconds', 'replicas', 'step', 'browsersPerMinute', 'ddPageSize']
  for (const k of positive) {
    const v = p[k]
    if (typeof v !== 'number' || !(v > 0)) throw new Error(`${k} must be a positive number`)
  }
  for (const k of ['step', 'firstDeployAtSeconds', 'every'] as const) {
    if (!Number.isInteger(p[k])) throw new Error(`${k} must be a whole number of seconds`)
  }
  if (p.ddPageSize > 1000) throw new Error('ddPageSize must be at most 1000 (the Datadog API limit)')
  if (p.deploys < 0 || !Number.isInteger(p.deploys)) throw new Error('deploys must be a whole number ≥ 0')
  if (p.surge.factor < 1) throw new Error('surge.factor must be ≥ 1')
  if (p.dynamicShell && p.missing !== '404') throw new Error('dynamicShell needs missing: 404 (fallback bodies of a varying shell cannot be told)')
  const services = new Set([p.service, ...p.otherApps.map((a) => a.service)])
  if (services.size !== 1 + p.otherApps.length) throw new Error('every app needs a service name of its own')
  return p
}

/** The apps of a simulation: the main one (index 0) from the top-level params, then `otherApps`. */
export function appConfigs(p: SimParams): AppConfig[] {
  const main: AppConfig = {
    index: 0, service: p.service, namespace: NAMESPACE, upstreamName: `${NAMESPACE}-${p.service}-80`, origin: p.origin,
    host: new URL(p.origin).host, replicas: p.replicas, step: p.step, deploys: p.deploys, firstDeployAtSeconds: p.firstDeployAtSeconds,
    every: p.every, shellBytes: p.shellBytes, browsersPerMinute: p.browsersPerMinute, dynamicShell: p.dynamicShell, layout: 'build',
    ...(p.rollouts ? {rollouts: p.rollouts} : {}), ...(p.restarts ? {restarts: p.restarts} : {}), ...(p.scaleOuts ? {scaleOuts: p.scaleOuts} : {}),
  }
  const others = p.otherApps.map((a, i): AppConfig => ({
    index: i + 1, service: a.service, namespace: NAMESPACE, upstreamName: `${NAMESPACE}-${a.service}-80`, origin: a.origin,
    host: new URL(a.origin).host, replicas: a.replicas ?? p.replicas, step: a.step ?? p.step, deploys: a.deploys ?? 1,
    firstDeployAtSeconds: a.firstDeployAtSeconds, every: a.every ?? p.every, shellBytes: a.shellBytes,
    browsersPerMinute: a.browsersPerMinute ?? p.browsersPerMinute, dynamicShell: false, layout: a.layout ?? 'vite',
  }))
  return [main, ...others]
}
