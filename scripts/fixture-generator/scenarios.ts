/** The shipped scenarios. Names are used by tests: keep them stable. */
import type {SimParams} from './types'

export interface Scenario {
  description: string
  params: Partial<SimParams>
}

/**
 * Shared shape: 24 minutes of traffic, the first deploy 8 minutes in, browser arrivals raised
 * nine-fold for a few minutes around each deploy (busy enough that a rollout breaks several page
 * loads while every file stays small), stale lazy loads at least 8.5 minutes after a deploy ends,
 * and the noise of a real site: kube-probe, Googlebot (pages, bundles, old bundles after a deploy),
 * scanners (two bots and one with a browser's user agent), DevTools source maps, a web font. Every
 * build's index.html has one length unless a scenario says otherwise, as real bundlers make them.
 */
const common: Partial<SimParams> = {
  start: '2026-11-29T14:00:00.000Z',
  durationSeconds: 24 * 60,
  replicas: 3,
  step: 30,
  firstDeployAtSeconds: 8 * 60,
  browsersPerMinute: 0.5,
  surge: {factor: 9, beforeSeconds: 150, afterSeconds: 20},
  apiShare: 0.25,
  fontShare: 0.5,
  devtoolsShare: 0.06,
  healthzEverySeconds: 120,
  uptimeEverySeconds: 300,
  watchEverySeconds: 3,
  crawlerPagesEverySeconds: 600,
  scanners: 3,
  staleShare: 0.15,
  staleMinAfterEndSeconds: 510,
  ddPageSize: 500,
}

export const scenarios: Record<string, Scenario> = {
  'rolling-round-robin': {
    description: 'One rolling deploy (3 pods, 30 s steps) behind a round-robin balancer with SPA fallback; skewscan probe runs during it.',
    params: {...common, seed: 141, deploys: 1, routing: 'round-robin', missing: 'fallback', probeEverySeconds: 15},
  },
  'rolling-sticky': {
    description: 'The same traffic as rolling-round-robin, with ingress-nginx cookie affinity (INGRESSCOOKIE).',
    params: {...common, seed: 141, deploys: 1, routing: 'cookie', missing: 'fallback', probeEverySeconds: 15},
  },
  'two-deploys': {
    description: 'Three builds, two rolling deploys 9 minutes apart, round robin, SPA fallback; tabs opened before the logs began fail as orphans. Each build\'s index.html has a length of its own (the option; one length is the default).',
    params: {...common, seed: 103, durationSeconds: 29 * 60, firstDeployAtSeconds: 6 * 60, deploys: 2, every: 9 * 60, routing: 'round-robin', missing: 'fallback', preexistingTabs: 3, shellBytes: [1832, 1851, 1869]},
  },
  'two-deploys-same-length': {
    description: 'As two-deploys, but every build\'s index.html has one length, as real bundlers make them: builds are known by their assets and pods.',
    params: {...common, seed: 103, durationSeconds: 29 * 60, firstDeployAtSeconds: 6 * 60, deploys: 2, every: 9 * 60, routing: 'round-robin', missing: 'fallback', preexistingTabs: 3, shellBytes: [2210, 2210, 2210]},
  },
  rollback: {
    description: 'A deploy and its rollback (A → B → A, 9 minutes apart), every build\'s index.html of one length: the build rolled back to is the same build.',
    params: {...common, seed: 211, durationSeconds: 29 * 60, firstDeployAtSeconds: 6 * 60, deploys: 2, every: 9 * 60, rollouts: [0, 1, 0], routing: 'round-robin', missing: 'fallback', shellBytes: [2210, 2210, 2210]},
  },
  'restart-scale-out': {
    description: 'A rolling deploy, then `kubectl rollout restart` (new pods and replica set, same build) while the old build\'s stale tabs still lazy-load, then an autoscaler\'s scale-out from 3 to 5 pods: one deploy, no other.',
    params: {...common, seed: 613, durationSeconds: 28 * 60, deploys: 1, staleShare: 0.3, preexistingTabs: 2, restarts: [18 * 60], scaleOuts: [{atSeconds: 22 * 60, replicas: 5}], routing: 'round-robin', missing: 'fallback'},
  },
  'missing-404': {
    description: 'One rolling deploy where pods answer unknown asset paths with 404 instead of the shell.',
    params: {...common, seed: 431, deploys: 1, routing: 'round-robin', missing: '404'},
  },
  quiet: {
    description: 'No deploy at all: only crawlers, scanners and source maps hit fallbacks; no incidents.',
    params: {...common, seed: 505, durationSeconds: 14 * 60, deploys: 0, routing: 'round-robin', missing: 'fallback'},
  },
  'two-apps': {
    description: 'Two apps behind one ingress (web on shop.example.com, docs on docs.example.com, Vite-style assets), each deploying once, a minute apart.',
    params: {
      ...common, seed: 220, durationSeconds: 22 * 60, deploys: 1, routing: 'round-robin', missing: 'fallback',
      otherApps: [{service: 'docs', origin: 'https://docs.example.com', shellBytes: [2290], firstDeployAtSeconds: 9 * 60, browsersPerMinute: 0.35}],
    },
  },
  'dynamic-homepage': {
    description: 'A homepage rendered per request (its length varies by tens of bytes, never twice the same): no build fingerprint; 404s for missing assets still tell the rollout.',
    params: {
      ...common, seed: 313, durationSeconds: 13 * 60, firstDeployAtSeconds: 6 * 60, deploys: 1, routing: 'round-robin', missing: '404',
      dynamicShell: true, homeShare: 1, staleShare: 0,
    },
  },
}

export const scenarioNames = Object.keys(scenarios)
