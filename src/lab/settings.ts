/**
 * What a lab run and a comparison of strategies are asked to do: the settings lab/options.ts makes
 * of the flags and app/lab.ts runs. Here, beside the lab's parts, so the settings never reach up
 * into the use case.
 */
import type {BrowserTiming} from './browsers'
import type {MissingMode} from './pod'
import type {Affinity} from './routing'
import type {ScheduleInput} from './schedule'

/** The timetable (replicas, step, deploys, every, tail, strategy, once) and what the pods and the balancer do. */
export interface LabSettings extends ScheduleInput {
  affinity: Affinity
  keepOldAssets: boolean
  missing: MissingMode
  /** The balancer's port; 0 for any free one. */
  port: number
  /** Hard cap on the run, whatever else happens. */
  durationMs: number
  browsers: number
  seed: number
  latencyMs: number
  service: string
  /** Shells of a length per build; by default every build's shell has one length, as real bundlers make them. */
  distinctShellLengths?: boolean
  /** Percent of the browsers' sessions RUM samples, when the lab writes RUM events (100 when absent). */
  rumSampleRate?: number
}

export interface CompareRequest {
  replicas: number
  stepMs: number
  everyMs: number
  tailMs: number
  browsers: number
  seed: number
  latencyMs: number
  timing?: BrowserTiming
  /** `simulated` (default): the same seed gives the same table on any machine. */
  clock?: 'wall' | 'simulated'
  signal?: AbortSignal
  /** Each strategy's Datadog NDJSON log and deploy list are written here (`<id>.ndjson`, `<id>-deploys.json`), for analyze. */
  logDir?: string
}
