/**
 * The house rules of docs/conventions: no import circles anywhere in src/, each folder importing
 * only the folders below it (layers.json, which lint holds too), analysis and model code pure (no
 * I/O, no oclif, no process, no clock), and the analysis read as its stages in order.
 */
import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {dirname, join, relative} from 'node:path'
import ts from 'typescript'
import {ROOT} from '../helpers/cli'
import LAYERS from '../../layers.json'

const SRC = join(ROOT, 'src')

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f)
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : []
  })
}

/** Every file's imports: relative ones resolved to files, the others as written. */
function imports(file: string): {local: string[]; packages: string[]} {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
  const local: string[] = []
  const packages: string[] = []
  for (const {fileName} of info.importedFiles) {
    if (!fileName.startsWith('.')) {
      packages.push(fileName)
      continue
    }
    const base = join(dirname(file), fileName)
    local.push(existsSync(`${base}.ts`) ? `${base}.ts` : join(base, 'index.ts'))
  }
  return {local, packages}
}

const files = sources(SRC)
const graph = new Map(files.map((f) => [f, imports(f)]))
const rel = (f: string): string => relative(ROOT, f)

/** Strongly connected components of more than one file (Tarjan). */
function circles(): string[][] {
  let index = 0
  const stack: string[] = []
  const on = new Set<string>()
  const idx = new Map<string, number>()
  const low = new Map<string, number>()
  const out: string[][] = []
  const visit = (v: string): void => {
    idx.set(v, index)
    low.set(v, index++)
    stack.push(v)
    on.add(v)
    for (const w of graph.get(v)?.local ?? []) {
      if (!idx.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number))
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) as number, idx.get(w) as number))
    }
    if (low.get(v) === idx.get(v)) {
      const c: string[] = []
      let w: string
      do {
        w = stack.pop() as string
        on.delete(w)
        c.push(rel(w))
      } while (w !== v)
      if (c.length > 1) out.push(c.sort())
    }
  }
  for (const v of graph.keys()) if (!idx.has(v)) visit(v)
  return out
}

describe('architecture', () => {
  it('has no import circles in src/', () => {
    expect(circles()).toEqual([])
  })

  it('has each folder of src/ import only the folders layers.json lets it (lazy require() and import() too)', () => {
    const layers: Record<string, readonly string[]> = LAYERS
    const folderOf = (f: string): string | undefined => {
      const parts = relative(SRC, f).split(/[/\\]/)
      return parts.length > 1 ? parts[0] : undefined
    }
    // Every folder of src/ is placed; a new one must say where it stands.
    expect(readdirSync(SRC).filter((f) => statSync(join(SRC, f)).isDirectory()).sort()).toEqual(Object.keys(layers).sort())
    const upward: string[] = []
    for (const [f, {local}] of graph) {
      const from = folderOf(f)
      if (from === undefined) continue
      for (const to of local.map(folderOf)) if (to !== undefined && to !== from && !layers[from]?.includes(to)) upward.push(`${rel(f)} -> src/${to}/`)
    }
    expect(upward).toEqual([])
    // The map itself runs one way: no two folders may import each other.
    for (const [a, allowed] of Object.entries(layers)) for (const b of allowed) expect([a, b, layers[b]?.includes(a)]).toEqual([a, b, false])
  })

  it('keeps model/ to types and constants: a class or function (an error, a helper) lives elsewhere', () => {
    for (const f of files.filter((x) => /[/\\]src[/\\]model[/\\]/.test(x))) {
      expect([rel(f), /^export\s+(default\s+)?(abstract\s+)?(class|function|async\s+function)\b/m.test(readFileSync(f, 'utf8'))]).toEqual([rel(f), false])
    }
  })

  it('keeps analysis/ and model/ pure: no I/O, oclif, process or clock, and no imports of the layers above', () => {
    const pure = files.filter((f) => /[/\\]src[/\\](analysis|model)[/\\]/.test(f))
    expect(pure.length).toBeGreaterThan(10)
    for (const f of pure) {
      const {local, packages} = graph.get(f) as {local: string[]; packages: string[]}
      expect([rel(f), packages.filter((p) => /^(node:)?(fs|http|https|net|child_process|worker_threads|os)$|^@oclif\//.test(p))]).toEqual([rel(f), []])
      expect([rel(f), local.map(rel).filter((p) => /^src[/\\](commands|cli|config|app|sources|report|probe|lab)[/\\]/.test(p))]).toEqual([rel(f), []])
      const text = readFileSync(f, 'utf8')
      expect([rel(f), /\bDate\.now\(|\bprocess\.|\bfetch\(/.test(text)]).toEqual([rel(f), false])
    }
  })

  it('reads the analysis as its stages: the streaming pass, then attribution, incidents and the report, each a file', () => {
    const uses = (f: string): string[] => (graph.get(join(SRC, 'analysis', f))?.local ?? []).map((p) => relative(join(SRC, 'analysis'), p))
    expect(uses('analyzer.ts')).toEqual(expect.arrayContaining(['detect.ts', 'deploys.ts', 'attribute.ts', 'incidents.ts', 'report.ts']))
    // Later stages never reach back into earlier ones' machinery.
    for (const later of ['attribute.ts', 'incidents.ts', 'report.ts']) expect(uses(later)).not.toContain('detect.ts')
    expect(uses('detect.ts')).not.toEqual(expect.arrayContaining(['attribute.ts']))
  })
})
