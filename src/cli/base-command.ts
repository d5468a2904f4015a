import {Command, Errors} from './oclif'
import {ConfigError} from '../errors/config-error'
import {gathered, jsonPieces} from '../report/json'
import {lostInputNote, skippedNote} from '../report/input-notes'
import type {InputSummary} from '../model/report'
import {inertJson, terminalSafeLines} from '../report/sanitize'
import {type Cursor, writeStderr} from './stderr'
import {InputError, SourceError} from '../sources/errors'
import {writeWholeWhenPiped} from './error-output'
import {EXIT} from './exit-codes'
import {removeTemporariesOnSignals} from './signals'
import {closest} from './suggest'

/**
 * What every skewscan command shares: the one place that writes to stdout and stderr, and the
 * mapping from the library's typed errors to the documented exit codes.
 */
/** Whether standard output's write errors are handled yet (once per process). */
let outputGuarded = false

/**
 * Standard output is the one sink of every command's data. A reader that went away (`| head`)
 * ends the run quietly with the code it had; any other write error (a full disk) is said on stderr
 * and exits 2 rather than a stack trace and exit 1, which `--fail-on` uses.
 */
function guardOutput(): void {
  if (outputGuarded) return
  outputGuarded = true
  // Before oclif's own listener, which rethrows every error but EPIPE as an uncaught exception.
  process.stdout.prependListener('error', outputFailed)
}

function outputFailed(error: NodeJS.ErrnoException): never {
  if (error.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0)
  writeStderr(` ›   Error: cannot write to standard output (${error.code ?? error.message})`)
  process.exit(EXIT.USAGE)
}

export abstract class BaseCommand extends Command {
  override async init(): Promise<void> {
    guardOutput()
    removeTemporariesOnSignals()
    await super.init()
  }

  /** Data for the user: stdout, and nothing under --json (the returned value is printed instead). */
  protected print(text: string): void {
    if (!this.jsonEnabled()) process.stdout.write(text)
  }

  /** Notes, warnings, progress: always stderr, so stdout stays machine-readable; terminal-safe whatever they quote. */
  protected notice(text: string, cursor?: Cursor): void {
    writeStderr(text, cursor)
  }

  /**
   * `--json` output. oclif colours JSON through a tokenizer that costs as much as the analysis of a
   * large run; with no colour theme there is nothing to colour, and the same text is written directly,
   * in pieces of some 64 KiB: the text of a large report in one string, and its copy for writing,
   * would raise the run's peak memory by twice its size.
   */
  override logJson(json: unknown): void {
    if (this.config.theme?.json) return super.logJson(json)
    for (const piece of gathered(jsonPieces(json))) process.stdout.write(inertJson(piece))
    process.stdout.write('\n')
  }

  protected setExitCode(code: number): void {
    process.exitCode = code
  }

  /**
   * Says on stderr what a run skipped of its input, and where an input ended early. A run that lost
   * input exits 3 (a source failed), over any --fail-on finding, unless `allowLost`: its report was
   * still written, but counts only what was read.
   */
  protected tellInput(inputs: readonly InputSummary[], allowLost: boolean): void {
    let lost = false
    for (const input of inputs) {
      const skipped = skippedNote(input)
      if (skipped) this.notice(skipped)
      const note = lostInputNote(input)
      if (!note) continue
      lost = true
      this.notice(allowLost ? note : `${note} Exit ${EXIT.SOURCE} (--allow-lost-input: exit 0).`)
    }
    if (lost && !allowLost) this.setExitCode(EXIT.SOURCE)
  }

  protected override async catch(err: Error & {exitCode?: number}): Promise<unknown> {
    const mapped = (this.usageError(err) ?? toCliError(err)) as Error & {oclif?: {exit?: number}}
    // Under --json oclif exits with err.exitCode ?? 1; keep the documented code instead.
    if (mapped.oclif?.exit !== undefined) process.exitCode = mapped.oclif.exit
    if (!this.jsonEnabled() && mapped instanceof Errors.CLIError) writeWholeWhenPiped(mapped)
    return super.catch(mapped)
  }

  /**
   * A mistyped flag or argument: one line that says what was wrong, the flag that was probably
   * meant, and where help is, instead of oclif's error followed by the whole help text (where the
   * error scrolls away). Exit 2, as every usage error.
   */
  private usageError(err: Error): Error | undefined {
    const parse = err as Error & {showHelp?: boolean; flags?: string[]; parse?: unknown}
    if (!parse.showHelp || parse.parse === undefined) return undefined
    const help = `see: ${this.config.bin} ${this.id ?? ''} --help`.replace(/\s+--help$/, ' --help')
    let message = err.message.replace(/\nSee more help with --help$/, '')
    if (parse.flags && parse.flags.length > 0) {
      const known = Object.entries(this.ctor.flags ?? {}).flatMap(([name, f]) => [`--${name}`, ...((f as {allowNo?: boolean}).allowNo ? [`--no-${name}`] : [])])
      const guesses = parse.flags.map((given) => ({given, meant: closest(given.split('=')[0] ?? given, known)})).filter((g) => g.meant !== undefined)
      if (guesses.length > 0) message += `. Did you mean ${guesses.map((g) => `${g.meant}${parse.flags && parse.flags.length > 1 ? ` (for ${g.given})` : ''}`).join(', ')}?`
    }
    return new Errors.CLIError(`${message.split('\n\n')[0]?.replace(/\s*\n\s*/g, ' ')} (${help})`, {exit: EXIT.USAGE})
  }

  /** Under --json an error is a small object, not oclif's whole parse context. */
  protected override toErrorJson(err: unknown): unknown {
    const e = err as Error & {code?: string; oclif?: {exit?: number}}
    return {error: {code: e.code, exit: e.oclif?.exit, message: e.message}}
  }
}

function toCliError(err: Error): Error {
  // Messages name files and quote logs and servers: nothing in them acts on a terminal.
  if (err instanceof InputError || err instanceof ConfigError) return new Errors.CLIError(terminalSafeLines(err.message), {exit: EXIT.USAGE})
  if (err instanceof SourceError) return new Errors.CLIError(terminalSafeLines(err.message), {exit: EXIT.SOURCE})
  return err
}
