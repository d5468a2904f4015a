import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

/**
 * A fresh directory in the temporary directory, removed with all it holds after the tests of the
 * file (or describe block) it is made in: call it at the top level of either, never inside a test.
 * test/tmp-environment.js fails a file that leaves anything behind.
 */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  afterAll(() => rmSync(dir, {recursive: true, force: true}))
  return dir
}
