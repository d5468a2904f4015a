import Table from 'cli-table3'
import type {DeployStrategy} from './schedule'
import type {MissingMode} from './pod'
import type {BrowserSummary} from './record'
import type {Affinity} from './routing'

/** What makes one strategy: how the balancer routes, how deploys roll, what pods serve. */
export interface StrategySettings {
  strategy: DeployStrategy
  affinity: Affinity
  keepOldAssets: boolean
  missing: MissingMode
}

export interface StrategyDefinition {
  id: string
  label: string
  settings: StrategySettings
}

const rolling = {strategy: 'rolling', affinity: 'none', keepOldAssets: false, missing: 'fallback'} as const

/** The strategies `lab --compare` runs, in the order of the write-up's story. */
export const STRATEGIES: readonly StrategyDefinition[] = [
  {id: 'round-robin', label: 'round-robin, rolling', settings: {...rolling}},
  {id: 'cookie-affinity', label: 'cookie affinity, rolling', settings: {...rolling, affinity: 'cookie'}},
  {id: 'keep-old-assets', label: 'round-robin, rolling, old assets kept', settings: {...rolling, keepOldAssets: true}},
  {id: '404-for-missing', label: 'round-robin, rolling, 404 for missing', settings: {...rolling, missing: '404'}},
  {id: 'blue-green', label: 'blue/green switch, cookie affinity', settings: {...rolling, strategy: 'blue-green', affinity: 'cookie'}},
]

/** The browsers' counts a comparison row shows. */
type RowCounts = Pick<BrowserSummary, 'pageLoads' | 'brokenPageLoads' | 'byPhase' | 'perThousand' | 'affectedUsers' | 'exposedUsers' | 'windowSeconds' | 'bySymptom' | 'byDirection' | 'errors'>

/** One row of the comparison: a strategy, what its browsers got, and the deploy's own length for scale. */
export interface CompareRow extends RowCounts {
  id: string
  label: string
  deploySeconds: number
}

export function compareRow(s: StrategyDefinition, b: BrowserSummary, deploySeconds: number): CompareRow {
  return {
    id: s.id, label: s.label, pageLoads: b.pageLoads, brokenPageLoads: b.brokenPageLoads, byPhase: {...b.byPhase},
    perThousand: b.perThousand, affectedUsers: b.affectedUsers, exposedUsers: b.exposedUsers, windowSeconds: b.windowSeconds,
    deploySeconds, bySymptom: {...b.bySymptom}, byDirection: {...b.byDirection}, errors: b.errors,
  }
}

const secs = (s: number | null): string => (s === null ? '-' : `${s.toFixed(1)} s`)

/** The comparison as a terminal table, one strategy a row. */
export function renderCompare(rows: readonly CompareRow[]): string {
  const table = new Table({
    head: ['Strategy', 'Page loads', 'Broken', 'Per 1000', 'Load/later', 'Users hit/busy', 'Window', 'Deploy', 'HTML/404', 'Old→new/New→old'],
    style: {head: [], border: []},
  })
  for (const r of rows) {
    table.push([
      r.label, r.pageLoads, r.brokenPageLoads, r.perThousand.toFixed(1), `${r.byPhase.load}/${r.byPhase.lazy}`, `${r.affectedUsers}/${r.exposedUsers}`, secs(r.windowSeconds), secs(r.deploySeconds),
      `${r.bySymptom.html}/${r.bySymptom.missing}`, `${r.byDirection.oldPageNewPod}/${r.byDirection.newPageOldPod}`,
    ])
  }
  const legend = [
    'Broken: page loads with at least one script or stylesheet answered by HTML (the SPA fallback) or 404. Load/later: broken while',
    'loading (the rollout race) / only later, by a lazy chunk of a build no longer served (stale tabs).',
    'Users hit/busy: browsers with a broken page load / browsers busy while the deploy ran.',
    'Window: first to last broken request. HTML/404: the symptom, in failed requests. Old→new: an old page asked a new pod; New→old: the reverse.',
  ]
  return `${table.toString()}\n${legend.join('\n')}\n`
}
