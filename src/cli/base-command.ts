import {Command} from '@oclif/core/command'
import * as Errors from '@oclif/core/errors'
import {ConfigError} from '../config/parse'
import {gathered, jsonPieces} from '../report/json'
import {InputError, SourceError} from '../sources/errors'
import {EXIT} from './exit-codes'

/**
 * What every skewscan command shares: the one place that writes to stdout and stderr, and the
 * mapping from the library's typed errors to the documented exit codes.
 */
export abstract class BaseCommand extends Command {
  /** Data for the user: stdout, and nothing under --json (the returned value is printed instead). */
  protected print(text: string): void {
    if (!this.jsonEnabled()) process.stdout.write(text)
  }

  /** Notes, warnings, progress: always stderr, so stdout stays machine-readable. */
  protected notice(text: string): void {
    process.stderr.write(`${text}\n`)
  }

  /**
   * `--json` output. oclif colours JSON through a tokenizer that costs as much as the analysis of a
   * large run; with no colour theme there is nothing to colour, and the same text is written directly,
   * in pieces of some 64 KiB: the text of a large report in one string, and its copy for writing,
   * would raise the run's peak memory by twice its size.
   */
  override logJson(json: unknown): void {
    if (this.config.theme?.json) return super.logJson(json)
    for (const piece of gathered(jsonPieces(json))) process.stdout.write(piece)
    process.stdout.write('\n')
  }

  protected setExitCode(code: number): void {
    process.exitCode = code
  }

  protected override async catch(err: Error & {exitCode?: number}): Promise<unknown> {
    const mapped = toCliError(err) as Error & {oclif?: {exit?: number}}
    // Under --json oclif exits with err.exitCode ?? 1; keep the documented code instead.
    if (mapped.oclif?.exit !== undefined) process.exitCode = mapped.oclif.exit
    return super.catch(mapped)
  }

  /** Under --json an error is a small object, not oclif's whole parse context. */
  protected override toErrorJson(err: unknown): unknown {
    const e = err as Error & {code?: string; oclif?: {exit?: number}}
    return {error: {code: e.code, exit: e.oclif?.exit, message: e.message}}
  }
}

function toCliError(err: Error): Error {
  if (err instanceof InputError || err instanceof ConfigError) return new Errors.CLIError(err.message, {exit: EXIT.USAGE})
  if (err instanceof SourceError) return new Errors.CLIError(err.message, {exit: EXIT.SOURCE})
  return err
}
