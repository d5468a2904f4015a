/** Writes one simulation as every input format into a folder, plus its truth. */
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {DEFAULT_CONTEXT} from './formats/context'
import type {WriterContext} from './formats/context'
import {EXPLORER_HEADER, EXPLORER_RAW_HEADER, csvRow, explorerCsvRow, explorerRawCsvRow} from './formats/csv'
import {ddEvent, ddPagesDocuments, ddUnparsedLine, ddV1Document, ddV1Log} from './formats/datadog'
import {deployEventCount, deployEventsV2, deploysCsv, deploysJson, kubectlEvents, kubernetesMessageCount} from './formats/deploys'
import {combinedLine, ingressLine, nginxJsonLine} from './formats/nginx'
import {scenarios} from './scenarios'
import {simulate} from './simulate'
import type {Simulation, Truth, TruthFile} from './types'

export interface WriteMeta {
  scenario?: string
  description?: string
}

export function writerContext(truth: Truth): WriterContext {
  return {...DEFAULT_CONTEXT, withMs: truth.params.resolution === 'ms'}
}

/** Whether a simulation's logs can be written as nginx `combined` lines: they name no app, so only with one app behind the ingress. */
export const writesCombined = (truth: Truth): boolean => truth.apps.length === 1

const lines = (items: string[]): string => (items.length > 0 ? items.join('\n') + '\n' : '')

/** Writes every format of `sim` into `dir` (created; files of the same names are replaced). Returns the truth as written. */
export function writeSimulation(sim: Simulation, dir: string, meta: WriteMeta = {}): Truth {
  mkdirSync(dir, {recursive: true})
  const {requests, truth} = sim
  const ctx = writerContext(truth)
  const newest = [...requests].reverse()
  const files: TruthFile[] = []
  const put = (name: string, format: string, content: string | Buffer, records: number, order: TruthFile['order']): void => {
    writeFileSync(join(dir, name), content)
    files.push({name, format, records, order})
  }
  const n = requests.length
  put('ingress.log', 'ingress-nginx', lines(requests.map((r) => ingressLine(r, ctx))), n, 'oldest-first')
  if (writesCombined(truth)) put('nginx-combined.log', 'nginx-combined', lines(requests.map((r) => combinedLine(r))), n, 'oldest-first')
  put('nginx-json.log', 'nginx-json', lines(requests.map((r) => nginxJsonLine(r, ctx))), n, 'oldest-first')
  const events = requests.map((r) => ddEvent(r, ctx))
  const ndjson = lines(events.map((e) => JSON.stringify(e)))
  put('dd-events.ndjson', 'datadog-logs-v2-ndjson', ndjson, n, 'oldest-first')
  put('dd-events.ndjson.gz', 'datadog-logs-v2-ndjson-gzip', gzipSync(Buffer.from(ndjson), {level: 9}), n, 'oldest-first')
  const range = truth.timeRange
  const pages = ddPagesDocuments([...events].reverse(), {
    pageSize: truth.params.ddPageSize,
    query: 'source:nginx-ingress-controller',
    from: range?.start ?? truth.params.start,
    to: range ? new Date(Date.parse(range.end) + 1000).toISOString() : truth.params.start,
  })
  put('dd-pages.json', 'datadog-logs-v2-pages', pages.join('\n') + '\n', n, 'newest-first')
  put('dd-v1.json', 'datadog-logs-v1', ddV1Document(newest.map((r) => ddV1Log(r, ctx))), n, 'newest-first')
  put('dd-unparsed.ndjson', 'datadog-logs-v2-unparsed-ndjson', lines(requests.map((r) => ddUnparsedLine(r, ctx))), n, 'oldest-first')
  put(
    'explorer.csv',
    'datadog-explorer-csv',
    lines([csvRow(EXPLORER_HEADER), ...newest.map((r) => explorerCsvRow(r, ctx))]),
    n,
    'newest-first',
  )
  put(
    'explorer-raw.csv',
    'datadog-explorer-csv-raw',
    lines([csvRow(EXPLORER_RAW_HEADER), ...newest.map((r) => explorerRawCsvRow(r, ctx))]),
    n,
    'newest-first',
  )
  put('deploys.json', 'deploys-json', deploysJson(truth.deploys), truth.deploys.length, 'oldest-first')
  put('deploys.csv', 'deploys-csv', deploysCsv(truth.deploys), truth.deploys.length, 'oldest-first')
  put('deploy-events-v2.json', 'datadog-events-v2', deployEventsV2(truth.deploys, truth.params, truth.podChanges), deployEventCount(truth.deploys, truth.params, truth.podChanges), 'oldest-first')
  put(
    'kubectl-events.json',
    'kubectl-events',
    kubectlEvents(truth.deploys, truth.params, truth.podChanges),
    kubernetesMessageCount(truth.deploys, truth.params, truth.podChanges),
    'oldest-first',
  )
  const {schemaVersion, params, ...rest} = truth
  const written: Truth = {
    schemaVersion,
    ...(meta.scenario === undefined ? {} : {scenario: meta.scenario}),
    ...(meta.description === undefined ? {} : {description: meta.description}),
    params,
    files: [...files, {name: 'truth.json', format: 'truth', records: 0, order: 'n/a'}],
    ...rest,
  }
  writeFileSync(join(dir, 'truth.json'), JSON.stringify(written, null, 2) + '\n')
  return written
}

/** Writes the named shipped scenario into `dir` (created if needed; the generator's files are overwritten, nothing else is touched). */
export function writeScenario(name: string, dir: string): Truth {
  const scenario = scenarios[name]
  if (!scenario) throw new Error(`unknown scenario "${name}"; known: ${Object.keys(scenarios).join(', ')}`)
  return writeSimulation(simulate({...scenario.params}), dir, {scenario: name, description: scenario.description})
}
