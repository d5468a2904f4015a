/** What the tests of the format parsers share: reading the real samples of fixtures/formats and their expected parses. */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {gunzipSync} from 'node:zlib'
import type {CaptureRecord} from '../../scripts/captures/formats/capture-record'
import type {ParseOutcome} from '../../src/model/parse-outcome'

/** One line's expected parse: its fields (time as ISO), or that it is rejected and why. */
export interface Expected {
  line: number
  ok: boolean
  reason?: string
  [field: string]: unknown
}

/** A sample's lines, without the empty one after its last newline. */
export function linesOf(dir: string, file: string): string[] {
  const lines = readFileSync(join(dir, file), 'utf8').split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

/** The expected parses beside a sample (`x.log` -> `x.expected.json`). */
export function expectedFor(dir: string, file: string): Expected[] {
  return JSON.parse(readFileSync(join(dir, file.replace(/\.[^./]+$/, '.expected.json')), 'utf8')) as Expected[]
}

/** The first n non-empty lines of a gzip file (a capture's log). */
export function gzLines(path: string, n: number): string[] {
  return gunzipSync(readFileSync(path)).toString('utf8').split('\n').filter((l) => l !== '').slice(0, n)
}

/** A line as a JSON object, or undefined when it is not one. */
export function objectOf(line: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(line)
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/** Every outcome well-formed, whatever the input: a finite time, or a reason with a short detail that never echoes a long line. */
export function checkOutcome(r: ParseOutcome, line: string): void {
  const problems: string[] = []
  if (r.ok) {
    if (!Number.isFinite(r.event.time)) problems.push(`time ${r.event.time}`)
    if (typeof r.event.path !== 'string') problems.push(`path ${typeof r.event.path}`)
  } else {
    if (typeof r.reason !== 'string') problems.push(`reason ${typeof r.reason}`)
    if ((r.detail ?? '').length > 120) problems.push(`detail of ${(r.detail ?? '').length} characters`)
    if (line.length > 120 && (r.detail ?? '').includes(line)) problems.push('detail echoes the line')
  }
  // One expect() where something is wrong: callers check thousands of outcomes, and an expect() costs
  // more than a parse.
  if (problems.length > 0) expect({line, outcome: r, problems}).toEqual({line, outcome: r, problems: []})
}

/** The first request of a real capture (rr-3: a browser's page load), for the writers' round trips. */
export const FIRST_REQUEST: CaptureRecord = {
  time_iso8601: '2026-11-30T07:18:26.070+00:00',
  msec: 1796023106.07,
  remote_addr: '127.10.6.90',
  remote_user: '',
  request_id: '3e6ea6d8e19199aea3d93db6305e4fb6',
  host: 'webapp.lab.test',
  request_method: 'GET',
  request_uri: '/',
  server_protocol: 'HTTP/1.1',
  status: 200,
  body_bytes_sent: 3385,
  bytes_sent: 3702,
  request_length: 446,
  request_time: 0.015,
  http_referer: '',
  http_user_agent: 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0',
  upstream_addr: '127.30.0.10:46289',
  upstream_status: '200',
  upstream_response_length: '3385',
  upstream_response_time: '0.016',
  proxy_upstream_name: 'default-webapp-80',
  cookie_session: '9624971b6e3b18dd06d7316e',
}
