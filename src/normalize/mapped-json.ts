import type {AccessFields, ParseOutcome} from '../model/parse-outcome'
import {splitTarget} from './access-line'
import {stripPort} from '../util/host-port'
import {type AttributeBag, lookup, type NormalizeOptions} from './fields'
import {reject, show} from './text'
import {readCount, readStatus, readText, readTime, requestLine} from './values'

/*
 * A JSON log no known format reads, read by the user's mapping of the core fields
 * (`--field path=req.uri --field status=res.code --field time=ts --field bytes=res.size`).
 * Paths are looked up as `--field` paths are (fields.ts lookup): a key holding the whole dotted
 * path first, else the path walked object by object; `req."x.y"` for a key that holds dots.
 */

/** The user's mapping of the core fields, complete (config/parse.ts parseFields checks it). */
export interface CoreMapping {
  time: string
  path: string
  status: string
  method?: string
  bytes: string
  /** The bytes count the response headers too (`--field responseBytes=…`). */
  headersCounted: boolean
}

/** The core mapping the options give, or undefined when the user mapped no core field. */
export function coreMapping(opts: NormalizeOptions): CoreMapping | undefined {
  const f = opts.fields
  const bytes = f.bytes ?? f.responseBytes
  if (f.time === undefined || f.path === undefined || f.status === undefined || bytes === undefined) return undefined
  return {time: f.time, path: f.path, status: f.status, bytes, headersCounted: f.bytes === undefined, ...(f.method === undefined ? {} : {method: f.method})}
}

/** Whether an object is a record of the mapped log: it holds the mapped path and status. */
export function claimsMapped(obj: Record<string, unknown>, m: CoreMapping): boolean {
  const bag: AttributeBag = {attributes: obj}
  return lookup(bag, m.path) !== undefined && lookup(bag, m.status) !== undefined
}

/**
 * Client, agent and referer of a mapped log whose user did not map them: the names loggers commonly
 * give them (first present wins). A mapped `--field clientIp=…` replaces them (applyMapping).
 */
const CLIENT_KEYS = ['remote_addr', 'client_ip', 'clientIp', 'remote_ip', 'ip']
const AGENT_KEYS = ['http_user_agent', 'user_agent', 'userAgent']
const REFERER_KEYS = ['http_referer', 'referer', 'referrer']

function firstText(obj: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const k of keys) {
    const v = readText(obj[k])
    if (v !== undefined) return v
  }
  return undefined
}

/** One record read by the mapping. Never throws; the other mapped fields are applied after (applyMapping). */
export function parseMappedJson(obj: Record<string, unknown>, m: CoreMapping): ParseOutcome {
  const bag: AttributeBag = {attributes: obj}
  const rawTime = lookup(bag, m.time)
  if (rawTime === undefined || rawTime === null || rawTime === '' || rawTime === '-') return reject('missing-time', `no value at ${m.time} (--field time)`)
  const time = readTime(rawTime)
  if (time === undefined) return reject('bad-time', `${m.time} is no time (RFC 3339, epoch s/ms/us/ns): ${show(rawTime)}`)

  const rawPath = readText(lookup(bag, m.path))
  if (rawPath === undefined) return reject('missing-path', `no value at ${m.path} (--field path)`)
  // `path` may be mapped to a whole request line (`GET /x HTTP/1.1`).
  const request = rawPath.startsWith('/') ? undefined : requestLine(rawPath)
  const split = splitTarget(request?.target ?? rawPath)
  if (split === undefined) return reject('missing-path', `${m.path} is no path or URL: ${show(rawPath)}`)

  const rawStatus = lookup(bag, m.status)
  const status = readStatus(rawStatus)
  if (status === undefined) return reject(rawStatus === undefined || rawStatus === null || rawStatus === '' ? 'missing-status' : 'bad-status', `${m.status} is no 3-digit status: ${show(rawStatus)}`)

  const rawBytes = lookup(bag, m.bytes)
  if (rawBytes === undefined || rawBytes === null || rawBytes === '') return reject('missing-bytes', `no value at ${m.bytes} (--field ${m.headersCounted ? 'responseBytes' : 'bytes'})`)
  const bytes = readCount(rawBytes)
  if (bytes === undefined) return reject('bad-bytes', `${m.bytes} is no byte count: ${show(rawBytes)}`)

  const method = (m.method === undefined ? undefined : readText(lookup(bag, m.method))) ?? request?.method ?? ''
  const event: AccessFields = {
    time: time[0],
    resolutionMs: time[1],
    method,
    path: split.path,
    status,
    bytes,
    clientIp: firstText(obj, CLIENT_KEYS) ?? '',
    userAgent: firstText(obj, AGENT_KEYS) ?? '',
  }
  const referer = firstText(obj, REFERER_KEYS)
  if (referer !== undefined) event.referer = referer
  if (split.host !== undefined) event.vhost = stripPort(split.host)
  if (m.headersCounted) event.responseBytes = true
  return {ok: true, event}
}
