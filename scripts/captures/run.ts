/** Runs `analyze` on a capture rendered one way, and scores it against the truth. */
import {rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {DEFAULT_OPTIONS, type AnalysisOptions} from '../../src/analysis/options'
import {analyze} from '../../src/app/analyze'
import type {AnalysisReport, FailureRecord} from '../../src/model/report'
import {DEFAULT_NORMALIZE} from '../../src/normalize/fields'
import {type Capture, type Format, renderDeployEvents, renderLog, renderRum, type RumAs, type Stretch, stretchOf} from './capture'
import {type CaptureScore, scoreCapture} from './score'

export interface CaseSpec {
  format: Format
  order: 'oldest-first' | 'newest-first'
  stretch: number
  /** `inferred`: no deploy records; `events`: the captured Datadog deploy events. */
  deploys: 'inferred' | 'events'
  /** Read the browsers' RUM events beside the log (`--rum`), in this order. */
  rum?: 'oldest-first' | 'newest-first'
  /** The RUM events made another way (no addresses, clocks off). */
  rumAs?: RumAs
}

export interface CaseResult {
  report: AnalysisReport
  failures: FailureRecord[]
  score: CaptureScore
}

/**
 * The analysis options for a capture stretched by `factor`: the defaults, with the time scales that
 * describe people (page loads expire, lazy loads come later) and the deploy margin as real traffic
 * would have them. The recordings compress a deploy of minutes into 8 s: at ×1 the defaults'
 * minutes cover the whole recording.
 */
export function optionsFor(over: Partial<AnalysisOptions> = {}): AnalysisOptions {
  return {...DEFAULT_OPTIONS, ...over}
}

export async function runCase(c: Capture, spec: CaseSpec, analysis: AnalysisOptions = optionsFor()): Promise<CaseResult> {
  const {report, failures, stretch} = await analyzeCase(c, spec, analysis)
  return {report, failures, score: scoreCapture(c, stretch, report, failures)}
}

/** analyze on the capture rendered as `spec` says; the stretch, to score it with. */
export async function analyzeCase(c: Capture, spec: CaseSpec, analysis: AnalysisOptions = optionsFor()): Promise<{report: AnalysisReport; failures: FailureRecord[]; stretch: Stretch}> {
  const s = stretchOf(c, spec.stretch)
  // Files of their own straight in the temporary directory, removed when done: a directory per
  // case cost several times more (creating and removing it) than its two files.
  const written: string[] = []
  const file = (name: string, content: string | Buffer): string => {
    const path = join(tmpdir(), `skewscan-capture-${process.pid}-${++files}-${name}`)
    writeFileSync(path, content, {flag: 'wx'})
    written.push(path)
    return path
  }
  try {
    const log = file(`${c.name}.${spec.format}.log`, bytesOf(renderLog(c, spec.format, s, spec.order)))
    const deploysFile = spec.deploys === 'events' ? file('deploy-events.json', renderDeployEvents(c, s)) : undefined
    const rum = spec.rum === undefined ? undefined : [file('rum-events.json', renderRum(c, s, spec.rum, spec.rumAs))]
    const failures: FailureRecord[] = []
    const report = await analyze({
      inputs: [log], normalize: DEFAULT_NORMALIZE, analysis, reorderWindowMs: 60_000, parallel: false,
      onFailure: (f) => failures.push(f), ...(deploysFile ? {deploysFile} : {}), ...(rum ? {rum} : {}),
    })
    return {report, failures, stretch: s}
  } finally {
    for (const path of written) rmSync(path, {force: true})
  }
}

/** Files written by analyzeCase so far in this process (each name is new). */
let files = 0

/**
 * A text's UTF-8 bytes, the last one's kept: renderLog gives the same text to the two cases of a
 * rendering in a row (deploys inferred, then from events), and encoding it took as long as writing it.
 */
function bytesOf(text: string): Buffer {
  if (lastBytes?.text !== text) lastBytes = {text, bytes: Buffer.from(text)}
  return lastBytes.bytes
}
let lastBytes: {text: string; bytes: Buffer} | undefined
