import type {ParseOutcome} from '../../model/parse-outcome'
import {looksLikeAccessLine, parseAccessLine} from '../access-line'
import {looksLikeNginxJson, parseNginxJson} from '../nginx-json'
import {albLog, cloudfrontLog} from './aws'
import {elbClassicLog, s3AccessLog} from './aws-legacy'
import {azureFrontDoor} from './azure'
import {caddyConsole, caddyJson} from './caddy'
import {cloudflareHttp} from './cloudflare'
import {elasticFormat} from './elastic'
import {envoyJson, envoyText} from './envoy'
import {haproxyLog} from './haproxy'
import {herokuRouter} from './heroku'
import {squidLog} from './squid'
import {w3cLog} from './w3c'
import {gcpHttpLoadBalancer} from './gcp'
import {traefikClf, traefikJson} from './traefik'
import {vercelDrain} from './vercel'
import type {ByteCount, JsonFormat, TextFormat} from './types'

export type {ByteCount, JsonFormat, TextFormat} from './types'

/** nginx `combined`/`common` and their variants, Apache/Rack common-style, ingress-nginx `upstreaminfo`. */
export const nginxText: TextFormat = {
  id: 'nginx',
  name: 'nginx combined / common / ingress-nginx upstreaminfo access line',
  bytes: 'body',
  looksLike: looksLikeAccessLine,
  parse: parseAccessLine,
}

export const nginxJson: JsonFormat = {
  id: 'nginx-json',
  name: 'nginx JSON access line (log_format escape=json)',
  bytes: 'body',
  looksLike: looksLikeNginxJson,
  parse: parseNginxJson,
}

/**
 * Elastic documents (ECS fields) and Filebeat envelopes, whose raw line is read by the text
 * formats (and a JSON line by the other JSON formats): last, as it claims any `message` beside
 * Filebeat's keys.
 */
export const elasticJson: JsonFormat = elasticFormat({
  text: parseTextLine,
  json: (obj) => {
    const f = jsonFormatOf(obj)
    return f === undefined || f === elasticJson ? undefined : marked(f, obj)
  },
})

/** Every text format, nginx last: the others are told apart by their first characters or their tail. */
export const TEXT_FORMATS: readonly TextFormat[] = [envoyText, caddyConsole, albLog, elbClassicLog, cloudfrontLog, w3cLog, s3AccessLog, squidLog, herokuRouter, haproxyLog, traefikClf, nginxText]
/** Every JSON format after nginx's own (Datadog's are read in normalize/datadog). */
export const JSON_FORMATS: readonly JsonFormat[] = [nginxJson, traefikJson, envoyJson, caddyJson, gcpHttpLoadBalancer, cloudflareHttp, vercelDrain, azureFrontDoor, elasticJson]

const LBRACK = 91

/**
 * One text access line in whichever format it is. Formats are told apart cheaply: Envoy's starts
 * with `[`, Caddy's console lines with a time, a tab and a level, ALB's with its request type and an ISO time, Classic ELB's with an ISO time and the
 * balancer's name, CloudFront's with a date and a tab, W3C/IIS's with a date and a space, S3's
 * with a 64-hex owner id, Squid's with an epoch time and an elapsed time, the Heroku router's with
 * an RFC 3339 time and `heroku[router]: ` (or a logplex frame), HAProxy's with `CLIENT:PORT [date]`
 * after its syslog header; a line
 * nginx reads whose tail is Traefik's (`… 42 "router" "http://pod" 3ms`) is Traefik's.
 */
export function parseTextLine(line: string): ParseOutcome {
  return marked(textFormatOf(line), line)
}

/** A JSON record in whichever access-log format it is, or undefined when none claims it. */
export function parseJsonRecord(obj: Record<string, unknown>): ParseOutcome | undefined {
  const f = jsonFormatOf(obj)
  return f === undefined ? undefined : marked(f, obj)
}

/** The format's parse, its events marked when the format counts headers in the bytes. */
export function marked<T>(f: {bytes: ByteCount; parse(x: T): ParseOutcome}, x: T): ParseOutcome {
  const out = f.parse(x)
  if (out.ok && f.bytes === 'response') out.event.responseBytes = true
  return out
}

/** The format that reads this line (nginx when no other claims it). */
export function textFormatOf(line: string): TextFormat {
  const c = line.charCodeAt(0)
  if (c === LBRACK || line.startsWith('ACCESS [')) return envoyText.looksLike(line) ? envoyText : nginxText
  if (caddyConsole.looksLike(line)) return caddyConsole
  if (albLog.looksLike(line)) return albLog
  if (elbClassicLog.looksLike(line)) return elbClassicLog
  if (line.startsWith('#')) return w3cLog.looksLike(line) && !/\bx-edge-/.test(line) ? w3cLog : cloudfrontLog.looksLike(line) ? cloudfrontLog : nginxText
  if (cloudfrontLog.looksLike(line)) return cloudfrontLog
  if (w3cLog.looksLike(line)) return w3cLog
  if (s3AccessLog.looksLike(line)) return s3AccessLog
  if (squidLog.looksLike(line)) return squidLog
  if (herokuRouter.looksLike(line)) return herokuRouter
  if (haproxyLog.looksLike(line)) return haproxyLog
  if (hasTraefikTail(line)) return traefikClf
  return nginxText
}

/** A line nginx reads whose tail is Traefik's (`… 42 "router" "http://pod" 3ms`). */
export function hasTraefikTail(line: string): boolean {
  return (line.endsWith('ms') || line.endsWith('ms\r')) && traefikClf.looksLike(line)
}

/** The JSON format of an object, or undefined. */
export function jsonFormatOf(obj: Record<string, unknown>): JsonFormat | undefined {
  for (const f of JSON_FORMATS) if (f.looksLike(obj)) return f
  return undefined
}

/** The text format of this id (a wrapper's prefix, `cri/`, `docker/`, left out), or undefined. */
export function textFormatById(id: string | undefined): TextFormat | undefined {
  const bare = id?.slice(id.lastIndexOf('/') + 1)
  return TEXT_FORMATS.find((f) => f.id === bare)
}
