/**
 * Every line skewscan writes to stderr goes through one terminal-safe writer (src/cli/stderr.ts):
 * notices that quote a file name or a server's error text cannot set a terminal's title or clear
 * its screen. Run as a user runs the CLI, with real files and the fake Datadog on loopback.
 */
import {copyFileSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {ROOT} from '../helpers/cli'
import {FakeDatadog} from '../helpers/fake-datadog'
import {runCliAsync} from '../helpers/fake-datadog-cli'
import {API_KEY, APP_KEY} from '../helpers/fake-datadog-live'
import {tempDir} from '../helpers/temp'

const FIXTURE = join(ROOT, 'fixtures', 'rolling-round-robin')
/** OSC 0 (set the window title, ended by BEL) and CSI 2J (clear the screen). */
const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J'
const ESCAPED = '\\u001b]0;pwned\\u0007\\u001b[2J'
const dir = tempDir('skewscan-stderr-')

/** Nothing in `text` acts on a terminal: no C0 control but the line break, no C1 control. */
function expectInert(text: string): void {
  // eslint-disable-next-line no-control-regex
  expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/)
}

describe('stderr is terminal-safe', () => {
  it('file names in the "given twice" and deploy-file notices come out escaped', async () => {
    const log = join(dir, `access${HOSTILE}.log`)
    copyFileSync(join(FIXTURE, 'ingress.log'), log)
    const deploys = join(dir, `deploys${HOSTILE}.csv`)
    writeFileSync(deploys, 'start,end,service,version\nnot-a-time,,web,2026.11.29-2\n')
    const r = await runCliAsync(['analyze', log, log, '--deploys', deploys])
    expect(r.status).toBe(0)
    expect(r.stderr).toContain(`access${ESCAPED}.log is given twice: read once`)
    expect(r.stderr).toContain(`deploys${ESCAPED}.csv (`)
    expectInert(r.stderr)
  })

  it('a server\'s error text in the narrowing fallback notice comes out escaped', async () => {
    const fake = await FakeDatadog.start({...FakeDatadog.fixture(ROOT, 'rolling-round-robin'), apiKey: API_KEY, appKey: APP_KEY, maxPageSize: 500})
    try {
      fake.inject({endpoint: 'logs-aggregate', fault: {kind: 'status', status: 400, body: JSON.stringify({errors: [`bad facet ${HOSTILE}`]})}, times: Infinity})
      const r = await runCliAsync(['analyze', '--from', '2026-11-29T13:55:00Z', '--to', '2026-11-29T14:45:00Z', '--query', 'service:ingress-nginx', '--api-url', fake.url, '--retry-base', '10ms', '--timeout', '2s'],
        {env: {DD_API_KEY: API_KEY, DD_APP_KEY: APP_KEY}})
      expect(r.status).toBe(0)
      expect(r.stderr).toMatch(/Datadog aggregate narrowing unavailable \(.*bad facet \\u001b\]0;pwned\\u0007\\u001b\[2J/)
      expectInert(r.stderr)
    } finally {
      await fake.close()
    }
  })

  it('no file of src/ but the stderr writer writes to stderr', () => {
    const files = (d: string): string[] => readdirSync(d, {withFileTypes: true}).flatMap((e) => (e.isDirectory() ? files(join(d, e.name)) : [join(d, e.name)]))
    const writers = files(join(ROOT, 'src')).filter((f) => /process\.stderr\.write|console\.(error|warn|log)\(/.test(readFileSync(f, 'utf8')))
    expect(writers.map((f) => f.slice(ROOT.length + 1))).toEqual(['src/cli/stderr.ts'])
  })
})
