import type {SimParams} from './types'

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
  shellBytes: [1832, 1851, 1869],
  browsersPerMinute: 3,
  surge: {factor: 1, beforeSeconds: 180, afterSeconds: 30},
  staleShare: 0.12,
  staleMinAfterEndSeconds: 90,
  lazyShare: 0.4,
  apiShare: 0.35,
  resolution: 's',
  incidentGapSeconds: 300,
  deployMarginSeconds: 60,
  healthzEverySeconds: 60,
  crawler: true,
  scanners: 2,
  retryShare: 0.004,
  ddPageSize: 1000,
}

/** Fills in defaults, normalises `start` and checks the values that would make the simulation meaningless. */
export function resolveParams(input: Partial<SimParams> = {}): SimParams {
  const p: SimParams = {
    ...DEFAULT_PARAMS,
    ...input,
    surge: {...DEFAULT_PARAMS.surge, ...input.surge},
    shellBytes: [...(input.shellBytes ?? DEFAULT_PARAMS.shellBytes)],
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
  return p
}
