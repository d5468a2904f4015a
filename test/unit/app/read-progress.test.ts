/**
 * The progress of a read (issue 26): bytes read of the inputs' size, from the byte tally of the
 * file's one descriptor (gzip: the compressed bytes) or the ranges handed on in order (the parallel
 * reader: test/integration/parallel.test.ts), so the line can give a share and an ETA. No timing:
 * the figures reported, in order.
 */
import {mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {analyze} from '../../../src/app/analyze'
import {DEFAULT_OPTIONS} from '../../../src/analysis/options'
import {DEFAULT_NORMALIZE} from '../../../src/normalize/fields'
import {ROOT} from '../../helpers/cli'

const FIXTURE = join(ROOT, 'fixtures', 'rolling-round-robin', 'ingress.log')
const dir = mkdtempSync(join(tmpdir(), 'skewscan-read-progress-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

type Seen = {records: number; bytes: number; totalBytes?: number}

async function seen(inputs: string[]): Promise<Seen[]> {
  const out: Seen[] = []
  await analyze({inputs, normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000, parallel: false,
    onProgress: ({records, bytes, totalBytes}) => out.push({records, bytes, ...(totalBytes === undefined ? {} : {totalBytes})})})
  return out
}

describe('progress of a read: bytes of the total', () => {
  const gz = join(dir, 'ingress.log.gz')
  writeFileSync(gz, gzipSync(readFileSync(FIXTURE)))
  const size = (f: string): number => statSync(f).size

  it.each([
    ['a plain file', [FIXTURE]],
    ['a gzip file: its compressed bytes', [gz]],
    ['two files: their sizes added', [FIXTURE, gz]],
  ] as const)('%s', async (_label, inputs) => {
    const got = await seen([...inputs])
    const total = inputs.reduce((n, f) => n + size(f), 0)
    expect(got.length).toBeGreaterThan(1)
    // Every report knows the total, never goes back, and the last has read it all.
    expect(got.every((p) => p.totalBytes === total)).toBe(true)
    for (let i = 1; i < got.length; i++) {
      expect((got[i] as Seen).bytes).toBeGreaterThanOrEqual((got[i - 1] as Seen).bytes)
      expect((got[i] as Seen).records).toBeGreaterThanOrEqual((got[i - 1] as Seen).records)
    }
    expect(got.at(-1)).toEqual({records: 416 * inputs.length, bytes: total, totalBytes: total})
  })
})
