/**
 * `skewscan parse`: every record of the inputs as the tool read it, and every rejected one with its
 * reason, in file and line order, so a user can see how their log was read.
 */
import type {Readable} from 'node:stream'
import {appNameOf} from '../analysis/apps'
import type {AppSource} from '../analysis/options'
import type {ParsedRecord} from '../model/parse-outcome'
import type {NormalizeOptions} from '../normalize/fields'
import {FileSource} from '../sources/file/file-source'
import type {SourceStats} from '../sources/source'
import {readableInputs} from '../sources/file/inputs'

export interface ParseRequest {
  inputs: string[]
  stdin?: Readable
  normalize: NormalizeOptions
  appSource: AppSource
  /** Notes for the user (stderr): a file named twice, read once. */
  onNotice?: (message: string) => void
}

export type {ParsedRecord} from '../model/parse-outcome'

export interface ParseRun {
  /** The records, in batches, each batch in line order. */
  batches: AsyncGenerator<ParsedRecord[]>
  /** Per file, filled in as it is read: its format, records and skips. */
  stats: SourceStats[]
}

/** Reads the inputs one after the other, serially (the order of lines is the point here). */
export async function parseInputs(req: ParseRequest): Promise<ParseRun> {
  const inputs = await readableInputs(req.inputs, req.stdin, req.onNotice)
  const sources = inputs.paths.map(({name, path}) => new FileSource(path, name, req.normalize))
  async function* batches(): AsyncGenerator<ParsedRecord[]> {
    try {
      for (const source of sources) {
        for await (const batch of source.batches()) {
          const out: ParsedRecord[] = []
          for (const e of batch.events) {
            out.push({file: e.location.file, line: e.location.line, event: e, app: appNameOf(e, req.appSource) || null, bytesCount: e.responseBytes ? 'response' : 'body'})
          }
          for (const r of batch.rejections) out.push({file: r.location.file, line: r.location.line, rejection: r})
          // A line may hold several records (a one-line page): the sort is stable.
          out.sort((a, b) => a.line - b.line)
          yield out
        }
      }
    } finally {
      await inputs.dispose()
    }
  }
  return {batches: batches(), stats: sources.map((s) => s.stats)}
}
