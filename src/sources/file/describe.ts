import {compileLogFormat, matchesLine} from '../../normalize/log-format'
import {nonAccessKind} from '../../normalize/non-access'
import {criRecord, NOT_JSON, parseJson, recordsOf} from './records'

/*
 * What a file no format reads looked like, for the error that says so: the keys of its first JSON
 * object or the first tokens of its first line, the nearest format skewscan knows, and the flag that
 * would read it (`--field …` for JSON, `--log-format …` for text). Everything shown is log content:
 * short, printable, never a whole line.
 */

/** Known JSON formats by the keys that mark them (top-level, or dotted for nested). */
const JSON_FORMAT_KEYS: [string, string[]][] = [
  ['nginx JSON (log_format escape=json)', ['time_local', 'time_iso8601', 'msec', 'remote_addr', 'request', 'request_uri', 'uri', 'status', 'body_bytes_sent', 'bytes_sent', 'http_user_agent', 'http_referer', 'upstream_addr', 'request_time']],
  ['Traefik JSON', ['ClientHost', 'RequestPath', 'RequestMethod', 'DownstreamStatus', 'DownstreamContentSize', 'StartUTC', 'RouterName', 'ServiceURL', 'OriginStatus']],
  ['Envoy / Istio JSON', ['start_time', 'method', 'path', 'response_code', 'bytes_sent', 'upstream_host', 'authority', 'user_agent', 'x_forwarded_for', 'request_id', 'protocol']],
  ['Caddy JSON', ['ts', 'logger', 'msg', 'request', 'status', 'size', 'duration', 'resp_headers', 'request.uri', 'request.method', 'request.host']],
  ['Google Cloud HTTP(S) load balancer', ['httpRequest', 'httpRequest.requestUrl', 'httpRequest.status', 'httpRequest.responseSize', 'timestamp', 'resource', 'jsonPayload', 'severity']],
  ['Datadog log event', ['attributes', 'message', 'service', 'host', 'timestamp', 'status', 'tags', 'id']],
  ['ingress-nginx JSON (log-format-upstream)', ['time', 'remote_addr', 'x-forward-for', 'request_id', 'bytes_sent', 'status', 'vhost', 'path', 'request_query', 'method', 'http_referrer', 'http_user_agent', 'proxy_upstream_name']],
  ['Cloudflare Logpush / Logpull (http_requests)', ['ClientIP', 'ClientRequestHost', 'ClientRequestMethod', 'ClientRequestURI', 'EdgeResponseStatus', 'EdgeResponseBytes', 'EdgeStartTimestamp', 'RayID', 'ClientRequestUserAgent']],
  ['Vercel log drain', ['proxy', 'proxy.path', 'proxy.statusCode', 'proxy.method', 'deploymentId', 'projectId', 'requestId', 'source', 'timestamp']],
  ['Azure Front Door access log', ['properties', 'properties.requestUri', 'properties.httpStatusCode', 'properties.responseBytes', 'category', 'operationName', 'time', 'resourceId']],
  ['Elastic (ECS) document or Filebeat envelope', ['@timestamp', 'url.original', 'url.path', 'http.request.method', 'http.response.status_code', 'http.response.body.bytes', 'source.ip', 'user_agent.original', 'message', 'ecs', 'agent', 'log', 'input']],
]

/** The names a core field goes by in JSON logs, for the `--field` the error suggests (last key, lower case). */
const FIELD_NAMES: [string, string[]][] = [
  ['path', ['path', 'uri', 'url', 'request_uri', 'requesturi', 'requesturl', 'requestpath', 'request_path', 'target', 'clientrequesturi', 'original']],
  ['status', ['status', 'status_code', 'statuscode', 'code', 'response_code', 'responsecode', 'responsestatus', 'edgeresponsestatus', 'http_status']],
  ['time', ['time', 'timestamp', '@timestamp', 'ts', 'datetime', 'date', 'start_time', 'starttime', 'time_local', 'time_iso8601', 'started_at', 'logged_at']],
  ['bytes', ['bytes', 'size', 'body_bytes_sent', 'bytes_sent', 'response_size', 'responsesize', 'content_length', 'content-length', 'body_bytes', 'length']],
  ['method', ['method', 'request_method', 'verb', 'http_method', 'requestmethod']],
]

const MAX_SHOWN = 60

/** Printable, short: control characters and the like become `?`. */
function printable(s: string, n = MAX_SHOWN): string {
  // eslint-disable-next-line no-control-regex
  const clean = s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, '?')
  return clean.length > n ? `${clean.slice(0, n - 1)}…` : clean
}

/** Every leaf's dotted path in an object, to three levels, in order (at most 200). */
function leafPaths(obj: Record<string, unknown>): string[] {
  const out: string[] = []
  const walk = (o: Record<string, unknown>, prefix: string, depth: number): void => {
    for (const [k, v] of Object.entries(o)) {
      if (out.length >= 200) return
      const key = k.includes('.') ? `"${k}"` : k
      const path = prefix === '' ? key : `${prefix}.${key}`
      if (v !== null && typeof v === 'object' && !Array.isArray(v) && depth < 3) walk(v as Record<string, unknown>, path, depth + 1)
      else out.push(path)
    }
  }
  walk(obj, '', 1)
  return out
}

/** The last key of a dotted path, unquoted, in lower case. */
const lastKey = (path: string): string => (path.match(/(?:"[^"]*"|[^.])+$/)?.[0] ?? path).replaceAll('"', '').toLowerCase()

/** A key without its separators: `content.length`, `content-length` and `content_length` are one name. */
const squash = (k: string): string => k.replace(/[-_. ]/g, '')

/** Lines describing a JSON object no format read. */
function describeObject(obj: Record<string, unknown>): string[] {
  const keys = Object.keys(obj)
  const shown = keys.slice(0, 12).map((k) => printable(k, 30)).join(', ')
  const out = [`It holds JSON objects; the first has the keys ${shown}${keys.length > 12 ? `, … (${keys.length} in all)` : ''}.`]
  const paths = leafPaths(obj)
  const have = new Set([...keys, ...paths.map((p) => p.replaceAll('"', ''))])
  let best: [string, string[]] | undefined
  for (const [name, marks] of JSON_FORMAT_KEYS) {
    const common = marks.filter((m) => have.has(m))
    if (common.length >= 2 && (best === undefined || common.length > best[1].length)) best = [name, common]
  }
  if (best) out.push(`Nearest known format: ${best[0]} (keys in common: ${best[1].slice(0, 6).join(', ')}), but too few of its keys to read it.`)
  const mapping = FIELD_NAMES.map(([field, names]) => {
    const path = paths.find((p) => names.includes(lastKey(p)) || names.some((n) => squash(n) === squash(lastKey(p))))
    return path === undefined ? (field === 'method' ? undefined : `${field}=?`) : `${field}=${printable(path, 40)}`
  }).filter((x): x is string => x !== undefined)
  out.push(`To read it, map its fields${mapping.some((m) => m.endsWith('=?')) ? ' (each ? still to find)' : ''}: ${mapping.map((m) => `--field ${m}`).join(' ')}` +
    ' (bytes: the body length; responseBytes when headers are counted).')
  return out
}

/** A text line's first tokens: quoted and bracketed runs kept whole. */
function tokens(line: string, max: number): string[] {
  const out: string[] = []
  const re = /[^\s"[]*"(?:[^"\\]|\\.)*"|\[[^\]]*\]|\S+/g
  for (let m = re.exec(line); m && out.length < max; m = re.exec(line)) out.push(m[0])
  return out
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}(:\d+)?$/
const IPV6 = /^[0-9a-f]*:[0-9a-f:.]+$/i
const LOCAL_TIME = /^\[\d{1,2}\/[A-Za-z]{3}\/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}\]$/
const ISO_TIME = /^\[?\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})\]?$/
const REQUEST = /^"[A-Z]+ \S+( HTTP\/[\d.]+)?"$/

/**
 * An nginx log_format that would have written a line of these tokens (nginx variables where a
 * token's shape names one, `$fieldN` where none does), or undefined when the line has no request
 * and status. A guess to start from, said as one.
 */
function guessLogFormat(toks: readonly string[]): string | undefined {
  const out: string[] = []
  let sawRequest = false
  let sawStatus = false
  let sawBytes = false
  let sawAddr = false
  let quotedAfterBytes = 0
  toks.forEach((t, i) => {
    const bare = t.replace(/^"|"$/g, '')
    const q = t.startsWith('"') ? '"' : ''
    if (LOCAL_TIME.test(t)) out.push('[$time_local]')
    else if (ISO_TIME.test(t)) out.push(t.startsWith('[') ? '[$time_iso8601]' : '$time_iso8601')
    else if (REQUEST.test(t)) {
      out.push('"$request"')
      sawRequest = true
    } else if (sawRequest && !sawStatus && /^\d{3}$/.test(t)) {
      out.push('$status')
      sawStatus = true
    } else if (sawStatus && !sawBytes && /^(\d+|-)$/.test(t)) {
      out.push('$body_bytes_sent')
      sawBytes = true
    } else if (sawBytes && q && quotedAfterBytes < 2) {
      out.push(quotedAfterBytes++ === 0 ? '"$http_referer"' : '"$http_user_agent"')
    } else if (!sawAddr && (IPV4.test(bare) || IPV6.test(bare))) {
      out.push(`${q}$remote_addr${q}`)
      sawAddr = true
    } else if (t === '-' && !sawRequest) out.push(i === 1 ? '-' : '$remote_user')
    else if (/^\d+\.\d+$/.test(t) && sawStatus) out.push('$request_time')
    else out.push(`${q}$field${i + 1}${q}`)
  })
  return sawRequest && sawStatus ? out.join(' ') : undefined
}

/** Lines describing a text line no format read. */
function describeText(line: string): string[] {
  const cri = criRecord(line.trim())
  const text = cri ? cri.line.trim() : line.trim()
  const kind = nonAccessKind(text)
  const toks = tokens(text, 14)
  const out = [`Its first line begins: ${toks.slice(0, 8).map((t) => printable(t, 40)).join(' ')}${toks.length > 8 ? ' …' : ''}`]
  if (kind !== undefined) {
    out.push(`That is ${kind}, no access log: give skewscan the access log (nginx writes it apart, or to stdout beside its errors).`)
    return out
  }
  const guess = guessLogFormat(toks)
  if (guess !== undefined) {
    // Said as a guess, and whether it reads the line: the log_format in nginx.conf is what to give.
    let reads = false
    try {
      const f = compileLogFormat(guess)
      reads = f.kind === 'text' && matchesLine(f, text)
    } catch {
      reads = false
    }
    out.push('Nearest known format: nginx combined (an address, [time], "request", status, bytes), with fields in other places or more of them.')
    out.push(`To read it, give the log_format from nginx.conf: --log-format '<log_format …>'; a guess to start from${reads ? ' (it reads this line)' : ''}: --log-format '${printable(guess, 300)}'`)
  } else {
    out.push('No request ("GET /path HTTP/1.1") and status found in it. If nginx wrote it, give its log_format: --log-format \'…\' (see skewscan analyze --help).')
  }
  return out
}

/** What the first lines of a file no format reads looked like, as lines of an error message. */
export function describeUnreadable(head: readonly string[]): string[] {
  const first = head.find((l) => l.trim() !== '')
  if (first === undefined) return []
  const t = first.trim()
  if (t.startsWith('{') || t.startsWith('[')) {
    const value = parseJson(t)
    if (value !== NOT_JSON) {
      const rec = recordsOf(value)[0]
      if (rec !== null && typeof rec === 'object' && !Array.isArray(rec)) return describeObject(rec as Record<string, unknown>)
    }
  }
  const cri = criRecord(t)
  if (cri && cri.line.trim().startsWith('{')) {
    const value = parseJson(cri.line.trim())
    if (value !== NOT_JSON && value !== null && typeof value === 'object' && !Array.isArray(value)) return describeObject(value as Record<string, unknown>)
  }
  return describeText(first)
}
