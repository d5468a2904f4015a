import {Console} from 'node:console'

// oclif's this.log() goes through console.log; jest's buffered console bypasses process.stdout.write,
// which @oclif/test's runCommand() captures.
globalThis.console = new Console({stdout: process.stdout, stderr: process.stderr})

// oclif's Command.catch() sets process.exitCode; without this a green run would exit 1.
afterEach(() => {
  process.exitCode = undefined
})
