/** A file read as a user's file is: written into `dir`, then every batch of a FileSource over it. */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import type {AccessEvent} from '../../src/model/access-event'
import type {Rejection} from '../../src/model/rejection'
import {DEFAULT_NORMALIZE, type NormalizeOptions} from '../../src/normalize/fields'
import {FileSource} from '../../src/sources/file/file-source'

export async function readWritten(dir: string, name: string, content: string | Buffer, opts: NormalizeOptions = DEFAULT_NORMALIZE): Promise<{events: AccessEvent[]; rejections: Rejection[]; format: string}> {
  const path = join(dir, name)
  writeFileSync(path, content)
  const source = new FileSource(path, name, opts)
  const events: AccessEvent[] = []
  const rejections: Rejection[] = []
  for await (const b of source.batches()) {
    events.push(...b.events)
    rejections.push(...b.rejections)
  }
  return {events, rejections, format: source.stats.format}
}
