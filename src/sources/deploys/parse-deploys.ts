/**
 * Reads the file given by `--deploys`: a deploy list (JSON or CSV), Datadog events (v1 or v2), or
 * `kubectl get events -o json`. The format is detected from the content, never from the file name,
 * because exported files are routinely renamed.
 */
import type {DeclaredDeploy} from '../../model/deploy'
import {parseDatadogEvents} from './datadog-events'
import {collectJsonRecords, type JsonRecords} from './detect'
import {readJsonDocuments} from './json-documents'
import {parseKubectlEvents} from './kubernetes'
import {parseListJson} from './list'
import {parseListCsv} from './list-csv'
import {byStart, type PartialResult, type Rejected} from './values'

export type DeployFormat = 'list-json' | 'list-csv' | 'datadog-events-v2' | 'datadog-events-v1' | 'kubectl-events'

export interface DeployParseResult {
  /** Sorted by start time. */
  deploys: DeclaredDeploy[]
  /** Records that were skipped; `index` is the 0-based position among the records of the file. */
  rejected: {index: number; reason: string}[]
  format: DeployFormat
}

const ACCEPTED_FORMATS = [
  'list-json (an array or {"deploys": [...]} of objects with a start/time/timestamp field)',
  'list-csv (a header row with a start/time/timestamp column)',
  'datadog-events-v2 ({"data": [...]} from /api/v2/events, or its items as NDJSON)',
  'datadog-events-v1 ({"events": [...]} from /api/v1/events)',
  'kubectl-events (kubectl get events -o json)',
]

/** The whole file is in no known format; bad records inside a known format are rejected instead. */
export class DeployFileError extends Error {
  constructor(fileName: string, problem: string) {
    super(`${fileName}: ${problem}. Accepted deploy file formats: ${ACCEPTED_FORMATS.join('; ')}.`)
    this.name = 'DeployFileError'
  }
}

export function parseDeploys(text: string, fileName: string): DeployParseResult {
  const body = text.replace(/^\uFEFF/, '')
  if (body.trim() === '') throw new DeployFileError(fileName, 'the file is empty')
  const documents = readJsonDocuments(body)
  if (documents !== undefined) {
    const records = collectJsonRecords(documents)
    if (records !== undefined) return finish(readJsonRecords(records), records)
    const broken = documents.find((document) => !document.ok)
    throw new DeployFileError(fileName, broken ? `invalid JSON (${broken.error})` : 'JSON of an unknown shape')
  }
  const csv = parseListCsv(body)
  if (csv !== undefined) return finish(csv, {format: 'list-csv', rejected: []})
  throw new DeployFileError(fileName, 'not JSON, and not CSV with a header row naming a time column')
}

function readJsonRecords({format, entries}: JsonRecords): PartialResult {
  switch (format) {
    case 'list-json':
      return parseListJson(entries)
    case 'datadog-events-v2':
      return parseDatadogEvents(entries, 'v2')
    case 'datadog-events-v1':
      return parseDatadogEvents(entries, 'v1')
    case 'kubectl-events':
      return parseKubectlEvents(entries)
  }
}

/** `early` holds what was rejected before the format's reader ran: broken or foreign JSON documents. */
function finish(partial: PartialResult, early: {format: DeployFormat; rejected: Rejected[]}): DeployParseResult {
  return {
    deploys: [...partial.deploys].sort(byStart),
    rejected: [...early.rejected, ...partial.rejected].sort((a, b) => a.index - b.index),
    format: early.format,
  }
}
