import {promises as fs} from 'node:fs'
import {join} from 'node:path'
import type {AnalysisReport} from '../model/report'
import {EXTENSIONS, type Format, render, type RenderContext} from '../report/formats'
import {InputError} from '../sources/errors'

export interface OutputPlan {
  formats: Format[]
  /** Write the one format here instead of stdout. */
  output?: string
  /** Write every format to a dated file in this folder. */
  outDir?: string
  /** `output` may replace a file that exists. */
  force?: boolean
}

export interface Delivery {
  /** What goes to stdout (nothing when the reports went to files). */
  stdout: string
  written: string[]
}

/** `2026-11-30T08:00:00.123Z` -> `20261130T080000Z`, for file names that sort by time. */
export function stamp(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '')
}

/** Renders every requested format and writes it where the plan says. */
export async function deliver(r: AnalysisReport, plan: OutputPlan, ctx: RenderContext): Promise<Delivery> {
  const rendered = plan.formats.map((format) => ({format, text: render(format, r, ctx)}))
  if (plan.outDir) {
    await fs.mkdir(plan.outDir, {recursive: true}).catch((error: unknown) => {
      throw new InputError(`--out-dir ${plan.outDir}: cannot create it (${(error as Error).message})`, plan.outDir ?? '')
    })
    return {stdout: '', written: await writeDated(plan.outDir, stamp(ctx.generatedAt), rendered)}
  }
  if (plan.output) {
    if (!plan.force) await refuseToOverwrite(plan.output)
    await writeReport(plan.output, rendered.map((x) => x.text).join(''))
    return {stdout: '', written: [plan.output]}
  }
  return {stdout: rendered.map((x) => x.text).join(''), written: []}
}

/** Names tried for one run's reports in --out-dir before giving up: `-2` … after the bare stamp. */
const MAX_SUFFIX = 1000

/**
 * Every format of one run, in `dir`, under one dated name: `skewscan-<stamp>.<ext>`, or
 * `skewscan-<stamp>-2.<ext>` and so on when a run of the same second (a cron job and a manual run)
 * took the name. Files are created exclusively, so two runs writing at once never replace each
 * other's reports; a run that finds its name taken part-way removes what it wrote and takes the next.
 */
async function writeDated(dir: string, stampText: string, rendered: {format: Format; text: string}[]): Promise<string[]> {
  for (let n = 1; n <= MAX_SUFFIX; n++) {
    const name = `skewscan-${stampText}${n === 1 ? '' : `-${n}`}`
    const written: string[] = []
    let taken = false
    for (const {format, text} of rendered) {
      const path = join(dir, `${name}.${EXTENSIONS[format]}`)
      if (await writeReport(path, text, true)) written.push(path)
      else {
        taken = true
        break
      }
    }
    if (!taken) return written
    await Promise.all(written.map((p) => fs.rm(p, {force: true})))
  }
  throw new InputError(`--out-dir ${dir}: ${MAX_SUFFIX} reports of this second are there already`, dir)
}

/** A report never replaces a file without `--force` (as `export` does not). */
export async function refuseToOverwrite(path: string): Promise<void> {
  const exists = await fs.stat(path).then(() => true, () => false)
  if (exists) throw new InputError(`${path} exists: give --force to replace it, or another --output`, path)
}

/** Writes a report; `exclusive`: only a new file, false when the name is taken. */
export async function writeReport(path: string, text: string, exclusive = false): Promise<boolean> {
  try {
    await fs.writeFile(path, text, exclusive ? {flag: 'wx'} : {})
    return true
  } catch (error: unknown) {
    if (exclusive && (error as {code?: string}).code === 'EEXIST') return false
    throw new InputError(`${path}: cannot write the report (${(error as Error).message})`, path)
  }
}
