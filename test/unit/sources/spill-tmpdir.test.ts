/** The sort's runs in a directory that cannot be made: an input error naming TMPDIR (exit 2), not a bare errno (exit 1). */
import {join} from 'node:path'
import {tmpdir} from 'node:os'
import type {AccessEvent} from '../../../src/model/access-event'
import {InputError} from '../../../src/sources/errors'
import {sortedBySpilling} from '../../../src/sources/spill-sort'

async function* newestFirst(n: number): AsyncGenerator<AccessEvent[]> {
  for (let i = n; i > 0; i--) yield [{time: i * 1000, location: {file: 'a.log', line: n - i + 1}} as unknown as AccessEvent]
}

describe('sortedBySpilling', () => {
  it('names TMPDIR and the error in words when its runs cannot be written', async () => {
    const dir = join(tmpdir(), 'skewscan-no-such-dir', 'deeper')
    const read = async (): Promise<void> => {
      for await (const batch of sortedBySpilling(newestFirst(6), {runEvents: 2, frameEvents: 2, fanIn: 2, dir})) void batch
    }
    await expect(read()).rejects.toThrow(InputError)
    await expect(read()).rejects.toThrow(`TMPDIR ${dir}: cannot write the sorted runs of an input out of time order: no such file or directory (ENOENT)`)
  })
})
