import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import type {DeclaredDeploy} from '../../../src/model/deploy'
import {DeployFileError, parseDeploys} from '../../../src/sources/deploys/parse-deploys'
import {readJsonDocuments} from '../../../src/sources/deploys/json-documents'
import {rolloutsFromSteps, type ScalingStep} from '../../../src/sources/deploys/rollouts'
import {epochToMs, parseIso, parseTime} from '../../../src/sources/deploys/time'

const sample = (name: string): string => readFileSync(join(__dirname, 'deploy-samples', name), 'utf8')
const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString())
const ms = (text: string): number => Date.parse(text)

/** The fields a test usually cares about, with times as ISO strings so failures read well. */
function brief(deploy: DeclaredDeploy) {
  return {
    start: iso(deploy.start),
    end: iso(deploy.end),
    version: deploy.version,
    fromVersion: deploy.fromVersion,
    service: deploy.service,
  }
}

const briefs = (text: string, fileName = 'deploys.json') => parseDeploys(text, fileName).deploys.map(brief)

describe('parseDeploys: list-json', () => {
  it('reads ISO strings and epoch seconds, milliseconds and nanoseconds, sorted by start', () => {
    // nanoseconds are written as a JSON number, as DORA-style exports do; it exceeds 2^53 on purpose
    const text = JSON.stringify([
      {start: 'NS', version: 'ns'},
      {start: '2024-06-01T09:30:00.250Z', end: '2024-06-01T09:45:00Z', service: 'web', version: 'v1.4.0', from: 'v1.3.9'},
      {time: 1717200000, version: 's'},
      {timestamp: 1717210000000, version: 'ms'},
    ]).replace('"NS"', '1717243200123456789')
    const result = parseDeploys(text, 'deploys.json')
    expect(result.format).toBe('list-json')
    expect(result.rejected).toEqual([])
    expect(result.deploys.map(brief)).toEqual([
      {start: '2024-06-01T00:00:00.000Z', end: undefined, version: 's', fromVersion: undefined, service: undefined},
      {start: '2024-06-01T02:46:40.000Z', end: undefined, version: 'ms', fromVersion: undefined, service: undefined},
      {start: '2024-06-01T09:30:00.250Z', end: '2024-06-01T09:45:00.000Z', version: 'v1.4.0', fromVersion: 'v1.3.9', service: 'web'},
      {start: '2024-06-01T12:00:00.123Z', end: undefined, version: 'ns', fromVersion: undefined, service: undefined},
    ])
  })

  it('reads {"deploys": [...]} with every field alias and keeps the description', () => {
    const text = JSON.stringify({
      deploys: [
        {startedAt: '2024-06-01T10:00:00Z', finishedAt: '2024-06-01T10:05:00Z', fromVersion: 'a', version: 'b'},
        {started_at: '2024-06-02T10:00:00Z', finished_at: 1717322700, previous_version: 'b', version: 'c'},
        {Start: '2024-06-03T10:00:00+02:00', End_Time: '2024-06-03T08:10:00Z', version: 42, description: ' canary '},
      ],
    })
    const [first, second, third] = parseDeploys(text, 'd.json').deploys
    expect(first).toEqual({start: ms('2024-06-01T10:00:00Z'), end: ms('2024-06-01T10:05:00Z'), version: 'b', fromVersion: 'a', source: 'file'})
    expect(brief(second!)).toMatchObject({start: '2024-06-02T10:00:00.000Z', end: '2024-06-02T10:05:00.000Z', fromVersion: 'b'})
    expect(third).toEqual({start: ms('2024-06-03T08:00:00Z'), end: ms('2024-06-03T08:10:00Z'), version: '42', description: 'canary', source: 'file'})
  })

  it('counts unusable records by index and reason and keeps the rest', () => {
    const text = JSON.stringify([
      {version: 'no-time'},
      {start: 'yesterday'},
      42,
      {start: '2024-06-01T10:00:00Z', end: '2024-06-01T09:00:00Z'},
      {start: '2024-06-01T10:00:00Z', end: 'soon'},
      {start: '2024-02-30T10:00:00Z'},
      {start: '', time: '2024-06-01T11:00:00Z', end: ''},
    ])
    const result = parseDeploys(text, 'd.json')
    expect(result.rejected).toEqual([
      {index: 0, reason: 'missing-time'},
      {index: 1, reason: 'bad-time'},
      {index: 2, reason: 'not-an-object'},
      {index: 3, reason: 'end-before-start'},
      {index: 4, reason: 'bad-time'},
      {index: 5, reason: 'bad-time'},
    ])
    expect(result.deploys).toEqual([{start: ms('2024-06-01T11:00:00Z'), source: 'file'}])
  })

  it('accepts an empty list', () => {
    expect(parseDeploys('[]', 'd.json')).toEqual({deploys: [], rejected: [], format: 'list-json'})
    expect(parseDeploys('{"deploys": []}\n', 'd.json')).toEqual({deploys: [], rejected: [], format: 'list-json'})
  })

  it('reads NDJSON deploy objects, rejecting only the broken line', () => {
    const text = '{"start":"2024-06-01T10:00:00Z","version":"a"}\n{"start":"2024-06-01T11:00:00Z",\n{"start":"2024-06-01T12:00:00Z","version":"c"}\n'
    const result = parseDeploys(text, 'd.ndjson')
    expect(result.deploys.map((d) => d.version)).toEqual(['a', 'c'])
    expect(result.rejected).toEqual([{index: 1, reason: 'invalid-json'}])
  })

  it('strips a UTF-8 BOM', () => {
    expect(briefs('\uFEFF[{"start":"2024-06-01T10:00:00Z"}]')[0]?.start).toBe('2024-06-01T10:00:00.000Z')
  })
})

describe('parseDeploys: list-csv', () => {
  it('reads quoted cells, CRLF line ends, a BOM and case-insensitive headers', () => {
    const text =
      '\uFEFFStarted_At,"End_Time",SERVICE,Version,From,Description\r\n' +
      '"2024-06-01T10:00:00Z","2024-06-01T10:07:30Z",web,"v2.0.0",v1.9.3,"Big release, with ""quotes"""\r\n' +
      '\r\n' +
      '1717236000,,api,v7,,\r\n'
    const result = parseDeploys(text, 'deploys.csv')
    expect(result.format).toBe('list-csv')
    expect(result.rejected).toEqual([])
    expect(result.deploys).toEqual([
      {
        start: ms('2024-06-01T10:00:00Z'),
        end: ms('2024-06-01T10:07:30Z'),
        service: 'web',
        version: 'v2.0.0',
        fromVersion: 'v1.9.3',
        description: 'Big release, with "quotes"',
        source: 'file',
      },
      {start: ms('2024-06-01T10:00:00Z'), service: 'api', version: 'v7', source: 'file'},
    ])
  })

  it('rejects bad rows by data-row index, skips rows of empty cells', () => {
    const text = [
      'time,version,description',
      ',missing',
      'not a time,bad',
      '2024-06-01 10:00:00,shifted,a,b',
      '2024-06-01 11:00:00,ok,trailing empty cells are fine,,',
      ',,',
      '2024-06-01T12:00:00+0100,offset',
    ].join('\n')
    const result = parseDeploys(text, 'd.csv')
    expect(result.rejected).toEqual([
      {index: 0, reason: 'missing-time'},
      {index: 1, reason: 'bad-time'},
      {index: 2, reason: 'bad-csv-row'},
    ])
    expect(result.deploys.map(brief)).toMatchObject([
      {start: '2024-06-01T11:00:00.000Z', version: 'ok'},
      {start: '2024-06-01T11:00:00.000Z', version: 'offset'},
    ])
  })

  it('reads tab-separated files and a header without rows', () => {
    expect(briefs('start\tversion\n2024-06-01T10:00:00Z\tv1\n', 'd.tsv')).toMatchObject([{version: 'v1'}])
    expect(parseDeploys('start,version\n', 'd.csv')).toEqual({deploys: [], rejected: [], format: 'list-csv'})
  })
})

describe('parseDeploys: datadog-events-v2', () => {
  it('turns bundled Kubernetes events across concatenated pages into one rollout, plus markers', () => {
    const result = parseDeploys(sample('datadog-v2-bundled-pages.json'), 'events.json')
    expect(result.format).toBe('datadog-events-v2')
    expect(result.deploys).toEqual([
      {
        start: ms('2024-06-01T12:00:05Z'),
        end: ms('2024-06-01T12:01:05Z'),
        service: 'storefront',
        deployment: 'web',
        namespace: 'shop',
        version: 'web-7f6d5c4b3',
        fromVersion: 'web-5d8f7c9b4',
        source: 'kubernetes',
        description: 'Deployment shop/web: web-5d8f7c9b4 -> web-7f6d5c4b3',
      },
      {
        start: ms('2024-06-01T12:10:00Z'),
        service: 'checkout',
        version: '2.3.1',
        source: 'marker',
        key: 'kubernetes_apiserver:3c1f6e2a',
        description: 'Deployed checkout 2.3.1',
      },
    ])
    // the Pod and ReplicaSet events are ignored, the synthetics alert is not a deploy, page 2 repeats an event
    expect(result.rejected).toEqual([
      {index: 4, reason: 'not-a-deploy'},
      {index: 6, reason: 'duplicate'},
    ])
  })

  const wholeRollout = [
    'Scaled up replica set web-7f6d5c4b3 to 1',
    'Scaled down replica set web-5d8f7c9b4 to 2',
    'Scaled up replica set web-7f6d5c4b3 to 2',
    'Scaled down replica set web-5d8f7c9b4 to 1',
    'Scaled up replica set web-7f6d5c4b3 to 3',
    'Scaled down replica set web-5d8f7c9b4 to 0',
  ]
  it.each([
    ['in time order', wholeRollout],
    // the agent sorts a bundle's lines as text: every scale-down, "to 0" first, before any scale-up
    ['sorted as the agent writes them', [...wholeRollout].sort()],
  ])('takes the event time for both ends when one bundle holds the scale-up and the drain (%s)', (_, lines) => {
    const text = JSON.stringify({
      data: [
        v2Event('e1', '2024-06-01T12:00:00Z', 'Events from the Deployment shop/web', [
          '%%% ',
          ...lines.map((line) => `1 **ScalingReplicaSet**: ${line}`),
          ' ',
          '_Events emitted by the deployment-controller seen at 2024-06-01 12:00:00 +0000 UTC since 2024-06-01 11:59:41 +0000 UTC_ ',
          ' %%%',
        ]),
      ],
    })
    expect(briefs(text)).toEqual([
      {
        start: '2024-06-01T12:00:00.000Z',
        end: '2024-06-01T12:00:00.000Z',
        version: 'web-7f6d5c4b3',
        fromVersion: 'web-5d8f7c9b4',
        service: 'web',
      },
    ])
  })

  it('reads NDJSON of event items, using the ISO timestamp when the ms one is absent', () => {
    const lines = [
      {id: 'a', type: 'event', attributes: {timestamp: '2024-06-01T08:00:00Z', message: 'x', tags: ['version:v9'], attributes: {title: 'Release'}}},
      {id: 'b', type: 'event', attributes: {message: 'no time', tags: ['version:v10'], attributes: {title: 'Release'}}},
      {id: 'c', type: 'event', attributes: {timestamp: 'June 1st', message: 'deployed', tags: [], attributes: {title: 'x'}}},
    ]
    const result = parseDeploys(lines.map((line) => JSON.stringify(line)).join('\n'), 'events.ndjson')
    expect(result.format).toBe('datadog-events-v2')
    expect(result.deploys).toEqual([{start: ms('2024-06-01T08:00:00Z'), version: 'v9', description: 'Release', source: 'marker'}])
    expect(result.rejected).toEqual([
      {index: 1, reason: 'missing-time'},
      {index: 2, reason: 'bad-time'},
    ])
  })

  it('leaves end undefined when the old replica set is not seen at 0, and learns it from a scale-down', () => {
    const text = JSON.stringify({
      data: [
        v2Event('e1', '2024-06-01T12:00:00Z', 'Events from the Deployment shop/web', [
          '%%% \n1 **ScalingReplicaSet**: Scaled up replica set web-7f6d5c4b3 to 1 from 0',
          ' 1 **ScalingReplicaSet**: Scaled down replica set web-5d8f7c9b4 to 2 from 3',
          ' \n _Events emitted by the deployment-controller seen at x since y_ \n\n %%%',
        ]),
      ],
    })
    expect(briefs(text)).toEqual([
      {start: '2024-06-01T12:00:00.000Z', end: undefined, version: 'web-7f6d5c4b3', fromVersion: 'web-5d8f7c9b4', service: 'web'},
    ])
  })
})

describe('parseDeploys: datadog-events-v1', () => {
  it('reads unbundled Kubernetes events with date_happened in seconds: a rolling update, then a rollout still running', () => {
    const result = parseDeploys(sample('datadog-v1-unbundled.json'), 'events.json')
    expect(result.format).toBe('datadog-events-v1')
    expect(result.deploys.map(brief)).toEqual([
      {start: '2024-06-01T12:00:00.000Z', end: '2024-06-01T12:00:50.000Z', version: 'web-7f6d5c4b3', fromVersion: 'web-5d8f7c9b4', service: 'web'},
      {start: '2024-06-01T13:00:00.000Z', end: undefined, version: 'web-6b9c8d7e5', fromVersion: 'web-7f6d5c4b3', service: 'web'},
    ])
    expect(result.deploys[1]?.description).toBe('Deployment shop/web: web-7f6d5c4b3 -> web-6b9c8d7e5')
    // the Pod event is ignored; the monitor alert is not a deploy
    expect(result.rejected).toEqual([{index: 8, reason: 'not-a-deploy'}])
  })

  it('reads two consecutive bundled rollouts and a deploy marker', () => {
    const bundle = (id: number, at: number, lines: string[]) => ({
      id,
      date_happened: at,
      title: 'Events from the Deployment shop/web',
      text: `%%% \n${lines.map((line) => `1 **ScalingReplicaSet**: ${line}\n`).join(' ')} \n _Events emitted by the deployment-controller seen at a since b_ \n\n %%%`,
      tags: ['kube_deployment:web', 'kube_namespace:shop'],
      source_type_name: 'kubernetes',
    })
    const t0 = 1717243200
    const text = JSON.stringify({
      events: [
        bundle(1, t0, ['Scaled down replica set web-a to 1', 'Scaled up replica set web-b to 1']),
        bundle(2, t0 + 30, ['Scaled down replica set web-a to 0', 'Scaled up replica set web-b to 2']),
        bundle(3, t0 + 3600, ['Scaled up replica set web-c to 1']),
        bundle(4, t0 + 3630, ['Scaled down replica set web-b to 1']),
        bundle(5, t0 + 3660, ['Scaled down replica set web-b to 0', 'Scaled up replica set web-c to 2']),
        {id: 6, date_happened: t0 + 7200, title: 'Manual deployment of search', text: '', tags: ['service:search']},
      ],
      status: 'ok',
    })
    expect(briefs(text)).toEqual([
      {start: '2024-06-01T12:00:00.000Z', end: '2024-06-01T12:00:30.000Z', version: 'web-b', fromVersion: 'web-a', service: 'web'},
      {start: '2024-06-01T13:00:00.000Z', end: '2024-06-01T13:01:00.000Z', version: 'web-c', fromVersion: 'web-b', service: 'web'},
      {start: '2024-06-01T14:00:00.000Z', end: undefined, version: undefined, fromVersion: undefined, service: 'search'},
    ])
  })
})

describe('parseDeploys: kubectl-events', () => {
  it('reads core/v1 events: one rolling update; Pod events and autoscaling are ignored', () => {
    const result = parseDeploys(sample('kubectl-events-core-v1.json'), 'events.json')
    expect(result.format).toBe('kubectl-events')
    expect(result.deploys).toEqual([
      {
        start: ms('2024-06-01T12:00:00Z'),
        end: ms('2024-06-01T12:00:50Z'),
        service: 'web',
        deployment: 'web',
        namespace: 'shop',
        version: 'web-7f6d5c4b3',
        fromVersion: 'web-5d8f7c9b4',
        source: 'kubernetes',
        description: 'Deployment shop/web: web-5d8f7c9b4 -> web-7f6d5c4b3',
      },
    ])
    expect(result.rejected).toEqual([{index: 8, reason: 'missing-time'}])
  })

  it('reads events.k8s.io/v1 events: note, regarding, deprecated timestamps and microsecond eventTime', () => {
    const result = parseDeploys(sample('kubectl-events-k8s-io-v1.json'), 'events.json')
    expect(result.format).toBe('kubectl-events')
    expect(result.deploys.map(brief)).toEqual([
      {start: '2024-06-01T14:00:00.000Z', end: '2024-06-01T14:00:45.123Z', version: 'api-5f7b8c9d6e', fromVersion: 'api-84c9d6f5b7', service: 'api'},
    ])
    expect(result.rejected).toEqual([])
  })

  it('reads a watch stream of concatenated events and drops repeats of the same uid', () => {
    const event = (uid: string, at: string, message: string) => ({
      kind: 'Event',
      apiVersion: 'v1',
      metadata: {uid, namespace: 'shop'},
      involvedObject: {kind: 'Deployment', name: 'web'},
      reason: 'ScalingReplicaSet',
      message,
      firstTimestamp: at,
      eventTime: null,
    })
    const text = [
      event('u1', '2024-06-01T12:00:00Z', 'Scaled up replica set web-b to 1'),
      event('u1', '2024-06-01T12:00:00Z', 'Scaled up replica set web-b to 1'),
      event('u2', '2024-06-01T12:00:20Z', 'Scaled down replica set web-a to 0'),
      event('u3', '2024-06-01T12:00:30Z', 'Scaled sideways replica set web-a'),
    ]
      .map((e) => JSON.stringify(e, null, 2))
      .join('\n')
    const result = parseDeploys(text, 'watch.json')
    expect(result.deploys.map(brief)).toEqual([
      {start: '2024-06-01T12:00:00.000Z', end: '2024-06-01T12:00:20.000Z', version: 'web-b', fromVersion: 'web-a', service: 'web'},
    ])
    expect(result.rejected).toEqual([
      {index: 1, reason: 'duplicate'},
      {index: 3, reason: 'unparsed-message'},
    ])
  })
})

describe('parseDeploys: unknown formats', () => {
  const formats = ['list-json', 'list-csv', 'datadog-events-v2', 'datadog-events-v1', 'kubectl-events']

  it.each([
    ['plain text', 'deployed v2 at noon\n'],
    ['a CSV without a time column', 'version,service\nv1,web\n'],
    ['JSON of an unknown shape', '{"foo": [1, 2]}'],
    ['broken JSON', '{"deploys": [{"start": 1}'],
    ['an array of scalars', '[1, 2, 3]'],
    ['Datadog logs instead of events', '{"data": [{"id": "x", "type": "log", "attributes": {}}]}'],
    ['an empty file', '\uFEFF  \n'],
  ])('throws DeployFileError for %s, naming the file and the formats', (_, text) => {
    const parse = () => parseDeploys(text, 'my-deploys.txt')
    expect(parse).toThrow(DeployFileError)
    expect(parse).toThrow(/^my-deploys\.txt: /)
    for (const format of formats) expect(parse).toThrow(format)
  })

  it('says why JSON could not be read', () => {
    expect(() => parseDeploys('{"deploys": [', 'd.json')).toThrow(/invalid JSON/)
  })
})

describe('rollout logic', () => {
  let seq = 0
  const step = (at: string, direction: 'up' | 'down', replicaSet: string, replicas: number): ScalingStep => ({
    time: ms(at),
    seq: seq++,
    namespace: 'shop',
    deployment: 'web',
    direction,
    replicaSet,
    replicas,
  })

  it('handles the Recreate strategy, where the old replica set is drained before the new one starts', () => {
    const deploys = rolloutsFromSteps([
      step('2024-06-01T12:00:00Z', 'down', 'web-a', 0),
      step('2024-06-01T12:00:10Z', 'up', 'web-b', 3),
    ])
    expect(deploys.map(brief)).toEqual([
      {start: '2024-06-01T12:00:10.000Z', end: '2024-06-01T12:00:10.000Z', version: 'web-b', fromVersion: 'web-a', service: 'web'},
    ])
  })

  it('treats scaling the serving replica set as autoscaling, and a scale-up of an older one as a rollback', () => {
    const deploys = rolloutsFromSteps([
      step('2024-06-01T12:00:00Z', 'up', 'web-b', 1),
      step('2024-06-01T12:00:10Z', 'down', 'web-a', 0),
      step('2024-06-01T12:30:00Z', 'up', 'web-b', 6),
      step('2024-06-01T12:40:00Z', 'down', 'web-b', 3),
      step('2024-06-01T13:00:00Z', 'up', 'web-a', 1),
      step('2024-06-01T13:00:20Z', 'down', 'web-b', 0),
    ])
    expect(deploys.map(brief)).toEqual([
      {start: '2024-06-01T12:00:00.000Z', end: '2024-06-01T12:00:10.000Z', version: 'web-b', fromVersion: 'web-a', service: 'web'},
      {start: '2024-06-01T13:00:00.000Z', end: '2024-06-01T13:00:20.000Z', version: 'web-a', fromVersion: 'web-b', service: 'web'},
    ])
  })

  it('ends a rollout that is rolled back half-way when its new replica set is drained', () => {
    const deploys = rolloutsFromSteps([
      step('2024-06-01T12:00:10Z', 'up', 'web-b', 1),
      step('2024-06-01T12:00:15Z', 'down', 'web-a', 2),
      step('2024-06-01T12:00:20Z', 'up', 'web-a', 3),
      step('2024-06-01T12:00:30Z', 'down', 'web-b', 0),
    ])
    expect(deploys.map(brief)).toEqual([
      {start: '2024-06-01T12:00:10.000Z', end: '2024-06-01T12:00:30.000Z', version: 'web-b', fromVersion: 'web-a', service: 'web'},
      {start: '2024-06-01T12:00:20.000Z', end: '2024-06-01T12:00:30.000Z', version: 'web-a', fromVersion: 'web-b', service: 'web'},
    ])
  })

  it('starts a rollout at the first scale-up seen when the data begins mid-rollout', () => {
    const deploys = rolloutsFromSteps([
      step('2024-06-01T12:00:00Z', 'down', 'web-a', 2),
      step('2024-06-01T12:00:10Z', 'up', 'web-b', 2),
      step('2024-06-01T12:00:20Z', 'down', 'web-a', 0),
    ])
    expect(deploys.map(brief)).toEqual([
      {start: '2024-06-01T12:00:10.000Z', end: '2024-06-01T12:00:20.000Z', version: 'web-b', fromVersion: 'web-a', service: 'web'},
    ])
  })

  it('keeps deployments apart', () => {
    const other = {...step('2024-06-01T12:00:05Z', 'up', 'api-b', 1), deployment: 'api'}
    const deploys = rolloutsFromSteps([step('2024-06-01T12:00:00Z', 'up', 'web-b', 1), other])
    expect(deploys.map((d) => [d.service, d.version, d.fromVersion])).toEqual([
      ['web', 'web-b', undefined],
      ['api', 'api-b', undefined],
    ])
  })
})

describe('time values', () => {
  it('reads epoch numbers by magnitude', () => {
    expect(epochToMs(1717243200)).toBe(1717243200000)
    expect(epochToMs(1717243200.5)).toBe(1717243200500)
    expect(epochToMs(1717243200123)).toBe(1717243200123)
    expect(epochToMs(1717243200123456)).toBe(1717243200123)
    expect(epochToMs(Number('1717243200123456789'))).toBe(1717243200123)
    expect(epochToMs(0)).toBeUndefined()
    expect(epochToMs(-5)).toBeUndefined()
  })

  it('reads strict ISO-8601, taking a time without offset as UTC', () => {
    expect(iso(parseIso('2024-06-01T12:00:00'))).toBe('2024-06-01T12:00:00.000Z')
    expect(iso(parseIso('2024-06-01 12:00:00 UTC'))).toBe('2024-06-01T12:00:00.000Z')
    expect(iso(parseIso('2024-06-01T14:00:00+02:00'))).toBe('2024-06-01T12:00:00.000Z')
    expect(iso(parseIso('2024-06-01T07:30:00-0430'))).toBe('2024-06-01T12:00:00.000Z')
    expect(iso(parseIso('2024-06-01T12:00:00.123456789Z'))).toBe('2024-06-01T12:00:00.123Z')
    expect(iso(parseIso('2024-06-01'))).toBe('2024-06-01T00:00:00.000Z')
    for (const bad of ['2024-13-01', '2024-06-31', '2024-06-01T25:00:00Z', '0001-01-01T00:00:00Z', 'Sat, 01 Jun 2024 12:00:00 GMT']) {
      expect(parseIso(bad)).toBeUndefined()
    }
  })

  it('tells a missing time from a bad one', () => {
    expect(parseTime(null)).toEqual({ok: false, reason: 'missing-time'})
    expect(parseTime('  ')).toEqual({ok: false, reason: 'missing-time'})
    expect(parseTime(true)).toEqual({ok: false, reason: 'bad-time'})
    expect(parseTime('1717243200')).toEqual({ok: true, ms: 1717243200000})
  })
})

describe('readJsonDocuments', () => {
  it('splits concatenated documents, minding braces inside strings', () => {
    const documents = readJsonDocuments('{"a": "}{"}\n{"b": [1, {"c": "\\"]"}]}')
    expect(documents).toEqual([
      {ok: true, value: {a: '}{'}},
      {ok: true, value: {b: [1, {c: '"]'}]}},
    ])
  })

  it('is undefined for text that does not start like JSON', () => {
    expect(readJsonDocuments('start,version\n')).toBeUndefined()
  })
})

function v2Event(id: string, timestamp: string, title: string, textLines: string[], tags: string[] = ['source:kubernetes']) {
  return {
    id,
    type: 'event',
    attributes: {
      timestamp,
      message: textLines.join('\n'),
      tags,
      attributes: {title, timestamp: Date.parse(timestamp), source_type_name: 'kubernetes'},
    },
  }
}
