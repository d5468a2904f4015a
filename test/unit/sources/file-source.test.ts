import {mkdtempSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import type {AccessEvent} from '../../../src/model/access-event'
import {DEFAULT_NORMALIZE} from '../../../src/normalize/fields'
import {FileSource, type SourceBatch} from '../../../src/sources/file/file-source'
import {JsonItemSplitter} from '../../../src/sources/file/json-documents'
import {merge, reorder} from '../../../src/sources/order'
import {sortedBySpilling} from '../../../src/sources/spill-sort'
import {OrderViolation} from '../../../src/sources/errors'
import {tempDir} from '../../helpers/temp'

const dir = tempDir('skewscan-src-')

// The real recorded Datadog log from shared/reference/datadog.md §4 (pipeline-parsed), and its unparsed sibling.
const PARSED = {type: 'log', id: 'AQAAAYAZdbh47dGwNwAAAABBWUFaZGJyMUFBQ0s4OEN3YmZ1UDJRQUI', attributes: {status: 'ok', timestamp: '2022-04-11T16:29:47.000Z', host: '05f9b9df-ae45-4c8b-66bf-e24c', tags: ['source:sinatra', 'env:integrations-lab'], message: '169.254.0.1 - - [11/Apr/2022:16:29:47 +0000] "GET / HTTP/1.1" 200 117 0.0027', attributes: {duration: 2700000.0, date_access: 1649694587000, http: {url_details: {path: '/'}, status_category: 'OK', url: '/', status_code: 200, version: '1.1', method: 'GET'}, network: {client: {ip: '169.254.0.1'}, bytes_written: 117}}}}
const UNPARSED = {type: 'log', id: 'AQAAAYAZdboK7dGwOAAAAABBWUFaZGJyMUFBQ0s4OEN3YmZ1UDJRQUM', attributes: {status: 'info', timestamp: '2022-04-11T16:29:47.402Z', host: '05f9b9df-ae45-4c8b-66bf-e24c', message: '169.254.0.1 - - [11/Apr/2022:16:29:47 UTC] "GET / HTTP/1.1" 200 117', tags: ['source:sinatra', 'datadog.pipelines:false']}}
const INGRESS = '172.16.30.1 - - [21/Mar/2022:16:05:33 +0000] "GET /v2 HTTP/1.1" 200 61 "-" "curl/7.77.0" 82 0.013 [default-web2-8080] [] 10.244.151.3:8080 61 0.013 200 e90cf46a8385a64ac01c834734768488'

async function readAll(name: string, content: string | Buffer): Promise<{events: AccessEvent[]; batches: SourceBatch[]; source: FileSource}> {
  const path = join(dir, name)
  writeFileSync(path, content)
  const source = new FileSource(path, name, DEFAULT_NORMALIZE)
  const batches: SourceBatch[] = []
  for await (const b of source.batches()) batches.push(b)
  return {events: batches.flatMap((b) => b.events), batches, source}
}

describe('FileSource: format detection from content', () => {
  it.each([
    ['NDJSON of API v2 items', `${JSON.stringify(PARSED)}\n${JSON.stringify(UNPARSED)}\n`, 'datadog'],
    ['one API page per line', `${JSON.stringify({data: [PARSED, UNPARSED], meta: {page: {after: 'x'}}})}\n{"data":[]}\n`, 'datadog'],
    ['pretty-printed concatenated pages', `${JSON.stringify({data: [PARSED], meta: {}}, null, 2)}\n${JSON.stringify({data: [UNPARSED]}, null, 2)}\n{"data":[]}\n`, 'json-documents'],
    ['legacy v1 logs', JSON.stringify({logs: [{id: 'a', content: PARSED.attributes}, {id: 'b', content: UNPARSED.attributes}], nextLogId: null}, null, 1), 'json-documents'],
    ['a top-level array of items', JSON.stringify([PARSED, UNPARSED], null, 2), 'json-documents'],
    ['raw access lines', `${PARSED.attributes.message}\n${INGRESS}\n`, 'nginx'],
    ['Log Explorer CSV', `Date,Host,Service,Content\n2022-04-11T16:29:47.000Z,"""h""","""web""","${PARSED.attributes.message.replace(/"/g, '""')}"\n2022-03-21T16:05:33.000Z,h,web,"${INGRESS.replace(/"/g, '""')}"\n`, 'csv'],
  ])('reads %s', async (_name, content, format) => {
    const {events, source} = await readAll(`detect-${format}-${Math.random()}.txt`, content)
    expect(source.stats.format).toBe(format)
    expect(events).toHaveLength(2)
    expect(source.stats).toMatchObject({records: 2, skipped: 0})
    expect(events.map((e) => [e.path, e.status, e.clientIp])).toEqual(expect.arrayContaining([['/', 200, '169.254.0.1']]))
  })

  it('reads gzip whatever the file is called', async () => {
    const {events} = await readAll('plain-name.log', gzipSync(`${INGRESS}\n${INGRESS}\n`))
    expect(events).toHaveLength(2)
    expect(events[0]).toMatchObject({path: '/v2', bytes: 61, upstream: '10.244.151.3:8080', requestId: 'e90cf46a8385a64ac01c834734768488'})
  })

  it('takes the pipeline attributes of a parsed event, and parses the message of an unparsed one', async () => {
    const {events} = await readAll('both.ndjson', `${JSON.stringify(PARSED)}\n${JSON.stringify(UNPARSED)}\n`)
    expect(events.map((e) => ({t: new Date(e.time).toISOString(), id: e.id, bytes: e.bytes, host: e.host}))).toEqual([
      {t: '2022-04-11T16:29:47.000Z', id: PARSED.id, bytes: 117, host: '05f9b9df-ae45-4c8b-66bf-e24c'},
      {t: '2022-04-11T16:29:47.000Z', id: UNPARSED.id, bytes: 117, host: '05f9b9df-ae45-4c8b-66bf-e24c'},
    ])
  })

  it('maps JSON-quoted @attribute columns of a Log Explorer CSV', async () => {
    const csv = [
      'Date,Host,Service,@http.url_details.path,@http.status_code,@network.bytes_written,@network.client.ip,@http.useragent,@network.destination.ip,@network.destination.port,Content',
      '2026-11-29T14:02:10.000Z,"""ingress""","""web""","""/_build/app.js""",200,1851,"""10.0.0.7""","""Mozilla/5.0 (X11)""","""10.1.1.2""",8080,"ignored line"',
    ].join('\r\n')
    const {events} = await readAll('attrs.csv', `\uFEFF${csv}\r\n`)
    expect(events).toEqual([expect.objectContaining({
      path: '/_build/app.js', status: 200, bytes: 1851, clientIp: '10.0.0.7', userAgent: 'Mozilla/5.0 (X11)',
      upstream: '10.1.1.2:8080', service: 'web', host: 'ingress', location: {file: 'attrs.csv', line: 2},
    })])
  })

  it('gives each record its line: NDJSON line, CSV row, start of a pretty-printed item', async () => {
    const pretty = await readAll('lines.json', JSON.stringify({data: [PARSED, UNPARSED]}, null, 2))
    const starts = JSON.stringify({data: [PARSED, UNPARSED]}, null, 2).split('\n')
      .map((l, i) => [l, i + 1] as const).filter(([l]) => l === '    {').map(([, n]) => n)
    expect(pretty.events.map((e) => e.location.line)).toEqual(starts)
  })

  it('counts a page cut off in the middle as truncated input and keeps the items before it', async () => {
    const text = JSON.stringify({data: [PARSED, UNPARSED, PARSED]}, null, 2)
    const {events, batches} = await readAll('cut.json', text.slice(0, Math.floor(text.length * 0.8)))
    expect(events).toHaveLength(2)
    expect(batches.flatMap((b) => b.rejections).map((r) => r.reason)).toEqual(['truncated-input'])
  })
})

describe('JsonItemSplitter', () => {
  const split = (chunks: string[]) => {
    const items: string[] = []
    const problems: string[] = []
    const s = new JsonItemSplitter((i) => items.push(i.text), (p) => problems.push(`${p.kind}@${p.line}`))
    for (const c of chunks) s.write(c)
    s.end()
    return {items, problems}
  }

  it('finds the items whatever the chunk boundaries, with strings holding braces and escaped quotes', () => {
    const doc = JSON.stringify({meta: {x: '}{'}, data: [{a: 'x"}]'}, {b: [1, {c: 2}]}], links: {next: 'data'}})
    const whole = split([doc]).items
    expect(whole.map((t) => JSON.parse(t))).toEqual([{a: 'x"}]'}, {b: [1, {c: 2}]}])
    for (let size = 1; size < 12; size++) {
      const chunks = doc.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? []
      expect(split(chunks).items).toEqual(whole)
    }
  })

  it('emits a whole top-level object that has no item array, and reports garbage between documents', () => {
    const {items, problems} = split(['{"message":"x","timestamp":1}\nnot json\n{"data":[{"k":1}]}'])
    expect(items).toEqual(['{"message":"x","timestamp":1}', '{"k":1}'])
    expect(problems).toEqual(['garbage@2'])
  })
})

describe('ordering', () => {
  const e = (t: number, file = 'f'): AccessEvent => ({time: t, resolutionMs: 1, method: 'GET', path: '/', status: 200, bytes: 1, clientIp: '', userAgent: '', location: {file, line: t}})
  async function* of(...batches: AccessEvent[][]): AsyncGenerator<AccessEvent[]> {
    for (const b of batches) yield b
  }
  const collect = async (it: AsyncIterable<AccessEvent[]>) => {
    const out: number[] = []
    for await (const b of it) for (const x of b) out.push(x.time)
    return out
  }

  it('absorbs disorder within the reorder window', async () => {
    expect(await collect(reorder(of([e(1000), e(3000), e(2000)], [e(2500), e(70_000), e(69_000)]), 'f', 60_000)))
      .toEqual([1000, 2000, 2500, 3000, 69_000, 70_000])
  })

  it('stops with OrderViolation on a newest-first source', async () => {
    const batches = [[e(200_000), e(100_000)], [e(50_000), e(10)]]
    await expect(collect(reorder(of(...batches), 'x.csv', 60_000))).rejects.toBeInstanceOf(OrderViolation)
    expect(await collect(sortedBySpilling(of(...batches)))).toEqual([10, 50_000, 100_000, 200_000])
  })

  it('sorts a source larger than one run through runs spilled to disk, every field kept', async () => {
    const spillDir = mkdtempSync(join(dir, 'spill-'))
    // Newest first, with ties and a second file name, in runs of 7 events merged 3 at a time.
    const events = Array.from({length: 100}, (_, i) => ({...e(1000 * Math.floor((100 - i) / 3)), location: {file: i % 10 === 0 ? 'g' : 'f', line: i + 1},
      referer: i % 2 ? `https://h/${i}` : undefined, userAgent: `ua ${i % 4} ü\ud800`, id: `id${i}`, requestId: i % 3 ? `r${i}` : undefined}))
    const sorted: AccessEvent[] = []
    for await (const b of sortedBySpilling(of(events.slice(0, 40), events.slice(40)), {runEvents: 7, frameEvents: 4, fanIn: 3, dir: spillDir})) sorted.push(...b)
    expect(sorted.map((x) => x.time)).toEqual(events.map((x) => x.time).sort((a, b) => a - b))
    const key = (x: AccessEvent) => `${x.location.file}:${x.location.line}`
    const byKey = new Map(events.map((x) => [key(x), x]))
    for (const x of sorted) {
      const original = byKey.get(key(x))
      expect(original).toBeDefined()
      for (const f of ['time', 'resolutionMs', 'method', 'path', 'status', 'bytes', 'clientIp', 'userAgent', 'referer', 'id', 'requestId', 'session', 'upstream'] as const) {
        expect(x[f]).toBe(original?.[f])
      }
    }
    expect(readdirSync(spillDir)).toEqual([])
  })

  it('merges interleaved sources by time', async () => {
    const merged = await collect(merge([of([e(1), e(4)], [e(9)]), of([e(2), e(3)], [e(10)]), of([e(5)])]))
    expect(merged).toEqual([1, 2, 3, 4, 5, 9, 10])
  })

  it('hands on what is ready before waiting for a source that is slow to give its next batch', async () => {
    let release: () => void = () => undefined
    const gate = new Promise<void>((r) => (release = r))
    async function* slow(): AsyncGenerator<AccessEvent[]> {
      yield [e(2)]
      await gate
      yield [e(20)]
    }
    const it = merge([of([e(1), e(3), e(4)], [e(30)]), slow()])[Symbol.asyncIterator]()
    const seen: number[] = []
    // Everything up to the slow source's first batch comes out while its next one is awaited.
    while (!seen.includes(2)) seen.push(...((await it.next()).value as AccessEvent[]).map((x) => x.time))
    expect(seen).toEqual([1, 2])
    release()
    for (let r = await it.next(); !r.done; r = await it.next()) seen.push(...r.value.map((x) => x.time))
    expect(seen).toEqual([1, 2, 3, 4, 20, 30])
  })
})

describe('FileSource: container wrappers', () => {
  // A real ingress-nginx line (Filebeat's ingress_controller test log, fixtures/formats/nginx).
  const LINE = '192.168.64.1 - - [07/Feb/2020:11:48:51 +0000] "POST /products HTTP/1.1" 200 59 "-" "curl/7.54.0" 89 0.001 [default-web-8080] [] 172.17.0.5:8080 59 0.000 200 529a007902362a5f51385a5fa7049884'
  const cri = (tag: string, text: string): string => `2026-11-30T07:18:26.070123456Z stdout ${tag} ${text}`
  const docker = (text: string): string => JSON.stringify({log: text, stream: 'stdout', time: '2026-11-30T07:18:26.070123456Z'})

  it('joins the parts of a line the runtime split (CRI P records, Docker records without a newline), counted at the last part', async () => {
    for (const [name, content] of [
      ['cri', [cri('F', LINE), cri('P', LINE.slice(0, 50)), cri('P', LINE.slice(50, 120)), cri('F', LINE.slice(120)), cri('F', LINE)].join('\n')],
      ['docker', [docker(`${LINE}\n`), docker(LINE.slice(0, 70)), docker(`${LINE.slice(70)}\n`), docker(`${LINE}\n`)].join('\n')],
    ] as const) {
      const {events, source} = await readAll(`split-${name}.log`, `${content}\n`)
      expect(source.stats.format).toBe(`${name}/nginx`)
      expect(source.stats).toMatchObject({skipped: 0})
      expect(events).toHaveLength(3)
      for (const e of events) expect(e).toMatchObject({path: '/products', upstream: '172.17.0.5:8080', requestId: '529a007902362a5f51385a5fa7049884'})
      expect(events.map((e) => e.location.line)).toEqual(name === 'cri' ? [1, 4, 5] : [1, 3, 4])
    }
  })

  it('kubectl logs --timestamps lines and gzip', async () => {
    const {events, source} = await readAll('kubectl.log.gz', gzipSync(`2026-11-30T07:18:26.070123456Z ${LINE}\n`))
    expect(source.stats.format).toBe('cri/nginx')
    expect(events).toHaveLength(1)
  })
})

describe('FileSource: gzip with bytes appended', () => {
  const LINES = Array.from({length: 20}, (_, i) => `203.0.113.${i} - - [10/Oct/2023:13:55:${String(i).padStart(2, '0')} +0000] "GET /a${i}.js HTTP/1.1" 200 ${100 + i} "-" "curl/8"`).join('\n') + '\n'

  it('reads every record before the appended bytes, as gzip -dc does, and counts what follows', async () => {
    for (const [name, content, records] of [
      ['one member', Buffer.concat([gzipSync(LINES), Buffer.from('TRAILING GARBAGE\n')]), 20],
      ['two members', Buffer.concat([gzipSync(LINES), gzipSync(LINES), Buffer.from('not gzip at all, a log line appended by hand\n')]), 40],
    ] as const) {
      const {events, batches} = await readAll(`appended-${name.replace(' ', '-')}.log.gz`, content)
      expect([name, events.length]).toEqual([name, records])
      const rejections = batches.flatMap((b) => b.rejections)
      expect(rejections).toHaveLength(1)
      expect(rejections[0]).toMatchObject({reason: 'truncated-input', detail: expect.stringMatching(/\d+ bytes after the end of the gzip data are not gzip: not read/)})
    }
  })
})

describe('FileSource: an array of pages', () => {
  it('reads the items of every page of a jq -s array, as it reads an array of items', async () => {
    const pages = [{data: [PARSED], meta: {page: {after: 'x'}}}, {data: [UNPARSED], meta: {}}]
    for (const [name, content] of [['one line', JSON.stringify(pages)], ['pretty', JSON.stringify(pages, null, 2)]] as const) {
      const {events, source} = await readAll(`pages-${name.replace(' ', '-')}.json`, `${content}\n`)
      expect([name, events.length]).toEqual([name, 2])
      expect(source.stats).toMatchObject({records: 2, skipped: 0})
    }
  })
})
