import {compareReport, deployRows} from '../analysis/compare'
import type {CompareReport} from '../model/compare'
import type {InputSummary} from '../model/report'
import {analyze, type AnalyzeRequest} from './analyze'

export interface CompareRequest {
  /** Everything an analysis needs except its inputs. */
  base: Omit<AnalyzeRequest, 'inputs'>
  /** One analysis of these inputs, its deploys split at `fixDate`… */
  inputs?: string[]
  fixDate?: number
  /** …or one analysis per labelled set of inputs. */
  sets?: {name: string; inputs: string[]}[]
  /** Replicas, when the logs do not name the pods. */
  pods?: number
  /** Called with what each analysis read (what it skipped, where an input ended early). */
  onInput?: (input: InputSummary) => void
}

/** Per deploy and per group: broken share, users and window, before and after a fix. */
export async function compare(req: CompareRequest): Promise<CompareReport> {
  if (req.sets) {
    const groups = []
    for (const set of req.sets) {
      const report = await analyze({...req.base, inputs: set.inputs})
      req.onInput?.(report.input)
      groups.push({name: set.name, rows: deployRows(set.name, report, undefined, req.pods)})
    }
    return compareReport({kind: 'sets'}, groups)
  }
  const fix = req.fixDate ?? Number.POSITIVE_INFINITY
  const report = await analyze({...req.base, inputs: req.inputs ?? []})
  req.onInput?.(report.input)
  return compareReport({kind: 'fix-date', fixDate: new Date(fix).toISOString()}, [
    {name: 'before', rows: deployRows('before', report, (t) => t < fix, req.pods)},
    {name: 'after', rows: deployRows('after', report, (t) => t >= fix, req.pods)},
  ])
}
