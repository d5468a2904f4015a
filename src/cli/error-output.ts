import type {Errors} from './oclif'
import {writeStderr} from './stderr'

/**
 * Into a pipe or a CI log, an error's message whole, written now: oclif wraps it at 80 columns
 * (mid-path, even), which breaks grep. On a terminal oclif's own wrapped rendering stays. Either
 * way oclif then exits with the error's code.
 */
export function writeWholeWhenPiped(error: Errors.CLIError): void {
  if (process.stderr.isTTY) return
  writeStderr(error.message.split('\n').map((l, i) => ` ›   ${i === 0 ? 'Error: ' : ''}${l}`).join('\n'))
  ;(error as Errors.CLIError & {skipOclifErrorHandling?: boolean}).skipOclifErrorHandling = true
}
