/**
 * Holds an analysis of a capture to the browsers' truth, the way the captures' README says a fair
 * score does: users by client address, each deploy's first and last failure of the rollout race,
 * stale-client failures, and no incident where the truth has no failure. A lazy failure up to 2 s
 * (stretched) after the deploy's last old pod exited counts as either cause.
 */
import type {AnalysisReport, FailureRecord} from '../../src/model/report'
import type {Capture, Stretch, Truth, TruthFailure} from './capture'

export interface DeployScore {
  truthId: number
  ourId: string | null
  truth: {first: number; last: number; lastWithBoundary: number} | null
  ours: {first: number; last: number} | null
  firstError: number | null
  lastError: number | null
  ok: boolean
}

export interface CaptureScore {
  users: {precision: number; recall: number; ours: number; truth: number; extra: string[]; missed: string[]}
  requests: {precision: number; recall: number; ours: number; truth: number}
  deploys: DeployScore[]
  stale: {ours: number; strict: number; boundary: number; ok: boolean}
  /** Incidents whose failures the truth has none of, or on a deploy the truth saw no failure in. */
  spuriousIncidents: string[]
  tolerance: number
  pass: boolean
  problems: string[]
}

const ratio = (n: number, d: number): number => (d === 0 ? 1 : n / d)

/** Our failure records joined to the truth's: by request id, else by client, path and the logged second. */
export function joinTruth(failures: readonly FailureRecord[], truth: readonly TruthFailure[], s: Stretch): Map<FailureRecord, TruthFailure> {
  const byId = new Map(truth.map((t) => [t.request_id, t]))
  // Formats that cannot carry nginx's request id whole carry a part of it (scripts/captures/formats):
  // an ALB trace id (`Root=1-<time>-<24 hex>`) its first 24 hex digits, an S3 request id its first 16, upper-cased.
  const byTrace = new Map(truth.map((t) => [t.request_id.slice(0, 24), t]))
  const byS3 = new Map(truth.map((t) => [t.request_id.slice(0, 16).toUpperCase(), t]))
  const lookup = (id: string): TruthFailure | undefined =>
    byId.get(id) ?? (id.startsWith('Root=1-') ? byTrace.get(id.slice(id.lastIndexOf('-') + 1)) : /^[0-9A-F]{16}$/.test(id) ? byS3.get(id) : undefined)
  const out = new Map<FailureRecord, TruthFailure>()
  const used = new Set<TruthFailure>()
  for (const f of failures) {
    const id = f.requestId
    const t = id === undefined ? undefined : lookup(id)
    if (t) {
      out.set(f, t)
      used.add(t)
    }
  }
  for (const f of failures) {
    if (out.has(f) || f.requestId !== undefined) continue
    const at = Date.parse(f.time)
    const t = truth.find((x) => !used.has(x) && x.client_ip === f.clientIp && x.path === f.path && Math.abs(s.ms(Date.parse(x.log_time)) - at) < 1000 + 1)
    if (t) {
      out.set(f, t)
      used.add(t)
    }
  }
  return out
}

/**
 * A lazy failure the truth counts as during the deploy although it came after the last old pod
 * exited (within its 2 s margin): calling it a stale client is just as right.
 */
export function atBoundary(truth: Truth, s: Stretch): (t: TruthFailure) => boolean {
  const end = new Map(truth.deploys.map((d) => [d.id, s.ms(Date.parse(d.end))]))
  return (t) => t.context === 'lazy_during_deploy' && t.deploy !== null && s.ms(Date.parse(t.log_time)) > (end.get(t.deploy) ?? Infinity)
}

/**
 * `app`: score one app of a report (a capture composed of several), against `truth`; by default the
 * whole report against the capture's truth.
 */
export function scoreCapture(c: Capture, s: Stretch, whole: AnalysisReport, allFailures: readonly FailureRecord[], only?: {app: string; truth: Truth}): CaptureScore {
  const truth = only?.truth ?? c.truth
  const mine = <T extends {app: string | null}>(x: readonly T[]): T[] => (only ? x.filter((y) => y.app === only.app) : [...x])
  const report = {...whole, affectedUsers: mine(whole.affectedUsers), deploys: mine(whole.deploys), incidents: mine(whole.incidents)}
  const failures = mine(allFailures)
  const problems: string[] = []
  const tolerance = 1000 * s.factor
  const time = (t: TruthFailure): number => s.ms(Date.parse(t.log_time))
  const boundary = atBoundary(truth, s)
  const joined = joinTruth(failures, truth.failure_requests, s)

  // Users, by client address.
  const ourIps = new Set(report.affectedUsers.map((u) => u.clientIp))
  const truthIps = new Set(truth.failure_requests.map((t) => t.client_ip))
  const hit = [...ourIps].filter((ip) => truthIps.has(ip)).length
  const users = {
    precision: ratio(hit, ourIps.size), recall: ratio(hit, truthIps.size), ours: ourIps.size, truth: truthIps.size,
    extra: [...ourIps].filter((ip) => !truthIps.has(ip)), missed: [...truthIps].filter((ip) => !ourIps.has(ip)),
  }
  const requests = {precision: ratio(joined.size, failures.length), recall: ratio(joined.size, truth.failure_requests.length), ours: failures.length, truth: truth.failure_requests.length}

  // Deploys: ours is the one most of the truth deploy's race failures were put on.
  const deploys: DeployScore[] = truth.deploys.map((d) => {
    const race = truth.failure_requests.filter((t) => t.deploy === d.id && t.context !== 'stale_client_lazy')
    const strict = race.filter((t) => !boundary(t))
    const votes = new Map<string, number>()
    for (const [f, t] of joined) if (race.includes(t) && f.deployId) votes.set(f.deployId, (votes.get(f.deployId) ?? 0) + 1)
    const ourId = [...votes].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null
    const ourDeploy = report.deploys.find((x) => x.id === ourId)
    const window = ourDeploy?.rolloutWindow
    const tw = strict.length === 0 ? null : {
      first: Math.min(...strict.map(time)), last: Math.max(...strict.map(time)), lastWithBoundary: Math.max(...race.map(time)),
    }
    const ours = window ? {first: Date.parse(window.start), last: Date.parse(window.end)} : null
    const firstError = tw && ours ? ours.first - tw.first : null
    const lastError = tw && ours ? (ours.last < tw.last ? ours.last - tw.last : ours.last > tw.lastWithBoundary ? ours.last - tw.lastWithBoundary : 0) : null
    const ok = tw === null ? true : firstError !== null && lastError !== null && Math.abs(firstError) <= tolerance && Math.abs(lastError) <= tolerance
    if (!ok) problems.push(`deploy ${d.id}: rollout window ${ours ? `${iso(ours.first)}..${iso(ours.last)}` : 'none'}, truth ${tw ? `${iso(tw.first)}..${iso(tw.last)}(${iso(tw.lastWithBoundary)})` : 'none'}`)
    return {truthId: d.id, ourId, truth: tw, ours, firstError, lastError, ok}
  })

  // Stale clients: strict ones, plus those at the boundary (either cause is right).
  const ourStale = failures.filter((f) => f.cause === 'stale-client').length
  const strictStale = truth.failure_requests.filter((t) => t.context === 'stale_client_lazy').length
  const boundaryCount = truth.failure_requests.filter(boundary).length
  const stale = {ours: ourStale, strict: strictStale, boundary: boundaryCount, ok: ourStale >= Math.floor(strictStale * 0.95) && ourStale <= Math.ceil((strictStale + boundaryCount) * 1.05)}
  if (!stale.ok) problems.push(`stale-client failures ${ourStale}, truth ${strictStale} (+${boundaryCount} at the boundary)`)

  // Incidents: none of whose failures the truth knows, or on a deploy the truth saw none in.
  const known = new Set([...joined.keys()].map((f) => f.incidentId))
  const quietDeploys = new Set(deploys.filter((d) => d.ourId !== null && truth.failure_requests.every((t) => t.deploy !== d.truthId)).map((d) => d.ourId))
  const spuriousIncidents = report.incidents.filter((i) => !known.has(i.id) || (i.deployId !== null && quietDeploys.has(i.deployId))).map((i) => i.id)
  if (spuriousIncidents.length > 0) problems.push(`incidents the truth has no failure in: ${spuriousIncidents.join(', ')}`)
  if (users.precision < 0.98) problems.push(`user precision ${users.precision.toFixed(3)} (extra: ${users.extra.join(', ')})`)
  if (users.recall < 0.98) problems.push(`user recall ${users.recall.toFixed(3)} (missed: ${users.missed.join(', ')})`)
  return {users, requests, deploys, stale, spuriousIncidents, tolerance, pass: problems.length === 0, problems}
}

function iso(t: number): string {
  return new Date(t).toISOString().slice(11, 23)
}
