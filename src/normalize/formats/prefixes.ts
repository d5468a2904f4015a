/*
 * Prefixes that log tools put before each line when people grab logs during an incident, stripped
 * as the container wrappers are (container.ts):
 *
 * - `kubectl logs --prefix`: `[pod/web-7d9f8c6b5-nk5kr/nginx] <line>` (kubectl logs.go
 *   addPrefixIfNeeded: `[pod/%s/%s] `), with `--timestamps` the runtime's time after it.
 * - `docker compose logs` / `docker-compose logs`: `web-1  | <line>` (the container name padded to
 *   the longest, then ` | `; compose v1 names `project_web_1`), coloured on a terminal
 *   (`ESC[36mweb-1  | ESC[0m`); with `--timestamps` the daemon's time after it.
 * - foreman, forego, honcho (Procfile runners; nginx-proxy runs nginx under forego):
 *   `nginx.1    | <line>`, foreman and honcho with the wall time first (`07:18:26 web.1  | `).
 *   Inside `docker compose logs` both come one after the other: `nginx-proxy  | nginx.1    | <line>`.
 * - fluentd's stdout output (out_stdout / filter_stdout, formatter_stdout with the default JSON
 *   record): `2026-11-30 07:18:26.070000000 +0000 docker.3f2a1b9c: {"log":"<line>",...}`, the record
 *   being the Docker fluentd driver's (`log`, `container_name`, `source`), a Docker json-file record
 *   tailed by in_tail (`log`, `stream`, `time`), or `{"message": "<line>"}`.
 *
 * The record's time is the access line's own. The name in the prefix (a pod's workload, a compose
 * service, a Procfile process, a container name) becomes the event's `service`: the app only where
 * the line names none (apps.ts appSourceOf: upstream name, then virtual host, then service).
 */

/** What a prefix held: the line after it (or fluentd's record) and the name it gives the app. */
export interface Prefixed {
  kind: 'kubectl' | 'compose' | 'fluentd'
  /** The line after the prefix (for fluentd, the record's `log` or `message`). */
  line?: string
  /** fluentd's record when it holds no line of its own (a JSON access record itself). */
  record?: Record<string, unknown>
  /** The app hint: a pod's workload, a compose service, a process name; undefined when none. */
  service?: string
}

/** The longest prefix name looked at (a pod name is at most 253 characters). */
const MAX_NAME = 253

const KUBECTL = /^\[pod\/([a-z0-9][a-z0-9.-]{0,252})\/([a-z0-9-]{0,63})\](?: |$)/
const SGR = '(?:\\u001b\\[[0-9;]*m)?'
/** `[ESC[..m][HH:MM:SS ]NAME +| [ESC[0m]`: compose, foreman, forego, honcho. */
const COMPOSE = new RegExp(`^${SGR}(?:\\d\\d:\\d\\d:\\d\\d )?([A-Za-z0-9][A-Za-z0-9_.-]{0,${MAX_NAME - 1}}) +\\|(?: |$)${SGR}`)
/** fluentd's default stdout time (`%Y-%m-%d %H:%M:%S.%N %z`; v0.12 without the fraction), a tag, `: {`. */
const FLUENTD = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,9})? [+-]\d{4} ([^\s:]{1,512}(?::[^\s:]+)*): \{/

/** The alphabet Kubernetes' generated names use (rand.String, SafeEncodeString: no vowels, no 0 1 3). */
const SAFE = '[bcdfghjklmnpqrstvwxz2456789]'
const DEPLOYMENT_POD = new RegExp(`^(.+)-${SAFE}{1,10}-${SAFE}{5}$`)
const GENERATED_POD = new RegExp(`^(.+)-${SAFE}{5}$`)
const STATEFUL_POD = /^(.+)-\d+$/

/**
 * The workload a pod belongs to, from its generated name: `web-7d9f8c6b5-nk5kr` (a Deployment's
 * ReplicaSet hash and a random suffix) -> `web`; `fluentd-x7k2p` -> `fluentd`; `db-0` -> `db`. The
 * ReplicaSet hash changes with every rollout, so the pod name itself would split one app in two.
 */
export function workloadOfPod(pod: string): string {
  return DEPLOYMENT_POD.exec(pod)?.[1] ?? GENERATED_POD.exec(pod)?.[1] ?? STATEFUL_POD.exec(pod)?.[1] ?? pod
}

/** A compose container or Procfile process name without its replica number: `web-1`, `app_web_1`, `nginx.1` -> `web`, `app_web`, `nginx`. */
export function serviceOfName(name: string): string {
  const m = /^(.+?)[-_.]\d+$/.exec(name)
  return m?.[1] ?? name
}

const hasLetter = (s: string): boolean => /[A-Za-z]/.test(s)

/**
 * `s.slice(0, limit).indexOf(' |')` (with `spaced`, of `' | '`): where the first one ending within
 * the first `limit` characters starts, or -1. Found from the bar, a rare character in a log line,
 * where the space is every few characters: a native search of one character, and no slice. Every
 * line read is asked this (a compose prefix, an unknown one): the slice and two-character search
 * took about 0.35 s per million lines.
 */
export function barAt(s: string, limit: number, spaced: boolean): number {
  const length = spaced ? 3 : 2
  for (let b = s.indexOf('|', 1); b !== -1 && b - 1 + length <= limit; b = s.indexOf('|', b + 1)) {
    if (s.charCodeAt(b - 1) === 32 && (!spaced || s.charCodeAt(b + 1) === 32)) return b - 1
  }
  return -1
}

/** A `kubectl logs --prefix` line: the line after `[pod/NAME/CONTAINER] `, or undefined. */
export function unwrapKubectl(s: string): Prefixed | undefined {
  if (!s.startsWith('[pod/')) return undefined
  const m = KUBECTL.exec(s)
  if (m === null) return undefined
  return {kind: 'kubectl', line: s.slice(m[0].length), service: workloadOfPod(m[1] as string)}
}

/**
 * A compose / foreman / forego / honcho line: the line after `NAME  | `, or undefined. A name is
 * no address (it has a letter): `10.0.0.1 | …` is a custom format's field separator, not a prefix.
 */
export function unwrapCompose(s: string): Prefixed | undefined {
  // Bounded: only the head of a (possibly very long) line is looked at.
  if (barAt(s, MAX_NAME + 40, false) < 1) return undefined
  const m = COMPOSE.exec(s)
  if (m === null || !hasLetter(m[1] as string)) return undefined
  return {kind: 'compose', line: s.slice(m[0].length), service: serviceOfName(m[1] as string)}
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** A line field's text without the newline the runtime kept. */
function withoutNewline(s: string): string {
  return s.endsWith('\r\n') ? s.slice(0, -2) : s.endsWith('\n') ? s.slice(0, -1) : s
}

/** The app hint a fluentd record carries: the Docker driver's `container_name`, kubernetes_metadata's pod. */
function fluentdService(rec: Record<string, unknown>): string | undefined {
  const name = rec['container_name']
  if (typeof name === 'string' && name.length > 1 && name.length <= MAX_NAME) return serviceOfName(name.replace(/^\//, ''))
  const k8s = rec['kubernetes']
  const pod = isRecord(k8s) ? k8s['pod_name'] : undefined
  return typeof pod === 'string' && pod !== '' && pod.length <= MAX_NAME ? workloadOfPod(pod) : undefined
}

/**
 * A fluentd stdout line: its record's line (`log`, or `message`), or the record itself when it
 * holds neither; `{rejected}` when the record after the tag is not a JSON object (fluentd's
 * `output_type hash` prints Ruby's `{"log"=>…}`); undefined when the line is no fluentd line.
 */
export function unwrapFluentd(s: string): Prefixed | {rejected: string} | undefined {
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(10) !== 32) return undefined
  const m = FLUENTD.exec(s)
  if (m === null) return undefined
  let rec: unknown
  try {
    rec = JSON.parse(s.slice(m[0].length - 1))
  } catch {
    return {rejected: 'the record after the fluentd time and tag is not JSON (use output_type json)'}
  }
  if (!isRecord(rec)) return {rejected: 'the record after the fluentd time and tag is not a JSON object'}
  const service = fluentdService(rec)
  const text = typeof rec['log'] === 'string' ? rec['log'] : typeof rec['message'] === 'string' ? rec['message'] : undefined
  const base = {kind: 'fluentd' as const, ...(service === undefined ? {} : {service})}
  return text === undefined ? {...base, record: rec} : {...base, line: withoutNewline(text)}
}

/**
 * What stands before an access line that no known prefix explains: a bracket (`[web-1] 10.0.0.1 - - …`)
 * or words before ` | ` (`my app | 10.0.0.1 - - …`). `rest` says whether the text after it reads as a
 * record; only then is it a prefix (an error log's `[Mon Dec 01 …] [error]` is none). The prefix,
 * at most 60 characters, or undefined.
 */
export function unknownPrefix(s: string, rest: (line: string) => boolean): string | undefined {
  if (s.startsWith('[')) {
    const close = s.slice(0, 130).indexOf('] ')
    if (close < 2) return undefined
    const inside = s.slice(1, close)
    if (/["{}[]/.test(inside)) return undefined
    return rest(s.slice(close + 2).trimStart()) ? s.slice(0, Math.min(close + 1, 60)) : undefined
  }
  const head = s.slice(0, 200)
  const quote = head.indexOf('"')
  const stop = quote < 0 ? head.length : quote
  for (let bar = head.indexOf(' | '); bar > 0 && bar < stop; bar = head.indexOf(' | ', bar + 1)) {
    if (rest(s.slice(bar + 3).trimStart())) return s.slice(0, Math.min(bar + 2, 60))
  }
  return undefined
}
