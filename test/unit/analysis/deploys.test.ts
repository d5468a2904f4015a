import {loadCapture} from '../../../scripts/captures/capture'
import {type AppIdentity, fuseRollouts, matchApp, type Rollout} from '../../../src/analysis/deploys'
import type {DeclaredDeploy} from '../../../src/model/deploy'
import {parseDeploys} from '../../../src/sources/deploys/parse-deploys'
import {ROOT} from '../../helpers/cli'

const ms = (iso: string): number => Date.parse(iso)
/** The Datadog Events v2 response a capture recorded for its deploys, as `--deploys` reads it. */
const capturedEvents = (name: string): DeclaredDeploy[] => parseDeploys(JSON.stringify(loadCapture(ROOT, name).deploys.datadog_events), 'events.json').deploys
const brief = (r: Rollout) => ({start: new Date(r.start).toISOString(), end: r.end === undefined ? undefined : new Date(r.end).toISOString(), sources: r.sources, version: r.version, service: r.service})

describe('fuseRollouts', () => {
  it('fuses a real rollout\'s start and finish markers and its ScalingReplicaSet events into one deploy (rr-3)', () => {
    const declared = capturedEvents('rr-3')
    // The records as read: two markers (start, end) and the Kubernetes rollout of the replica sets.
    expect(declared.map((d) => [d.source, d.phase ?? null])).toEqual([['marker', 'start'], ['kubernetes', null], ['marker', 'end']])
    expect(fuseRollouts(declared).map(brief)).toEqual([
      {start: '2026-11-30T07:18:30.022Z', end: '2026-11-30T07:18:37.923Z', sources: ['marker', 'kubernetes'], version: 'v2.14.4', service: 'webapp'},
    ])
  })

  it('keeps two rollouts 3 s apart apart (two-deploys)', () => {
    expect(fuseRollouts(capturedEvents('two-deploys')).map(brief)).toEqual([
      {start: '2026-11-30T07:19:25.034Z', end: '2026-11-30T07:19:32.952Z', sources: ['marker', 'kubernetes'], version: 'v2.14.4', service: 'webapp'},
      {start: '2026-11-30T07:19:35.954Z', end: '2026-11-30T07:19:43.912Z', sources: ['marker', 'kubernetes'], version: 'v2.15.3', service: 'webapp'},
    ])
  })

  it('pairs start and end markers without a key by version, and leaves a lone marker a moment', () => {
    const m = (start: string, phase: 'start' | 'end' | undefined, version?: string): DeclaredDeploy =>
      ({source: 'marker', start: ms(start), service: 'web', ...(phase ? {phase} : {}), ...(version ? {version} : {})})
    const rollouts = fuseRollouts([m('2026-01-01T10:00:00Z', 'start', 'v1'), m('2026-01-01T10:03:00Z', 'end', 'v1'), m('2026-01-01T12:00:00Z', undefined, 'v2')])
    expect(rollouts.map(brief)).toEqual([
      {start: '2026-01-01T10:00:00.000Z', end: '2026-01-01T10:03:00.000Z', sources: ['marker'], version: 'v1', service: 'web'},
      {start: '2026-01-01T12:00:00.000Z', end: undefined, sources: ['marker'], version: 'v2', service: 'web'},
    ])
  })

  it('does not fuse records of two services, nor two rollouts of one kind with different versions', () => {
    const r = (start: string, end: string, service: string, version: string): DeclaredDeploy => ({source: 'file', start: ms(start), end: ms(end), service, version})
    expect(fuseRollouts([r('2026-01-01T10:00:00Z', '2026-01-01T10:05:00Z', 'web', 'v1'), r('2026-01-01T10:01:00Z', '2026-01-01T10:04:00Z', 'shop', 'v7')])).toHaveLength(2)
    expect(fuseRollouts([r('2026-01-01T10:00:00Z', '2026-01-01T10:05:00Z', 'web', 'v1'), r('2026-01-01T10:05:01Z', '2026-01-01T10:09:00Z', 'web', 'v2')])).toHaveLength(2)
  })
})

describe('matchApp', () => {
  const apps: AppIdentity[] = [
    {name: 'default-webapp-80', source: 'upstream', builds: 2}, {name: 'shop-prod-shop-8080', source: 'upstream', builds: 2},
    {name: 'docs.example.com', source: 'host', builds: 1},
  ]
  const rollout = (over: Partial<Rollout>): Rollout => ({start: 0, sources: ['kubernetes'], versions: new Map(), ...over})

  it.each<[string, Partial<Rollout>, string]>([
    ['a Deployment to its ingress upstream namespace-name-port', {namespace: 'default', deployment: 'webapp'}, 'default-webapp-80'],
    ['a service tag to the upstream', {service: 'webapp'}, 'default-webapp-80'],
    ['a namespace that contains dashes', {namespace: 'shop-prod', deployment: 'shop'}, 'shop-prod-shop-8080'],
    ['a service to a virtual host named after it', {service: 'docs'}, 'docs.example.com'],
    ['an app named by the record', {app: 'docs.example.com', service: 'anything'}, 'docs.example.com'],
  ])('ties %s', (_label, over, app) => {
    expect(matchApp(rollout(over), apps)).toEqual({app})
  })

  it('says why when nothing ties a record to an app, and takes --deploy-app', () => {
    expect(matchApp(rollout({service: 'billing'}), apps)).toEqual({reason: expect.stringMatching(/no app in the logs is named billing .*--deploy-app billing=APP/)})
    expect(matchApp(rollout({service: 'billing'}), apps, {billing: 'default-webapp-80'})).toEqual({app: 'default-webapp-80'})
    expect(matchApp(rollout({}), apps)).toEqual({reason: expect.stringMatching(/names no service or Deployment, and 3 apps show builds/)})
    expect(matchApp(rollout({}), [apps[0] as AppIdentity])).toEqual({app: 'default-webapp-80'})
  })

  it.each<[string, string, Partial<Rollout>]>([
    ['a Traefik service (namespace-name-port@provider)', 'default-webapp-80@kubernetes', {namespace: 'default', deployment: 'webapp'}],
    ['a Traefik docker service (name@provider)', 'webapp@docker', {service: 'webapp'}],
    ['an Istio cluster (outbound|port||service.namespace.svc…)', 'outbound|80||webapp.default.svc.cluster.local', {namespace: 'default', deployment: 'webapp'}],
  ])('ties a Deployment to %s', (_label, name, over) => {
    const proxied: AppIdentity[] = [{name, source: 'upstream', builds: 2}, {name: 'outbound|80||shop.default.svc.cluster.local', source: 'upstream', builds: 2}]
    expect(matchApp(rollout(over), proxied)).toEqual({app: name})
    // A name that carries a namespace is no other namespace's.
    if (name !== 'webapp@docker') expect(matchApp(rollout({namespace: 'other', deployment: 'webapp'}), proxied)).toEqual({reason: expect.any(String)})
  })
})
