import {fitTable} from '../report/fit-table'
import {wrap} from '../report/table'
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

/** The comparison as a terminal table, one strategy a row, fitted to `width` columns when given. */
export function renderCompare(rows: readonly CompareRow[], width?: number): string {
  const r = [...rows]
  const {text, dropped} = fitTable([
    {head: 'Strategy', cells: r.map((x) => x.label)},
    {head: 'Page loads', cells: r.map((x) => x.pageLoads), align: 'right', drop: 5},
    {head: 'Broken', cells: r.map((x) => x.brokenPageLoads), align: 'right'},
    {head: 'Per 1000', cells: r.map((x) => x.perThousand.toFixed(1)), align: 'right'},
    {head: 'Load/later', cells: r.map((x) => `${x.byPhase.load}/${x.byPhase.lazy}`), align: 'right', drop: 4},
    {head: 'Users hit/busy', cells: r.map((x) => `${x.affectedUsers}/${x.exposedUsers}`), align: 'right'},
    {head: 'Window', cells: r.map((x) => secs(x.windowSeconds)), align: 'right'},
    {head: 'Deploy', cells: r.map((x) => secs(x.deploySeconds)), align: 'right', drop: 3},
    {head: 'HTML/404', cells: r.map((x) => `${x.bySymptom.html}/${x.bySymptom.missing}`), align: 'right', drop: 1},
    {head: 'Old→new/New→old', cells: r.map((x) => `${x.byDirection.oldPageNewPod}/${x.byDirection.newPageOldPod}`), align: 'right', drop: 2},
  ], width)
  const legend = [
    'Broken: page loads with at least one script or stylesheet answered by HTML (the SPA fallback) or 404. Load/later: broken while',
    'loading (the rollout race) / only later, by a lazy chunk of a build no longer served (stale tabs).',
    'Users hit/busy: browsers with a broken page load / browsers busy while the deploy ran.',
    'Window: first to last broken request. HTML/404: the symptom, in failed requests. Old→new: an old page asked a new pod; New→old: the reverse.',
  ].join(' ')
  const note = dropped.length > 0 ? `\n(${dropped.join(', ')} left out to fit ${width} columns: --wide shows them)` : ''
  return `${text}${note}\n${wrap(legend, width)}\n`
}
