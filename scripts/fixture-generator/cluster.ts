/** Builds, pods and the rolling-deploy schedule: everything about the cluster that is fixed up front. */
import {ROUTES} from './catalog'
import {Rng} from './rng'
import type {Build, BuildAsset, DeployPlan, Pod, SimParams} from './types'

const POD_SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789'
const POD_PORT = 8080

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

export function shellLengths(params: SimParams, count: number): number[] {
  const out: number[] = []
  for (let i = 0; i < count; i++) {
    const given = params.shellBytes[i]
    const prev = out[i - 1]
    out.push(given ?? (prev === undefined ? 1832 : prev + 19))
  }
  if (new Set(out).size !== out.length) throw new Error(`shellBytes must be distinct per build: ${out.join(', ')}`)
  return out
}

function versionDate(startIso: string): string {
  return startIso.slice(0, 10).replace(/-/g, '.')
}

export function makeBuilds(params: SimParams): Build[] {
  const rng = new Rng(params.seed, 'builds')
  const count = params.deploys + 1
  const shells = shellLengths(params, count)
  const forbidden = new Set(shells)
  const size = (min: number, max: number): number => {
    let n = rng.int(min, max)
    while (forbidden.has(n)) n++
    return n
  }
  const usedHashes = new Set<string>()
  const hash = (length: number): string => {
    for (;;) {
      const h = rng.hex(length)
      // A hash that happens to be all digits reads oddly; real bundlers produce mixed hex too, but keep it tidy.
      if (!usedHashes.has(h) && /[a-f]/.test(h)) {
        usedHashes.add(h)
        return h
      }
    }
  }
  const builds: Build[] = []
  for (let i = 0; i < count; i++) {
    const asset = (name: string, ext: string, min: number, max: number): BuildAsset => ({
      path: `/_build/${name}.${hash(8)}.${ext}`,
      bytes: size(min, max),
    })
    const chunks: Record<string, BuildAsset> = {}
    const app = asset('app', 'js', 120_000, 400_000)
    const vendor = asset('vendor', 'js', 150_000, 400_000)
    const css = asset('app', 'css', 8_000, 60_000)
    for (const route of ROUTES) chunks[route] = asset(`chunk-${route}`, 'js', 5_000, 90_000)
    builds.push({
      key: buildKey(i),
      version: `${versionDate(params.start)}-${i + 1}`,
      replicaSet: `web-${hash(rng.int(9, 10))}`,
      shellBytes: shells[i] as number,
      app,
      vendor,
      css,
      chunks,
    })
  }
  return builds
}

/** Every asset path of a build with its size. */
export function buildAssets(build: Build): Map<string, number> {
  const m = new Map<string, number>()
  for (const a of [build.app, build.vendor, build.css, ...Object.values(build.chunks)]) m.set(a.path, a.bytes)
  return m
}

export interface Cluster {
  builds: Build[]
  pods: Pod[]
  deploys: DeployPlan[]
}

export function planCluster(params: SimParams, builds: Build[]): Cluster {
  if (params.replicas < 1) throw new Error('replicas must be at least 1')
  if (params.deploys > 1 && params.every <= params.replicas * params.step) {
    throw new Error(`deploys overlap: every (${params.every}s) must exceed replicas × step (${params.replicas * params.step}s)`)
  }
  const rng = new Rng(params.seed, 'pods')
  const startMs = Date.parse(params.start)
  const pods: Pod[] = []
  const makePods = (build: Build, generation: number, starts: number[]): Pod[] => {
    const usedHosts = new Set<number>()
    const usedNames = new Set(pods.map((p) => p.name))
    return starts.map((start) => {
      let host = rng.int(2, 254)
      while (usedHosts.has(host)) host = (host % 253) + 2
      usedHosts.add(host)
      let name = `${build.replicaSet}-${rng.chars(POD_SUFFIX_ALPHABET, 5)}`
      while (usedNames.has(name)) name = `${build.replicaSet}-${rng.chars(POD_SUFFIX_ALPHABET, 5)}`
      usedNames.add(name)
      return {name, ip: `10.1.${generation % 256}.${host}`, port: POD_PORT, build: build.key, start, stop: Infinity}
    })
  }
  const first = builds[0]
  if (!first) throw new Error('no builds')
  let live = makePods(first, 0, Array.from({length: params.replicas}, () => -Infinity))
  pods.push(...live)
  const deploys: DeployPlan[] = []
  const stepMs = params.step * 1000
  for (let d = 0; d < params.deploys; d++) {
    const from = builds[d] as Build
    const to = builds[d + 1] as Build
    const t = startMs + (params.firstDeployAtSeconds + d * params.every) * 1000
    const r = params.replicas
    const fresh = makePods(to, d + 1, Array.from({length: r}, (_, i) => t + i * stepMs))
    pods.push(...fresh)
    live.forEach((pod, i) => {
      pod.stop = t + (i + 1) * stepMs
    })
    const steps = []
    for (let i = 0; i <= r; i++) {
      steps.push({time: t + i * stepMs, messages: scalingMessages(from.replicaSet, to.replicaSet, r, i)})
    }
    deploys.push({index: d, fromBuild: from.key, toBuild: to.key, start: t, end: t + r * stepMs, steps})
    live = fresh
  }
  return {builds, pods, deploys}
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
