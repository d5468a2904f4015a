/**
 * Before any test: the CLI the tests run is the built one (bin/run.js on dist/, as the package
 * ships it, ten times faster to start than bin/dev.js compiling the sources). dist/ is rebuilt
 * whenever the sources differ from those it was built from (a hash of src/, the build's own
 * config and script), so a test never runs code older than the sources.
 */
import {spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {existsSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join, relative} from 'node:path'

const ROOT = join(__dirname, '..')
const STAMP = join(ROOT, 'dist', '.sources-hash')

function files(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((name) => {
    const p = join(dir, name)
    return statSync(p).isDirectory() ? files(p) : [p]
  })
}

export function sourcesHash(): string {
  const h = createHash('sha256')
  for (const f of [...files(join(ROOT, 'src')), ...['package.json', 'tsconfig.json', 'scripts/build-manifest.js'].map((p) => join(ROOT, p))]) {
    h.update(relative(ROOT, f)).update('\0').update(readFileSync(f)).update('\0')
  }
  return h.digest('hex')
}

export default function globalSetup(): void {
  const hash = sourcesHash()
  if (existsSync(STAMP) && readFileSync(STAMP, 'utf8') === hash && existsSync(join(ROOT, 'dist', 'oclif.manifest.json'))) return
  const r = spawnSync('npm', ['run', 'build'], {cwd: ROOT, encoding: 'utf8', timeout: 300_000})
  if (r.status !== 0) throw new Error(`npm run build failed before the tests (exit ${r.status}):\n${r.stdout}\n${r.stderr}`)
  writeFileSync(STAMP, hash)
}
