import {Flags} from './oclif'

/** Flags that shape the analysis, shared by every command that analyses traffic. */
export const analysisFlags = {
  deploys: Flags.string({description: 'deploy file: JSON/CSV list (time, service, version), Datadog v1/v2 events JSON, or `kubectl get events -o json`; without it deploys are inferred from the logs', helpGroup: 'ANALYSIS'}),
  'session-key': Flags.string({default: 'auto', description: 'what identifies a browser: auto (a session/user attribute when logged, else ip + user agent), ip-ua, cookie:NAME, attr:PATH', helpGroup: 'ANALYSIS'}),
  field: Flags.string({multiple: true, description: 'map an event field to a custom attribute, NAME=PATH (e.g. session=@http.cookies.INGRESSCOOKIE, version=tag:version); path, status, time and bytes (or responseBytes: headers counted), with method optional, read a JSON log no known format claims (path=req.uri status=res.code time=ts bytes=res.size); dotted paths walk nested objects, a key holding dots is quoted (req."x.y")', helpGroup: 'ANALYSIS'}),
  'log-format': Flags.string({description: 'read text lines by the nginx log_format that wrote them: the directive from nginx.conf (log_format main \'$remote_addr - …\' \'…\';), its quoted pieces, or the bare format; nginx\'s variable names ($remote_addr, $time_local, $request, $status, $body_bytes_sent, $bytes_sent, $upstream_addr, …; others are skipped); a JSON template (escape=json) reads JSON lines by its keys', helpGroup: 'ANALYSIS'}),
  'trusted-proxies': Flags.string({description: 'the proxies (CIDR or address, comma-separated: 10.0.0.0/8,2001:db8::/32) that add to X-Forwarded-For: the client is the right-most address of the logged chain that is none of them; without it, the chain\'s first address, which any client can write', helpGroup: 'ANALYSIS'}),
  'asset-pattern': Flags.string({multiple: true, description: 'another asset pattern: a path prefix (/cdn/) or an extension (.js)', helpGroup: 'ANALYSIS'}),
  'default-asset-patterns': Flags.boolean({default: true, allowNo: true, description: 'use the default asset patterns (/_build/ /assets/ /static/ /_next/static/ /_app/immutable/ .js .mjs .cjs .css .map .wasm); --no-default-asset-patterns keeps only yours', helpGroup: 'ANALYSIS'}),
  'shell-path': Flags.string({multiple: true, description: 'another path that always serves the shell (besides / and /index.html)', helpGroup: 'ANALYSIS'}),
  'length-tolerance': Flags.integer({default: 0, min: 0, description: 'shell lengths within this many bytes are one build (shells with nonces)', helpGroup: 'ANALYSIS'}),
  'incident-gap': Flags.string({default: '5m', description: 'failures further apart start a new incident', helpGroup: 'ANALYSIS'}),
  'deploy-margin': Flags.string({default: '60s', description: 'failures this close to a deploy window belong to its rollout', helpGroup: 'ANALYSIS'}),
  'app-key': Flags.string({default: 'auto', description: 'what names the app a request belongs to: auto (the ingress upstream, else the virtual host, else the service), upstream, host, service, or an attribute (@kube.app, tag:app)', helpGroup: 'ANALYSIS'}),
  app: Flags.string({description: 'analyse this app alone (its name as the report gives it)', helpGroup: 'ANALYSIS'}),
  'deploy-app': Flags.string({multiple: true, description: 'deploy records of this service or Deployment belong to this app, SERVICE=APP (when no name ties them)', helpGroup: 'ANALYSIS'}),
  'lazy-gap': Flags.string({default: '3s', description: 'a page load\'s requests this long after its previous one are a later (lazy) load, no longer its initial load', helpGroup: 'ANALYSIS'}),
  horizon: Flags.string({default: '30m', description: 'sessions and page loads expire after this long without a request', helpGroup: 'ANALYSIS'}),
  lookahead: Flags.string({default: '60s', hidden: true, description: 'how far ahead shell lengths are learned before requests are judged'}),
  'reorder-window': Flags.string({default: '60s', hidden: true, description: 'disorder within a file absorbed without sorting it whole'}),
}
