import type {ParseOutcome} from '../model/parse-outcome'

/*
 * Lines that are no request at all, written to the same stream as the access log: nginx's error log
 * (nginx writes both to the container's output), the ingress-nginx controller's own notices (klog),
 * the nginx image's entrypoint messages and the controller's start-up banner. They are counted apart
 * from skipped traffic (reason `not-access-line`): no request was lost with them.
 */

const KINDS: [RegExp, string][] = [
  // 2026/11/30 07:18:26 [error] 31#31: *1 open() "/usr/share/nginx/html/x" failed
  [/^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2} \[(debug|info|notice|warn|error|crit|alert|emerg)\] /, 'an nginx error log line'],
  // I1130 07:18:26.070123       7 controller.go:190] "Configuration changes detected, backend reload required"
  [/^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ [\w.-]+:\d+\] /, 'a Kubernetes component notice (klog)'],
  // /docker-entrypoint.sh: Configuration complete; ready for start up
  // 10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf
  [/^(\/docker-entrypoint\.sh: |[\w./-]+\.(sh|envsh): (info|warning|error): )/, 'a message of the nginx image\'s entrypoint'],
  // -------------------------------------------------------------------------------
  // NGINX Ingress controller
  //   Release:       v1.9.4
  [/^(-{20,}|NGINX Ingress controller|\s+(Release|Build|Repository|nginx version):\s+\S+)\s*$/, 'the ingress-nginx controller\'s start-up banner'],
  // [Mon Dec 01 12:00:00.123456 2026] [core:error] [pid 12] … (Apache's error log)
  [/^\[(Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} \d{2} [\d:.]+ \d{4}\] \[[\w:]+\] /, 'an Apache error log line'],
]

/** What a line that is no request is, or undefined for a line that may be a request. */
export function nonAccessKind(line: string): string | undefined {
  for (const [re, kind] of KINDS) if (re.test(line)) return kind
  return undefined
}

/** The rejection of a line that is no request, or undefined. */
export function nonAccess(line: string): ParseOutcome | undefined {
  const kind = nonAccessKind(line)
  return kind === undefined ? undefined : {ok: false, reason: 'not-access-line', detail: kind}
}
