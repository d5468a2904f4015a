import type {DeclaredDeploy} from '../model/deploy'
import {type Build, mainVersion} from './builds'

/** A deploy window tied to the builds it replaced and introduced. */
export interface ResolvedDeploy {
  source: 'file' | 'events' | 'inferred'
  start: number
  end: number
  from: Build | undefined
  to: Build | undefined
  service?: string
  version?: string
  description?: string
}

/**
 * Deploys inferred from the logs: wherever a new shell fingerprint appears, the rollout runs from
 * the moment both builds were served side by side until the old shell was last served (or, for a
 * stop-and-start deploy, from the last old shell to the first new one).
 */
export function inferDeploys(builds: readonly Build[]): ResolvedDeploy[] {
  const ordered = [...builds].sort((a, b) => a.firstSeen - b.firstSeen || a.index - b.index)
  const deploys: ResolvedDeploy[] = []
  for (let i = 1; i < ordered.length; i++) {
    const to = ordered[i]
    if (!to) continue
    // The build being replaced: of the older builds, the one still served last.
    let from: Build | undefined
    for (const b of ordered.slice(0, i)) if (!from || b.lastSeen > from.lastSeen) from = b
    if (!from) continue
    const start = Math.min(to.firstSeen, from.lastSeen)
    const end = Math.max(to.firstSeen, Math.min(from.lastSeen, to.lastSeen))
    deploys.push({source: 'inferred', start, end, from, to, version: mainVersion(to)})
  }
  return deploys
}

/**
 * Declared deploys (a deploy file, Datadog events) matched to the builds the logs show: the build
 * named by version tag when logs carry one, else the first build to appear once the deploy began,
 * replacing the older build that was still served last.
 */
export function resolveDeclared(declared: readonly DeclaredDeploy[], builds: readonly Build[], marginMs: number): ResolvedDeploy[] {
  const ordered = [...declared].sort((a, b) => a.start - b.start)
  return ordered.map((d, i) => {
    const nextStart = ordered[i + 1]?.start ?? Number.POSITIVE_INFINITY
    // The first build to appear once the deploy began; failing that, one that appeared just before
    // (clocks of the deploy record and the logs differ) — but never an old build seen long before.
    const candidates = builds.filter((b) => b.firstSeen < nextStart)
    const to = byVersion(builds, d.version) ??
      candidates.filter((b) => b.firstSeen >= d.start).sort((a, b) => a.firstSeen - b.firstSeen)[0] ??
      candidates.filter((b) => b.firstSeen >= d.start - marginMs && b.firstSeen < d.start && b.lastSeen >= d.start)
        .sort((a, b) => b.firstSeen - a.firstSeen)[0]
    const from = byVersion(builds, d.fromVersion) ?? builds
      .filter((b) => b !== to && b.firstSeen < (to?.firstSeen ?? d.start))
      .sort((a, b) => b.lastSeen - a.lastSeen)[0]
    const end = d.end ?? Math.max(d.start, from && to ? Math.min(from.lastSeen, nextStart) : d.start)
    return {
      source: d.source, start: d.start, end: Math.max(end, d.start), from, to,
      service: d.service, version: d.version, description: d.description,
    }
  })
}

function byVersion(builds: readonly Build[], version: string | undefined): Build | undefined {
  if (!version) return undefined
  return builds.find((b) => b.versions.has(version))
}
