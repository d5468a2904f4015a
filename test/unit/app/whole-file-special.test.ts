/**
 * Outputs are written whole under a temporary name and renamed, but a target that is no regular
 * file (a named pipe here; /dev/stdout, /dev/full) is written in place: renaming over it would
 * replace the device or pipe with a file of ours (it once replaced /dev/full).
 */
import {execFileSync, spawn} from 'node:child_process'
import {mkdtempSync, readdirSync, readFileSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {openWhole, writeWhole} from '../../../src/app/whole-file'

const dir = mkdtempSync(join(tmpdir(), 'skewscan-special-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

/** A named pipe and a reader copying it to a file; resolves when the reader has seen the writer close. */
function pipeWithReader(name: string): {fifo: string; out: string; done: Promise<void>} {
  const fifo = join(dir, name)
  const out = join(dir, `${name}.out`)
  execFileSync('mkfifo', [fifo])
  const reader = spawn('sh', ['-c', 'cat "$1" > "$2"', 'sh', fifo, out], {stdio: 'ignore'})
  const done = new Promise<void>((resolve, reject) => {
    reader.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`reader exited ${code}`))))
  })
  return {fifo, out, done}
}

describe('a target that is no regular file', () => {
  it('writeWhole writes a named pipe in place and leaves it a pipe', async () => {
    const {fifo, out, done} = pipeWithReader('report')
    expect(await writeWhole(fifo, 'the report\n', false)).toBe(true)
    await done
    expect(readFileSync(out, 'utf8')).toBe('the report\n')
    expect(statSync(fifo).isFIFO()).toBe(true)
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([])
  })

  it('openWhole streams into a named pipe in place; commit leaves it a pipe', async () => {
    const {fifo, out, done} = pipeWithReader('failures')
    const w = await openWhole(fifo)
    await new Promise<void>((resolve, reject) => w.out.end('{"a":1}\n', () => resolve()).once('error', reject))
    await w.commit()
    await done
    expect(readFileSync(out, 'utf8')).toBe('{"a":1}\n')
    expect(statSync(fifo).isFIFO()).toBe(true)
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([])
  })
})
