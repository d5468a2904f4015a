/**
 * Issue 14 (hardening): an error a user can cause names files and quotes logs and servers; those
 * are arbitrary text (a file name may hold any byte but `/` and NUL). Whatever they hold, the
 * error as a command prints it (oclif's rendering on a terminal, the whole message into a pipe, the
 * `--json` error object) holds no control character but its line breaks, and no bidi control.
 */
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Config} from '@oclif/core'
import fc from 'fast-check'
import {BaseCommand} from '../../src/cli/base-command'
import {ConfigError} from '../../src/config/parse'
import {DEFAULT_NORMALIZE} from '../../src/normalize/fields'
import {InputError, SourceError} from '../../src/sources/errors'
import {FileSource} from '../../src/sources/file/file-source'
import {ROOT} from '../helpers/cli'
import {firstUnsafe, hostileString, settings} from '../helpers/hostile'

const dir = mkdtempSync(join(tmpdir(), 'skewscan-property-errors-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

/** A command that fails with the error it is given, as any skewscan command's run() does. */
class Fails extends BaseCommand {
  static override enableJsonFlag = true
  static error: Error = new Error('unset')
  async run(): Promise<void> {
    await this.parse(Fails)
    throw Fails.error
  }
}

let config: Config
beforeAll(async () => {
  config = await Config.load(ROOT)
})

/** What a command prints for the error: stdout, stderr, and the message oclif renders itself on a terminal. */
async function printed(error: Error, json: boolean): Promise<{stdout: string; stderr: string; rendered: string}> {
  Fails.error = error
  let stdout = ''
  let stderr = ''
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((stdout += String(s)), true))
  const err = jest.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((stderr += String(s)), true))
  let rendered = ''
  try {
    await Fails.run(json ? ['--json'] : [], config)
  } catch (e: unknown) {
    rendered = e instanceof Error ? e.message : String(e)
  } finally {
    out.mockRestore()
    err.mockRestore()
    process.exitCode = undefined
  }
  return {stdout, stderr, rendered}
}

function safe(label: string, text: string): void {
  expect({label, unsafe: firstUnsafe(text)}).toEqual({label, unsafe: undefined})
}

/** The errors the library throws with outside text in them: a file in no known format, a file that cannot be read, a bad setting, a failing server. */
async function errorsFor(name: string, text: string): Promise<Error[]> {
  const errors: Error[] = []
  const garbage = join(dir, 'garbage')
  writeFileSync(garbage, `${text}\nnot a log line at all\n`)
  for (const path of [garbage, join(dir, 'missing')]) {
    try {
      for await (const _ of new FileSource(path, name, DEFAULT_NORMALIZE).batches()) { /* read to the end */ }
    } catch (e: unknown) {
      if (e instanceof Error) errors.push(e)
    }
  }
  errors.push(new ConfigError(`--field ${text}: give NAME=PATH`), new SourceError(`Datadog answered 400: ${text}`), new InputError(`${name}:12: ${text}\n  - and a second line`, name))
  return errors
}

describe('errors with hostile file names and server text', () => {
  it('the library\'s errors carry the text (so the property below sees it)', async () => {
    const errors = await errorsFor('\u001b]0;x\u0007.log', 'x')
    expect(errors.map((e) => e.name)).toEqual(['InputError', 'InputError', 'ConfigError', 'SourceError', 'InputError'])
    expect(errors[0]?.message).toContain('\u001b]0;x\u0007.log')
    // …and what a command prints is caught here: the message into a pipe, the error object under --json.
    expect((await printed(errors[0] as Error, false)).stderr).toContain(' ›   Error: \\u001b]0;x\\u0007.log: not in any format skewscan reads')
    expect(JSON.parse((await printed(errors[0] as Error, true)).stdout)).toMatchObject({error: {exit: 2, message: expect.stringContaining('\\u001b]0;x\\u0007.log')}})
  })

  it('printed by a command, into a pipe and under --json: nothing acts on a terminal, line breaks kept', async () => {
    await fc.assert(fc.asyncProperty(hostileString, hostileString, async (name, text) => {
      for (const error of await errorsFor(name, text)) {
        const plain = await printed(error, false)
        safe('message', plain.rendered)
        safe('stderr', plain.stderr)
        safe('stdout', plain.stdout)
        expect(plain.rendered.split('\n').length).toBeGreaterThanOrEqual(error.message.split('\n').length)
        const json = await printed(error, true)
        safe('--json stdout', json.stdout)
        safe('--json stderr', json.stderr)
        const body = JSON.parse(json.stdout) as {error: {message: string}}
        expect(body.error.message.split('\n')).toHaveLength(error.message.split('\n').length)
      }
    }), settings(0xe77, 20))
  })
})
