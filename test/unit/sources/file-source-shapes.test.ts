/*
 * Issue 14, items 3 and 11: a saved API page on one line longer than any line skewscan holds, and
 * a CSV row whose quote never closes. Both were cases of the hostile-input review: the page was "in
 * no format" (exit 2), and the open quote swallowed the next row and was reported on the wrong line.
 */
import {spawn, spawnSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {DEFAULT_NORMALIZE} from '../../../src/normalize/fields'
import {FileSource, type SourceBatch} from '../../../src/sources/file/file-source'
import {cellsOf, CsvRecords, MAX_RECORD_LINES} from '../../../src/sources/file/csv-records'
import {JsonItemSplitter} from '../../../src/sources/file/json-documents'
import {MAX_LINE} from '../../../src/sources/file/lines'
import {binaryStart} from '../../../src/sources/file/inputs'
import {tempDir} from '../../helpers/temp'

const dir = tempDir('skewscan-shapes-')

async function read(name: string, content: string | Buffer): Promise<{batches: SourceBatch[]; source: FileSource}> {
  const path = join(dir, name)
  writeFileSync(path, content)
  const source = new FileSource(path, name, DEFAULT_NORMALIZE)
  const batches: SourceBatch[] = []
  for await (const b of source.batches()) batches.push(b)
  return {batches, source}
}

const events = (bs: SourceBatch[]) => bs.flatMap((b) => b.events)
const rejections = (bs: SourceBatch[]) => bs.flatMap((b) => b.rejections).map((r) => ({reason: r.reason, line: r.location.line, detail: r.detail}))

/** A Datadog API v2 log event (the shape of shared/reference/datadog.md §4) with an ingress line as its message. */
function ddEvent(i: number): object {
  const t = new Date(Date.UTC(2026, 10, 29, 14, 0, 0) + i * 10).toISOString()
  return {
    id: `AQAAAZ${String(i).padStart(12, '0')}`, type: 'log',
    attributes: {
      timestamp: t, service: 'ingress-nginx', host: 'node-1', tags: ['source:nginx'],
      message: `203.0.113.${i % 250} - - [29/Nov/2026:14:00:00 +0000] "GET /assets/app-${i}.js HTTP/1.1" 200 ${1000 + (i % 97)} "https://app.example.com/" "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0" 512 0.004 [default-web-80] [] 10.244.1.${i % 9}:8080 ${1000 + (i % 97)} 0.004 200 req${i}`,
    },
  }
}

describe('a saved API page on one line longer than MAX_LINE (issue 14, item 3)', () => {
  // Enough events for one line past the longest line held (16 MB): about 33k events of ~520 bytes.
  const count = Math.ceil((MAX_LINE + 1024 * 1024) / JSON.stringify(ddEvent(99999)).length)
  const page = JSON.stringify({data: Array.from({length: count}, (_, i) => ddEvent(i)), meta: {page: {after: 'x'}}, links: {next: 'https://api.datadoghq.com/api/v2/logs/events?page%5Bcursor%5D=x'}})

  it('is read as a document: every event used, none skipped', async () => {
    expect(page.length).toBeGreaterThan(MAX_LINE)
    const {batches, source} = await read('page.json', page)
    expect(source.stats).toMatchObject({format: 'json-documents', records: count, skipped: 0})
    const es = events(batches)
    expect(es).toHaveLength(count)
    expect(es[count - 1]).toMatchObject({path: `/assets/app-${count - 1}.js`, requestId: `req${count - 1}`})
  })

  it('gzip too, and followed by a second page on the next line', async () => {
    const {batches, source} = await read('pages.json.gz', gzipSync(`${page}\n${JSON.stringify({data: [ddEvent(count)]})}\n`))
    expect(source.stats).toMatchObject({format: 'json-documents', records: count + 1, skipped: 0})
    expect(events(batches).at(-1)).toMatchObject({path: `/assets/app-${count}.js`})
  })
})

describe('a saved API page decoded in slices', () => {
  it('keeps every character that a slice boundary cuts in two (2-, 3- and 4-byte UTF-8)', async () => {
    // 300 events of about 1.6 KB, each user agent 150 times "é中😀" after a prefix of its own length:
    // the page's 32 KB slice boundaries fall inside characters. Pretty-printed, as a page saved from
    // a browser or jq: read as a document, not as lines.
    const agents = Array.from({length: 300}, (_, i) => `UA/${i} ${'x'.repeat(i % 7)}${'é中😀'.repeat(150)}`)
    const page = Buffer.from(JSON.stringify({data: agents.map((ua, i) => {
      const e = ddEvent(i) as {attributes: {message: string}}
      e.attributes.message = e.attributes.message.replace('Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0', ua)
      return e
    })}, null, 1))
    const cut = Array.from({length: Math.floor(page.length / 32768)}, (_, k) => (k + 1) * 32768).filter((b) => ((page[b] as number) & 0xc0) === 0x80)
    expect(cut.length).toBeGreaterThanOrEqual(3)
    const {batches, source} = await read('utf8-page.json', page)
    expect(source.stats).toMatchObject({format: 'json-documents', records: 300, skipped: 0})
    expect(events(batches).map((e) => e.userAgent)).toEqual(agents)
  })
})

describe('a first line longer than MAX_LINE that is no JSON', () => {
  it('is counted as too long, and the lines after it are read in their format', async () => {
    const line = '203.0.113.9 - - [29/Nov/2026:14:00:00 +0000] "GET /a.js HTTP/1.1" 200 100 "-" "curl/8"'
    const {batches, source} = await read('long-first.log', `${'x'.repeat(MAX_LINE + 10)}\n${line}\n${line}\n`)
    expect(rejections(batches)).toEqual([{reason: 'line-too-long', line: 1, detail: expect.any(String)}])
    expect(events(batches).map((e) => e.location?.line)).toEqual([2, 3])
    expect(source.stats).toMatchObject({records: 3, skipped: 1})
  })
})

describe('JSON documents: a record longer than the limit is counted, not held', () => {
  it('reports it as too long on its line and reads the records around it', () => {
    const items: string[] = []
    const problems: {kind: string; line: number}[] = []
    const s = new JsonItemSplitter((i) => items.push(i.text), (p) => problems.push(p), 50)
    s.write('{"data":[\n{"a":1},\n{"b":"')
    s.write('x'.repeat(200))
    s.write('"},\n{"c":3}\n]}\n')
    s.end()
    expect(items).toEqual(['{"a":1}', '{"c":3}'])
    expect(problems).toEqual([{kind: 'too-long', line: 3}])
  })
})

describe('CSV: an unclosed quote costs its own row only (issue 14, item 11)', () => {
  const header = 'Date,Host,Service,Content'
  const row = (i: number, content = `203.0.113.${i} - - [29/Nov/2026:14:00:0${i} +0000] ""GET /assets/a${i}.js HTTP/1.1"" 200 ${100 + i} ""-"" ""curl/8""`) =>
    `2026-11-29T14:00:0${i}.000Z,node-1,web,"${content}"`

  it('rejects the row with the open quote on its own line and reads the next rows', async () => {
    const broken = '2026-11-29T14:00:02.000Z,node-1,web,"203.0.113.2 - - [29/Nov/2026:14:00:02 +0000] ""GET /x HTTP/1.1'
    const {batches, source} = await read('open-quote.csv', [header, row(1), broken, row(3), row(4), ''].join('\n'))
    expect(events(batches).map((e) => e.path)).toEqual(['/assets/a1.js', '/assets/a3.js', '/assets/a4.js'])
    expect(rejections(batches)).toEqual([{reason: 'bad-csv-row', line: 3, detail: expect.stringContaining('unclosed quote')}])
    expect(source.stats).toMatchObject({records: 4, skipped: 1})
  })

  it('an open quote on the last row is rejected on that row', async () => {
    const {batches} = await read('open-quote-last.csv', [header, row(1), '2026-11-29T14:00:02.000Z,node-1,web,"unfinished'].join('\n'))
    expect(events(batches)).toHaveLength(1)
    expect(rejections(batches)).toEqual([{reason: 'bad-csv-row', line: 3, detail: expect.stringContaining('end of the file')}])
  })

  it('a quoted cell holding line breaks is one record, counted at its first line', async () => {
    const {batches} = await read('multiline.csv', [header, row(1), '2026-11-29T14:00:02.000Z,node-1,web,"first line', 'second, with a comma', 'third"', row(6)].join('\n'))
    expect(rejections(batches)).toEqual([{reason: 'unparsed-message', line: 3, detail: expect.any(String)}])
    expect(events(batches).map((e) => e.location?.line)).toEqual([2, 6])
  })

  it('a row of the wrong width is rejected on its line', async () => {
    const {batches} = await read('wide.csv', [header, row(1), 'a,b,c,d,e', row(3)].join('\n'))
    expect(rejections(batches)).toEqual([{reason: 'bad-csv-row', line: 3, detail: '5 cells where the header has 4'}])
    expect(events(batches)).toHaveLength(2)
  })
})

describe('CsvRecords', () => {
  const lines = (...texts: string[]) => texts.map((text, i) => ({text, line: i + 1}))

  it('cuts cells as RFC 4180 says, keeping quotes inside unquoted cells', () => {
    expect(cellsOf(lines('a,"b,c","d""e",f "g" h,'))).toEqual({cells: ['a', 'b,c', 'd"e', 'f "g" h', ''], loose: false})
    expect(cellsOf(lines('"ab"cd,e'))).toEqual({cells: ['abcd', 'e'], loose: true})
    expect(cellsOf(lines('"a', 'b"'))).toEqual({cells: ['a\nb'], loose: false})
    expect(cellsOf(lines('"a'))).toBeUndefined()
  })

  it('gives up on a quote still open after MAX_RECORD_LINES lines and reads them again', () => {
    const got: [string[], number][] = []
    const bad: number[] = []
    const r = new CsvRecords((cells, line) => (got.push([cells, line]), cells.length === 2 ? 'ok' : {bad: 'width'}), (line) => bad.push(line))
    const input = lines('"open,1', ...Array.from({length: MAX_RECORD_LINES + 10}, (_, i) => `x${i},${i}`))
    for (const l of input) r.push(l)
    r.end()
    expect(bad).toEqual([1])
    expect(got.map(([, line]) => line)).toEqual(input.slice(1).map((l) => l.line))
  })
})

describe('FileSource on a named pipe (issue 14, item 9): first bytes read from the stream, not at an offset', () => {
  const line = (i: number) => `203.0.113.9 - - [29/Nov/2026:14:00:${String(i % 60).padStart(2, '0')} +0000] "GET /a${i}.js HTTP/1.1" 200 ${100 + i} "-" "curl/8"`
  const text = `${Array.from({length: 2000}, (_, i) => line(i)).join('\n')}\n`

  async function throughPipe(name: string, bytes: Buffer): Promise<{batches: SourceBatch[]; source: FileSource}> {
    const path = join(dir, name)
    spawnSync('mkfifo', [path])
    const writer = spawn('sh', ['-c', 'cat > "$0"', path], {stdio: ['pipe', 'ignore', 'ignore']})
    const closed = new Promise((resolve) => writer.once('close', resolve))
    writer.stdin.end(bytes)
    const source = new FileSource(path, name, DEFAULT_NORMALIZE)
    const batches: SourceBatch[] = []
    for await (const b of source.batches()) batches.push(b)
    await closed
    return {batches, source}
  }

  it('reads plain text and gzip from a pipe', async () => {
    for (const [name, bytes] of [['plain.fifo', Buffer.from(text)], ['gzip.fifo', gzipSync(text)]] as const) {
      const {batches, source} = await throughPipe(name, bytes)
      expect(source.stats).toMatchObject({format: 'nginx', records: 2000, skipped: 0})
      expect(events(batches)).toHaveLength(2000)
    }
  })

  it('a gzip cut short in a pipe: the lines before the cut, and the cut counted', async () => {
    const gz = gzipSync(text)
    const {batches} = await throughPipe('cut.fifo', gz.subarray(0, Math.floor(gz.length / 2)))
    const es = events(batches)
    expect(es.length).toBeGreaterThan(100)
    expect(es.map((e) => e.location?.line)).toEqual(es.map((_, i) => i + 1))
    expect(rejections(batches)).toEqual([{reason: 'truncated-input', line: expect.any(Number), detail: expect.stringContaining('input ends early')}])
  })
})

describe('binaryStart: what stops a stream that can be read once before it is kept', () => {
  it('zeros without a line, but neither gzip nor an archive, which the reader names', () => {
    const zeros = Buffer.alloc(64 * 1024)
    expect(binaryStart(zeros)).toBe(true)
    expect(binaryStart(Buffer.concat([Buffer.from('a log line\n'), zeros]))).toBe(false)
    expect(binaryStart(Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), zeros]))).toBe(false)
    // A deflated zip member: no line break in its bytes, yet "a zip archive" is the message it gets.
    expect(binaryStart(Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), zeros]))).toBe(false)
  })
})
