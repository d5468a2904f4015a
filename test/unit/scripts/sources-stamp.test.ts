/**
 * When the tests rebuild dist/ (test/global-setup.ts): only when it is not a build of the sources as
 * they are. The build stamps what it compiled; a fresh build (`npm ci` runs one) is used as it is.
 */
import {spawnSync} from 'node:child_process'
import {appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {ROOT} from '../../helpers/cli'

// eslint-disable-next-line @typescript-eslint/no-require-imports
const stamp = require(join(ROOT, 'scripts', 'sources-stamp.js')) as {
  BUILD_FILES: string[]
  begin(root: string): void
  end(root: string): void
  isFresh(root: string): boolean
}

let root: string
beforeEach(() => {
  // A checkout in miniature: its sources, the build's files, and a build that succeeded.
  root = mkdtempSync(join(tmpdir(), 'skewscan-stamp-'))
  mkdirSync(join(root, 'src', 'cli'), {recursive: true})
  mkdirSync(join(root, 'scripts'))
  writeFileSync(join(root, 'src', 'index.ts'), 'export const a = 1\n')
  writeFileSync(join(root, 'src', 'cli', 'b.ts'), 'export const b = 2\n')
  for (const f of stamp.BUILD_FILES) copyFileSync(join(ROOT, f), join(root, f))
})
afterEach(() => rmSync(root, {recursive: true, force: true}))

/** What `npm run build` does around the compiler, `during` standing for tsc and the manifest. */
function build(during: () => void = () => {}): void {
  rmSync(join(root, 'dist'), {recursive: true, force: true})
  stamp.begin(root)
  during()
  writeFileSync(join(root, 'dist', 'oclif.manifest.json'), '{}\n')
  stamp.end(root)
}

describe('is dist/ a build of the sources as they are', () => {
  it('yes right after a build: the tests use it as it is', () => {
    build()
    expect(stamp.isFresh(root)).toBe(true)
  })

  it('yes when only the times changed (a checkout, a copy): the hash is of the contents', () => {
    build()
    const later = new Date(Date.UTC(2030, 0, 1))
    utimesSync(join(root, 'src', 'index.ts'), later, later)
    expect(stamp.isFresh(root)).toBe(true)
  })

  it('no once a source, a new source, package.json or the tsconfig changed', () => {
    for (const change of [
      () => appendFileSync(join(root, 'src', 'cli', 'b.ts'), '// edited\n'),
      () => writeFileSync(join(root, 'src', 'cli', 'c.ts'), ''),
      () => appendFileSync(join(root, 'package.json'), '\n'),
      () => appendFileSync(join(root, 'tsconfig.json'), '\n'),
    ]) {
      build()
      change()
      expect(stamp.isFresh(root)).toBe(false)
    }
  })

  it('no when a source was edited while it compiled: the stamp is the hash taken before', () => {
    build(() => appendFileSync(join(root, 'src', 'index.ts'), '// edited during the build\n'))
    expect(stamp.isFresh(root)).toBe(false)
  })

  it('no after a build that failed (no stamp), or without the manifest', () => {
    rmSync(join(root, 'dist'), {recursive: true, force: true})
    stamp.begin(root)
    writeFileSync(join(root, 'dist', 'oclif.manifest.json'), '{}\n')
    expect(stamp.isFresh(root)).toBe(false)
    build()
    rmSync(join(root, 'dist', 'oclif.manifest.json'))
    expect(stamp.isFresh(root)).toBe(false)
  })

  it('npm run build stamps: the hash is taken before the compiler runs and becomes the stamp once all succeeded', () => {
    const steps = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.build as string).split('&&').map((s) => s.trim())
    const at = (step: string) => steps.indexOf(step)
    expect(at('node scripts/sources-stamp.js begin')).toBeGreaterThan(at('rm -rf dist'))
    expect(at('tsc -p tsconfig.json')).toBeGreaterThan(at('node scripts/sources-stamp.js begin'))
    expect(steps.at(-1)).toBe('node scripts/sources-stamp.js end')
    // And the tests' dist/ is such a build: the set-up before them made sure of it, or built it.
    expect(stamp.isFresh(ROOT)).toBe(true)
  })

  it('npm pack and npm ci build only a dist/ that is not such a build: prepack and prepare ask `sources-stamp.js fresh` first (exit 0 fresh, 1 not)', () => {
    const fresh = (): number | null => spawnSync(process.execPath, [join(root, 'scripts', 'sources-stamp.js'), 'fresh']).status
    expect(fresh()).toBe(1)
    build()
    expect(fresh()).toBe(0)
    appendFileSync(join(root, 'src', 'index.ts'), '// edited\n')
    expect(fresh()).toBe(1)
    // npm pack runs prepare too (as npm ci does): the same.
    const {prepack, prepare} = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>
    expect([prepack, prepare]).toEqual(['node scripts/sources-stamp.js fresh || npm run build', 'node scripts/sources-stamp.js fresh || npm run build'])
  })
})
