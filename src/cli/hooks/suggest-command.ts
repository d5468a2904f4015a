import type {Hook} from '@oclif/core/hooks'
import {writeStderr} from '../stderr'
import {closest} from '../suggest'

/**
 * A mistyped command, when no one can answer a prompt (a script, CI): the command probably meant,
 * on stderr. @oclif/plugin-not-found then says the command is unknown and exits 127; on a terminal
 * it asks instead ("Did you mean analyze?") and runs the answer.
 */
const hook: Hook.CommandNotFound = async function (opts) {
  if (process.stdin.isTTY) return
  const word = opts.id.split(':')[0] ?? opts.id
  const meant = closest(word, opts.config.commands.filter((c) => !c.hidden).map((c) => c.id))
  if (meant !== undefined) writeStderr(`Did you mean ${opts.config.bin} ${meant}?`)
}

export default hook
