import type {FailureCause} from '../model/report'
import type {Attributed} from './attribute'
import type {ResolvedDeploy} from './deploys'

/** Failures of one app, one deploy and one cause, close together in time. */
export interface Incident {
  app: string
  cause: FailureCause
  deploy: ResolvedDeploy | undefined
  /** In time order. */
  failures: Attributed[]
  start: number
  end: number
}

/**
 * Clusters one app's attributed failures (in time order) into incidents: per deploy and cause, a
 * gap longer than `gapMs` starts a new one. An incident never spans two deploys or two causes.
 */
export function clusterIncidents(app: string, failures: readonly Attributed[], gapMs: number): Incident[] {
  const groups = new Map<string, {deploy: ResolvedDeploy | undefined; cause: FailureCause; list: Attributed[]}>()
  const deployIndex = new Map<ResolvedDeploy | undefined, number>()
  for (const f of failures) {
    let d = deployIndex.get(f.deploy)
    if (d === undefined) deployIndex.set(f.deploy, (d = deployIndex.size))
    const key = `${d}|${f.cause}`
    let g = groups.get(key)
    if (!g) groups.set(key, (g = {deploy: f.deploy, cause: f.cause, list: []}))
    g.list.push(f)
  }
  const incidents: Incident[] = []
  for (const g of groups.values()) {
    let current: Incident | undefined
    for (const f of g.list) {
      if (!current || f.time - current.end > gapMs) {
        current = {app, cause: g.cause, deploy: g.deploy, failures: [], start: f.time, end: f.time}
        incidents.push(current)
      }
      current.failures.push(f)
      current.end = f.time
    }
  }
  return incidents
}
