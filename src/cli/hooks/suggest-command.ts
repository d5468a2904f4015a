import {Errors, type Hook} from '../oclif'
import {terminalSafe} from '../../report/sanitize'
import {writeWholeWhenPiped} from '../error-output'
import {EXIT} from '../exit-codes'
import {closest} from '../suggest'

/**
 * A mistyped command (`skewscan analyse access.log`): a usage error like any other, exit 2 (the
 * documented contract; oclif's default is 127), naming the word typed, not the words after it that
 * oclif joins into the id it looked for, and the command probably meant. The same on a terminal and
 * in a script: no prompt that runs a command the user did not type.
 */
const hook: Hook.CommandNotFound = async function (opts) {
  // oclif joins the arguments after an unknown word into the id (`analyse:access.log`): the word is its first part.
  const word = opts.id.split(':')[0] ?? opts.id
  const meant = closest(word, opts.config.commands.filter((c) => !c.hidden).map((c) => c.id))
  const suggestion = meant === undefined ? '' : `. Did you mean ${meant}?`
  const error = new Errors.CLIError(`Unknown command: ${terminalSafe(word)}${suggestion} (see: ${opts.config.bin} --help)`, {exit: EXIT.USAGE})
  writeWholeWhenPiped(error)
  throw error
}

export default hook
