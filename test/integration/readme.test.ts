/**
 * The README and the reference in docs/ are true to the program (issue 15): the quick start is two
 * commands that work on a fresh clone; every `console` block is a command the test runs and the
 * output it must print, exactly; every skewscan command elsewhere names a command and flags that
 * exist; every flag the prose mentions exists; the probe's sample lines are what its renderer
 * prints for them. And (issue 26) the README is a front door: short, with a table of contents, and
 * every link in it and in docs/ leads somewhere that exists, in the package too.
 */
import {spawnSync} from 'node:child_process'
import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {dirname, join, relative} from 'node:path'
import {renderBarrage} from '../../src/probe/render'
import type {AssetResult, BarrageResult} from '../../src/probe/types'
import {ROOT, runCli} from '../helpers/cli'

/** The README and the reference pages; docs/commands.md is generated from the commands and held by the packaging test. */
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md') && f !== 'commands.md').sort().map((f) => `docs/${f}`)]
const TEXT = new Map(PAGES.map((p) => [p, readFileSync(join(ROOT, p), 'utf8')] as const))
const README = TEXT.get('README.md') as string
/** Everything the pages say, for the checks of what the documentation states wherever it states it. */
const ALL = [...TEXT.values()].join('\n')

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')
}

/** The headings of a Markdown page outside code fences, as GitHub links them. */
function anchors(text: string): Set<string> {
  const out = new Set<string>()
  let fence = false
  for (const l of text.split('\n')) {
    if (l.startsWith('```')) fence = !fence
    const h = /^#{1,6} (.+)$/.exec(l)
    if (!fence && h) out.add(slug(h[1] as string))
  }
  return out
}

/** The relative links of a Markdown page outside code fences: `[text](target)`. */
function links(text: string): string[] {
  let fence = false
  const out: string[] = []
  for (const l of text.split('\n')) {
    if (l.startsWith('```')) fence = !fence
    if (!fence) for (const m of l.matchAll(/\]\(([^)\s]+)\)/g)) if (!/^[a-z]+:/.test(m[1] as string)) out.push(m[1] as string)
  }
  return out
}

interface Block {
  /** The page it is on. */
  page: string
  lang: string
  body: string
  /** 1-based line of the opening fence. */
  line: number
  /** The heading the block sits under. */
  section: string
}

function blocks(): Block[] {
  return PAGES.flatMap((p) => blocksOf(p))
}

function blocksOf(page: string): Block[] {
  const out: Block[] = []
  const lines = (TEXT.get(page) as string).split('\n')
  let section = ''
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string
    if (/^#{1,3} /.test(l)) section = l.replace(/^#+ /, '')
    const open = /^```(\w*)\s*$/.exec(l)
    if (!open) continue
    const start = i
    const body: string[] = []
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i] as string)
    out.push({page, lang: open[1] ?? '', body: body.join('\n'), line: start + 1, section})
  }
  return out
}

/** Shell words of one command line: double and single quotes, a trailing comment dropped. */
function words(command: string): string[] {
  const out: string[] = []
  let cur = ''
  let quote: string | undefined
  let inWord = false
  for (const c of command) {
    if (quote) {
      if (c === quote) quote = undefined
      else cur += c
      continue
    }
    if (c === '"' || c === "'") {
      quote = c
      inWord = true
    } else if (c === '#' && !inWord) break
    else if (/\s/.test(c)) {
      if (inWord) out.push(cur)
      cur = ''
      inWord = false
    } else {
      cur += c
      inWord = true
    }
  }
  if (inWord) out.push(cur)
  return out
}

/** The skewscan invocations of a shell block: continuations joined, split at `&&`, `|` and `;`. */
function invocations(body: string): string[][] {
  const joined = body.replace(/\\\n\s*/g, ' ')
  return joined.split('\n').flatMap((l) => l.split(/&&|\||;/)).map((part) => words(part.trim()))
    .filter((w) => w[0] === 'skewscan' || w[0] === './bin/run.js').map((w) => w.slice(1))
}

const COMMANDS = ['analyze', 'compare', 'export', 'lab', 'parse', 'probe'] as const

/** Each command's flags as oclif parses them: `--name`, `--no-name` where allowed, `-c` characters. */
async function flagsOf(id: string): Promise<Set<string>> {
  type Command = {flags?: Record<string, {char?: string; allowNo?: boolean}>; enableJsonFlag?: boolean}
  const mod = (await import(join(ROOT, 'src', 'commands', `${id}.ts`))) as {default: Command & {default?: Command}}
  // A dynamic import of CommonJS under --experimental-vm-modules wraps the module once more.
  const command = mod.default.default ?? mod.default
  const flags = new Set(['--help', '-h'])
  if (command.enableJsonFlag) flags.add('--json')
  for (const [name, f] of Object.entries(command.flags ?? {})) {
    flags.add(`--${name}`)
    if (f.allowNo) flags.add(`--no-${name}`)
    if (f.char) flags.add(`-${f.char}`)
  }
  return flags
}

describe('the README and docs/ are true to the program', () => {
  const all = blocks()

  it('starts with a quick start of exactly two commands: install and analyse a shipped fixture, then the whole suite', () => {
    const quick = all.find((b) => b.page === 'README.md' && b.section === 'Quick start')
    expect(quick?.lang).toBe('sh')
    const lines = quick?.body.split('\n') ?? []
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/^npm ci && \.\/bin\/run\.js analyze fixtures\//)
    expect(lines[1]).toBe('npm test')
    // The first command's output is shown right after it, and checked below.
    const shown = all.find((b) => b.page === 'README.md' && b.section === 'Quick start' && b.lang === 'console')
    expect(shown?.body.split('\n')[0]).toBe(`$ ${(lines[0] as string).replace(/^npm ci && /, '')}`)
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {scripts: Record<string, string>}
    expect(pkg.scripts.test).toMatch(/jest/)
  })

  const consoles = all.filter((b) => b.lang === 'console')
  it('has console blocks to check', () => expect(consoles.length).toBeGreaterThanOrEqual(3))

  // A 100-column terminal, as the README says: --columns 100 is what such a terminal gives the tables.
  it.each(consoles.map((b) => [`${b.page} line ${b.line} (${b.section})`, b] as const))('the console block at %s prints what the program prints', (_label, block) => {
    const [command, ...expected] = block.body.split('\n')
    expect(command).toMatch(/^\$ (skewscan|\.\/bin\/run\.js) /)
    const args = words((command as string).slice(2)).slice(1)
    const r = runCli(args.includes('--wide') ? args : [...args, '--columns', '100'])
    expect(r.status).toBe(0)
    const printed = r.stdout.replace(/\s+$/, '').split('\n').map((l) => l.replace(/\s+$/, ''))
    expect(printed).toEqual(expected.map((l) => l.replace(/\s+$/, '')))
  })

  it('names only commands and flags that exist, wherever it shows a skewscan command', async () => {
    const flags = new Map(await Promise.all(COMMANDS.map(async (c) => [c, await flagsOf(c)] as const)))
    const problems: string[] = []
    const calls = all.filter((b) => b.lang === 'sh' || b.lang === 'console').flatMap((b) => invocations(b.lang === 'console' ? (b.body.split('\n')[0] ?? '').slice(2) : b.body).map((w) => ({w, b})))
    expect(calls.length).toBeGreaterThan(15)
    for (const {w, b} of calls) {
      // `skewscan --version` alone: oclif's own flags of the program, no command.
      if (w.length === 1 && ['--version', '-v', '--help', '-h'].includes(w[0] as string)) continue
      const known = flags.get(w[0] as (typeof COMMANDS)[number])
      if (!known) {
        problems.push(`${b.page} line ${b.line}: no command "${w[0]}"`)
        continue
      }
      for (const word of w.slice(1)) {
        const flag = /^(--?[\w-]+)/.exec(word)?.[1]
        if (flag && word.startsWith('-') && word !== '-' && !known.has(flag)) problems.push(`${b.page} line ${b.line}: ${w[0]} has no ${flag}`)
      }
    }
    expect(problems).toEqual([])
  })

  it('states the figures its prose gives as the truth and the shown output have them', () => {
    const truth = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'rolling-round-robin', 'truth.json'), 'utf8'))
    const t = truth.totals
    const race = truth.deploys[0].rolloutWindow.seconds
    expect(ALL).toContain(`has the same ${t.affectedUsers} people, ${t.byOutcome.crashed} crashed\npage loads of ${t.pageLoads}, ${t.byOutcome.lazyChunkFailed} lazy-chunk failures, ${t.byOutcome.unstyled} unstyled page loads and ${race} s race.`)
    const lab = all.find((b) => b.lang === 'console' && b.body.startsWith('$ skewscan lab --compare'))
    const rows = (lab?.body ?? '').split('\n').slice(1).map((l) => l.trim().split(/ {2,}/))
    const column = rows[0]?.indexOf('Users hit/busy') ?? -1
    const [hit, busy] = (rows.find((r) => r[0] === 'cookie affinity, rolling')?.[column] ?? '').split('/')
    expect(ALL).toContain(`here ${hit} of ${busy})`)
  })

  it('mentions only flags some command has', async () => {
    const every = new Set<string>(['--version', '-v'])
    for (const c of COMMANDS) for (const f of await flagsOf(c)) every.add(f)
    const mentioned = [...ALL.matchAll(/`(--[a-z][\w-]*)/g)].map((m) => m[1] as string)
    expect(mentioned.length).toBeGreaterThan(30)
    expect([...new Set(mentioned.filter((f) => !every.has(f)))]).toEqual([])
  })

  it('shows probe lines exactly as the probe prints them', () => {
    const sample = all.find((b) => b.section.startsWith('`skewscan probe') && b.lang === 'text')
    expect(sample).toBeDefined()
    const page = 'https://shop.example.com/'
    const VERDICTS: Record<string, BarrageResult['verdict']> = {'is all JS': 'all-ok', 'has some HTML': 'html', 'has missing assets': 'missing', 'has failed requests': 'error'}
    // Each barrage: its head line and asset lines, parsed back into a result and rendered again.
    const groups = (sample?.body ?? '').split(/\n(?=Barrage started)/)
    expect(groups.length).toBeGreaterThanOrEqual(2)
    for (const text of groups) {
      const [head, ...assetLines] = text.split('\n')
      const h = /^Barrage started at (\S+): (.+?) {2}\[build (\d+) B #(\w+)(, new build|, build changed)?; (\d+) assets\]$/.exec(head ?? '')
      expect(h).not.toBeNull()
      const assets: AssetResult[] = assetLines.map((l) => {
        const a = /^ {3}(\S+) is HTML\? (true|false) {2}(\d+) (.+?) (\d+) B(?:: ([\w-]+) \((.*)\))?$/.exec(l)
        expect(a).not.toBeNull()
        const [, path, , status, contentType, bytes, outcome, reason] = a as RegExpExecArray
        return {
          url: new URL(path as string, page).href, status: Number(status), contentType: contentType as string, bytes: Number(bytes),
          outcome: (outcome ?? 'ok') as AssetResult['outcome'], ...(reason === undefined ? {} : {reason}),
        } as AssetResult
      })
      const [, at, verdict, shellBytes, hash, mark, count] = h as RegExpExecArray
      const filler = Array.from({length: Number(count) - assets.length}, (_, i) => ({url: `${page}a${i}.js`, status: 200, contentType: 'text/javascript', bytes: 1, outcome: 'ok'}) as AssetResult)
      const b = {
        seq: 1, startedAt: Date.parse(at as string), verdict: VERDICTS[verdict as string], page: {url: page, status: 200, bytes: Number(shellBytes)},
        build: {shellBytes: Number(shellBytes), assetsHash: hash as string}, assets: [...assets, ...filler],
      } as unknown as BarrageResult
      expect(renderBarrage(b, {newBuild: mark === ', new build', changed: mark === ', build changed'})).toBe(`${text}\n`)
    }
  })
})

describe('the README is a front door to docs/', () => {
  it('is about 200 lines, the quick start\'s output included, and opens with a table of contents of its sections', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(260)
    const sections = [...README.matchAll(/^#{2,3} (.+)$/gm)].map((m) => slug(m[1] as string))
    const contents = README.slice(0, README.indexOf('\n## '))
    const listed = [...contents.matchAll(/^ *- \[[^\]]+\]\(#([^)]+)\)$/gm)].map((m) => m[1])
    expect(listed).toEqual(sections)
  })

  it('links every page of docs/, the generated command reference included', () => {
    const linked = new Set(links(README).map((l) => l.replace(/#.*$/, '')))
    const pages = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)
    expect(pages).toContain('docs/commands.md')
    expect(pages.filter((p) => !linked.has(p))).toEqual([])
  })

  it('every relative link in the README and docs/ leads to a file that exists, and an anchor to a heading on that page', () => {
    const broken: string[] = []
    for (const page of [...PAGES, 'docs/commands.md']) {
      for (const link of links(readFileSync(join(ROOT, page), 'utf8'))) {
        const [path, anchor] = link.split('#') as [string, string | undefined]
        const target = path === '' ? page : relative(ROOT, join(ROOT, dirname(page), path))
        if (!existsSync(join(ROOT, target))) broken.push(`${page}: ${link} (no ${target})`)
        else if (anchor !== undefined && !(statSync(join(ROOT, target)).isFile() && anchors(readFileSync(join(ROOT, target), 'utf8')).has(anchor))) broken.push(`${page}: ${link} (no heading #${anchor} in ${target})`)
      }
    }
    expect(broken).toEqual([])
  })

  it('ships in the package every page it links and every page and schema those link (npm pack), and names the tarball npm pack writes', () => {
    const packed = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], {cwd: ROOT, encoding: 'utf8', timeout: 60_000})
    expect(packed.status).toBe(0)
    const files = new Set((JSON.parse(packed.stdout) as [{files: {path: string}[]; filename: string}])[0].files.map((f) => f.path))
    const wanted = new Set(['README.md', 'docs/commands.md'])
    for (const page of PAGES) {
      wanted.add(page)
      for (const link of links(TEXT.get(page) as string)) {
        const target = relative(ROOT, join(ROOT, dirname(page), link.replace(/#.*$/, '')))
        if (/^(docs|schemas)\/.+\.\w+$/.test(target)) wanted.add(target)
      }
    }
    expect([...wanted].filter((f) => !files.has(f))).toEqual([])
    expect([...wanted].some((f) => f.startsWith('schemas/'))).toBe(true)
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {version: string}).version
    const install = /^npm install -g \.\/(\S+\.tgz)/m.exec(README)
    expect(install?.[1]).toBe(`skewscan-${version}.tgz`)
  })
})
