/**
 * Google Cloud Storage usage logs (CSV): the header check against the real samples and other
 * formats' lines, hand-written rows, hostile rows, and the writer of scripts/captures/formats/gcs.ts
 * read back. Every data row of the samples against its expected output is samples.test.ts's.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import type {ParseOutcome} from '../../../../src/model'
import {GCS_USAGE, isGcsUsageHeader, parseGcsUsageRow} from '../../../../src/normalize/formats/gcs'
import type {CaptureRecord} from '../../../../scripts/captures/formats/capture-record'
import {GCS_HEADER, toGcsRow} from '../../../../scripts/captures/formats/gcs'
import {CsvRecords} from '../../../../src/sources/file/csv-records'
import {checkOutcome as wellFormed, gzLines, linesOf} from '../../../helpers/format-samples'

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'fixtures')
const FORMATS = join(FIXTURES, 'formats')
const DIR = join(FORMATS, 'gcs')

const samples = readdirSync(DIR).filter((f) => f.endsWith('.csv')).sort()

/** The CSV's records with the line each starts on, as the file reader cuts them. */
function csvRecords(text: string): Array<{cells: string[]; line: number}> {
  const out: Array<{cells: string[]; line: number}> = []
  const records = new CsvRecords((cells, line) => (out.push({cells, line}), 'ok'), (line, detail) => {
    throw new Error(`line ${line}: ${detail}`)
  })
  text.replace(/^\uFEFF/, '').split(/\r?\n/).forEach((l, i) => records.push({text: l, line: i + 1}))
  records.end()
  return out
}

/** Header name -> cell for each data row after a usage-log header. */
function rowsOf(text: string): Array<{row: Record<string, string>; line: number}> {
  const [head, ...rest] = csvRecords(text)
  if (head === undefined || !isGcsUsageHeader(head.cells)) throw new Error('no usage-log header')
  return rest.map(({cells, line}) => ({row: Object.fromEntries(head.cells.map((name, i) => [name, cells[i] as string])), line}))
}

/** Well-formed (see format-samples), and a rejection always says why. */
function checkOutcome(r: ParseOutcome, input: string): void {
  wellFormed(r, input)
  if (!r.ok) expect((r.detail ?? '').length).toBeGreaterThan(0)
}

const CAPTURES = join(FIXTURES, 'captures')
const captureNames = readdirSync(CAPTURES).filter((d) => !d.includes('.')).sort()
const CAPTURE_RECORDS = captureNames.flatMap((c) => gzLines(join(CAPTURES, c, 'nginx.jsonl.gz'), 34)).map((l) => JSON.parse(l) as CaptureRecord)

describe('GCS usage logs: the real samples', () => {
  // The harness holds the expected entries to the rows' lines; these samples have no row over two lines.
  it.each(samples)('%s: every line after the header is one data row', (file) => {
    const text = readFileSync(join(DIR, file), 'utf8')
    expect(rowsOf(text).map((r) => r.line)).toEqual(linesOf(DIR, file).slice(1).map((_, i) => i + 2))
  })
})

describe('isGcsUsageHeader', () => {
  const split = (l: string): string[] => (csvRecords(l)[0]?.cells ?? [])

  it('claims the documented header, with or without the trailing columns, in any order', () => {
    const cells = split(GCS_HEADER)
    expect(isGcsUsageHeader(cells)).toBe(true)
    expect(isGcsUsageHeader(cells.slice(0, 13))).toBe(true)
    expect(isGcsUsageHeader([...cells].reverse())).toBe(true)
    expect(isGcsUsageHeader(cells.map((c) => ` ${c} `))).toBe(true)
    expect(GCS_USAGE).toEqual({id: 'gcs-usage', name: expect.any(String) as string, bytes: 'body'})
  })

  it('is false for the data rows, other CSVs, and other formats\' lines split as CSV', () => {
    for (const file of samples) for (const l of linesOf(DIR, file).slice(1)) expect(isGcsUsageHeader(split(l))).toBe(false)
    expect(isGcsUsageHeader(['Date', 'Host', 'Service', 'Message'])).toBe(false)
    expect(isGcsUsageHeader(['time_micros', 'c_ip', 'cs_method', 'cs_uri', 'sc_status'])).toBe(false)
    expect(isGcsUsageHeader(['bucket', 'storage_byte_hours'])).toBe(false)
    expect(isGcsUsageHeader([])).toBe(false)
    expect(isGcsUsageHeader([...split(GCS_HEADER), ...Array<string>(100).fill('x')])).toBe(false)
    const others = ['w3c', 'squid', 'aws'].flatMap((d) => readdirSync(join(FORMATS, d)).filter((f) => f.endsWith('.log')).flatMap((f) => linesOf(join(FORMATS, d), f)))
    for (const l of others) expect(isGcsUsageHeader(l.split(/[,\t ]/))).toBe(false)
  })
})

describe('parseGcsUsageRow', () => {
  const ROW: Record<string, string> = {
    time_micros: '1796023106070123', c_ip: '203.0.113.9', c_ip_type: '1', c_ip_region: '', cs_method: 'GET', cs_uri: '/app/main.3f2a.js?v=1',
    sc_status: '200', cs_bytes: '0', sc_bytes: '3385', time_taken_micros: '15000', cs_host: 'shop.example.com', cs_referer: 'https://shop.example.com/',
    cs_user_agent: 'Mozilla/5.0 (X11; Linux x86_64),gzip(gfe)', s_request_id: 'ADPycdu-abc', cs_operation: 'GET_Object', cs_bucket: 'shop', cs_object: 'app/main.3f2a.js',
  }
  const parsed = (row: Record<string, string>): Record<string, unknown> => {
    const r = parseGcsUsageRow(row)
    if (!r.ok) throw new Error(`rejected (${r.reason}): ${r.detail ?? ''}`)
    return r.event as unknown as Record<string, unknown>
  }

  it('reads every field it uses', () => {
    expect(parsed(ROW)).toEqual({
      time: 1796023106070, resolutionMs: 1, method: 'GET', path: '/app/main.3f2a.js', status: 200, bytes: 3385, clientIp: '203.0.113.9',
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64),gzip(gfe)', referer: 'https://shop.example.com/', requestId: 'ADPycdu-abc', vhost: 'shop.example.com', requestTime: 0.015,
    })
  })

  it('reads a path-style request with its bucket, a host with a port, and leaves out empty cells', () => {
    expect(parsed({...ROW, cs_uri: '/shop/index.html', cs_host: 'storage.googleapis.com'})).toMatchObject({path: '/shop/index.html', vhost: 'storage.googleapis.com'})
    expect(parsed({...ROW, cs_host: 'shop.example.com:443'}).vhost).toBe('shop.example.com')
    const bare = parsed({...ROW, cs_referer: '', s_request_id: '', cs_host: '', cs_user_agent: '', time_taken_micros: ''})
    expect(bare).toEqual({time: 1796023106070, resolutionMs: 1, method: 'GET', path: '/app/main.3f2a.js', status: 200, bytes: 3385, clientIp: '203.0.113.9', userAgent: ''})
  })

  it('rejects rows without the cells a record needs, or with bad ones', () => {
    const without = (k: string): Record<string, string> => Object.fromEntries(Object.entries(ROW).filter(([key]) => key !== k))
    expect(parseGcsUsageRow(without('time_micros'))).toMatchObject({ok: false, reason: 'missing-time'})
    expect(parseGcsUsageRow({...ROW, time_micros: '17960231O6070123'})).toMatchObject({ok: false, reason: 'bad-time'})
    expect(parseGcsUsageRow({...ROW, time_micros: '0'})).toMatchObject({ok: false, reason: 'bad-time'})
    expect(parseGcsUsageRow({...ROW, time_micros: '9'.repeat(40)})).toMatchObject({ok: false, reason: 'bad-time'})
    expect(parseGcsUsageRow(without('cs_method'))).toMatchObject({ok: false, reason: 'missing-path'})
    expect(parseGcsUsageRow({...ROW, cs_method: 'G T'})).toMatchObject({ok: false, reason: 'unparsed-message'})
    expect(parseGcsUsageRow({...ROW, cs_uri: ''})).toMatchObject({ok: false, reason: 'missing-path'})
    expect(parseGcsUsageRow({...ROW, cs_uri: 'bucket/object'})).toMatchObject({ok: false, reason: 'missing-path'})
    expect(parseGcsUsageRow(without('sc_status'))).toMatchObject({ok: false, reason: 'missing-status'})
    expect(parseGcsUsageRow({...ROW, sc_status: '2000'})).toMatchObject({ok: false, reason: 'bad-status'})
    expect(parseGcsUsageRow({...ROW, sc_status: '000'})).toMatchObject({ok: false, reason: 'bad-status'})
    expect(parseGcsUsageRow(without('sc_bytes'))).toMatchObject({ok: false, reason: 'missing-bytes'})
    expect(parseGcsUsageRow({...ROW, sc_bytes: '-1'})).toMatchObject({ok: false, reason: 'bad-bytes'})
  })

  it('never throws on hostile rows and rejects them with a short reason', () => {
    const long = 'x'.repeat(1_000_000)
    const rows: Array<Record<string, string>> = [
      {},
      {time_micros: long},
      {...ROW, cs_uri: `/${long}`},
      {...ROW, cs_method: long},
      {...ROW, sc_status: long},
      {...ROW, sc_bytes: '9'.repeat(100)},
      {...ROW, cs_uri: '\u0000\u0007\u001b[2J'},
      {...ROW, time_micros: '\uFFFD'.repeat(1000)},
      {...ROW, cs_user_agent: undefined as unknown as string, cs_host: 5 as unknown as string},
      Object.fromEntries(Object.keys(ROW).map((k) => [k, '"'])),
    ]
    for (const row of rows) {
      let r: ParseOutcome | undefined
      expect(() => (r = parseGcsUsageRow(row))).not.toThrow()
      checkOutcome(r as ParseOutcome, JSON.stringify(row))
    }
    expect(parseGcsUsageRow(rows[2] as Record<string, string>)).toMatchObject({ok: true})
    expect(parseGcsUsageRow(rows[8] as Record<string, string>)).toMatchObject({ok: true, event: {userAgent: ''}})
    expect(() => isGcsUsageHeader([long, 5 as unknown as string, undefined as unknown as string, '', '', ''])).not.toThrow()
  })
})

describe('writer: toGcsRow read back', () => {
  const base: CaptureRecord = {
    time_iso8601: '2026-11-30T07:18:26.070+00:00', msec: 1796023106.07, remote_addr: '127.10.6.90', remote_user: '',
    request_id: '3e6ea6d8e19199aea3d93db6305e4fb6', host: 'webapp.lab.test', request_method: 'GET', request_uri: '/', server_protocol: 'HTTP/1.1',
    status: 200, body_bytes_sent: 3385, bytes_sent: 3702, request_length: 446, request_time: 0.015, http_referer: '',
    http_user_agent: 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0', upstream_addr: '127.30.0.10:46289', upstream_status: '200',
    upstream_response_length: '3385', upstream_response_time: '0.016', proxy_upstream_name: 'default-webapp-80', cookie_session: '9624971b6e3b18dd06d7316e',
  }
  const HANDMADE: CaptureRecord[] = [
    base,
    {...base, msec: 1796023106.999, request_uri: '/_build/vendor.3352fb10.js?v=2&x=%20y', body_bytes_sent: 38097, http_referer: 'http://webapp.lab.test/'},
    {...base, request_uri: '/_build/main.91ab.js', status: 404, body_bytes_sent: 153, http_user_agent: 'Ünïcode ("agent"), 100% \\o/', http_referer: 'http://webapp.lab.test/page?q=a b,c'},
    {...base, remote_addr: '2001:db8::7', http_user_agent: '', request_id: '', host: ''},
    {...base, request_method: '', request_uri: '', status: 400, body_bytes_sent: 150},
  ]

  const expectedOfRecord = (r: CaptureRecord): Record<string, unknown> => {
    const e: Record<string, unknown> = {
      time: Math.round(r.msec * 1000), resolutionMs: 1, method: r.request_method, path: r.request_uri.split('?')[0], status: r.status,
      bytes: r.body_bytes_sent, clientIp: r.remote_addr, userAgent: r.http_user_agent,
    }
    if (r.http_referer !== '') e['referer'] = r.http_referer
    if (r.request_id !== '') e['requestId'] = r.request_id
    if (r.host !== '') e['vhost'] = r.host
    e['requestTime'] = Math.round(r.request_time * 1e6) / 1e6
    return e
  }

  const check = (r: CaptureRecord): void => {
    const row = toGcsRow(r)
    const rows = rowsOf(`${GCS_HEADER}\n${row}\n`)
    expect(rows.length).toBe(1)
    const out = parseGcsUsageRow((rows[0] as {row: Record<string, string>}).row)
    if (r.request_method === '') {
      expect([row, out]).toMatchObject([row, {ok: false, reason: 'missing-path'}])
      return
    }
    if (!out.ok) throw new Error(`rejected (${out.reason}): ${row}`)
    expect([row, out.event]).toEqual([row, expectedOfRecord(r)])
  }

  it('writes the documented header', () => {
    expect(GCS_HEADER).toBe(linesOf(DIR, samples[0] as string)[0])
  })

  it.each(HANDMADE.map((r, i) => [i, r] as const))('handmade record %i', (_i, r) => check(r))

  it(`reads back ${CAPTURE_RECORDS.length} real capture records`, () => {
    expect(CAPTURE_RECORDS.length).toBeGreaterThanOrEqual(200)
    for (const r of CAPTURE_RECORDS) check(r)
  })
})
