/**
 * A run stopped by SIGINT (Ctrl-C) or SIGTERM (`timeout`, `systemctl stop`) removes its temporaries
 * and exits 130 or 143. The built CLI reads standard input from a pipe this test keeps open, so the
 * run is still keeping its copy of it when the signal comes; TMPDIR is a fresh directory, watched
 * (a bounded poll) until the copy exists. The sort's spilled runs: the run is held (test/helpers/
 * spill-gate.js) with a run on disk while the signal is sent.
 */
import {spawn} from 'node:child_process'
import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {cliEnv, ROOT} from '../helpers/cli'

const SAMPLE = readFileSync(join(ROOT, 'fixtures', 'rolling-round-robin', 'ingress.log'))

/** Files under `dir`, with their sizes. */
function files(dir: string): {path: string; size: number}[] {
  return readdirSync(dir, {recursive: true, encoding: 'utf8'}).map((p) => ({path: p, size: statSync(join(dir, p)).size})).filter((f) => statSync(join(dir, f.path)).isFile())
}

it.each([
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const)('%s while standard input is kept: the copy is removed, exit %d', async (signal, code) => {
  const tmp = mkdtempSync(join(tmpdir(), 'skewscan-signal-'))
  try {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'run.js'), 'analyze', '-'], {env: cliEnv({TMPDIR: tmp}), stdio: ['pipe', 'pipe', 'pipe']})
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)))
    child.stdin.write(SAMPLE)
    // The copy of standard input exists and holds what was written (at most 20 s, polled every 50 ms).
    let kept = false
    for (let i = 0; i < 400 && !kept; i++) {
      kept = files(tmp).some((f) => f.size === SAMPLE.length)
      if (!kept) await sleep(50)
    }
    expect(kept).toBe(true)
    child.kill(signal)
    const status = await exited
    child.stdin.destroy()
    expect({status, left: readdirSync(tmp), stderr}).toEqual({status: code, left: [], stderr: expect.any(String) as string})
  } finally {
    rmSync(tmp, {recursive: true, force: true})
  }
  expect(existsSync(tmp)).toBe(false)
})

/** `n` nginx `combined` lines, newest first (as a Log Explorer export comes): sorted in runs spilled to disk past 100,000. */
function newestFirst(path: string, n: number): void {
  const t0 = Date.UTC(2026, 10, 29, 14, 0, 0)
  const lines: string[] = []
  for (let i = n - 1; i >= 0; i--) {
    const d = new Date(t0 + i * 100)
    const time = `29/Nov/2026:${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}:${String(d.getUTCSeconds()).padStart(2, '0')} +0000`
    lines.push(`10.0.${(i >> 8) & 255}.${i & 255} - - [${time}] "GET /assets/app-${i % 2}.js HTTP/1.1" 200 5000 "-" "Mozilla/5.0 Firefox/132.0"`)
  }
  writeFileSync(path, `${lines.join('\n')}\n`)
}

it.each([
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const)('%s while an input out of order is sorted in runs on disk: the runs are removed, exit %d', async (signal, code) => {
  const tmp = mkdtempSync(join(tmpdir(), 'skewscan-signal-'))
  const work = mkdtempSync(join(tmpdir(), 'skewscan-signal-gate-'))
  try {
    const input = join(work, 'export.log')
    // One run of 100,000 (DEFAULT_SPILL.runEvents) on disk, and the last 500 in a second: the one held.
    newestFirst(input, 100_500)
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'run.js'), 'analyze', '--workers', '0', input], {
      env: cliEnv({TMPDIR: tmp, SKEWSCAN_TEST_GATE: work, NODE_OPTIONS: `--require ${join(ROOT, 'test', 'helpers', 'spill-gate.js')}`}), stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)))
    // Held as it opens its second run, the first one written (at most 60 s, polled every 50 ms).
    let paused = false
    for (let i = 0; i < 1200 && !paused; i++) {
      paused = existsSync(join(work, 'paused'))
      if (!paused) await sleep(50)
    }
    expect({paused, stderr}).toEqual({paused: true, stderr: expect.stringContaining('not in time order') as string})
    expect(files(tmp).map((f) => f.path)).toEqual([expect.stringMatching(/^skewscan-sort-\w+[/\\]run-0$/)])
    child.kill(signal)
    writeFileSync(join(work, 'go'), '')
    const status = await exited
    expect({status, left: readdirSync(tmp)}).toEqual({status: code, left: []})
  } finally {
    rmSync(tmp, {recursive: true, force: true})
    rmSync(work, {recursive: true, force: true})
  }
}, 120_000)
