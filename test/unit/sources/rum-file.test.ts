/**
 * Files of RUM events (src/sources/rum/rum-file.ts): the same events whatever the file is (a saved
 * page, pages concatenated, NDJSON of items, a JSON array; pretty or not; gzip or not), in time
 * order; every record used, ignored or skipped with its reason at its line; bad input (junk, binary,
 * cut-off documents and gzip, over-long records, empty files) never throws and never vanishes; and
 * random damage to a file keeps that account (property).
 */
import {mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import fc from 'fast-check'
import type {RumEvent} from '../../../src/model/rum'
import {normalizeRum, type RumFields} from '../../../src/normalize/rum'
import {InputError} from '../../../src/sources/errors'
import {MAX_LINE} from '../../../src/sources/file/lines'
import {recordsOf} from '../../../src/sources/file/records'
import {type RumRead, type RumRejection, readRumFiles, rumBatches} from '../../../src/sources/rum/rum-file'
import {jsonMutation, KNOWN_REASONS, mutateJsonAll, mutateText, mutations, settings} from '../../helpers/hostile'
import {tempDir} from '../../helpers/temp'

const dir = tempDir('skewscan-rum-')
const FIXTURES = join(__dirname, '..', '..', '..', 'fixtures', 'rum')
type Item = {id: string; type: string; attributes: {timestamp: string; attributes: Record<string, unknown>} & Record<string, unknown>}
const EXCERPT = readFileSync(join(FIXTURES, 'rr-3-excerpt.json'), 'utf8')
const RECORDED_TEXT = readFileSync(join(FIXTURES, 'datadog-search-rum-events-pages.json'), 'utf8')
const CAPTURE = (JSON.parse(EXCERPT) as {data: Item[]}).data
const RECORDED = RECORDED_TEXT.split('\n').filter((l) => l.trim() !== '').flatMap((l) => (JSON.parse(l) as {data: Item[]}).data)
/** The capture's items and Datadog's recorded ones, oldest first. */
const ITEMS = [...CAPTURE, ...RECORDED].sort((a, b) => Date.parse(a.attributes.timestamp) - Date.parse(b.attributes.timestamp))

let n = 0
function write(content: string | Buffer, name = `f${n++}.json`): string {
  const path = join(dir, name)
  writeFileSync(path, content)
  return path
}
const read = (content: string | Buffer, onNotice?: (m: string) => void): Promise<RumRead> => readRumFiles([write(content)], onNotice)

async function batchesOf(content: string | Buffer): Promise<{events: RumEvent[]; rejections: RumRejection[]; ignored: number}> {
  const out = {events: [] as RumEvent[], rejections: [] as RumRejection[], ignored: 0}
  for await (const b of rumBatches(write(content), 'file.json')) {
    out.events.push(...b.events)
    out.rejections.push(...b.rejections)
    out.ignored += b.ignored
  }
  return out
}

const fields = (e: RumEvent): RumFields => {
  const {location: _location, ...rest} = e
  return rest
}
const expected = (items: readonly unknown[]): RumFields[] => items.map((i) => {
  const r = normalizeRum(i)
  if (!r.ok) throw new Error('not an event')
  return r.event
})
const at = <T>(xs: readonly T[], i: number): T => {
  const x = xs[i]
  if (x === undefined) throw new Error(`no element ${i}`)
  return x
}
/** Events in time order, those of one time by id: files read newest first give ties in the other order. */
const byTime = (xs: readonly RumFields[]): RumFields[] => [...xs].sort((a, b) => a.time - b.time || (a.id ?? '').localeCompare(b.id ?? ''))
/** Every file's figures add up: records = used + ignored + skipped, and the events are the used ones. */
function accounted(r: RumRead): void {
  for (const f of r.files) expect(f.records).toBe(f.used + f.ignored + f.skipped)
  expect(r.events).toHaveLength(r.files.reduce((s, f) => s + f.used, 0))
  expect(r.skipped.total).toBe(r.files.reduce((s, f) => s + f.skipped, 0))
  expect(Object.values(r.skipped.byReason).reduce((a, b) => a + b, 0)).toBe(r.skipped.total)
}

const page = (items: readonly unknown[], pretty = true): string => `${JSON.stringify({meta: {page: {after: 'x'}}, data: items, links: {next: 'https://api.datadoghq.com/api/v2/rum/events?page%5Bcursor%5D=x'}}, null, pretty ? 2 : undefined)}\n`

describe('readRumFiles: real samples', () => {
  it('reads the capture excerpt (one saved page on one line): every event, its fields, file and line', async () => {
    const path = write(EXCERPT)
    const r = await readRumFiles([path])
    accounted(r)
    expect(r.files).toEqual([{file: path, records: 14, used: 14, ignored: 0, skipped: 0}])
    expect(r.events.map(fields)).toEqual(expected(CAPTURE))
    expect(at(r.events, 0)).toEqual({
      kind: 'view', time: Date.parse('2026-11-30T07:18:26.037Z'), id: 'AQAAAZ4a5ff38e8a0c28d2fed179195b', session: '33a029b8-aefa-4dce-8037-8c6885c00f3c',
      view: '2b0904a4eb4f8f687b95e0f6da313733', viewUrl: 'https://webapp.lab.test/', loadingType: 'initial_load', version: 'v2.13.1', service: 'webapp',
      application: 'a1b2c3d4-0000-4000-8000-00000000ab01', user: 'acct-a32775', clientIp: '127.10.6.90',
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0', location: {file: path, line: 1},
    })
    expect(r.events.filter((e) => e.kind === 'error').map((e) => e.error?.path)).toEqual(['/_build/index.dd4da3e5.js', '/_build/runtime-config.5a5043ef.js', '/_build/chunk-ui.89dd6b57.js', undefined])
  })

  it("reads Datadog's recorded RUM search pages: three events, newest first in the file, oldest first out, at their pages' lines", async () => {
    const path = write(RECORDED_TEXT)
    const r = await readRumFiles([path])
    accounted(r)
    expect(r.files).toEqual([{file: path, records: 3, used: 3, ignored: 0, skipped: 0}])
    expect(r.events.map((e) => [new Date(e.time).toISOString(), e.id, e.location.line])).toEqual([
      ['2022-04-12T10:04:36.894Z', 'AQAAAYAdO3KepzfnfwAAAABBWUFkTzNSV0FBQ29pNkphck1fdU1nQUI', 3],
      ['2022-04-12T10:04:36.895Z', 'AQAAAYAdO3KfpzfngAAAAABBWUFkTzNSV0FBQ29pNkphck1fdU1nQUM', 1],
      ['2022-04-12T10:04:37.029Z', 'AQAAAYAdO3MlOKUnZwAAAABBWUFkTzNTQUFBRHRjcnpYcC1kNUhnQUU', 1],
    ])
    expect(at(r.events, 2)).toMatchObject({
      kind: 'resource', session: '0a64704e-ab4a-44e6-971f-12598c0c6964', view: 'b1c5b7e1-42a6-4382-a8e2-a101db88a7c6', version: '35.7643717', service: 'web-ui',
      application: 'ac8218cf-498b-4d33-bd44-151095959547', user: '1586212', clientIp: '52.17.186.3',
      userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/99.0.4844.84 Safari/537.36',
      resource: {url: 'https://example.com/something', path: '/something', type: 'xhr', status: 200, size: 4107},
    })
    expect(at(r.events, 0).resource).toEqual({url: 'https://static.datadoghq.com/static/c/single-page-app_NotebookFavorites.2f9e47e4ed9212539194.min.js', path: '/static/c/single-page-app_NotebookFavorites.2f9e47e4ed9212539194.min.js', type: 'js'})
  })
})

describe('readRumFiles: the same events from every shape of file', () => {
  const want = expected(ITEMS)
  const half = Math.floor(ITEMS.length / 2)
  const newest = [...ITEMS].reverse()
  const shapes: [string, string][] = [
    ['a saved page, pretty-printed', page(ITEMS)],
    ['a saved page on one line', page(ITEMS, false)],
    ['two pretty pages concatenated, newest first', page(newest.slice(0, half)) + page(newest.slice(half))],
    ['two pages, one per line, and the empty last page', page(ITEMS.slice(0, half), false) + page(ITEMS.slice(half), false) + '{"data":[]}\n'],
    ['NDJSON of items', ITEMS.map((i) => JSON.stringify(i)).join('\n') + '\n'],
    ['NDJSON of items, newest first, CRLF, a BOM', '\uFEFF' + newest.map((i) => JSON.stringify(i)).join('\r\n') + '\r\n'],
    ['a JSON array, pretty-printed', JSON.stringify(newest, null, 2)],
    ['a JSON array on one line', JSON.stringify(ITEMS)],
    ['an array of pages (jq -s)', JSON.stringify([{data: ITEMS.slice(0, half)}, {data: ITEMS.slice(half)}], null, 1)],
  ]
  it.each(shapes.flatMap(([name, text]) => [[name, 'plain', text], [name, 'gzip', text]] as const))('%s (%s)', async (_name, kind, text) => {
    const r = await read(kind === 'gzip' ? gzipSync(text) : text)
    accounted(r)
    expect(r.files[0]).toMatchObject({records: ITEMS.length, used: ITEMS.length, ignored: 0, skipped: 0})
    expect(byTime(r.events.map(fields))).toEqual(byTime(want))
    for (let i = 1; i < r.events.length; i++) expect(at(r.events, i).time).toBeGreaterThanOrEqual(at(r.events, i - 1).time)
  })

  it('reads NDJSON of the inner events and of bare Browser SDK events (epoch-ms `date`), without ids', async () => {
    const attributes = ITEMS.map((i) => JSON.stringify(i.attributes)).join('\n')
    const bare = ITEMS.map((i) => {
      const {timestamp, ...rest} = i.attributes
      return JSON.stringify({...i.attributes.attributes, date: Date.parse(timestamp), ddtags: (rest.tags as string[]).join(',')})
    }).join('\n')
    const noId = want.map(({id: _id, ...rest}) => rest)
    expect((await read(attributes)).events.map(fields)).toEqual(noId)
    expect((await read(bare)).events.map(fields)).toEqual(noId)
  })

  it('puts each item of a pretty-printed page at the line it starts on', async () => {
    const text = page(CAPTURE.slice(0, 3))
    const starts = text.split('\n').flatMap((l, i) => (l === '    {' ? [i + 1] : []))
    const {events} = await batchesOf(text)
    expect(events.map((e) => e.location.line)).toEqual(starts)
    expect(starts).toHaveLength(3)
  })

  it('keeps the order read for events of one time (a stable sort)', async () => {
    const same = CAPTURE.slice(2, 9).map((i) => ({...i, attributes: {...i.attributes, timestamp: '2026-11-30T07:18:30.000Z'}}))
    const r = await read(page(same))
    expect(r.events.map((e) => e.id)).toEqual(same.map((i) => i.id))
  })
})

/** An item of the capture with something changed (by `f`), as one JSON line. */
function changed(index: number, f: (inner: Record<string, unknown>, item: Item) => void): string {
  const item = JSON.parse(JSON.stringify(at(CAPTURE, index))) as Item
  f(item.attributes.attributes, item)
  return JSON.stringify(item)
}

describe('readRumFiles: each record used, ignored or skipped at its line', () => {
  const LINES = [
    JSON.stringify(at(CAPTURE, 0)),
    'not json at all: 127.0.0.1 - - [30/Nov/2026:07:18:26 +0000] "GET / HTTP/1.1" 200 3385',
    changed(0, (a) => delete a.session),
    changed(0, (a) => (a.view = {url: 'https://webapp.lab.test/'})),
    changed(1, (a) => delete (a.resource as Record<string, unknown>).url),
    changed(10, (a) => delete (a.error as Record<string, unknown>).message),
    changed(0, (_a, i) => delete (i.attributes as Partial<Item['attributes']>).timestamp),
    changed(0, (_a, i) => (i.attributes.timestamp = '30/11/2026')),
    '[1, "two"]',
    JSON.stringify({id: 'AQAAAYAZdbh47dGwNwAAAABBWUFaZGJyMUFBQ0s4OEN3YmZ1UDJRQUI', type: 'log', attributes: {timestamp: '2022-04-11T16:29:47.000Z', message: 'GET / 200', attributes: {}}}),
    changed(0, (a) => (a.type = 'action')),
    '\u0000\u0001\u0002binary\u0000',
    JSON.stringify(at(CAPTURE, 1)).slice(0, 200),
    '',
    JSON.stringify(at(CAPTURE, 1)),
  ]

  it('gives every reason with its line, counts an action as ignored, and reads the good records', async () => {
    const {events, rejections, ignored} = await batchesOf(LINES.join('\n'))
    expect(events.map((e) => [e.kind, e.location.line])).toEqual([['view', 1], ['resource', 15]])
    expect(ignored).toBe(1)
    expect(rejections.map((r) => [r.location.line, r.reason])).toEqual([
      [2, 'invalid-json'], [3, 'missing-session'], [4, 'missing-view'], [5, 'missing-path'], [6, 'missing-message'], [7, 'missing-time'],
      [8, 'bad-time'], [9, 'not-an-object'], [9, 'not-an-object'], [10, 'unknown-format'], [12, 'binary'], [13, 'invalid-json'],
    ])
    expect(rejections.every((r) => r.location.file === 'file.json')).toBe(true)
    expect(at(rejections, 0).detail).toBe(`not JSON: "${at(LINES, 1).slice(0, 40)}…"`)
  })

  it('adds up per file, with the first few of each reason as examples', async () => {
    const r = await read(LINES.join('\n'))
    accounted(r)
    expect(r.files[0]).toMatchObject({records: 15, used: 2, ignored: 1, skipped: 12})
    expect(r.skipped.byReason).toEqual({
      'invalid-json': 2, 'missing-session': 1, 'missing-view': 1, 'missing-path': 1, 'missing-message': 1, 'missing-time': 1, 'bad-time': 1,
      'not-an-object': 2, 'unknown-format': 1, binary: 1,
    })
    expect(r.skipped.examples).toContainEqual({reason: 'missing-view', file: r.files[0]?.file, line: 4, detail: 'a view event without view.id'})
  })

  it('reads the other items of a page that has a bad one', async () => {
    const bad = JSON.parse(changed(1, (a) => delete a.view)) as unknown
    const text = page([at(CAPTURE, 0), bad, at(CAPTURE, 2)])
    const {events, rejections} = await batchesOf(text)
    expect(events.map((e) => e.id)).toEqual([at(CAPTURE, 0).id, at(CAPTURE, 2).id])
    const starts = text.split('\n').flatMap((l, i) => (l === '    {' ? [i + 1] : []))
    expect(rejections).toEqual([{reason: 'missing-view', location: {file: 'file.json', line: starts[1]}, detail: 'a resource event without view.id'}])
  })

  it('counts action, long_task and vital events of a page as ignored', async () => {
    const other = ['action', 'long_task', 'vital'].map((t) => JSON.parse(changed(0, (a) => (a.type = t))) as unknown)
    const r = await read(page([...other, at(CAPTURE, 0)]))
    accounted(r)
    expect(r.files[0]).toMatchObject({records: 4, used: 1, ignored: 3, skipped: 0})
  })
})

describe('readRumFiles: bad input never throws and never vanishes', () => {
  it('counts text between documents at its line, binary junk as binary, and reads the pages around them', async () => {
    const text = `${page(CAPTURE.slice(0, 2))}HTTP/1.1 200 OK\n\u0000\u0007\u0000junk\n${page(CAPTURE.slice(2, 4))}`
    const line = (s: string): number => text.split('\n').indexOf(s) + 1
    const {events, rejections} = await batchesOf(text)
    expect(events).toHaveLength(4)
    expect(rejections).toEqual([
      {reason: 'invalid-json', location: {file: 'file.json', line: line('HTTP/1.1 200 OK')}, detail: 'text outside any JSON document: "HTTP/1.1 200 OK"'},
      {reason: 'binary', location: {file: 'file.json', line: line('\u0000\u0007\u0000junk')}, detail: 'binary data'},
    ])
  })

  it('counts a document cut off at the end where its record starts, and reads the records before', async () => {
    const text = page(CAPTURE.slice(0, 3))
    const starts = text.split('\n').flatMap((l, i) => (l === '    {' ? [i + 1] : []))
    const cut = text.slice(0, text.indexOf('"session"', text.indexOf(at(CAPTURE, 2).id)))
    const {events, rejections} = await batchesOf(cut)
    expect(events.map((e) => e.id)).toEqual([at(CAPTURE, 0).id, at(CAPTURE, 1).id])
    expect(rejections).toEqual([{reason: 'truncated-input', location: {file: 'file.json', line: starts[2]}, detail: 'the JSON document ends before it closes'}])
  })

  it('counts a record longer than the limit, in a page and as an NDJSON line, and reads the others', async () => {
    const huge = JSON.parse(changed(0, (a) => (a.context = {blob: 'x'.repeat(MAX_LINE + 10)}))) as unknown
    const text = page([at(CAPTURE, 0), huge, at(CAPTURE, 1)])
    const starts = text.split('\n').flatMap((l, i) => (l === '    {' ? [i + 1] : []))
    const inPage = await batchesOf(text)
    expect(inPage.events.map((e) => e.id)).toEqual([at(CAPTURE, 0).id, at(CAPTURE, 1).id])
    expect(inPage.rejections).toEqual([{reason: 'line-too-long', location: {file: 'file.json', line: starts[1]}, detail: `a JSON record longer than ${MAX_LINE} characters`}])
    const lines = await batchesOf([JSON.stringify(at(CAPTURE, 0)), JSON.stringify(huge), JSON.stringify(at(CAPTURE, 1))].join('\n'))
    expect(lines.events.map((e) => e.location.line)).toEqual([1, 3])
    expect(lines.rejections).toEqual([{reason: 'line-too-long', location: {file: 'file.json', line: 2}, detail: `line longer than ${MAX_LINE} characters`}])
  })

  it('reads an event whose text holds U+FFFD (a browser quoting what it could not parse): only text that is no JSON is junk', async () => {
    const item = changed(11, (a) => ((a.error as Record<string, unknown>).message = "Uncaught SyntaxError: Invalid or unexpected token '\uFFFD'"))
    const asLine = await batchesOf(`${item}\n`)
    const inPage = await batchesOf(page([JSON.parse(item) as unknown]))
    for (const r of [asLine, inPage]) {
      expect(r.rejections).toEqual([])
      expect(r.events[0]?.error?.message).toBe("Uncaught SyntaxError: Invalid or unexpected token '\uFFFD'")
    }
  })

  it('reads a binary file as skipped records, each at its line', async () => {
    const bytes = Buffer.from(Array.from({length: 50_000}, (_, i) => (i * 7919 + (i >> 3)) % 256))
    const r = await read(bytes)
    accounted(r)
    expect(r.events).toHaveLength(0)
    expect(r.files[0]?.skipped).toBeGreaterThan(0)
    for (const reason of Object.keys(r.skipped.byReason)) expect(['binary', 'invalid-json', 'truncated-input', 'line-too-long']).toContain(reason)
  })

  it('says an empty file (or one of blank lines) holds no events', async () => {
    for (const text of ['', '\n\n  \n', gzipSync('')]) {
      const notices: string[] = []
      const r = await read(text, (m) => notices.push(m))
      expect(r.files[0]).toMatchObject({records: 0, used: 0, ignored: 0, skipped: 0})
      expect(notices).toEqual([`${r.files[0]?.file}: no RUM events in it (the file is empty)`])
    }
  })

  it('says a file none of whose records is a view, resource or error event, and what they were', async () => {
    const notices: string[] = []
    const r = await read(`${changed(0, (a) => (a.type = 'action'))}\nGET / HTTP/1.1\nGET /a HTTP/1.1\n`, (m) => notices.push(m))
    expect(notices).toEqual([`${r.files[0]?.file}: none of its 3 records is a RUM view, resource or error event: 1 of other RUM types, 2 skipped (invalid-json 2)`])
  })

  it('reads a gzip cut short up to the cut, and counts the cut once', async () => {
    const ndjson = Array.from({length: 400}, (_, k) => JSON.stringify({...at(CAPTURE, k % 14), id: `id-${k}`})).join('\n')
    const gz = gzipSync(ndjson)
    const {events, rejections} = await batchesOf(gz.subarray(0, Math.floor(gz.length * 0.6)))
    expect(events.length).toBeGreaterThan(0)
    expect(events.length).toBeLessThan(400)
    expect(rejections).toHaveLength(1)
    expect(rejections[0]).toMatchObject({reason: 'truncated-input', detail: expect.stringMatching(/^input ends early: /) as string})
    expect(rejections[0]?.location.line).toBe(events.length + 1)
    const pretty = gzipSync(page(ITEMS))
    const cutPage = await batchesOf(pretty.subarray(0, pretty.length - 30))
    expect(cutPage.rejections.map((r) => r.reason)).toEqual(['truncated-input'])
  })

  it('throws the InputError of a file that cannot be read: missing, a directory', async () => {
    await expect(readRumFiles([join(dir, 'no-such.json')])).rejects.toThrow(InputError)
    const sub = join(dir, 'a-directory')
    mkdirSync(sub)
    await expect(readRumFiles([sub])).rejects.toThrow(/is a directory/)
    rmSync(sub, {recursive: true})
  })
})

describe('readRumFiles: several files', () => {
  it('reads them in time order together, each with its own figures, and names an input apart from its path', async () => {
    const a = write(page(CAPTURE.slice(7)))
    const b = write(CAPTURE.slice(0, 7).map((i) => JSON.stringify(i)).join('\n'))
    const r = await readRumFiles([a, {name: 'second', path: b}])
    accounted(r)
    expect(r.files.map((f) => [f.file, f.used])).toEqual([[a, 7], ['second', 7]])
    expect(byTime(r.events.map(fields))).toEqual(byTime(expected(CAPTURE)))
    for (let i = 1; i < r.events.length; i++) expect(at(r.events, i).time).toBeGreaterThanOrEqual(at(r.events, i - 1).time)
    expect(r.events.filter((e) => e.location.file === 'second')).toHaveLength(7)
  })

  it('skips an event read already (same id, time and session) as a duplicate, and keeps events that only share an id', async () => {
    const a = write(EXCERPT)
    const bText = page(CAPTURE.slice(0, 2))
    const b = write(bText)
    const r = await readRumFiles([a, b])
    accounted(r)
    expect(r.files.map((f) => [f.used, f.skipped])).toEqual([[14, 0], [0, 2]])
    expect(r.skipped.byReason).toEqual({duplicate: 2})
    expect(r.skipped.examples[0]).toEqual({reason: 'duplicate', file: b, line: bText.split('\n').indexOf('    {') + 1, detail: 'this RUM event (its id, time and session) was read already'})
    // Another event under an id read already (a producer's made-up ids): kept.
    const c = write(page([{...at(CAPTURE, 1), id: at(CAPTURE, 0).id}, {...at(CAPTURE, 0), attributes: {...at(CAPTURE, 0).attributes, timestamp: '2026-11-30T08:00:00.000Z'}}]))
    expect((await readRumFiles([a, c])).files.map((f) => [f.used, f.skipped])).toEqual([[14, 0], [2, 0]])
  })
})

describe('readRumFiles: damaged files (property)', () => {
  const REASONS = new Set([...KNOWN_REASONS, 'missing-session', 'missing-view', 'missing-message'])
  const wellFormed = (e: RumEvent, lines: number): void => {
    expect(Number.isFinite(e.time)).toBe(true)
    expect(['view', 'resource', 'error']).toContain(e.kind)
    expect(typeof e.session === 'string' && typeof e.view === 'string').toBe(true)
    expect(e.location.line).toBeGreaterThanOrEqual(1)
    expect(e.location.line).toBeLessThanOrEqual(lines)
  }
  const readOnce = async (content: string | Buffer): Promise<RumRead> => {
    const path = write(content)
    try {
      return await readRumFiles([path])
    } finally {
      rmSync(path, {force: true})
    }
  }
  const items = [...CAPTURE, ...RECORDED]

  it('values changed in the items of an NDJSON file: each line one record, used, ignored or skipped', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom(...items), fc.array(jsonMutation, {maxLength: 3})), {minLength: 1, maxLength: 12}), fc.boolean(), async (picked, gzip) => {
      const lines: string[] = []
      for (const [item, ms] of picked) {
        let line: string | undefined
        try {
          line = JSON.stringify(mutateJsonAll(item, ms))
        } catch {
          line = undefined // nested deeper than JSON.stringify goes
        }
        fc.pre(line !== undefined)
        lines.push(line as string)
      }
      const text = lines.join('\n')
      const r = await readOnce(gzip ? gzipSync(text) : text)
      accounted(r)
      const records = lines.reduce((s, l) => s + recordsOf(JSON.parse(l)).length, 0)
      expect(r.files[0]?.records).toBe(records)
      for (const e of r.events) wellFormed(e, lines.length)
      for (const reason of Object.keys(r.skipped.byReason)) expect(REASONS).toContain(reason)
    }), settings(0x2a11, 60))
  })

  it('text damaged anywhere in an NDJSON file or a saved page: nothing thrown, every record accounted for, intact lines read', async () => {
    const ndjson = items.map((i) => JSON.stringify(i))
    const pretty = page(items).split('\n')
    await fc.assert(fc.asyncProperty(
      fc.constantFrom('ndjson', 'page'), fc.array(fc.tuple(fc.nat(), mutations()), {minLength: 1, maxLength: 3}), fc.boolean(),
      async (shape, damage, gzip) => {
        const base = shape === 'ndjson' ? ndjson : pretty
        const lines = [...base]
        const touched = new Set<number>()
        for (const [pos, ms] of damage) {
          const k = pos % lines.length
          touched.add(k)
          lines[k] = ms.reduce(mutateText, lines[k] as string)
        }
        const text = lines.join('\n')
        const r = await readOnce(gzip ? gzipSync(text) : text)
        accounted(r)
        const lineCount = text.split('\n').length
        for (const e of r.events) wellFormed(e, lineCount)
        for (const reason of Object.keys(r.skipped.byReason)) expect(REASONS).toContain(reason)
        for (const ex of r.skipped.examples) expect((ex.detail ?? '').length).toBeLessThanOrEqual(400)
        if (shape === 'ndjson') {
          // A line left whole is read whatever its neighbours became (a broken line costs itself only).
          const ids = new Set(r.events.map((e) => `${e.id} ${e.time}`))
          for (const [k, l] of base.entries()) {
            if (touched.has(k)) continue
            const item = JSON.parse(l) as Item
            expect(ids).toContain(`${item.id} ${Date.parse(item.attributes.timestamp)}`)
          }
        }
      },
    ), settings(0x2a12, 80))
  })
})
