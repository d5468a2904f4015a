/**
 * A file cut or replaced while it is read is lost input, never a silent part of it or a mix of two
 * files. A second process (sh) does what logrotate does once the reader has handed on its first
 * batch: `copytruncate` (copy, then cut the file to nothing), `create` (rename it away, a new file
 * at its path), or a writer appends lines. The reader is paused by not being asked for its next
 * batch while the child runs to its end: nothing here depends on timing.
 */
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import type {Rejection} from '../../src/model/rejection'
import {DEFAULT_NORMALIZE} from '../../src/normalize/fields'
import {FileSource} from '../../src/sources/file/file-source'
import {openParallel} from '../../src/sources/parallel/options'
import {ParsePool} from '../../src/sources/parallel/parse-pool'
import {ROOT} from '../helpers/cli'

const tmp = mkdtempSync(join(tmpdir(), 'skewscan-changed-'))
const pool = new ParsePool(1)
afterAll(async () => {
  await pool.close()
  rmSync(tmp, {recursive: true, force: true})
})

const SAMPLE = readFileSync(join(ROOT, 'fixtures', 'rolling-round-robin', 'ingress.log'), 'utf8').split('\n').filter((l) => l !== '')
/** About 8 MB of lines: many times what a reader holds ahead of the batch it hands on. */
const LINES = Array.from({length: Math.ceil(8e6 / SAMPLE.join('\n').length)}, () => SAMPLE).flat()
const TEXT = `${LINES.join('\n')}\n`

/** What logrotate and a writer do, run by sh on the file ("$1"). */
const ACTS = {
  copytruncate: 'cp "$1" "$1.1" && : > "$1"',
  create: 'mv "$1" "$1.1" && printf "%s\\n" "$2" > "$1"',
  append: 'printf "%s\\n" "$2" "$2" "$2" >> "$1"',
} as const

interface Read {
  records: number
  lost: Rejection[]
}

/** Reads `path` with `source`, letting `act` run in a child process once the first batch is handed on. */
async function readWhile(path: string, act: keyof typeof ACTS, parallel: boolean): Promise<Read> {
  const reading = parallel ? openParallel({pool, chunkBytes: 64 * 1024, minFileBytes: 0, minGzipBytes: 0}).reading : undefined
  const source = new FileSource(path, 'access.log', DEFAULT_NORMALIZE, reading)
  const lost: Rejection[] = []
  let batches = 0
  for await (const batch of source.batches()) {
    lost.push(...batch.rejections.filter((r) => r.reason === 'truncated-input'))
    if (++batches === 1) {
      const r = spawnSync('sh', ['-c', ACTS[act], 'sh', path, SAMPLE[0] as string], {encoding: 'utf8', timeout: 20_000})
      expect(r.status).toBe(0)
    }
  }
  expect(batches).toBeGreaterThanOrEqual(2)
  return {records: source.stats.records, lost}
}

let n = 0
function fresh(data: string | Buffer, name = 'access.log'): string {
  const dir = join(tmp, `case-${++n}`)
  spawnSync('mkdir', [dir])
  const path = join(dir, name)
  writeFileSync(path, data)
  return path
}

describe.each([
  ['on one thread', false],
  ['in byte ranges by the workers', true],
])('a plain file read %s', (_how, parallel) => {
  it('cut while read (copytruncate): lost input, "changed while read", and only what came before', async () => {
    const {records, lost} = await readWhile(fresh(TEXT), 'copytruncate', parallel)
    expect(lost).toHaveLength(1)
    expect(lost[0]?.detail).toMatch(/changed while read: .*cut/)
    expect(records).toBeLessThan(LINES.length)
    expect(lost[0]?.location.line).toBe(records) // the lines before the cut, then the cut
  })

  it(`renamed away and replaced (create): ${parallel ? 'lost input: a range found another file at the path' : 'the file opened is read whole'}`, async () => {
    const {records, lost} = await readWhile(fresh(TEXT), 'create', parallel)
    if (parallel) {
      expect(lost).toHaveLength(1)
      // A range read after the new file was created finds another file; one read between the rename
      // and the creation finds none (both happen: the file is renamed away while the workers read).
      expect(lost[0]?.detail).toMatch(/changed while read: access\.log was (replaced by another file|renamed away or removed from its path)/)
      expect(records).toBeLessThan(LINES.length)
    } else {
      expect(lost).toEqual([])
      expect(records).toBe(LINES.length)
    }
  })

  it('appended to while read: read whole up to its size when opened, nothing lost', async () => {
    const {records, lost} = await readWhile(fresh(TEXT), 'append', parallel)
    expect(lost).toEqual([])
    expect(records).toBe(LINES.length)
  })
})

describe('a gzip file', () => {
  // Lines that compress little (a random-looking query each), so that the gzip is many times what the reader reads ahead.
  const token = (i: number): string => `${(i * 2654435761 % 4294967296).toString(36)}${(i * 40503 % 65536).toString(16)}${(i * 69069 % 1000003).toString(36)}`
  const noisy = Array.from({length: 120_000}, (_, i) => (SAMPLE[i % SAMPLE.length] as string).replace(' HTTP/', `?r=${token(i)}${token(i + 7919)} HTTP/`))
  const gz = gzipSync(`${noisy.join('\n')}\n`, {level: 1})

  it.each([false, true])('cut while read (copytruncate), parallel %s: lost input, "changed while read"', async (parallel) => {
    expect(gz.length).toBeGreaterThan(4e6)
    const {records, lost} = await readWhile(fresh(gz, 'access.log.gz'), 'copytruncate', parallel)
    expect(lost).toHaveLength(1)
    expect(lost[0]?.detail).toMatch(/changed while read: .*cut short/)
    expect(records).toBeLessThan(noisy.length)
  })

  it('renamed away and replaced (create): the file opened is read whole', async () => {
    const {records, lost} = await readWhile(fresh(gz, 'access.log.gz'), 'create', false)
    expect(lost).toEqual([])
    expect(records).toBe(noisy.length)
  })
})
