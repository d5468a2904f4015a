import {createWriteStream, promises as fs, type WriteStream} from 'node:fs'
import {ConfigError} from '../errors/config-error'
import {datadogEvent, ingressLine, type LogContext} from './access-log'
import type {AccessRecord} from './balancer'
import type {DeployWindow} from './cluster'
import {deploysJson} from './report'
import type {RumItem} from './rum'

export interface LabFilePaths {
  /** Datadog NDJSON access log. */
  log?: string
  /** ingress-nginx access lines. */
  ingressLog?: string
  /** Deploy windows, `[{start, end, service, version, from}]`. */
  deploys?: string
  /** The browsers' RUM events, as a RUM events search API response. */
  rum?: string
}

/** The end of the RUM events search API response: one page, the last. */
const RUM_META = {page: {}, status: 'done'}

/**
 * What the lab writes: the balancer's access log (Datadog NDJSON and ingress-nginx lines) as
 * requests finish, the deploy windows, rewritten after each deploy so that analyze can run while
 * the lab does, and the browsers' RUM events as they are handed on (one item a line, in one JSON
 * document that closes when the lab stops). Every file is opened (and an unwritable one reported)
 * before the lab starts.
 */
export class LabFiles {
  private pendingDeploys: Promise<void> = Promise.resolve()
  private rumItems = 0
  private closed = false

  private constructor(
    private readonly paths: LabFilePaths, private readonly context: LogContext,
    private readonly dd?: WriteStream, private readonly ingress?: WriteStream, private readonly rumOut?: WriteStream,
  ) {}

  static async open(paths: LabFilePaths, context: LogContext): Promise<LabFiles> {
    const streams: WriteStream[] = []
    try {
      const dd = paths.log ? streams[streams.push(await openStream(paths.log, '--log')) - 1] : undefined
      const ingress = paths.ingressLog ? streams[streams.push(await openStream(paths.ingressLog, '--ingress-log')) - 1] : undefined
      const rum = paths.rum ? streams[streams.push(await openStream(paths.rum, '--rum-out')) - 1] : undefined
      rum?.write('{"data":[')
      const files = new LabFiles(paths, context, dd, ingress, rum)
      await files.writeDeploys([])
      return files
    } catch (error: unknown) {
      await Promise.all(streams.map(end))
      throw error
    }
  }

  access(r: AccessRecord): void {
    this.dd?.write(`${JSON.stringify(datadogEvent(r, this.context))}\n`)
    this.ingress?.write(`${ingressLine(r, this.context)}\n`)
  }

  /** RUM events, oldest first: each item on a line of its own, every value written by JSON.stringify. */
  rum(items: readonly RumItem[]): void {
    if (!this.rumOut) return
    for (const item of items) this.rumOut.write(`${this.rumItems++ === 0 ? '\n' : ',\n'}${JSON.stringify(item)}`)
  }

  /** Queues a rewrite of the deploys file; the returned promise rejects (ConfigError) when a write failed. */
  writeDeploys(deploys: readonly DeployWindow[]): Promise<void> {
    const file = this.paths.deploys
    if (file) {
      const text = deploysJson(deploys, this.context.service)
      this.pendingDeploys = this.pendingDeploys.then(() => fs.writeFile(file, text).catch((error: unknown) => {
        throw new ConfigError(`--deploys-out ${file}: cannot write (${(error as {code?: string}).code ?? String(error)})`)
      }))
    }
    return this.pendingDeploys
  }

  /** Flushes and closes the logs, and closes the RUM document (its last line, so that no line of it is a whole record but the document itself). */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.rumOut?.write(`],"meta":${JSON.stringify(RUM_META)}}\n`)
    await Promise.all([this.dd, this.ingress, this.rumOut].map((s) => (s ? end(s) : undefined)))
  }
}

function openStream(file: string, flag: string): Promise<WriteStream> {
  const out = createWriteStream(file)
  return new Promise((resolve, reject) => {
    out.once('open', () => resolve(out))
    out.once('error', (err) => reject(new ConfigError(`${flag} ${file}: cannot write (${err.message})`)))
  })
}

function end(s: WriteStream): Promise<void> {
  return new Promise((resolve) => s.end(() => resolve()))
}
