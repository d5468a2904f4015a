/**
 * A configuration value that is not valid; the message names the flag and what is accepted.
 *
 * Its own folder, below every layer: settings, sources, the probe and the lab throw it and the
 * command layer turns it into exit 2. It is a class (a value `instanceof` tests), so it does not
 * belong in model/, which holds types only; and it imports nothing, so any layer may read it.
 */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ConfigError'
  }
}
