/**
 * `skewscan analyze --from … --api-url` and `skewscan export`, run as a user runs them, against the
 * fake Datadog on loopback: same report as the fixture file, exit codes, stderr, keys never shown,
 * the client never loaded offline, progress only on a terminal, and Ctrl-C then --resume.
 */
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {stateFileOf} from '../../src/app/export'
import {ROOT} from '../helpers/cli'
import {FakeDatadog, faults} from '../helpers/fake-datadog'
import {clientProbe, runCliAsync, runInProcess, useDatadogEnv} from '../helpers/fake-datadog-cli'
import {gunzipSync} from 'node:zlib'
import {API_KEY, APP_KEY, fileAnalyze, liveAnalyze, QUERY, sortById, withoutInput as comparable} from '../helpers/fake-datadog-live'
import {tempDir} from '../helpers/temp'
import {schemaValidator} from '../helpers/schema'

const FIXTURE = join(ROOT, 'fixtures', 'rolling-round-robin')
const RANGE = ['--from', '2026-11-29T13:55:00Z', '--to', '2026-11-29T14:45:00.000Z', '--query', 'service:ingress-nginx']
const KEYS = {DD_API_KEY: API_KEY, DATADOG_APP_KEY: APP_KEY}
const FAST = ['--retry-base', '10ms', '--timeout', '2s']
const dir = tempDir('skewscan-ddcli-')

let fake: FakeDatadog
beforeAll(async () => {
  fake = await FakeDatadog.start({...FakeDatadog.fixture(ROOT, 'rolling-round-robin'), apiKey: API_KEY, appKey: APP_KEY, maxPageSize: 100})
})
afterAll(async () => fake.close())
afterEach(() => fake.clearFaults())

/** A report's JSON without what depends on where the events came from (see fake-datadog-live). */
const withoutInput = (json: string): unknown => comparable(JSON.parse(json))

function expectNoKeys(...texts: string[]): void {
  for (const t of texts) {
    expect(t).not.toContain(API_KEY)
    expect(t).not.toContain(APP_KEY)
  }
}

describe('skewscan analyze --from/--to against the Datadog API', () => {
  let fileJson: string
  beforeAll(async () => {
    const r = await runCliAsync(['analyze', join(FIXTURE, 'dd-events.ndjson'), '--deploys', join(FIXTURE, 'deploy-events-v2.json'), '--json'])
    expect(r.status).toBe(0)
    fileJson = r.stdout
  })

  it('prints the report of `analyze FIXTURE --deploys EVENTS`, pulls a small range whole, never shows the keys, and keeps stdout clean with DEBUG=*', async () => {
    const probe = clientProbe(dir)
    const r = await runCliAsync(['analyze', ...RANGE, '--deploy-query', 'source:(kubernetes OR deployment)', '--api-url', fake.url, '--json', ...FAST], {env: {...KEYS, DEBUG: '*', NODE_OPTIONS: probe.nodeOptions}})
    expect(r.status).toBe(0)
    expect(withoutInput(r.stdout)).toEqual(withoutInput(fileJson))
    const report = JSON.parse(r.stdout)
    const validate = schemaValidator('analyze')
    expect(validate(report) || validate.errors).toBe(true)
    const dd = report.input.datadog
    const held = fake.select(QUERY, Date.parse('2026-11-29T13:55:00Z'), Date.parse('2026-11-29T14:45:00Z')).length
    // A range this small (416 events) is pulled narrowed, whole: planning windows would cost more requests than it saves.
    expect(dd).toMatchObject({held, pull: 'windows', narrowing: {aggregate: 'used', reason: 'the range holds 416 events: pulled whole (every page and asset request) in fewer requests than planning windows takes', shellLengths: [1832], pods: {facet: '@network.destination.ip'}}, deployEvents: {api: 'v2'}})
    expect(dd.pulled).toBeLessThanOrEqual(dd.held)
    const share = String(Math.round((dd.pulled / held) * 1000) / 10).replace('.', '\\.')
    expect(r.stderr).toMatch(new RegExp(`Datadog: pulled ${dd.pulled} events \\(${share}% of ${held} in the range\\) with \\d+ requests \\(\\d+ search, 5 aggregate, \\d+ events, 0 retries\\) in ${dd.slices} slices, 1 asset window \\(50 of 50 min\\)`))
    // Piped stderr: no progress line.
    expect(r.stderr).not.toMatch(/datadog: (slices|counting)/)
    expectNoKeys(r.stdout, r.stderr)
    // The positive control of the probe used below: a live run does load the client, from the
    // build's bundle of it alone (none of the package's own modules).
    expect(probe.loaded().filter((f) => f.startsWith('/'))).toEqual([join(ROOT, 'dist', 'vendor', 'datadog-client.js')])
  })

  it('--help and an offline analyze never load the Datadog client', async () => {
    const help = clientProbe(dir)
    const offline = clientProbe(dir)
    const [h, o] = await Promise.all([
      runCliAsync(['analyze', '--help'], {env: {NODE_OPTIONS: help.nodeOptions}}),
      runCliAsync(['analyze', join(FIXTURE, 'dd-events.ndjson'), '--json'], {env: {...KEYS, NODE_OPTIONS: offline.nodeOptions}}),
    ])
    expect(h.status).toBe(0)
    expect(h.stdout).toMatch(/--deploy-query/)
    expect(o.status).toBe(0)
    expect(help.loaded()).toEqual([])
    expect(offline.loaded()).toEqual([])
  })

  it('on a terminal, shows progress on stderr (slices, pages, events, budget)', async () => {
    const r = await runCliAsync(['analyze', ...RANGE, '--api-url', fake.url, '--json', ...FAST], {env: KEYS, tty: true})
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/datadog: slices \d+\/\d+ · \d+ pages · [\d,]+ events · \d+ requests/)
    expect(r.stdout).toMatch(/budget \d+\/300 \(refills in/)
    expectNoKeys(r.stdout)
  })
})

/**
 * The same commands in this process (@oclif/test), for what needs no process of its own: exit codes
 * and messages, and the other ways to point at Datadog. Keys go through process.env, as a user's
 * shell would pass them.
 */
describe('skewscan analyze --from, in process', () => {
  useDatadogEnv(KEYS)
  const run = runInProcess

  it('--pull narrowed, the API URL from SKEWSCAN_API_URL, and deploys from --deploy-query give the report of the fixture with its events file', async () => {
    process.env.SKEWSCAN_API_URL = fake.url
    // (runCommand splits arguments on spaces: a one-term query here; the CLI tests pass a two-term one.)
    const live = await run(['analyze', ...RANGE, '--pull', 'narrowed', '--deploy-query', 'kube_deployment:web', '--json', ...FAST])
    const file = await fileAnalyze('rolling-round-robin', 'dd-events.ndjson', 'deploy-events-v2.json')
    expect(live.exit).toBe(0)
    expect(withoutInput(live.stdout)).toEqual(withoutInput(JSON.stringify(file)))
    expect(JSON.parse(live.stdout).input.datadog).toMatchObject({pull: 'narrowed', deployEvents: {api: 'v2'}})
    expect(JSON.parse(live.stdout).deploys.map((d: {sources: string[]}) => d.sources)).toEqual([['marker', 'kubernetes']])
    expectNoKeys(live.stdout, live.stderr)
  })

  it('usage errors exit 2 and say what to do: no input, missing keys (naming the variables), a bad site, seconds for milliseconds', async () => {
    const before = fake.requests.length
    const none = await run(['analyze'])
    expect(none).toMatchObject({exit: 2, message: expect.stringMatching(/Give log files to read, --from\/--since to read from Datadog, or --rum/)})
    delete process.env.DD_API_KEY
    delete process.env.DATADOG_APP_KEY
    process.env.DD_SITE = 'datadoghq.eu'
    const keys = await run(['analyze', ...RANGE])
    expect(keys.exit).toBe(2)
    expect(keys.message).toMatch(/needs an API key \(DD_API_KEY or DATADOG_API_KEY\) and an application key with the logs_read_data permission \(DD_APP_KEY or DATADOG_APP_KEY\)/)
    Object.assign(process.env, KEYS)
    const site = await run(['analyze', ...RANGE, '--site', 'datadoghq.org'])
    expect(site).toMatchObject({exit: 2, message: expect.stringMatching(/--site: "datadoghq\.org" is not a Datadog site\. Use one of datadoghq\.com, us3\.datadoghq\.com/)})
    const seconds = await run(['analyze', '--from', '1795960800', '--api-url', fake.url])
    expect(seconds).toMatchObject({exit: 2, message: expect.stringMatching(/looks like epoch seconds; give epoch milliseconds \(1795960800000\)/)})
    const both = await run(['analyze', '--since', '2h', '--from', 'now-1h'])
    expect(both.exit).toBe(2)
    expect(fake.requests.length).toBe(before)
  })

  it('403: exit 3, says which key is likely wrong and that the application key needs logs_read_data; echoed keys are masked', async () => {
    fake.inject({endpoint: 'any', fault: faults.forbidden(`{"errors":["Forbidden (api key ${API_KEY}, application key ${APP_KEY})"]}`), times: Infinity})
    const r = await run(['analyze', ...RANGE, '--api-url', fake.url, ...FAST])
    expect(r.exit).toBe(3)
    expect(r.message).toMatch(/HTTP 403 is not transient: not retried/)
    expect(r.message).toMatch(/application key \(DD_APP_KEY or DATADOG_APP_KEY\) is probably wrong, or lacks the logs_read_data permission/)
    expect(r.message).toContain('****0001')
    expectNoKeys(r.stdout, r.stderr, r.message)
  })

  it('retries exhausted: exit 3, saying how far it got; retry notices on stderr', async () => {
    fake.inject({endpoint: 'logs-search', fault: faults.status(503), after: 1, times: Infinity})
    const r = await run(['analyze', ...RANGE, '--api-url', fake.url, '--max-attempts', '3', ...FAST])
    expect(r.exit).toBe(3)
    expect(r.stderr).toMatch(/retrying in \d+ms \(attempt 2 of 3\)/)
    expect(r.message).toMatch(/HTTP 503; gave up after 3 attempts/)
    expect(r.message).toMatch(/Got this far: \d+ of \d+ slices done, \d+ events pulled, \d+ requests made/)
    expectNoKeys(r.stdout, r.stderr, r.message)
  })

  it('a 200 without a data list mid-pull: no report, exit 3, saying how far it got', async () => {
    fake.inject({endpoint: 'logs-search', fault: faults.okWithout('{"errors":["Internal Server Error"]}'), after: 1, times: Infinity})
    const r = await run(['analyze', ...RANGE, '--api-url', fake.url, '--max-attempts', '2', ...FAST])
    expect(r.exit).toBe(3)
    expect(r.stdout).toBe('')
    expect(r.message).toMatch(/a 2xx answer without a data list; gave up after 2 attempts\): Internal Server Error/)
    expect(r.message).toMatch(/Got this far:/)
  })

  it('--spool holding another range: exit 2, with the flags that continue it', async () => {
    const spool = join(dir, 'spool-range')
    fake.inject({endpoint: 'logs-search', fault: faults.status(500), after: 3, times: Infinity})
    const failed = await run(['analyze', ...RANGE, '--api-url', fake.url, '--max-attempts', '1', '--concurrency', '1', '--spool', spool, ...FAST])
    expect(failed.exit).toBe(3)
    expect(existsSync(join(spool, 'pull-state.json'))).toBe(true)
    fake.clearFaults()
    const r = await run(['analyze', '--from', '2026-11-29T13:56:00Z', '--to', '2026-11-29T14:45:00Z', '--query', 'service:ingress-nginx', '--api-url', fake.url, '--spool', spool, ...FAST])
    expect(r.exit).toBe(2)
    expect(r.message).toMatch(/--spool .*spool-range holds an interrupted pull of another query or range: it was started with --from 2026-11-29T13:55:00\.000Z --to 2026-11-29T14:45:00\.000Z, not 2026-11-29T13:56:00\.000Z to 2026-11-29T14:45:00\.000Z/)
  })
})

describe('skewscan export', () => {
  it('Ctrl-C keeps valid lines and says how to continue (exit 130); --resume completes the file: exactly the server\'s events', async () => {
    const slow = await FakeDatadog.start({...FakeDatadog.fixture(ROOT, 'two-deploys'), apiKey: API_KEY, appKey: APP_KEY, maxPageSize: 25})
    try {
      const out = join(dir, 'incident.ndjson.gz')
      const args = ['export', ...RANGE, '--api-url', slow.url, '-o', out, '--concurrency', '1', ...FAST]
      // Once every stream has given its first page (the pods' edges are the last to begin), events
      // are written: the server then holds its answers until the run has been interrupted. (The
      // edges' slice ends on its count, its second search the last of the pull: that one is held.)
      const gate = slow.holdSearches((searches) => searches.filter((r) => String(r.body.filter.query).includes('@network.destination.ip')).length >= 2)
      const interrupted = await runCliAsync(args, {env: KEYS, onSpawn: (child) => void gate.reached.then(() => child.kill('SIGINT'))})
      gate.release()
      expect(interrupted.stderr).toMatch(/Interrupted: \d+ events are in .*incident\.ndjson\.gz\. Run the same export with --resume/)
      expect(interrupted.status).toBe(130)
      expect(existsSync(stateFileOf(out))).toBe(true)
      const stateText = readFileSync(stateFileOf(out), 'utf8')
      const partial = Number(/Interrupted: (\d+) events/.exec(interrupted.stderr)?.[1])
      expect(partial).toBeGreaterThan(0)

      const resumed = await runCliAsync(['export', '--resume', '--api-url', slow.url, '-o', out, ...FAST], {env: KEYS})
      expect(resumed.status).toBe(0)
      expect(resumed.stderr).toMatch(/Exported \d+ events to .* \(\d+ in this run\)/)
      expect(existsSync(stateFileOf(out))).toBe(false)
      // The union is the server's events for the export's query, each once, and reads as a log file.
      // (The same logs served whole pages at a time: fewer requests for the same events.)
      const whole = await FakeDatadog.start({...FakeDatadog.fixture(ROOT, 'two-deploys'), apiKey: API_KEY, appKey: APP_KEY})
      const live = await liveAnalyze(whole, {mode: 'narrowed'}).finally(() => whole.close())
      const ids = sortById(live.items.map((p) => p.item))
      const written = gunzipSync(readFileSync(out)).toString('utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l))
      expect(sortById(written)).toEqual(ids)
      const offline = await fileAnalyze('two-deploys', out)
      expect(offline.input).toMatchObject({records: ids.length, skipped: {total: 0}})
      expect(withoutInput(JSON.stringify(offline))).toEqual(withoutInput(JSON.stringify(live.report)))
      expectNoKeys(interrupted.stdout, interrupted.stderr, resumed.stdout, resumed.stderr, gunzipSync(readFileSync(out)).toString('utf8'), stateText)
    } finally {
      await slow.close()
    }
    // Two CLI runs (each stopped at 60 s by runCliAsync), one of them stretched by slow answers, and a live pull: sized for a busy two-core machine.
  }, 180_000)
})
