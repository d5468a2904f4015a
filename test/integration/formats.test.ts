/**
 * Every proxy format skewscan reads, held to the real captures: each capture's rollout rewritten as
 * Traefik, Envoy, Istio, Caddy, an AWS ALB, CloudFront or a Google Cloud load balancer would have
 * logged it (scripts/captures/formats), and in container wrappers (nginx JSON in Docker json-file
 * records, upstreaminfo lines in CRI records), must give the report the capture's own nginx log
 * gives: the same people, page loads, failed requests, causes, deploys and windows. Formats that
 * log time to the second are held to nginx's second-resolution log (upstreaminfo, or combined for
 * those that name no pod), the others to its JSON log.
 * Formats that count headers in the bytes get the real header sizes nginx measured (`bytes_sent`).
 */
import {type Capture, CAPTURES, type Format, loadCapture, PROXY_FORMATS, type ProxyFormat, secondsOnly} from '../../scripts/captures/capture'
import {runCase} from '../../scripts/captures/run'
import type {AnalysisReport} from '../../src/model/report'
import {ROOT} from '../helpers/cli'

const captures = new Map<string, Capture>(CAPTURES.map((name) => [name, loadCapture(ROOT, name)]))

/** What a report says about people, deploys and incidents, without the names a format gives the app. */
function answer(r: AnalysisReport): unknown {
  return {
    totals: r.totals,
    users: r.affectedUsers.map(({app: _a, ...u}) => u),
    deploys: r.deploys.map(({app: _a, ...d}) => d),
    incidents: r.incidents.map(({app: _a, ...i}) => i),
    builds: r.builds.map((b) => ({id: b.id, firstSeen: b.firstSeen, lastServed: b.lastServed, shellRequests: b.shellRequests})),
    // Non-user clients are counted per app, and formats name apps differently (a vhost, an upstream or none).
    nonUser: Object.fromEntries(Object.entries(r.nonUser).map(([k, v]) => [k, {...v, clients: undefined}])),
  }
}

/** People and failed requests alone (see the CloudFront case). */
function people(r: AnalysisReport): unknown {
  return {users: r.affectedUsers.map((u) => [u.clientIp, u.failedRequests, u.brokenPageLoads]), failedRequests: r.totals.failedRequests}
}

/** Formats that log no upstream (the bucket or edge answers itself). */
const NO_POD: ReadonlySet<ProxyFormat> = new Set(['s3', 'cloudfront', 'gcs', 'w3c'])
/** Lines of a format's own header, counted as `header-line` (W3C opens with #Software, #Version, #Date, #Fields). */
const HEADER_LINES: Partial<Record<ProxyFormat, number>> = {w3c: 4}

const baselines = new Map<string, Promise<AnalysisReport>>()
function baseline(name: string, format: Format): Promise<AnalysisReport> {
  const key = `${name}/${format}`
  if (!baselines.has(key)) baselines.set(key, runCase(captures.get(name) as Capture, {format, order: 'oldest-first', stretch: 10, deploys: 'events'}).then((r) => r.report))
  return baselines.get(key) as Promise<AnalysisReport>
}

describe.each([...CAPTURES])('capture %s', (name) => {
  it.each([...PROXY_FORMATS])('rewritten as %s: every record read, and the report of the original', async (format: ProxyFormat) => {
    // The capture's own log with the same time resolution and, for formats that name no pod, none either.
    const original = await baseline(name, secondsOnly(format) ? (NO_POD.has(format) ? 'combined' : 'upstreaminfo') : NO_POD.has(format) ? 'nginx-json-no-upstream' : 'nginx-json')
    const {report, score} = await runCase(captures.get(name) as Capture, {format, order: 'oldest-first', stretch: 10, deploys: 'events'})
    const headers = HEADER_LINES[format] ?? 0
    expect(report.input.skipped).toMatchObject({total: headers, byReason: headers > 0 ? {'header-line': headers} : {}})
    expect(report.input.records).toBe(original.input.records + headers)
    if (format === 'cloudfront' || format === 'w3c') {
      // CloudFront and IIS logs name no pod, and count the headers in the bytes: a shell sent with two
      // header blocks (a Set-Cookie on a first visit) is two lengths that no pod ties together, so builds
      // and windows may split (docs/formats.md, "Formats that count headers"). People and failed requests still hold.
      expect(people(report)).toEqual(people(original))
      return
    }
    if (format === 'squid') {
      // Squid's native format logs no user agent: a crawler fetching an old asset URL it saw before
      // cannot be told from a person (docs/formats.md). Every person is found; the only others are the capture's
      // crawlers and scanners (127.20.x.y, its noise clients).
      const ours = report.affectedUsers.map((u) => u.clientIp)
      for (const u of original.affectedUsers) expect(ours).toContain(u.clientIp)
      for (const ip of ours.filter((x) => !original.affectedUsers.some((u) => u.clientIp === x))) expect(ip).toMatch(/^127\.20\./)
      return
    }
    expect(answer(report)).toEqual(answer(original))
    expect(score.problems).toEqual([])
  })
})
