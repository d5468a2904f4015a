import {rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {Readable} from 'node:stream'
import type {AccessEvent} from '../../../src/model/access-event'
import {byteRanges, type LineRange, parseLineRange, readLineRange} from '../../../src/sources/file/line-range'
import {DEFAULT_NORMALIZE} from '../../../src/normalize/fields'
import {lines} from '../../../src/sources/file/lines'
import {decodeEvents, encodeEvents, ENCODED_STRING_FIELDS, EventPacker} from '../../../src/sources/parallel/event-codec'
import {type KeyedAccessEvent, type ReleasableEvent, sessionKey} from '../../../src/util/session-key'
import {copyKeyOf, type CopyKeyedEvent} from '../../../src/util/copy-key'
import {tempDir} from '../../helpers/temp'

const dir = tempDir('skewscan-parallel-unit-')

describe('event codec', () => {
  // Strings a log can hold: empty, non-ASCII, Latin-1 only, astral, lone surrogates, NUL.
  const STRINGS = ['', 'GET', '/_build/app.js', 'ünïcödé', 'é', 'ÿ', '日本語', '😀', '\ud800', 'x\udfffy', '\u0000nul',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36']
  const FIELDS = ['method', 'path', 'clientIp', 'userAgent', 'referer', 'session', 'userId', 'requestId', 'upstream', 'version', 'contentType', 'service', 'host', 'id', 'upstreamName', 'vhost', 'app'] as const
  let seed = 11
  const random = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff
  const pick = <T>(a: readonly T[]): T => a[Math.floor(random() * a.length)] as T

  function randomEvent(line: number): AccessEvent {
    const e: Record<string, unknown> = {
      time: Math.floor(random() * 2e12) + pick([0, 0.5]), resolutionMs: pick([1, 1000]), status: pick([200, 304, 404, 999]),
      bytes: pick([0, 1832, 2 ** 50 + 1]), location: {file: 'ignored', line},
    }
    // The flags, each alone or both (a format's byte count with headers; a log with no byte count).
    if (random() < 0.5) e.responseBytes = true
    if (random() < 0.5) e.bytesNotLogged = true
    for (const f of FIELDS) {
      const required = f === 'method' || f === 'path' || f === 'clientIp' || f === 'userAgent'
      if (required || random() < 0.6) e[f] = pick(STRINGS) + (random() < 0.3 ? String(line % 7) : '')
    }
    return e as unknown as AccessEvent
  }

  it('gives back every field of every event exactly, its session key and its copy key', () => {
    for (let round = 0; round < 40; round++) {
      const events = Array.from({length: Math.floor(random() * 60)}, (_, i) => randomEvent(i + 1))
      const decoded = decodeEvents(encodeEvents(events), 'a file.log', 1000)
      expect(decoded).toHaveLength(events.length)
      // Every field of every event, compared at once (toEqual: Object.is on each value, as toBe).
      const fields = [...FIELDS, 'time', 'resolutionMs', 'status', 'bytes', 'responseBytes', 'bytesNotLogged'] as const
      const view = (x: AccessEvent, location: unknown, key: unknown): unknown[] => [...fields.map((f) => x[f]), location, key]
      expect(decoded.map((d) => view(d, d.location, [(d as KeyedAccessEvent).sessionKey, (d as CopyKeyedEvent).copyKey])))
        .toEqual(events.map((e) => view(e, {file: 'a file.log', line: e.location.line + 1000}, [sessionKey(e), copyKeyOf(e)])))
    }
    expect(ENCODED_STRING_FIELDS).toEqual([...FIELDS, 'sessionKey'])
  })

  it('gives back every field exactly from a batch whose strings fill many pieces: distinct and long ones, one past a piece, all ASCII or not', () => {
    const long = 'L'.repeat(40_000)
    for (const wide of [false, true]) {
      const events = Array.from({length: 3000}, (_, i) => {
        const e = randomEvent(i + 1) as unknown as Record<string, unknown>
        // Every string field plain ASCII (or, with `wide`, a few not), and distinct, so the table holds thousands of strings (some 200 kB).
        for (const f of FIELDS) if (e[f] !== undefined) e[f] = `${f} ${i} ${wide && i % 997 === 0 ? 'ü' : 'a'}`
        e.path = `/assets/chunk-${i}-${'x'.repeat(i % 50)}.js`
        if (i === 1500) e.userAgent = long
        return e as unknown as AccessEvent
      })
      const decoded = decodeEvents(encodeEvents(events), 'f')
      expect(decoded.map((d) => FIELDS.map((f) => d[f]))).toEqual(events.map((e) => FIELDS.map((f) => e[f])))
    }
  })

  function pack(events: readonly AccessEvent[], spares?: ArrayBuffer[]): ArrayBuffer {
    const packer = new EventPacker()
    for (const e of events) packer.add(e, e.location.line)
    return packer.finish(spares)
  }

  const fieldsOf = (events: readonly AccessEvent[]): unknown[] => events.map((e) => [...FIELDS, 'time', 'status', 'bytes'].map((f) => e[f as keyof AccessEvent]))

  it('hands its buffer back once every event of the batch is released, and only then', () => {
    const buffer = encodeEvents(Array.from({length: 5}, (_, i) => randomEvent(i + 1)))
    const done: ArrayBuffer[] = []
    const decoded = decodeEvents(buffer, 'f', 0, (b) => done.push(b)) as ReleasableEvent[]
    for (const e of decoded.slice(0, 4)) e.release()
    expect(done).toEqual([])
    decoded[4]?.release()
    expect(done).toHaveLength(1)
    expect(done[0]).toBe(buffer)
    // A batch without events is done at once.
    const empty = encodeEvents([])
    decodeEvents(empty, 'f', 0, (b) => done.push(b))
    expect(done[1]).toBe(empty)
  })

  it('packs into a spare buffer that fits (over what it held before), else into a new one with room to spare', () => {
    const first = Array.from({length: 40}, (_, i) => randomEvent(i + 1))
    const second = Array.from({length: 30}, (_, i) => randomEvent(i + 100))
    const small = new ArrayBuffer(16)
    const used = pack(first, [])
    expect(used.byteLength % 65_536).toBe(0)
    expect(fieldsOf(decodeEvents(used, 'f'))).toEqual(fieldsOf(first))
    // A transferred (detached) buffer and one too small are passed over.
    const detached = new ArrayBuffer(1 << 20)
    structuredClone(detached, {transfer: [detached]})
    const spares = [used, small, detached]
    const again = pack(second, spares)
    expect(again).toBe(used)
    expect(spares).toEqual([small, detached])
    expect(fieldsOf(decodeEvents(again, 'f'))).toEqual(fieldsOf(second))
    // Without a list of spares the buffer is exactly the batch's size (spilled to disk as it is).
    expect(pack(second).byteLength).toBeLessThan(again.byteLength)
  })

  it('shares one string per distinct value in a batch', () => {
    const events = Array.from({length: 50}, (_, i) => ({...randomEvent(i + 1), userAgent: `agent ${i % 2}`}))
    const decoded = decodeEvents(encodeEvents(events), 'f')
    expect(decoded[0]?.userAgent).toBe('agent 0')
    const agents = new Set(decoded.map((d) => d.userAgent))
    expect(agents.size).toBe(2)
  })
})

describe('reading a file as byte ranges', () => {
  /** The streaming reader's view of the same bytes: the reference the ranges must reproduce. */
  async function streamed(content: Buffer, maxLength: number): Promise<{text: string; tooLong: boolean}[]> {
    const out: {text: string; tooLong: boolean}[] = []
    let first = true
    for await (const batch of lines(Readable.from([content]), maxLength)) {
      for (const l of batch) {
        // The file reader drops the byte-order mark of line 1 (restOf); the range reader does it itself.
        const text = first && !l.tooLong ? l.text.replace(/^\uFEFF/, '') : l.text
        first = false
        out.push({text, tooLong: l.tooLong === true})
      }
    }
    return out
  }

  function ranged(path: string, size: number, chunk: number, maxLength: number): {text: string; tooLong: boolean; line: number}[] {
    const out: {text: string; tooLong: boolean; line: number}[] = []
    let offset = 0
    for (let start = 0; start < size; start += chunk) {
      const n = readLineRange({path, start, end: Math.min(size, start + chunk), size}, maxLength, (text, line, tooLong) => {
        out.push({text, tooLong, line: line + offset})
      })
      offset += n
    }
    return out
  }

  const CASES: [string, string | Buffer][] = [
    ['plain lines', 'one\ntwo\nthree\n'],
    ['no newline at the end', 'one\ntwo\nthree'],
    ['blank lines and CRLF', '\n\r\na\r\n\r\n  \nb\r\nc'],
    ['a byte-order mark on line 1 only', '\uFEFFfirst\n\uFEFFsecond\n'],
    ['multi-byte characters', 'ünï\n日本語 and more text here\n😀😀😀\n'],
    ['lines longer than the limit', `short\n${'x'.repeat(300)}\nmid\n${'y'.repeat(120)}\r\n${'z'.repeat(500)}`],
    ['invalid UTF-8', Buffer.from([0x61, 0xff, 0x0a, 0xc3, 0x0a, 0x62, 0x0a])],
    ['only newlines', '\n\n\n'],
    ['a single line', 'alone'],
  ]

  it.each(CASES)('%s: every cut into ranges gives the lines the streaming reader gives, numbered alike', async (name, content) => {
    const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content)
    const path = join(dir, name.replace(/\W+/g, '-'))
    writeFileSync(path, bytes)
    const maxLength = 100
    const want = await streamed(bytes, maxLength)
    for (const chunk of [1, 2, 3, 5, 7, 16, 64, 1000]) {
      const got = ranged(path, bytes.length, chunk, maxLength)
      expect(got.map(({text, tooLong}) => ({text, tooLong}))).toEqual(want)
      expect(got.map((l) => l.line)).toEqual(want.map((_, i) => i + 1))
    }
  })

  it('a file gone from its path (renamed away, removed) is lost input, as one replaced or cut is: not a failure of the run', () => {
    const path = join(dir, 'rotated.log')
    writeFileSync(path, 'one\ntwo\n')
    const [range] = byteRanges(path, 8, 4, statSync(path))
    rmSync(path)
    const parsed = parseLineRange(range as LineRange, DEFAULT_NORMALIZE)
    expect(parsed).toMatchObject({lines: 0, rejections: [], changed: expect.stringMatching(/^was renamed away or removed from its path while read/) as string})
    // Any other failure to open it is the run's (here: a link to itself in its place, ELOOP at the
    // open whatever the file system does with inode numbers; a directory there was read as another
    // file when it got a new inode, and failed to read, EISDIR, only when it got the old one).
    symlinkSync(path, path)
    expect(() => parseLineRange(range as LineRange, DEFAULT_NORMALIZE)).toThrow(/ELOOP|too many (levels of )?symbolic links/i)
  })

  it('a line read on far past its range (several blocks) comes back whole, and the next range reads its own bytes', async () => {
    // Each range is read into one reused buffer; the end of a line that runs past its range is read
    // in blocks of its own. A block read into the reused buffer would overwrite the line's start.
    const long = Array.from({length: 12_000}, (_, i) => `segment ${i};`).join('')
    const bytes = Buffer.from(`first\n${long}\nmiddle\n${long.split('').reverse().join('')}\nlast\n`)
    const path = join(dir, 'very-long-lines')
    writeFileSync(path, bytes)
    const want = await streamed(bytes, 1_000_000)
    expect(want.map((l) => l.text.length)).toEqual([5, long.length, 6, long.length, 4])
    for (const chunk of [10, 4096, 70_000, 300_000]) {
      expect(ranged(path, bytes.length, chunk, 1_000_000).map(({text, tooLong}) => ({text, tooLong}))).toEqual(want)
    }
  })
})
