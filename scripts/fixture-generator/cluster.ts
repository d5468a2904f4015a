/** Builds, pods and the rolling-deploy schedule of each app: everything about the cluster that is fixed up front. */
import {profileOf} from './catalog'
import {Rng} from './rng'
import type {AppConfig, Build, BuildAsset, DeployPlan, Pod, PodChange, ScalingStep, SimParams} from './types'

const POD_SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789'
const POD_PORT = 8080
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** A, B, …, Z, AA, AB, … */
export function buildKey(index: number): string {
  let n = index
  let key = ''
  do {
    key = String.fromCharCode(65 + (n % 26)) + key
    n = Math.floor(n / 26) - 1
  } while (n >= 0)
  return key
}

export function shellLengths(shellBytes: readonly number[], count: number): number[] {
  const out: number[] = []
  for (let i = 0; i < count; i++) {
    const given = shellBytes[i]
    const prev = out[i - 1]
    out.push(given ?? prev ?? 1832)
  }
  // Builds share a length unless told otherwise, as real bundlers' builds usually do (content hashes of one length).
  return out
}

function versionDate(startIso: string): string {
  return startIso.slice(0, 10).replace(/-/g, '.')
}

/** A stream of its own per app, so adding an app leaves the main app's draws as they were. */
export const appStream = (name: string, app: AppConfig): string => (app.index === 0 ? name : `${name}:${app.service}`)

/**
 * The builds of one app. Content hashes always hold a letter and a digit (as real bundler hashes
 * nearly always do), so they read as content-hashed names; a scanner's guesses (`/js/app.js`) never do.
 */
export function makeBuilds(params: SimParams, app: AppConfig): Build[] {
  const rng = new Rng(params.seed, appStream('builds', app))
  const count = app.deploys + 1
  const shells = shellLengths(app.shellBytes, count)
  const forbidden = new Set(shells)
  const size = (min: number, max: number): number => {
    let n = rng.int(min, max)
    while (forbidden.has(n)) n++
    return n
  }
  const used = new Set<string>()
  const hash = (length: number, alphabet?: string): string => {
    for (;;) {
      const h = alphabet ? rng.chars(alphabet, length) : rng.hex(length)
      if (!used.has(h) && /[a-zA-Z]/.test(h) && /\d/.test(h)) {
        used.add(h)
        return h
      }
    }
  }
  const routes = profileOf(app.index).routes
  const builds: Build[] = []
  for (let i = 0; i < count; i++) {
    const asset = (name: string, ext: string, min: number, max: number): BuildAsset =>
      app.layout === 'vite'
        ? {path: `/assets/${name}-${hash(8, ALNUM)}.${ext}`, bytes: size(min, max)}
        : {path: `/_build/${name}.${hash(8)}.${ext}`, bytes: size(min, max)}
    const main = asset(app.layout === 'vite' ? 'index' : 'app', 'js', 120_000, 400_000)
    const vendor = asset('vendor', 'js', 150_000, 400_000)
    const css = asset(app.layout === 'vite' ? 'index' : 'app', 'css', 8_000, 60_000)
    const font = asset('inter', 'woff2', 18_000, 48_000)
    const chunks: Record<string, BuildAsset> = {}
    for (const route of routes) chunks[route] = asset(app.layout === 'vite' ? route : `chunk-${route}`, 'js', 5_000, 90_000)
    builds.push({
      app: app.service,
      key: buildKey(i),
      version: `${versionDate(params.start)}-${i + 1}`,
      replicaSet: `${app.service}-${hash(rng.int(9, 10))}`,
      shellBytes: shells[i] as number,
      main,
      vendor,
      css,
      font,
      chunks,
    })
  }
  return builds
}

/** Every asset path of a build with its size. */
export function buildAssets(build: Build): Map<string, number> {
  const m = new Map<string, number>()
  for (const a of [build.main, build.vendor, build.css, build.font, ...Object.values(build.chunks)]) m.set(a.path, a.bytes)
  return m
}

export interface Cluster {
  app: AppConfig
  builds: Build[]
  pods: Pod[]
  deploys: DeployPlan[]
  /** Restarts and scale-outs: new pods, no new build. */
  podChanges: PodChange[]
}

export function planCluster(params: SimParams, app: AppConfig, builds: Build[]): Cluster {
  if (app.replicas < 1) throw new Error('replicas must be at least 1')
  if (app.deploys > 1 && app.every <= app.replicas * app.step) {
    throw new Error(`deploys overlap: every (${app.every}s) must exceed replicas × step (${app.replicas * app.step}s)`)
  }
  const rng = new Rng(params.seed, appStream('pods', app))
  const startMs = Date.parse(params.start)
  const pods: Pod[] = []
  const makePods = (build: Build, replicaSet: string, generation: number, starts: number[]): Pod[] => {
    const usedHosts = new Set(pods.filter((p) => p.ip.startsWith(`10.${(1 + app.index) % 256}.${generation % 256}.`)).map((p) => Number(p.ip.split('.')[3])))
    const usedNames = new Set(pods.map((p) => p.name))
    return starts.map((start) => {
      let host = rng.int(2, 254)
      while (usedHosts.has(host)) host = (host % 253) + 2
      usedHosts.add(host)
      let name = `${replicaSet}-${rng.chars(POD_SUFFIX_ALPHABET, 5)}`
      while (usedNames.has(name)) name = `${replicaSet}-${rng.chars(POD_SUFFIX_ALPHABET, 5)}`
      usedNames.add(name)
      const ip = `10.${(1 + app.index) % 256}.${generation % 256}.${host}`
      return {app: app.service, name, ip, port: POD_PORT, build: build.key, replicaSet, start, stop: Infinity}
    })
  }
  const first = builds[0]
  if (!first) throw new Error('no builds')
  let live = makePods(first, first.replicaSet, 0, Array.from({length: app.replicas}, () => -Infinity))
  let replicaSet = first.replicaSet
  let generation = 0
  pods.push(...live)
  const deploys: DeployPlan[] = []
  const stepMs = app.step * 1000
  const served = (generation: number): Build => {
    const b = builds[app.rollouts?.[generation] ?? generation]
    if (!b) throw new Error(`rollouts name build ${app.rollouts?.[generation]}, which is not made`)
    return b
  }
  /** Replaces the live pods one per step (a rolling update, maxSurge 1, maxUnavailable 0) with pods of `to` in `toRs`. */
  const roll = (t: number, to: Build, toRs: string): ScalingStep[] => {
    const r = live.length
    const fresh = makePods(to, toRs, ++generation, Array.from({length: r}, (_, i) => t + i * stepMs))
    pods.push(...fresh)
    live.forEach((pod, i) => {
      pod.stop = t + (i + 1) * stepMs
    })
    const steps = []
    for (let i = 0; i <= r; i++) steps.push({time: t + i * stepMs, messages: scalingMessages(replicaSet, toRs, r, i)})
    live = fresh
    replicaSet = toRs
    return steps
  }
  let lastChange = Number.NEGATIVE_INFINITY
  for (let d = 0; d < app.deploys; d++) {
    const from = served(d)
    const to = served(d + 1)
    if (from === to) throw new Error('a rollout to the build already served is no deploy: use restarts')
    const t = startMs + (app.firstDeployAtSeconds + d * app.every) * 1000
    const steps = roll(t, to, to.replicaSet)
    deploys.push({app: app.service, index: d, fromBuild: from.key, toBuild: to.key, start: t, end: t + (steps.length - 1) * stepMs, steps})
    lastChange = t + (steps.length - 1) * stepMs
  }
  const podChanges: PodChange[] = []
  const current = served(app.deploys)
  const restartRng = new Rng(params.seed, appStream('restarts', app))
  const changes = [
    ...(app.restarts ?? []).map((at) => ({at, kind: 'restart' as const, replicas: 0})),
    ...(app.scaleOuts ?? []).map((s) => ({at: s.atSeconds, kind: 'scale-out' as const, replicas: s.replicas})),
  ].sort((a, b) => a.at - b.at)
  for (const c of changes) {
    const t = startMs + c.at * 1000
    if (t <= lastChange) throw new Error(`a ${c.kind} at ${c.at}s must come after every deploy and restart has ended`)
    const fromRs = replicaSet
    const fromReplicas = live.length
    if (c.kind === 'restart') {
      let rs = `${app.service}-${restartRng.hex(restartRng.int(9, 10))}`
      while (rs === replicaSet || builds.some((b) => b.replicaSet === rs)) rs = `${app.service}-${restartRng.hex(10)}`
      const steps = roll(t, current, rs)
      const end = t + (steps.length - 1) * stepMs
      podChanges.push({app: app.service, kind: 'restart', build: current.key, fromReplicaSet: fromRs, toReplicaSet: rs, fromReplicas, replicas: fromReplicas, start: t, end, steps})
      lastChange = end
    } else {
      if (c.replicas <= live.length) throw new Error(`a scale-out needs more than the ${live.length} pods running (replicas ${c.replicas})`)
      const added = makePods(current, replicaSet, generation, Array.from({length: c.replicas - live.length}, () => t))
      pods.push(...added)
      live = [...live, ...added]
      podChanges.push({
        app: app.service, kind: 'scale-out', build: current.key, fromReplicaSet: fromRs, toReplicaSet: fromRs, fromReplicas, replicas: c.replicas,
        start: t, end: t, steps: [{time: t, messages: [`Scaled up replica set ${fromRs} to ${c.replicas}`]}],
      })
      lastChange = t
    }
  }
  return {app, builds, pods, deploys, podChanges}
}

/**
 * The deployment controller's messages at rollout step i (0…replicas): scale the new replica set up
 * first, then each step scales the old one down and the new one up, and the last step retires the old.
 */
export function scalingMessages(fromRs: string, toRs: string, replicas: number, i: number): string[] {
  const messages: string[] = []
  if (i > 0) messages.push(`Scaled down replica set ${fromRs} to ${replicas - i}`)
  if (i < replicas) messages.push(`Scaled up replica set ${toRs} to ${i + 1}`)
  return messages
}

/** Pods serving at time t, in the balancer's order (oldest first). */
export function livePods(pods: Pod[], t: number): Pod[] {
  return pods.filter((p) => p.start <= t && t < p.stop)
}
