/**
 * `export` against the fake Datadog: the file holds exactly the server's events, in time order,
 * one wire item per line; `analyze FILE` gives the live report; an interrupted export keeps valid
 * lines and `--resume` completes it without gaps or duplicates.
 */
import {appendFileSync, existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gunzipSync} from 'node:zlib'
import {ExportInterrupted, exportLogs, type ExportRequest, stateFileOf} from '../../src/app/export'
import {ConfigError} from '../../src/config/parse'
import {SourceError} from '../../src/sources/errors'
import type {PullMode} from '../../src/sources/datadog/pull'
import {ROOT} from '../helpers/cli'
import {FakeDatadog, faults} from '../helpers/fake-datadog'
import {API_KEY, APP_KEY, connection, fileAnalyze, liveAnalyze, sharedLengthFree, sortById, spec, tuning, withoutInput} from '../helpers/fake-datadog-live'
import {tempDir} from '../helpers/temp'

const dir = tempDir('skewscan-export-')
const servers: FakeDatadog[] = []
afterAll(async () => {
  for (const s of servers) await s.close()
})

async function server(scenario: string, extra: {searchDelayMs?: number} = {}): Promise<FakeDatadog> {
  const s = await FakeDatadog.start({...FakeDatadog.fixture(ROOT, scenario), apiKey: API_KEY, appKey: APP_KEY, maxPageSize: 40, ...extra})
  servers.push(s)
  return s
}

/** As `export` asks (src/config/datadog.ts exportSettings): no page census, which a file could not carry; every page request is pulled. */
const exportSpec = (mode: PullMode) => {
  const {countPages: _census, ...rest} = spec(mode)
  return rest
}

function request(fake: FakeDatadog, output: string, mode: PullMode, over: Partial<ExportRequest> = {}): ExportRequest {
  return {output, resume: false, force: false, connection: connection(fake), spec: exportSpec(mode), tuning: tuning(), flushEvents: 30, flushMs: 10, ...over}
}

/** The lines of an export, parsed; throws on a line that is not JSON. */
function linesOf(file: string): Record<string, any>[] {
  const buf = readFileSync(file)
  const text = file.endsWith('.gz') ? gunzipSync(buf).toString('utf8') : buf.toString('utf8')
  expect(text === '' || text.endsWith('\n')).toBe(true)
  return text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l))
}

/** What the server holds for the export's plan: the narrowed query's events of the range, by time. */
async function expectedFor(fake: FakeDatadog, mode: PullMode): Promise<string[]> {
  const live = await liveAnalyze(fake, {mode, spec: {countPages: undefined}})
  return sortById(live.items.map((p) => p.item))
}

describe('skewscan export', () => {
  it.each([['narrowed', 'rolling-round-robin.ndjson'], ['windows', 'rolling-round-robin.ndjson.gz']] as const)('--pull %s to %s: the server\'s events as Datadog sent them, in time order; analyze FILE gives the live report', async (mode, name) => {
    const fake = await server('rolling-round-robin')
    const out = join(dir, `${mode}-${name}`)
    const result = await exportLogs(request(fake, out, mode))
    const lines = linesOf(out)
    expect(sortById(lines)).toEqual(await expectedFor(fake, mode))
    expect(result).toMatchObject({events: lines.length, written: lines.length, gzip: name.endsWith('.gz'), resumed: false})
    const times = lines.map((l) => Date.parse(l.attributes.timestamp))
    expect(times).toEqual([...times].sort((a, b) => a - b))
    // The wire shape, untouched: snake_case inner attributes, ISO timestamp strings.
    const served = new Map(fake.select('*', 0, Number.MAX_SAFE_INTEGER).map((i) => [i.id, i]))
    for (const l of lines) expect(l).toEqual(served.get(l.id))
    expect(existsSync(stateFileOf(out))).toBe(false)
    const offline = await fileAnalyze('rolling-round-robin', out)
    const live = await liveAnalyze(fake, {mode})
    expect(sharedLengthFree(withoutInput(offline), mode)).toEqual(sharedLengthFree(withoutInput(live.report), mode))
    expect(withoutInput(offline)).toEqual(withoutInput(await fileAnalyze('rolling-round-robin', 'dd-events.ndjson')))
  })

  it.each(['two-deploys.ndjson', 'two-deploys.ndjson.gz'])('a failure after retries keeps a valid prefix; --resume completes %s without gaps or duplicates', async (name) => {
    const fake = await server('two-deploys')
    const out = join(dir, `failed-${name}`)
    fake.inject({endpoint: 'logs-search', fault: faults.status(502), after: 6, times: Infinity})
    const error = await exportLogs(request(fake, out, 'narrowed', {tuning: tuning({retry: {maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10, maxElapsedMs: 5000}})})).then(() => undefined, (e: unknown) => e as Error)
    expect(error).toBeInstanceOf(SourceError)
    expect(error?.message).toMatch(/gave up after 2 attempts[\s\S]*Got this far: \d+ of \d+ slices done[\s\S]*events are in .*--resume/)
    const partial = linesOf(out)
    expect(partial.length).toBeGreaterThan(0)
    const state = JSON.parse(readFileSync(stateFileOf(out), 'utf8'))
    expect(state.written.events).toBe(partial.length)
    fake.clearFaults()
    const result = await exportLogs(request(fake, out, 'narrowed', {resume: true, spec: undefined}))
    const all = linesOf(out)
    const ids = sortById(all)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toEqual(await expectedFor(fake, 'narrowed'))
    expect(result).toMatchObject({resumed: true, events: all.length, written: all.length - partial.length})
    expect(all.slice(0, partial.length)).toEqual(partial)
    expect(existsSync(stateFileOf(out))).toBe(false)
  })

  it('Ctrl-C (abort) flushes what was pulled; a crash\'s half-written tail is cut on --resume', async () => {
    const fake = await server('two-deploys')
    const out = join(dir, 'aborted.ndjson')
    const controller = new AbortController()
    // Once something is on disk, the server holds its next search answer until the run is stopped:
    // the abort comes mid-pull whatever the machine's speed.
    const onDisk = (): boolean => existsSync(stateFileOf(out)) && JSON.parse(readFileSync(stateFileOf(out), 'utf8')).written.events > 0
    const gate = fake.holdSearches(onDisk)
    const run = exportLogs(request(fake, out, 'narrowed', {tuning: tuning({concurrency: 1}), hooks: {signal: controller.signal}}))
    await gate.reached
    controller.abort()
    const error = await run.then(() => undefined, (e: unknown) => e)
    gate.release()
    expect(error).toBeInstanceOf(ExportInterrupted)
    const partial = linesOf(out)
    expect((error as ExportInterrupted).events).toBe(partial.length)
    // A crash after the last recorded flush may leave half a line: resume cuts back to the record.
    appendFileSync(out, '{"id":"half-writ')
    await exportLogs(request(fake, out, 'narrowed', {resume: true, spec: undefined}))
    const ids = sortById(linesOf(out))
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toEqual(await expectedFor(fake, 'narrowed'))
  })

  it('will not overwrite without --force, or resume what was not interrupted', async () => {
    const fake = await server('quiet')
    const out = join(dir, 'exists.ndjson')
    writeFileSync(out, 'keep me\n')
    await expect(exportLogs(request(fake, out, 'narrowed'))).rejects.toThrow(/already exists.*--force/)
    expect(readFileSync(out, 'utf8')).toBe('keep me\n')
    await expect(exportLogs(request(fake, out, 'narrowed', {resume: true, spec: undefined}))).rejects.toBeInstanceOf(ConfigError)
    const done = await exportLogs(request(fake, out, 'narrowed', {force: true}))
    expect(done.events).toBe(linesOf(out).length)
  })
})
