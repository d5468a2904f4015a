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
    const written = []
    for (const {format, text} of rendered) {
      const path = join(plan.outDir, `skewscan-${stamp(ctx.generatedAt)}.${EXTENSIONS[format]}`)
      await writeReport(path, text)
      written.push(path)
    }
    return {stdout: '', written}
  }
  if (plan.output) {
    if (!plan.force) await refuseToOverwrite(plan.output)
    await writeReport(plan.output, rendered.map((x) => x.text).join(''))
    return {stdout: '', written: [plan.output]}
  }
  return {stdout: rendered.map((x) => x.text).join(''), written: []}
}

/** A report never replaces a file without `--force` (as `export` does not). */
export async function refuseToOverwrite(path: string): Promise<void> {
  const exists = await fs.stat(path).then(() => true, () => false)
  if (exists) throw new InputError(`${path} exists: give --force to replace it, or another --output`, path)
}

export async function writeReport(path: string, text: string): Promise<void> {
  try {
    await fs.writeFile(path, text)
  } catch (error: unknown) {
    throw new InputError(`${path}: cannot write the report (${(error as Error).message})`, path)
  }
}
