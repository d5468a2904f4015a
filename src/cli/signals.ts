import {removeTemporariesSync} from '../sources/temporaries'

/** The shell's exit codes of a run stopped by a signal (128 + its number). */
const SIGNAL_EXITS = {SIGINT: 130, SIGTERM: 143} as const

let installed = false

/**
 * Ctrl-C, `timeout`, `systemctl stop`: the run's temporaries (a copy of standard input as large as
 * it, the sort's runs) are removed, and it exits 130 (SIGINT) or 143 (SIGTERM). A command that
 * handles a signal itself (export's Ctrl-C keeps what it pulled) has a listener of its own: then
 * this one leaves the signal to it.
 */
export function removeTemporariesOnSignals(): void {
  if (installed) return
  installed = true
  for (const [signal, code] of Object.entries(SIGNAL_EXITS)) {
    process.on(signal, () => {
      if (process.listenerCount(signal) > 1) return
      removeTemporariesSync()
      process.exit(code)
    })
  }
}
