import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import http from 'node:http'
import {connect, type AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {startCli, waitFor} from '../helpers/cli-process'
import {schemaValidator} from '../helpers/schema'

const dir = mkdtempSync(join(tmpdir(), 'skewscan-lab-cli-'))
/** A port already taken, for the usage error. */
const taken = http.createServer()
beforeAll(() => new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', () => resolve())))
afterAll(async () => {
  await new Promise((resolve) => taken.close(resolve))
  rmSync(dir, {recursive: true, force: true})
})

/** Whether something accepts connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1')
    s.once('connect', () => {
      s.destroy()
      resolve(true)
    })
    s.once('error', () => resolve(false))
  })
}

describe('skewscan lab, run as a user would', () => {
  it('--once: pod starts and stops on stderr as they happen, the report as JSON on stdout, the log and the deploy windows on disk', async () => {
    const files = {log: join(dir, 'lab.ndjson'), ingress: join(dir, 'ingress.log'), deploys: join(dir, 'deploys.json'), rum: join(dir, 'rum.json')}
    const cli = startCli(['lab', '--once', '--step', '300ms', '--every', '400ms', '--tail', '300ms', '--browsers', '3', '--json',
      '--log', files.log, '--ingress-log', files.ingress, '--deploys-out', files.deploys, '--rum-out', files.rum, '--rum-sample-rate', '100'])
    // Meanwhile, usage errors (exit 2): flags that make no sense with --compare, a port already taken.
    const busy = startCli(['lab', '--port', String((taken.address() as AddressInfo).port), '--once', '--every', '100ms', '--deploys', '0'])
    const mixed = startCli(['lab', '--compare', '--strategy', 'blue-green'])

    expect((await cli.exited).code).toBe(0)
    const report = JSON.parse(cli.stdout())
    const validate = schemaValidator('lab')
    expect(validate(report) || validate.errors).toBe(true)
    expect(report).toMatchObject({stoppedBy: 'once', settings: {replicas: 3, stepSeconds: 0.3}, deploys: [{id: 1}], files: {log: files.log, deploys: files.deploys}})
    expect(report.pods).toHaveLength(6)
    expect(cli.stderr().match(/pod web-[0-9a-f]+-\w{5} started/g)).toHaveLength(6)
    expect(cli.stderr().match(/pod web-[0-9a-f]+-\w{5} stopped/g)).toHaveLength(6)
    expect(cli.stderr()).toMatch(/Lab balancer listening on http:\/\/127\.0\.0\.1:\d+\//)
    expect(cli.stderr()).toMatch(/deploy 1 started: (\S+)-1 → \1-2/)
    const events = readFileSync(files.log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as {attributes: {timestamp: string}})
    expect(events.length).toBe(report.requests)
    expect(events[0]?.attributes.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(readFileSync(files.ingress, 'utf8').trim().split('\n')).toHaveLength(report.requests)
    expect(JSON.parse(readFileSync(files.deploys, 'utf8'))).toEqual([{start: report.deploys[0].start, end: report.deploys[0].end, service: 'web', version: report.deploys[0].to, from: report.deploys[0].from}])
    // The browsers' RUM events: a RUM events search API response, a view per page load (every session sampled).
    const rum = JSON.parse(readFileSync(files.rum, 'utf8')) as {data: {attributes: {attributes: {type: string}}}[]; meta: unknown}
    expect(report.files.rum).toBe(files.rum)
    expect(report.rum).toMatchObject({sampleRate: 100, sampledSessions: report.rum.sessions, views: report.browsers.pageLoads})
    expect(rum.data).toHaveLength(report.rum.views + report.rum.resources + report.rum.errors)
    expect(rum.meta).toEqual({page: {}, status: 'done'})

    expect((await busy.exited).code).toBe(2)
    expect(busy.stderr()).toMatch(/--port \d+: cannot listen on 127\.0\.0\.1 \(EADDRINUSE\)/)
    expect((await mixed.exited).code).toBe(2)
    expect(mixed.stderr()).toMatch(/cannot also be provided when using --strategy/)
  }, 120_000)

  it('Ctrl-C: every port it opened is closed, both logs complete (one whole line per request the summary counts), the deploy windows written, the summary printed, exit 0, nothing left in the temporary directory', async () => {
    const files = {log: join(dir, 'interrupted.ndjson'), ingress: join(dir, 'interrupted.log'), deploys: join(dir, 'interrupted-deploys.json'), rum: join(dir, 'interrupted-rum.json')}
    const ownTmp = mkdtempSync(join(dir, 'tmp-'))
    const cli = startCli(['lab', '--step', '5s', '--every', '30s', '--browsers', '2', '--log', files.log, '--ingress-log', files.ingress, '--deploys-out', files.deploys, '--rum-out', files.rum],
      60_000, {TMPDIR: ownTmp})
    await waitFor(() => /listening on http:\/\/127\.0\.0\.1:(\d+)\//.test(cli.stderr()), 30_000, 'the lab to listen')
    const ports = [...cli.stderr().matchAll(/127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1]))
    expect(new Set(ports).size).toBe(4) // the balancer and three pods
    for (const p of ports) expect(await listening(p)).toBe(true)
    // Interrupted while the browsers are busy: once requests have reached the log (polled, not a fixed wait).
    const lines = (file: string): number => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').length - 1 : 0)
    await waitFor(() => lines(files.log) >= 2, 30_000, 'requests in the log')
    cli.child.kill('SIGINT')
    expect(await cli.exited).toEqual({code: 0, signal: null})
    const out = cli.stdout()
    expect(out).toMatch(/^Lab http:\/\/127\.0\.0\.1:\d+\/: 3 pods, .*; interrupted\.$/m)
    const requests = Number(/^Balancer: (\d+) requests?\.$/m.exec(out)?.[1])
    expect(requests).toBeGreaterThanOrEqual(2)
    // Every request the balancer answered is in each log, each a whole line (the last one too: flushed before exit).
    for (const file of [files.log, files.ingress]) {
      const text = readFileSync(file, 'utf8')
      expect(text.endsWith('\n')).toBe(true)
      expect(text.split('\n').length - 1).toBe(requests)
    }
    const events = readFileSync(files.log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as {attributes: {timestamp: string}})
    expect(events.every((e) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(e.attributes.timestamp))).toBe(true)
    // No deploy had started (every 30 s): the deploys file holds the empty list, and the summary names the files.
    expect(JSON.parse(readFileSync(files.deploys, 'utf8'))).toEqual([])
    expect(out).toContain(`Access log (Datadog NDJSON): ${files.log}`)
    expect(out).toContain(`Access log (ingress-nginx): ${files.ingress}`)
    // The RUM document is closed too: every page load that started is in it, whole.
    const views = Number(/^RUM events \(Datadog RUM search API\): \S+ \(\d+ of \d+ sessions? sampled, \d+ signed in; (\d+) views?, /m.exec(out)?.[1])
    expect(views).toBeGreaterThanOrEqual(1)
    expect((JSON.parse(readFileSync(files.rum, 'utf8')) as {data: {attributes: {attributes: {type: string}}}[]}).data.filter((i) => i.attributes.attributes.type === 'view')).toHaveLength(views)
    expect(out).toMatch(/^Check it: skewscan analyze \S+ --deploys \S+ --deploy-margin 15s --rum \S+ --lazy-gap 150ms$/m)
    for (const p of ports) expect(await listening(p)).toBe(false)
    expect(readdirSync(ownTmp)).toEqual([])
  }, 120_000)
})
