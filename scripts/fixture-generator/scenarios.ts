/** The shipped scenarios. Names are used by tests: keep them stable. */
import type {SimParams} from './types'

export interface Scenario {
  description: string
  params: Partial<SimParams>
}

/**
 * Shared shape: 40 minutes of traffic, the first deploy 10 minutes in, browser arrivals raised for a
 * few minutes around each deploy (six-fold) (busy enough that a rollout breaks several page loads while every
 * file stays small), and stale lazy loads at least 8.5 minutes after a deploy ends, which keeps them
 * more than the 5-minute incident gap away from the rollout's own failures.
 */
const common: Partial<SimParams> = {
  start: '2026-11-29T14:00:00.000Z',
  durationSeconds: 40 * 60,
  replicas: 3,
  step: 30,
  firstDeployAtSeconds: 10 * 60,
  browsersPerMinute: 0.8,
  surge: {factor: 6, beforeSeconds: 150, afterSeconds: 20},
  apiShare: 0.25,
  healthzEverySeconds: 120,
  staleShare: 0.15,
  staleMinAfterEndSeconds: 510,
  ddPageSize: 500,
}

export const scenarios: Record<string, Scenario> = {
  'rolling-round-robin': {
    description: 'One rolling deploy (3 pods, 30 s steps) behind a round-robin balancer with SPA fallback.',
    params: {...common, seed: 110, deploys: 1, routing: 'round-robin', missing: 'fallback'},
  },
  'rolling-sticky': {
    description: 'The same traffic as rolling-round-robin, with ingress-nginx cookie affinity (INGRESSCOOKIE).',
    params: {...common, seed: 110, deploys: 1, routing: 'cookie', missing: 'fallback'},
  },
  'two-deploys': {
    description: 'Three builds, two rolling deploys 15 minutes apart, round robin, SPA fallback.',
    params: {...common, seed: 107, deploys: 2, every: 15 * 60, routing: 'round-robin', missing: 'fallback'},
  },
  'missing-404': {
    description: 'One rolling deploy where pods answer unknown asset paths with 404 instead of the shell.',
    params: {...common, seed: 404, deploys: 1, routing: 'round-robin', missing: '404'},
  },
  quiet: {
    description: 'No deploy at all: only bots and scanners hit fallbacks (orphans); no incidents.',
    params: {...common, seed: 505, durationSeconds: 36 * 60, deploys: 0, routing: 'round-robin', missing: 'fallback'},
  },
}

export const scenarioNames = Object.keys(scenarios)
