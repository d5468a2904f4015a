import type {DeployWindow} from './cluster'
import type {CompareRow, StrategySettings} from './compare'
import type {MissingMode} from './pod'
import type {BrowserFailure, BrowserSummary} from './record'
import type {RumSummary} from './rum'
import type {Affinity} from './routing'
import type {DeployStrategy} from './schedule'

export type LabStop = 'once' | 'duration' | 'interrupt'

/** What `skewscan lab --json` prints (schemas/lab.schema.json). Times are ISO-8601 UTC with milliseconds. */
export interface LabReport {
  schemaVersion: 1
  url: string
  settings: {
    replicas: number
    stepSeconds: number
    deploys: number
    everySeconds: number
    strategy: DeployStrategy
    affinity: Affinity
    keepOldAssets: boolean
    missing: MissingMode
    browsers: number
    seed: number
    latencyMs: number
    service: string
  }
  startedAt: string
  endedAt: string
  stoppedBy: LabStop
  deploys: {id: number; from: string; to: string; start: string; end: string | null; windowSeconds: number | null}[]
  pods: {name: string; build: string; address: string; start: string; stop: string | null}[]
  /** The lab's own record of what the simulated browsers got. */
  browsers: BrowserSummary
  /** The failed requests of the simulated browsers (the first 1000), ground truth from the pods' own headers. */
  failures: (Omit<BrowserFailure, 'time'> & {time: string})[]
  requests: number
  files: {log?: string; ingressLog?: string; deploys?: string; rum?: string}
  /** What the browsers' RUM SDKs sent (`--rum-out`): sessions seen and sampled, events by type. */
  rum?: RumSummary
}

/** What `skewscan lab --compare --json` prints. */
export interface CompareReport {
  schemaVersion: 1
  settings: {replicas: number; stepSeconds: number; browsers: number; seed: number; latencyMs: number}
  strategies: (CompareRow & {settings: StrategySettings})[]
}

const iso = (t: number): string => new Date(t).toISOString()

/** The deploy list `skewscan analyze --deploys` reads: `[{start, end, service, version, from}]`. */
export function deploysJson(deploys: readonly DeployWindow[], service: string): string {
  const list = deploys.map((d) => ({start: iso(d.start), ...(d.end === null ? {} : {end: iso(d.end)}), service, version: d.to, from: d.from}))
  return `${JSON.stringify(list, null, 2)}\n`
}

export function deployReport(d: DeployWindow): LabReport['deploys'][number] {
  return {id: d.id, from: d.from, to: d.to, start: iso(d.start), end: d.end === null ? null : iso(d.end), windowSeconds: d.end === null ? null : (d.end - d.start) / 1000}
}
