/**
 * A gzip file whose checksum fails is corrupt input, not intact input: one byte changed in its
 * deflate data (still valid deflate, so only the CRC-32 tells) or in its trailer (the CRC-32 or the
 * length) is lost input, exit 3, as `gzip -t` says "crc error". Files made by the real gzip tool,
 * read on one thread, streamed to the workers, and from stdin by the built CLI.
 */
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {gunzipSync, inflateRawSync} from 'node:zlib'
import {analyze} from '../../src/app/analyze'
import {DEFAULT_OPTIONS} from '../../src/analysis/options'
import {DEFAULT_NORMALIZE} from '../../src/normalize/fields'
import {ParsePool} from '../../src/sources/parallel/parse-pool'
import {cliEnv, ROOT} from '../helpers/cli'

const tmp = mkdtempSync(join(tmpdir(), 'skewscan-gzip-crc-'))
const pool = new ParsePool(1)
afterAll(async () => {
  await pool.close()
  rmSync(tmp, {recursive: true, force: true})
})

const PLAIN = readFileSync(join(ROOT, 'fixtures', 'rolling-round-robin', 'ingress.log'))

/** A real gzip file of the fixture, as the gzip tool writes it (one member, no name in its header). */
function gzipTool(data: Buffer): Buffer {
  const r = spawnSync('gzip', ['-c', '-n', '-6'], {input: data, maxBuffer: 64 << 20})
  if (r.status !== 0) throw new Error(`gzip failed: ${r.stderr.toString()}`)
  return r.stdout
}

const GOOD = gzipTool(PLAIN)
const HEADER = 10

/**
 * The first byte of the deflate data, from its middle on, whose change still inflates (to other
 * text): only the checksum can tell. Searched in a bounded range of positions.
 */
function flipInDeflate(gz: Buffer): Buffer {
  const end = gz.length - 8
  for (let at = Math.floor(end / 2); at < end; at++) {
    const bad = Buffer.from(gz)
    bad[at] = (bad[at] as number) ^ 0x01
    try {
      const out = inflateRawSync(bad.subarray(HEADER, end))
      if (out.length === PLAIN.length && !out.equals(PLAIN)) return bad
    } catch {
      // not valid deflate any more: zlib would say so itself; look on
    }
  }
  throw new Error('no byte found whose change keeps the deflate data valid')
}

function flipAt(gz: Buffer, at: number): Buffer {
  const bad = Buffer.from(gz)
  bad[at] = (bad[at] as number) ^ 0x01
  return bad
}

const CASES: [string, Buffer][] = [
  ['one byte changed in the deflate data', flipInDeflate(GOOD)],
  ['one byte changed in the trailer\'s CRC-32', flipAt(GOOD, GOOD.length - 6)],
  ['one byte changed in the trailer\'s length', flipAt(GOOD, GOOD.length - 2)],
  ['a good member, then one whose data changed', Buffer.concat([GOOD, flipInDeflate(GOOD)])],
]

async function lostInput(path: string, parallel: boolean): Promise<{lost: number; detail: string | undefined}> {
  const report = await analyze({
    inputs: [path], normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000,
    parallel: parallel ? {pool, chunkBytes: 3000, minFileBytes: 0, minGzipBytes: 0} : false,
  })
  const lost = report.input.skipped.byReason['truncated-input'] ?? 0
  return {lost, detail: report.input.skipped.examples.find((e) => e.reason === 'truncated-input')?.detail}
}

describe('a gzip whose checksum fails', () => {
  it('the good file is read whole (the cases below differ from it in one byte)', async () => {
    expect(gunzipSync(GOOD).equals(PLAIN)).toBe(true)
    const path = join(tmp, 'good.log.gz')
    writeFileSync(path, GOOD)
    expect(await lostInput(path, false)).toEqual({lost: 0, detail: undefined})
    expect(await lostInput(path, true)).toEqual({lost: 0, detail: undefined})
  })

  it.each(CASES)('%s: the gzip tool says so', (_name, bad) => {
    const path = join(tmp, 'tested.gz')
    writeFileSync(path, bad)
    const r = spawnSync('gzip', ['-t', path], {encoding: 'utf8'})
    expect(r.status).not.toBe(0)
    expect(r.stderr).toMatch(/crc error|length error/)
  })

  it.each(CASES)('%s: lost input on one thread and streamed to the workers', async (name, bad) => {
    const path = join(tmp, `${name.replace(/\W+/g, '-')}.log.gz`)
    writeFileSync(path, bad)
    for (const parallel of [false, true]) {
      const {lost, detail} = await lostInput(path, parallel)
      expect(lost).toBe(1)
      expect(detail).toMatch(/gzip data corrupt: (CRC-32|length) check failed/)
    }
  })

  it.each(CASES)('%s: the CLI exits 3 reading it from stdin, and says where input was lost', (_name, bad) => {
    const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'run.js'), 'analyze', '-'], {input: bad, encoding: 'utf8', timeout: 60_000, env: cliEnv()})
    expect(r.stderr).toMatch(/Input lost: .*gzip data corrupt/)
    expect(r.status).toBe(3)
  })
})
